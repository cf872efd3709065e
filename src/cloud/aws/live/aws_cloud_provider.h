// File: aws_cloud_provider.h
//
// AwsCloudProvider: the AWS cloud provider of `tidepool autoscale --cloud-provider aws`, a
// cloud::CloudProvider over EC2 Auto Scaling groups (ASGs), EC2 and EKS managed node groups,
// through an AwsClient (aws_client.h: libcurl's SigV4, the SDK's retries). Semantics are the
// Cluster Autoscaler's AWS provider (cloudprovider/aws, 1.31.5) unless said otherwise; notes
// and quotes: /work/notes/ca-aws-semantics.md of the session that wrote this.
//
//   - Node groups are ASGs: those named by --nodes (MIN:MAX:NAME; fetched by name, 100 per
//     DescribeAutoScalingGroups; the flag's limits win; a name AWS does not know is warned
//     about and skipped) and those found by --node-group-auto-discovery
//     (asg:tag=k1,k2=v: every spec's tags merged and ANDed; a tag with a value is the filter
//     tag:<k>=<v>, a bare key the filter tag-key=<k>; MaxRecords 100, every NextToken page;
//     min/max from the ASG). Id = the ASG name.
//   - Refresh() reads the groups again every call (deviation: CA keeps its ASG cache for a
//     minute; one call per 100 groups per loop is cheap and the instances stay current). A
//     failure keeps the previous state and is returned. Instance types and EKS node groups are
//     cached as CA caches them (20 min; 6 min).
//   - Placeholders: when DesiredCapacity exceeds the ASG's instances, the missing ones are
//     "i-placeholder-<asg>-<i>" in the ASG's first zone, kCreating. If the group's scaling
//     activities (DescribeScalingActivities, first page) show one with StatusCode "Failed" that
//     started no earlier than this provider's last size change, the placeholders carry CA's
//     OutOfResources "placeholder-cannot-be-fulfilled", "AWS cannot provision any more
//     instances for this node group" (the engine backs the group off and falls back).
//   - Nodes(): one Instance per ASG instance, id "aws:///<az>/<instance id>"; state by
//     LifecycleState: Pending* kCreating, Terminating*/Terminated kDeleting, else kRunning
//     (deviation: CA reports no state).
//   - IncreaseSize: "size increase must be positive", "size increase too large - desired:%d
//     max:%d"; SetDesiredCapacity (HonorCooldown false).
//   - DecreaseTargetSize: "size decrease size must be negative"; refused with "attempt to
//     delete existing nodes targetSize:%d delta:%d existingNodes: %d" below the ASG's real
//     instances (deviation: CA counts placeholders too, which refuses every decrease while
//     placeholders stand); SetDesiredCapacity.
//   - DeleteNodes(names): node names (EKS names nodes by their private DNS name: resolved with
//     one EC2 DescribeInstances on private-dns-name), instance ids or provider ids. Refused with
//     "min size reached, nodes will not be deleted" when the target is at MinSize; "%s doesn't
//     belong to a known asg" / "%s belongs to a different asg than %s". Placeholders lower the
//     desired capacity to the ASG's real instances; each real instance not already terminating
//     is terminated with TerminateInstanceInAutoScalingGroup, ShouldDecrementDesiredCapacity
//     true.
//   - TemplateNode(): the instance type from the launch configuration, else the launch
//     template (DescribeLaunchTemplateVersions by name and version, "$Default" when none), else
//     the mixed instances policy's first override (or its template); its shape from the AWS
//     catalog (aws_catalog.h), else EC2 DescribeInstanceTypes (DefaultVCpus, SizeInMiB, GPUs,
//     the first supported architecture, max pods from the ENI limits).
//     Labels: the ASG's k8s.io/cluster-autoscaler/node-template/label/<k> tags, then an EKS
//     managed node group's (eks:cluster-name + eks:nodegroup-name tags -> EKS
//     DescribeNodegroup: labels, capacity type, disk size), then the node's own as EKS's
//     kubelet registers them (eks_node_style.h, the same code as `tidepool up --cloud aws`);
//     taints: node-template/taint/<k> = value:Effect tags, then the node group's (NO_SCHEDULE ->
//     NoSchedule ...); k8s.io/cluster-autoscaler/node-template/resources/<r> tags set capacity
//     and allocatable. Capacity and allocatable are EKS's (kube-reserved, max pods by ENI)
//     (deviation: CA's template has pods 110 and allocatable = capacity, a TODO in its code).
//   - NodeGroupForNode(): by spec.providerID among the groups' instances; nullptr otherwise.
//   - GpuLabel(): k8s.amazonaws.com/accelerator; AvailableGpuTypes(): CA's list.
//
// Threading: not thread-safe; the autoscaler calls it from its one control-loop thread.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "cloud/aws/live/aws_client.h"
#include "cloud/cloud_provider.h"
#include "cloud/emulated/catalog.h"
#include "cloud/node_group_spec.h"
#include "common/clock.h"
#include "common/log.h"

