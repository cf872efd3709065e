// File: gke_cloud_provider.h
//
// GkeCloudProvider: the live GKE cloud provider of `tidepool autoscale`, a cloud::CloudProvider
// for one cluster that talks only to Google's public REST APIs - container v1 for node pools
// and compute v1 for their managed instance groups (MIGs) - through a Transport with OAuth
// tokens from a TokenSource. Endpoints are overridable, so the same code runs against real GKE
// and against `tidepool up`'s GKE API (cloud/gke/gke_api.h).
//
// Model (cluster-autoscaler's GCE provider, cloudprovider/gce, 1.32, unless said otherwise):
//   - Refresh() lists the cluster's node pools (GET v1/projects/P/locations/L/clusters/C/
//     nodePools). Every pool with autoscaling.enabled that is not STOPPING is a NodeGroup whose
//     Id is the pool name; min/max are totalMin/MaxNodeCount when set, else min/maxNodeCount
//     times the pool's zone count (GKE's are per zone). With explicit groups
//     (options.node_groups, CA's --nodes=MIN:MAX:NAME) the node groups are exactly the pools
//     named - by pool name, or by the URL of a single-zone pool's instance group as CA's GCE
//     provider takes it - with those limits (totals), whether or not GKE's autoscaling is on:
//     that is how tidepool runs on GKE in place of GKE's autoscaler (which must then be off for
//     those pools; a warning says so when it is not). Names that match nothing are warned
//     about once and skipped. For each of those pools' MIGs (from
//     instanceGroupUrls) it reads instanceGroupManagers.get (targetSize) and
//     listManagedInstances, cached until the next Refresh(). A MIG that answers 404 (its pool
//     is going away) is skipped; any other error fails Refresh() and keeps the previous state.
//   - TargetSize() is the cached sum of targetSize, adjusted by this provider's own changes.
//   - IncreaseSize(delta): refused above MaxSize with CA's "size increase too large -
//     desired:%d max:%d". A single-zone pool is resized with container nodePools.setSize
//     (nodeCount = the new total), as issue 6 asks; a multi-zone pool cannot take a total that is
//     not a multiple of its zones through setSize, so its MIGs are resized one by one with
//     compute instanceGroupManagers.resize, the smallest first (what CA does per MIG).
//   - DeleteNodes(names): node names or provider ids "gce://P/Z/NAME", looked up in the cached
//     managed instances (a provider id of an instance not yet seen is taken at its word if its
//     zone has a MIG of this pool). Refused (CA's "min size reached, nodes will not be deleted")
//     when a live instance is named and the target would drop below MinSize - the emulated
//     cloud's rule; instances whose creation failed can always be deleted (CA's
//     ForceDeleteNodes for failed scale-ups). One compute deleteInstances per MIG, with the
//     instances' URLs.
//   - DecreaseTargetSize(delta): CA's check - refused with "attempt to delete existing nodes
//     targetSize:%d delta:%d existingNodes: %d" when target + delta is below the number of
//     managed instances (those being deleted not counted: the target no longer includes them) -
//     then compute resize to the lower size, taken from the largest MIGs first.
//   - Nodes(): one Instance per managed instance, id gce://P/Z/NAME from its instance URL;
//     currentAction CREATING / RECREATING / CREATING_WITHOUT_RETRIES is kCreating, ABANDONING /
//     DELETING kDeleting, anything else kRunning. A creating instance's lastAttempt errors give
//     its InstanceErrorInfo exactly as CA's FetchMigInstances maps them: RESOURCE_POOL_EXHAUSTED
//     / ZONE_RESOURCE_POOL_EXHAUSTED / ZONE_RESOURCE_POOL_EXHAUSTED_WITH_DETAILS -> OutOfResources
//     "RESOURCE_POOL_EXHAUSTED"; codes containing QUOTA -> OutOfResources "QUOTA_EXCEEDED";
//     IP_SPACE_EXHAUSTED, PERMISSIONS_ERROR, the vmExternalIpAccess CONDITION_NOT_MET -> Other
//     with CA's codes; any other error while the VM is not running yet -> Other "OTHER"; the
//     messages joined with "; ".
//   - TemplateNode(): built from the pool's config as the emulated cloud builds its nodes (same
//     labels, GKE's automatic nvidia.com/gpu=present:NoSchedule taint on GPU pools, capacity
//     and allocatable from emulated/catalog.h's Capacity/Allocatable, the one implementation of
//     GKE's reservations); the machine shape from the catalog, else compute machineTypes.get
//     (guestCpus, memoryMb, built-in accelerators), cached.
//   - NodeGroupForNode(): by spec.providerID among the cached managed instances, else by the
//     cloud.google.com/gke-nodepool label; nullptr unless the pool is an autoscaled group.
//
// Operations. setSize returns a container Operation, polled (GET v1/projects/P/locations/L/
// operations/NAME) every options.poll_interval until DONE, for at most
// options.container_operation_timeout: DONE with an error (error.message / statusMessage) is
// that error (ResourceExhausted for quota and stockouts); still RUNNING at the deadline is
// success, logged at V(2) - GKE keeps a resize operation open until the new nodes are up, and the
// engine follows them through Nodes() (deviation from CA's GCE waitForOp, which fails on
// timeout). Compute operations (deleteInstances, resize) are polled on the zone's operations
// until DONE for at most options.compute_operation_timeout (CA's 20 s), a timeout being an error
// ("timeout while waiting for operation %s on %s to complete.", CA's text) and DONE with
// error.errors[] an error with their codes and messages.
//
// Errors from the APIs are Status values with the cloud's text (google_error.h): 429
// ResourceExhausted, 5xx Unavailable, so the engine's backoff and fallback see them.
//
// Threading: not thread-safe; the autoscaler calls it from its one control-loop thread, except
// Stop(), which any thread may call to cut operation waits short.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "cloud/cloud_provider.h"
#include "cloud/emulated/catalog.h"
#include "cloud/gke/live/token_source.h"
#include "cloud/gke/live/transport.h"
#include "cloud/node_group_spec.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/stop_signal.h"

