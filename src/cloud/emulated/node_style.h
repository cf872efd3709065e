// File: node_style.h
//
// NodeStyle: what differs between the managed Kubernetes services the emulated cloud plays. The
// VMs, pools, lifecycle, delays, faults and journal are the same for every cloud; a style says
// how a VM and its node are named (node name, provider ID), which labels the kubelet registers
// the node with, what the node's capacity and allocatable are, how a zone names its region, and
// which labels carry the node pool, the GPU type and the capacity type - for the emulated cloud's
// nodes and for the autoscaler's view of them (EmulatedCloudProvider: its name, GPU label, spot
// label for prices).
//
// GkeNodeStyle() is GKE's (the default of EmulatedCloudOptions); cloud/aws has EKS's. A style is
// stateless: every draw comes from the cloud's Random, in the order the cloud calls it, so a seed
// replays exactly.
//
// Threading: const methods only; safe to share between clouds and threads.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "api/node.h"
#include "api/resource_list.h"
#include "cloud/cloud_provider.h"
#include "cloud/emulated/catalog.h"
#include "common/random.h"

namespace tidepool::cloud::emulated {

// A new VM's names: the Node's name (the key of the cloud's VMs) and spec.providerID.
struct VmIdentity {
  std::string name;
  std::string provider_id;
};

// What a style may name a VM after. `base` is GKE's instance-group base name for the VM's zone
// ("gke-<cluster>-<pool>-<hash>"); `project` is GKE's project or AWS's account.
struct VmNaming {
  std::string_view project;
  std::string_view pool;
  std::string_view zone;
  std::string_view base;
};

// What a node's labels are made of.
struct NodeFacts {
  std::string_view node;
  std::string_view zone;
  std::string_view pool;
  const MachineType* machine = nullptr;
  bool spot = false;
  // The pool's effective accelerator type; empty for a CPU pool.
  std::string_view accelerator_type;
};

// What a node's kubelet reports in status.nodeInfo about the machine image it runs.
struct NodeSystem {
  std::string kernel_version;
  std::string os_image;
  std::string container_runtime_version;
  std::string kubelet_version;
};

// What one VM takes of a quota: `amount` of metric `metric` (GKE: GPUs of a GPU quota metric
// such as NVIDIA_T4_GPUS or PREEMPTIBLE_NVIDIA_T4_GPUS; AWS: vCPUs of an EC2 quota code such as
// L-DB2E81BA, "Running On-Demand G and VT instances").
struct QuotaUse {
  std::string metric;
  int64_t amount = 0;
};

class NodeStyle {
 public:
  virtual ~NodeStyle() = default;