namespace tidepool::cloud::aws::live {

// Every AWS API call the provider may make, as IAM names them ("autoscaling:SetDesiredCapacity"),
// sorted: what deploy/eks/iam/iam-policy.json allows (a test keeps them equal).
std::vector<std::string> AwsProviderActions();

// --node-group-auto-discovery values as CA's AWS provider parses them, merged: tag -> value
// ("" for a bare key). InvalidArgument with CA's texts.
StatusOr<std::map<std::string, std::string>> ParseAsgAutoDiscovery(
    const std::vector<std::string>& specs);

struct AwsProviderOptions {
  std::vector<NodeGroupSpec> node_groups;        // --nodes
  std::map<std::string, std::string> discovery;  // ParseAsgAutoDiscovery's
  emulated::Catalog catalog;                     // known instance types (AwsCatalog())
  log::Logger* logger = nullptr;                 // optional; must outlive the provider
};

class AwsCloudProvider;

class AwsNodeGroup final : public NodeGroup {
 public:
  AwsNodeGroup(AwsCloudProvider& provider, std::string asg) : provider_(provider), asg_(asg) {}
  std::string Id() const override { return asg_; }
  int MinSize() const override;
  int MaxSize() const override;
  StatusOr<int> TargetSize() const override;
  Status IncreaseSize(int delta) override;
  Status DeleteNodes(const std::vector<std::string>& node_names) override;
  Status DecreaseTargetSize(int delta) override;
  StatusOr<std::vector<Instance>> Nodes() const override;
  StatusOr<api::Node> TemplateNode() const override;
  std::string Debug() const override;

 private:
  AwsCloudProvider& provider_;
  const std::string asg_;
};

class AwsCloudProvider final : public CloudProvider {
 public:
  // `client` and `clock` must outlive the provider.
  AwsCloudProvider(AwsProviderOptions options, AwsClient& client, const Clock& clock);
  ~AwsCloudProvider() override;

  std::string_view Name() const override { return "aws"; }
  std::vector<NodeGroup*> NodeGroups() override;
  NodeGroup* NodeGroupForNode(const api::Node& node) override;
  std::string GpuLabel() const override;
  std::optional<GpuConfig> GetNodeGpuConfig(const api::Node& node) const override;
  std::vector<std::string> AvailableGpuTypes() const override;
  Status Refresh() override;

  // ---- Used by AwsNodeGroup ----
  struct AsgInstance {
    std::string id;  // "i-..." or "i-placeholder-<asg>-<n>"
    std::string zone;
    std::string lifecycle;  // LifecycleState; "" for a placeholder
    bool placeholder = false;
    std::string ProviderId() const { return "aws:///" + zone + "/" + id; }
  };
  struct Asg {
    std::string name;
    int min = 0;
    int max = 0;
    int desired = 0;
    std::vector<std::string> zones;
    std::vector<AsgInstance> instances;  // real ones, then placeholders
    std::map<std::string, std::string> tags;
    std::string launch_configuration;
    std::string template_name;  // the launch template's (direct or mixed policy's)
    std::string template_version;
    std::vector<std::string> override_types;  // the mixed policy's, in order
    bool unfulfillable = false;               // placeholders carry the error
    int Real() const;
  };
  const Asg* Find(const std::string& name) const;
  Status IncreaseSize(const std::string& asg, int delta);
  Status DecreaseTargetSize(const std::string& asg, int delta);
  Status DeleteNodes(const std::string& asg, const std::vector<std::string>& names);
  StatusOr<std::vector<Instance>> Instances(const std::string& asg) const;
  StatusOr<api::Node> TemplateNode(const std::string& asg) const;

 private:
  // An instance type EC2 described (DescribeInstanceTypes).
  struct CachedType {
    emulated::MachineType machine;
    std::string arch;  // "amd64" or "arm64", as CA reads supportedArchitectures
    TimePoint fetched;
  };
  struct CachedNodegroup {
    api::Labels labels;
    std::vector<api::Taint> taints;
    std::map<std::string, std::string> tags;
    bool spot = false;
    int64_t disk_gb = 0;
    TimePoint fetched;
  };

  StatusOr<std::vector<Asg>> Describe(const QueryParams& selector) const;
  StatusOr<std::vector<Asg>> FetchGroups();
  Status SetDesired(Asg& asg, int size);
  StatusOr<bool> Unfulfillable(const Asg& asg) const;
  StatusOr<std::string> InstanceType(const Asg& asg) const;
  StatusOr<emulated::MachineType> Shape(const std::string& type) const;
  StatusOr<CachedNodegroup> Nodegroup(const Asg& asg) const;
  StatusOr<std::map<std::string, std::string>> InstanceIdsOfNodeNames(
      const std::vector<std::string>& names) const;
  Asg* FindMutable(const std::string& name);
  void Log(const std::string& msg) const;
  // Logs `msg` the first time `key` is seen (keys are bounded: node groups, --nodes names).
  void WarnOnce(const std::string& key, const std::string& msg) const;

  const AwsProviderOptions options_;
  AwsClient& client_;
  const Clock& clock_;

  std::vector<Asg> asgs_;  // by name
  std::unordered_map<std::string, std::string> asg_by_provider_id_;
  std::map<std::string, TimePoint> last_size_change_;  // by ASG
  std::map<std::string, std::unique_ptr<AwsNodeGroup>, std::less<>> groups_;
  mutable std::map<std::string, CachedType> types_;
  mutable std::map<std::string, CachedNodegroup> nodegroups_;  // by "<cluster>/<nodegroup>"
  mutable std::set<std::string> warned_;
};

}  // namespace tidepool::cloud::aws::live