namespace tidepool::cloud::gke::live {

struct GkeProviderOptions {
  std::string project;
  std::string location;  // the cluster's zone (or region)
  std::string cluster;
  // With a trailing '/'. Against `tidepool up`: "http://HOST:PORT/" and
  // "http://HOST:PORT/compute/v1/".
  std::string container_endpoint = "https://container.googleapis.com/";
  std::string compute_endpoint = "https://compute.googleapis.com/compute/v1/";
  Duration poll_interval = std::chrono::milliseconds(500);
  Duration container_operation_timeout = std::chrono::seconds(20);
  Duration compute_operation_timeout = std::chrono::seconds(20);
  // Explicit node groups (CA's --nodes); empty: the pools with GKE autoscaling enabled.
  std::vector<NodeGroupSpec> node_groups;
  // Machine shapes known without asking compute.
  cloud::emulated::Catalog catalog = cloud::emulated::Catalog::Gke();
  // Optional; must outlive the provider.
  log::Logger* logger = nullptr;
  // Waits `d` between operation polls; returns false to stop waiting (shutdown). Empty: a
  // condition-variable wait that Stop() interrupts. Tests advance a simulated clock here.
  std::function<bool(Duration)> sleep;
};

class GkeCloudProvider;

// A node pool as a NodeGroup. Owned by the provider and kept for its lifetime (pointers from
// NodeGroups() stay valid); a pool that disappeared fails every call with NotFound.
class GkeNodeGroup final : public NodeGroup {
 public:
  GkeNodeGroup(GkeCloudProvider& provider, std::string pool);

  std::string Id() const override { return pool_; }
  int MinSize() const override;
  int MaxSize() const override;
  StatusOr<int> TargetSize() const override;
  Status IncreaseSize(int delta) override;
  Status DeleteNodes(const std::vector<std::string>& node_names) override;
  Status DecreaseTargetSize(int delta) override;
  StatusOr<std::vector<Instance>> Nodes() const override;
  StatusOr<api::Node> TemplateNode() const override;
  // "gpu-pool (0:5)".
  std::string Debug() const override;

 private:
  GkeCloudProvider& provider_;
  const std::string pool_;
};

class GkeCloudProvider final : public CloudProvider {
 public:
  // `transport`, `clock` and `tokens` (nullptr: no Authorization header, e.g. against
  // `tidepool up`) must outlive the provider.
  GkeCloudProvider(GkeProviderOptions options, Transport& transport, TokenSource* tokens,
                   const Clock& clock);
  ~GkeCloudProvider() override;