  // The autoscaler's name of the cloud (CA's --cloud-provider): "gke", "aws".
  virtual std::string_view ProviderName() const = 0;
  // The node label naming the node's pool: cloud.google.com/gke-nodepool,
  // eks.amazonaws.com/nodegroup.
  virtual std::string_view PoolLabel() const = 0;
  // CA's GPU label for this cloud: cloud.google.com/gke-accelerator,
  // k8s.amazonaws.com/accelerator.
  virtual std::string_view GpuLabel() const = 0;
  // Whether a node's labels say it is a spot VM.
  virtual bool IsSpot(const api::Labels& labels) const = 0;
  // The autoscaler's id of a pool created without one (NodePoolSpec::group_id): "" for the
  // pool's name (GKE); EKS: its Auto Scaling group, "eks-<pool>-<uuid>".
  virtual std::string DefaultGroupId(std::string_view pool) const = 0;
  // A node's boot disk when the pool names none, in GB (GKE: 100; EKS: 20).
  virtual int64_t DefaultDiskGb() const = 0;
  // The cluster's service range when the cluster names none (GKE's servicesIpv4Cidr:
  // "34.118.224.0/20"; EKS's kubernetesNetworkConfig.serviceIpv4Cidr: "10.100.0.0/16").
  virtual std::string_view DefaultServiceRange() const = 0;
  // The address of the cluster's `n`-th load balancer (0, 1, ...), for the Service `uid` in
  // `region`: what the cloud's service controller writes in status.loadBalancer.ingress[0].
  // GKE: an external IP ({"ip": "34.41.0.1"}); EKS: a classic ELB's DNS name ({"hostname":
  // "a<uid without dashes>-<10 digits>.<region>.elb.amazonaws.com"}).
  struct LoadBalancerIngress {
    std::string ip;
    std::string hostname;
  };
  virtual LoadBalancerIngress LoadBalancer(uint32_t n, std::string_view uid,
                                           std::string_view region) const = 0;
  // Whether a GPU pool gets nvidia.com/gpu=present:NoSchedule by itself (GKE: yes; EKS: the
  // user's taint only).
  virtual bool TaintsGpuPools() const = 0;
  // "us-central1" for GKE's "us-central1-a"; "us-west-2" for AWS's "us-west-2a".
  virtual std::string RegionOf(std::string_view zone) const = 0;
  // Names a new VM. `taken(name)` is true for a node name in use; the style draws again then.
  virtual VmIdentity NewVm(const VmNaming& naming, Random& random,
                           const std::function<bool(std::string_view)>& taken) const = 0;
  // The node's labels (the kubelet's, the cloud's), written over `labels` (the pool's own).
  virtual void AddNodeLabels(api::Labels& labels, const NodeFacts& facts) const = 0;
  // The machine image's versions (GKE's Container-Optimized OS, EKS's Amazon Linux AMI).
  virtual NodeSystem System() const = 0;
  // The quota a VM of `machine` (with `gpus`) counts against, if any. Quotas are limited per
  // region by Faults::gpu_quota (keyed by metric).
  virtual std::optional<QuotaUse> QuotaOf(const Catalog& catalog, const MachineType& machine,
                                          const std::optional<Accelerator>& gpus,
                                          bool spot) const = 0;
  // How a request beyond quota fails. False (GKE): the resize or create is refused with
  // Compute Engine's QUOTA_EXCEEDED. True (AWS): the request is accepted and the launch fails
  // (QuotaError), as an Auto Scaling group's launch does with VcpuLimitExceeded.
  virtual bool QuotaFailsLaunches() const = 0;
  // The failed launch's error when QuotaFailsLaunches (`limit` of `use.metric`).
  virtual InstanceErrorInfo QuotaError(const QuotaUse& use, int64_t limit, bool spot) const = 0;
  // The error a VM creation fails with when the zone is out of its machine type (a stockout
  // fault), as the cloud's autoscaler API reports it: GCE's ZONE_RESOURCE_POOL_EXHAUSTED; on
  // AWS, CA's AWS provider's placeholder-cannot-be-fulfilled with the Auto Scaling activity's
  // InsufficientInstanceCapacity text.
  virtual InstanceErrorInfo StockoutError(std::string_view project, std::string_view zone,
                                          const MachineType& machine, bool spot) const = 0;
  // status.capacity and status.allocatable of a node of `machine` whose GPUs are `gpus`
  // (nullopt before the device plugin runs, or for a CPU machine).
  virtual api::ResourceList Capacity(const MachineType& machine,
                                     const std::optional<Accelerator>& gpus,
                                     int64_t disk_gb) const = 0;
  virtual api::ResourceList Allocatable(const MachineType& machine,
                                        const std::optional<Accelerator>& gpus,
                                        int64_t disk_gb) const = 0;
};

// The IPv4 address a node is named after ("10.0.3.7" for EKS's "ip-10-0-3-7.<suffix>": the
// private DNS name of its instance, what its kubelet registers as InternalIP); "" if the name
// is not of that form.
std::string IpInNodeName(std::string_view node);

// GKE's: VM names "<base>-<4 random [a-z0-9]>", provider IDs gce://<project>/<zone>/<name>,
// EmulatedCloud::AddGkeNodeLabels, catalog.h's GKE capacity and allocatable.
const NodeStyle& GkeNodeStyle();

}  // namespace tidepool::cloud::emulated