  std::string_view Name() const override { return "gke"; }
  std::vector<NodeGroup*> NodeGroups() override;
  NodeGroup* NodeGroupForNode(const api::Node& node) override;
  std::string GpuLabel() const override;
  // As the emulated provider: the cloud.google.com/gke-accelerator label's type; a node with
  // nvidia.com/gpu allocatable but no label gets an empty type; nullopt otherwise.
  std::optional<GpuConfig> GetNodeGpuConfig(const api::Node& node) const override;
  Status Refresh() override;

  // Interrupts operation waits (they return as if timed out). Thread-safe.
  void Stop();

  // ---- Used by GkeNodeGroup ----
  // One entry of listManagedInstances' managedInstances[].
  struct ManagedInstance {
    std::string url;  // "instance"
    std::string project;
    std::string zone;
    std::string name;
    std::string current_action;   // CREATING, NONE, DELETING, ...
    std::string instance_status;  // empty while there is no VM
    std::vector<std::pair<std::string, std::string>> errors;  // lastAttempt: code, message
    std::string ProviderId() const { return "gce://" + project + "/" + zone + "/" + name; }
  };
  struct Mig {
    std::string project;
    std::string zone;
    std::string name;
    int target_size = 0;
    std::vector<ManagedInstance> instances;
  };
  struct Pool {
    std::string name;
    bool autoscaled = false;       // a node group of this provider
    bool gke_autoscaling = false;  // autoscaling.enabled on GKE's side
    bool stopping = false;
    int min_nodes = 0;  // totals
    int max_nodes = 0;
    std::vector<std::string> zones;
    std::string machine_type;
    std::optional<cloud::emulated::Accelerator> accelerator;  // as configured
    api::Labels labels;
    std::vector<api::Taint> taints;
    bool spot = false;
    int64_t disk_size_gb = cloud::emulated::kDefaultBootDiskGb;
    std::vector<Mig> migs;
  };
  const Pool* FindPool(const std::string& name) const;
  Pool* FindPool(const std::string& name);
  Status IncreaseSize(const std::string& pool, int delta);
  Status DeleteNodes(const std::string& pool, const std::vector<std::string>& names);
  Status DecreaseTargetSize(const std::string& pool, int delta);
  StatusOr<std::vector<Instance>> Instances(const std::string& pool) const;
  StatusOr<api::Node> TemplateNode(const std::string& pool) const;

 private:
  // One call: Authorization from the token source, JSON in and out; non-2xx replies become
  // Status (google_error.h).
  StatusOr<std::string> Call(const std::string& method, const std::string& url,
                             const std::string& body = "") const;
  std::string ContainerUrl(const std::string& rest) const;
  std::string ComputeUrl(const std::string& rest) const;
  // Polls until DONE or the timeout (see the file comment).
  Status AwaitContainerOperation(const std::string& operation_json);
  Status AwaitComputeOperation(const std::string& zone, const std::string& operation_json);
  bool Sleep(Duration d);
  StatusOr<std::vector<Pool>> FetchPools();
  Status ResizeMig(Pool& pool, Mig& mig, int size);
  StatusOr<cloud::emulated::MachineType> MachineShape(const Pool& pool) const;
  void Log(const std::string& msg) const;
  // The explicit group naming `pool`, or nullptr.
  const NodeGroupSpec* ExplicitSpecFor(const Pool& pool) const;
  void WarnOnce(const std::string& msg) const;

  // Constant after construction.
  const GkeProviderOptions options_;
  Transport& transport_;
  TokenSource* const tokens_;
  const Clock& clock_;

  std::vector<Pool> pools_;  // by name
  // gce://P/Z/NAME of every listed managed instance -> its pool, as of the last Refresh().
  std::unordered_map<std::string, std::string> pool_by_provider_id_;
  mutable std::set<std::string> warned_;
  std::map<std::string, std::unique_ptr<GkeNodeGroup>, std::less<>> groups_;
  mutable std::map<std::string, cloud::emulated::MachineType> machine_cache_;

  StopSignal stop_;
};

}  // namespace tidepool::cloud::gke::live
