// File: emulated_cloud.h
//
// The emulated GPU cloud: GKE-shaped node pools whose VMs boot, register as Kubernetes Nodes,
// turn Ready and (for GPU pools) get their driver and device plugin, all on an injected
// TimerService, with configurable delays and faults. Used by `tidepool up` (served as GKE's API
// by cloud/gke) and `tidepool simulate`; the autoscaler sees it through Provider(), a
// CloudProvider.
//
// Design
//   - The cluster side is a NodeSink (the object store, or a test recorder): the cloud calls
//     UpsertNode when a VM's kubelet registers or the node's status changes and DeleteNode when
//     the VM is gone. It plays the kubelet and the GPU device plugin / GPU Feature Discovery.
//     (The not-ready taint is the API server's admission and the node lifecycle controller's,
//     as in a real cluster.)
//   - Observers (CloudObserver) see every lifecycle step as a CloudEvent: instance requested /
//     running / failed / stopping / deleted, node registered / ready / GPU ready, pool status.
//     Simulation reports, Kubernetes Events and tests hang off this hook.
//   - Everything that happens later is a TimerService callback; nothing sleeps and nothing reads
//     a clock other than timers.clock(). Every random draw (instance names, probabilistic
//     faults) comes from the injected Random, so a seed replays exactly.
//
// VM lifecycle (delays from EmulatedCloudOptions::delays, per instance):
//   requested (PROVISIONING)
//     -> [stockout fault: after faults.stockout_delay, FAILED with ZONE_RESOURCE_POOL_EXHAUSTED]
//     -> RUNNING after `provisioning` (+ `spot_extra` for spot, + slow-boot faults)
//     -> Node registered, Ready=False (KubeletNotReady), after `registration`
//        [never-registers fault: stops at RUNNING, no Node ever appears]
//     -> Ready=True (KubeletReady) after `kubelet_ready`
//     -> GPU pools: nvidia.com/gpu capacity/allocatable and nvidia.com/gpu.* labels after
//        `driver` [driver-never-ready fault: never]
//   Deletion: STOPPING, then gone after `deletion`; the Node is deleted from the sink then.
//   A failed instance has no VM: it stays listed (with its error) until DeleteNodes /
//   DecreaseTargetSize / SetSize removes it, which is immediate.
//
// Sizes: a pool's min/max/initial/SetSize counts are totals over its zones (GKE's are per zone;
// the GKE REST front-end multiplies). New instances go to the zone with the fewest instances,
// ties to the earlier zone in the pool's list (round-robin from an empty pool).
//
// Journal (EmulatedCloudOptions::journal, `tidepool up --data-dir`): every change of a pool or a
// VM is written as a record (kinds "nodepools" and "instances", JSON: the pool's spec, status,
// managed instance group hashes and operation in progress; the VM's status, faults, times, error
// and its pending lifecycle step with its due time) before the call that made it returns, and
// before the Node it concerns reaches the sink, so the journal is never behind the cluster.
// Restore() rebuilds the cloud from the records: pools, VMs (a pool's instances are its VMs in
// creation order), nodes of registered VMs published again, and each pending step resumed at its
// due time (at once if that is past). A VM whose pool has no record is dropped. Nothing draws
// from the Random during a restore, and no CloudEvent is sent (nothing happened).
//
// Threading: not thread-safe. Every call and every timer callback must run on one thread (the
// simulator's, or the `up` runtime's event loop). Observers and the sink are called
// synchronously and must not call back into mutating methods of this class.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/node.h"
#include "api/taint.h"
#include "cloud/cloud_journal.h"
#include "cloud/cloud_provider.h"
#include "cloud/emulated/catalog.h"
#include "cloud/emulated/node_style.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/random.h"
#include "common/speed.h"
#include "common/status_or.h"
#include "common/timer_service.h"

namespace tidepool::cloud::emulated {

class EmulatedCloudProvider;

// ---- Labels and taints the emulated GKE puts on nodes ------------------------------------------
inline constexpr std::string_view kLabelGkeNodePool = "cloud.google.com/gke-nodepool";
inline constexpr std::string_view kLabelGkeAccelerator = "cloud.google.com/gke-accelerator";
inline constexpr std::string_view kLabelGkeSpot = "cloud.google.com/gke-spot";
inline constexpr std::string_view kLabelGkeProvisioning = "cloud.google.com/gke-provisioning";
inline constexpr std::string_view kLabelMachineFamily = "cloud.google.com/machine-family";
inline constexpr std::string_view kLabelInstanceType = "node.kubernetes.io/instance-type";
inline constexpr std::string_view kLabelZone = "topology.kubernetes.io/zone";
inline constexpr std::string_view kLabelRegion = "topology.kubernetes.io/region";
inline constexpr std::string_view kLabelGpuPresent = "nvidia.com/gpu.present";
inline constexpr std::string_view kLabelGpuProduct = "nvidia.com/gpu.product";
inline constexpr std::string_view kLabelGpuCount = "nvidia.com/gpu.count";
// GKE's automatic taint on GPU node pools: nvidia.com/gpu=present:NoSchedule.
inline constexpr std::string_view kTaintGpuKey = "nvidia.com/gpu";
inline constexpr std::string_view kTaintGpuValue = "present";

// ---- The cluster side ---------------------------------------------------------------------------

// Where nodes register: the object store in `up` / `simulate`, a recorder in tests.
//
// UpsertNode receives the whole Node as the kubelet (plus device plugin and GPU Feature
// Discovery) would publish it: first at registration (create), then at each status change of
// the same name. The emulated cloud owns: metadata.labels it sets, spec.providerID, spec.taints
// it sets (pool taints, the GPU taint), status.capacity, allocatable and
// conditions. A store that lets other writers change nodes (a cordon, cluster-autoscaler's
// ToBeDeleted taint) should merge on update: replace status, add/overwrite labels by key, and
// keep taints and spec.unschedulable that others added; uid, resourceVersion and
// creationTimestamp are the store's to assign (creationTimestamp is sent as a hint: the
// registration time).
class NodeSink {
 public:
  virtual ~NodeSink() = default;
  // Creates or updates the node named node.meta.name. An error is logged (options.logger) and
  // otherwise ignored: the cloud does not retry.
  virtual Status UpsertNode(api::Node node) = 0;
  // Deletes the node. NotFound is not an error worth logging.
  virtual Status DeleteNode(const std::string& name) = 0;
};

// A NodeSink that keeps the latest of each node in memory, by name (tests; tools that only
// look). Not thread-safe.
class MemoryNodeSink final : public NodeSink {
 public:
  Status UpsertNode(api::Node node) override {
    std::string name = node.meta.name;
    nodes[std::move(name)] = std::move(node);
    return OkStatus();
  }
  Status DeleteNode(const std::string& name) override {
    nodes.erase(name);
    return OkStatus();
  }
  std::map<std::string, api::Node> nodes;
};

// ---- Observers ----------------------------------------------------------------------------------

enum class CloudEventKind {
  kInstanceRequested,
  kInstanceRunning,
  kInstanceFailed,  // detail: the error message
  kNodeRegistered,  // Ready=False
  kNodeReady,
  kGpuReady,  // nvidia.com/gpu allocatable > 0
  kInstanceStopping,
  kInstanceDeleted,
  kNodePoolStatusChanged,  // detail: the new status, e.g. "RUNNING"
  kNodePoolDeleted,
};
std::string_view CloudEventKindName(CloudEventKind kind);

struct CloudEvent {
  TimePoint at;
  CloudEventKind kind = CloudEventKind::kInstanceRequested;
  std::string node_pool;
  std::string zone;      // empty for node pool events
  std::string instance;  // the instance (= node) name; empty for node pool events
  std::string detail;
};

class CloudObserver {
 public:
  virtual ~CloudObserver() = default;
  virtual void OnCloudEvent(const CloudEvent& event) = 0;
};

// ---- Options ------------------------------------------------------------------------------------

struct LifecycleDelays {
  // Instance requested -> RUNNING (GCE boot).
  Duration provisioning = std::chrono::seconds(35);
  // RUNNING -> Node registered, NotReady (kubelet up).
  Duration registration = std::chrono::seconds(15);
  // Registered -> Ready.
  Duration kubelet_ready = std::chrono::seconds(30);
  // Ready -> GPU driver + device plugin up (precompiled driver; anchors-and-data.md §4.1).
  Duration driver = std::chrono::seconds(120);
  // STOPPING -> gone.
  Duration deletion = std::chrono::seconds(30);
  // Added to `provisioning` for spot VMs (anchors-and-data.md §4.1: "+30–90 s"; 0 by default).
  Duration spot_extra = std::chrono::seconds(0);

  // Every Duration member, once, by its config name (common/speed.h).
  template <typename F>
  void ForEachDuration(F&& f) {
    f("provisioning", provisioning, TimeBase::kEmulated);
    f("registration", registration, TimeBase::kEmulated);
    f("kubeletReady", kubelet_ready, TimeBase::kEmulated);
    f("driver", driver, TimeBase::kEmulated);
    f("deletion", deletion, TimeBase::kEmulated);
    f("spotExtra", spot_extra, TimeBase::kEmulated);
  }
};

// Which instances a fault applies to. Empty fields match everything; `accelerator` matches the
// node's effective accelerator type (built-in ones included). A matching rule fires with
// `probability` (drawn from the Random only when 0 < probability < 1), decided once per
// instance when it is requested.
struct FaultMatch {
  std::string node_pool;
  std::string zone;
  std::string machine_type;
  std::string accelerator;
  double probability = 1.0;
};

struct SlowBoot {
  FaultMatch match;
  Duration extra{};  // added to the provisioning delay

  template <typename F>
  void ForEachDuration(F&& f) {
    f("extra", extra, TimeBase::kEmulated);
  }
};

// Faults apply to instances requested after they are set (EmulatedCloud::faults() may be
// changed at any time, e.g. to end a stockout).
struct Faults {
  // Instance creation fails after `stockout_delay` with ZONE_RESOURCE_POOL_EXHAUSTED.
  std::vector<FaultMatch> stockout;
  Duration stockout_delay = std::chrono::seconds(20);
  // Quotas per region, keyed by metric (NodeStyle::QuotaOf). GKE: GPU quotas by GCE metric,
  // "NVIDIA_T4_GPUS" (on-demand), "PREEMPTIBLE_NVIDIA_T4_GPUS" (spot), Catalog's
  // AcceleratorType::quota_metric; an increase that would exceed one is refused at once with
  // GCE's QUOTA_EXCEEDED text. EKS: vCPU quotas by EC2 quota code ("L-DB2E81BA" on-demand G and
  // VT instances, "L-417A185B" P, "L-1216C47A" standard; spot "L-3819A6DF", "L-7212CCBC",
  // "L-34B43A08"); a launch that would exceed one fails with VcpuLimitExceeded. Instances that
  // are not failed count against it. Unlisted metrics are unlimited.
  std::map<std::string, int64_t> gpu_quota;
  // The VM runs but its kubelet never registers a Node.
  std::vector<FaultMatch> never_registers;
  std::vector<SlowBoot> slow_boot;
  // The node turns Ready but its GPUs never become allocatable.
  std::vector<FaultMatch> driver_never_ready;

  // Every Duration member, once, by its config name (common/speed.h); each slow boot's extra
  // time as slowBoot[i].extra.
  template <typename F>
  void ForEachDuration(F&& f) {
    f("stockoutDelay", stockout_delay, TimeBase::kEmulated);
    for (size_t i = 0; i < slow_boot.size(); ++i) {
      const std::string prefix = "slowBoot[" + std::to_string(i) + "].";
      slow_boot[i].ForEachDuration(WithPrefix(prefix, f));
    }
  }
};

// What a GPU node reports for nvidia.com/gpu before its device plugin registers.
enum class GpuResourceBeforeDriver {
  // Absent from capacity and allocatable, as a real kubelet reports an extended resource no
  // device plugin has advertised yet (the default).
  kAbsent,
  // capacity = the GPU count, allocatable = 0 (what some emulators and tests assume).
  kZeroAllocatable,
};

struct EmulatedCloudOptions {
  Catalog catalog = Catalog::Gke();
  // Which cloud's nodes these are (node_style.h); must outlive the cloud.
  const NodeStyle* style = &GkeNodeStyle();
  LifecycleDelays delays;
  Faults faults;
  GpuResourceBeforeDriver gpu_before_driver = GpuResourceBeforeDriver::kAbsent;
  // The NVIDIA GPU operator is installed: it labels every GPU node (not templates)
  // nvidia.com/gpu.deploy.device-plugin=true from registration on, which its device-plugin
  // DaemonSet selects (`tidepool up` without --no-gpu-operator).
  bool gpu_operator_labels = false;
  // Optional; must outlive the cloud.
  log::Logger* logger = nullptr;
  // Optional; must outlive the cloud. Where the cloud's state is kept durably (see "Journal"
  // in the file comment); null: nothing persists.
  CloudJournal* journal = nullptr;

  // Every Duration member, once (common/speed.h): delays.* and faults.*.
  template <typename F>
  void ForEachDuration(F&& f) {
    delays.ForEachDuration(WithPrefix("delays.", f));
    faults.ForEachDuration(WithPrefix("faults.", f));
  }
};

// ---- Node pools ---------------------------------------------------------------------------------

struct NodePoolSpec {
  std::string name;
  std::string machine_type;
  // Attached GPUs (N1), or the built-in ones named explicitly (G2/A2/A3 may leave it unset).
  std::optional<Accelerator> accelerator;
  // Empty means the cluster's default zone. All zones must be in the default zone's region.
  std::vector<std::string> zones;
  // Totals over the pool's zones.
  int min_nodes = 0;
  int max_nodes = 0;
  bool autoscaling = false;
  int initial_node_count = 0;
  api::Labels labels;
  std::vector<api::Taint> taints;
  bool spot = false;
  // 0: the cloud's default (NodeStyle::DefaultDiskGb: GKE's 100, EKS's 20).
  int64_t disk_size_gb = kDefaultBootDiskGb;
  // The pool's name as the autoscaler's node group (NodeGroup::Id): EKS's Auto Scaling group
  // "eks-<nodegroup>-<uuid>"; empty: the pool's name.
  std::string group_id;
};

// NodePool.status values.
enum class NodePoolStatus { kProvisioning, kRunning, kReconciling, kStopping, kError };
// "PROVISIONING", "RUNNING", "RECONCILING", "STOPPING", "ERROR".
std::string_view NodePoolStatusName(NodePoolStatus status);

struct NodePoolInfo {
  NodePoolSpec spec;                       // zones filled in
  std::optional<Accelerator> accelerator;  // effective (built-in GPUs included)
  NodePoolStatus status = NodePoolStatus::kProvisioning;
  int target_size = 0;
  // One managed instance group per zone, in zone order: "gke-<cluster>-<pool>-<hash>-grp".
  std::vector<std::string> instance_groups;
};

// A VM's status as GCE reports it; kFailed is a creation that failed (GCE lists no VM then).
enum class VmStatus { kProvisioning, kRunning, kStopping, kFailed };
// "PROVISIONING", "RUNNING", "STOPPING", "FAILED".
std::string_view VmStatusName(VmStatus status);

struct InstanceInfo {
  std::string name;  // = the Node name
  std::string node_pool;
  std::string zone;
  std::string machine_type;
  std::string provider_id;  // gce://<project>/<zone>/<name>
  bool spot = false;
  VmStatus status = VmStatus::kProvisioning;
  bool registered = false;
  bool ready = false;
  bool gpu_ready = false;
  std::optional<InstanceErrorInfo> error;
  TimePoint requested_at;
};

// ---- The cloud ----------------------------------------------------------------------------------

class EmulatedCloud {
 public:
  // `timers`, `sink` and `random` must outlive the cloud. `default_zone` is the cluster's
  // location, e.g. "us-central1-a".
  EmulatedCloud(std::string project, std::string cluster, std::string default_zone,
                TimerService& timers, NodeSink& sink, Random& random,
                EmulatedCloudOptions options = {});
  // Cancels pending timers; leaves the sink's nodes alone.
  ~EmulatedCloud();
  EmulatedCloud(const EmulatedCloud&) = delete;
  EmulatedCloud& operator=(const EmulatedCloud&) = delete;

  const std::string& project() const { return project_; }
  const std::string& cluster() const { return cluster_; }
  const std::string& default_zone() const { return default_zone_; }
  // "us-central1" for "us-central1-a".
  static std::string RegionOf(std::string_view zone);
  // The labels GKE and the kubelet give a node of node pool `pool`, written over the pool's own
  // labels (which come first): hostname, arch and os, instance type, zone and region (also in
  // their beta and topology.gke.io forms), node pool, machine family, GKE's OS image, runtime,
  // boot disk, max pods and provisioning model, spot, and gke-accelerator for a GPU pool
  // (`accelerator_type` empty for none). Used by this cloud's nodes and by the live GKE
  // provider's template nodes, which must carry the same labels.
  static void AddGkeNodeLabels(api::Labels& labels, std::string_view node, std::string_view zone,
                               const MachineType& machine, std::string_view pool, bool spot,
                               std::string_view accelerator_type);
  // GPU Feature Discovery's labels, published with the device plugin: gpu.present,
  // gpu.product (the catalog's product name, else the accelerator type) and gpu.count.
  static void AddGpuFeatureLabels(api::Labels& labels, const Catalog& catalog,
                                  const Accelerator& accelerator);
  // GKE's GPU sharing labels (catalog.h Accelerator) on a pool that shares its GPUs; none
  // otherwise.
  static void AddGpuSharingLabels(api::Labels& labels, const Accelerator& accelerator);

  // What a live provider knows of a pool (node group) to build its template node from.
  struct TemplateSpec {
    std::string name;  // the node's name
    std::string pool;
    std::string zone;
    const MachineType* machine = nullptr;
    std::optional<Accelerator> gpus;  // nullopt for a CPU machine
    bool spot = false;
    api::Labels labels;  // the pool's own
    std::vector<api::Taint> taints;
    int64_t disk_gb = 0;  // 0: the style's default
  };
  // A node as a new instance of the pool registers once ready (GPUs up): the pool's labels,
  // then `style`'s and GPU Feature Discovery's; the pool's taints (and the style's automatic
  // GPU taint); the style's capacity and allocatable; the kubelet's healthy conditions at
  // `now`. The live providers' TemplateNode (GKE's, AWS's), so that a template is the node
  // this cloud's emulation would publish.
  static api::Node BuildTemplateNode(const NodeStyle& style, const Catalog& catalog,
                                     const TemplateSpec& spec, TimePoint now);
  const Catalog& catalog() const { return options_.catalog; }
  const EmulatedCloudOptions& options() const { return options_; }
  // Mutable at any time; applies to instances requested afterwards.
  Faults& faults() { return options_.faults; }

  // Rebuilds the cloud from options().journal (see "Journal" above). Call once, on a cloud
  // with no pool, before anything else. Returns false (and changes nothing) when there is no
  // journal or it holds no pool; DataLoss naming the record when one cannot be read.
  StatusOr<bool> Restore();

  // Not owned; must stay valid until removed or the cloud is destroyed.
  void AddObserver(CloudObserver* observer);
  void RemoveObserver(CloudObserver* observer);

  // The autoscaler's view: one NodeGroup per autoscaling-enabled pool.
  EmulatedCloudProvider& Provider() { return *provider_; }

  // ---- GKE node pool API (what cloud/gke serves) ----

  // Validates the spec (name, machine type, accelerator, zones, sizes, disk) and creates the
  // pool with `initial_node_count` instances; status PROVISIONING until they are Ready or
  // failed, then RUNNING (ERROR if every one failed). GPU pools get GKE's automatic taint
  // nvidia.com/gpu=present:NoSchedule. AlreadyExists / InvalidArgument / ResourceExhausted
  // (GPU quota).
  Status CreateNodePool(NodePoolSpec spec);
  // STOPPING; every instance is deleted; the pool disappears when the last one is gone.
  Status DeleteNodePool(std::string_view name);
  Status SetAutoscaling(std::string_view name, bool enabled, int min_nodes, int max_nodes);
  // gcloud container node-pools update --node-labels / --node-taints: the pool's Kubernetes
  // labels or taints (each replaced when given) for new nodes, and republished on the nodes
  // that have registered. NotFound.
  Status SetNodeConfig(std::string_view name, std::optional<api::Labels> labels,
                       std::optional<std::vector<api::Taint>> taints);
  // Resizes to `node_count` (total) regardless of the autoscaling limits, like
  // `gcloud container clusters resize`: RECONCILING until the change settles (new instances
  // Ready or failed, removed ones gone), then RUNNING (ERROR if every new instance failed).
  // Shrinking removes failed instances first, then unregistered ones, then the newest nodes.
  // An instance that never registers keeps a create / resize operation open.
  Status SetSize(std::string_view name, int node_count);
  StatusOr<NodePoolInfo> GetNodePool(std::string_view name) const;
  // The same without target_size and instance_groups, in O(log pools): what the autoscaler
  // asks per node (min/max size, autoscaling, accelerator), where GetNodePool's target size
  // walks the pool's instances.
  StatusOr<NodePoolInfo> GetNodePoolConfig(std::string_view name) const;
  // The GPUs a node's machine has, from the moment it exists (its nvidia.com/gpu capacity
  // appears only once the driver is up): for a node labelled with an accelerator, its pool's
  // accelerator count, else its capacity, else the machine type's built-in GPUs; 0 without the
  // label.
  int NodeGpuCount(const api::Node& node) const;
  // The pool a node's labels name (the style's pool label); "" for none.
  std::string PoolOfNode(const api::Node& node) const;
  // Sorted by name; pools being deleted included (status STOPPING).
  std::vector<NodePoolInfo> ListNodePools() const;
  // Every instance of every pool, sorted by name.
  std::vector<InstanceInfo> ListInstances() const;
  // "projects/<p>/locations/<default zone>/clusters/<c>/nodePools/<pool>".
  std::string NodePoolPath(std::string_view pool) const;

  // ---- NodeGroup operations (EmulatedCloudProvider delegates here) ----

  // Names of autoscaling-enabled pools that are not being deleted, sorted.
  std::vector<std::string> AutoscaledNodePools() const;
  // Instances asked for and not being deleted: provisioning, running and failed.
  StatusOr<int> TargetSize(std::string_view pool) const;
  // The same count for any pool, one being deleted too; 0 for a pool that does not exist. O(zones).
  int LiveInstances(std::string_view pool) const;
  // delta > 0. Refuses beyond the autoscaling max ("size increase too large - desired:%d
  // max:%d", cluster-autoscaler's text) and beyond GPU quota (GCE's QUOTA_EXCEEDED text).
  Status IncreaseSize(std::string_view pool, int delta);
  // Deletes instances by instance (= node) name or provider id. Refuses ("min size reached,
  // nodes will not be deleted") if a live instance is named and the target would drop below the
  // autoscaling min; failed instances can always be deleted. All names are checked before any
  // is deleted; names already stopping are ignored.
  Status DeleteNodes(std::string_view pool, const std::vector<std::string>& names);
  // delta < 0; gives up only instances whose node has not registered (failed first, then the
  // newest), cluster-autoscaler's "attempt to delete existing nodes" otherwise.
  Status DecreaseTargetSize(std::string_view pool, int delta);
  // In creation order, including creating, failed and stopping ones.
  StatusOr<std::vector<Instance>> Instances(std::string_view pool) const;
  // Changes with every change of a pool or a VM (never 0), so what Instances() says of any pool
  // is the same while it is.
  uint64_t InstancesVersion() const { return instances_version_; }
  // The pool of an instance named by node name or provider id ("gce://<project>/<zone>/<name>",
  // which is how cluster-autoscaler names an instance with no node), stopping ones included;
  // nullopt for no instance. O(log instances).
  std::optional<std::string> PoolOfInstance(std::string_view name_or_provider_id) const;
  // A fully ready node of the pool (GPU allocatable included), named
  // "template-node-for-<pool>", in the pool's first zone.
  StatusOr<api::Node> TemplateNode(std::string_view pool) const;

 private:
  struct Vm;
  struct Pool;
  enum class NodeStage { kRegistered, kReady, kGpuReady };
  using Step = void (EmulatedCloud::*)(Vm&);

  Pool* FindPool(std::string_view name);
  const Pool* FindPool(std::string_view name) const;
  Status NotFound(std::string_view pool) const;
  int TargetSizeOf(const Pool& pool) const;
  // Adds `delta` (+1 or -1) to `vm`'s pool's live counts.
  void CountLive(const Vm& vm, int delta);
  // Quotas (NodeStyle::QuotaOf): what a VM of `pool` takes, the limit set for a metric, what
  // the region's live VMs take of it.
  std::optional<QuotaUse> QuotaOf(const Pool& pool) const;
  std::optional<int64_t> QuotaLimit(const QuotaUse& use) const;
  int64_t QuotaUsed(const QuotaUse& use, const std::string& region) const;
  // Refuses `new_instances` more beyond a quota (GKE's QUOTA_EXCEEDED); OK where quotas fail
  // launches instead (NodeStyle::QuotaFailsLaunches).
  Status CheckQuota(const Pool& pool, int new_instances) const;
  // Where quotas fail launches: whether one more VM of `pool` in `zone` is over its quota.
  bool LaunchOverQuota(const Pool& pool, std::string_view zone) const;
  bool Fires(const std::vector<FaultMatch>& rules, const Pool& pool, std::string_view zone);
  bool Matches(const FaultMatch& m, const Pool& pool, std::string_view zone) const;
  std::string PickZone(const Pool& pool) const;
  // The VM's name for a node name or a provider id (of any VM, stopping ones included); "" for
  // a provider id no VM has.
  std::string VmName(std::string_view name_or_provider_id) const;
  const NodeStyle& style() const { return *options_.style; }
  // Requests one instance; returns its name.
  std::string RequestInstance(Pool& pool);
  // Starts deleting an instance (no-op if already stopping).
  void RemoveInstance(Vm& vm);
  // Picks `n` instances to give up: failed, then unregistered (newest first), then, if
  // `registered_too`, registered ones (newest first).
  std::vector<std::string> PickVictims(const Pool& pool, int n, bool registered_too) const;
  void Erase(const std::string& name);

  void ScheduleStep(Vm& vm, Duration after, Step step);
  void ScheduleStepAt(Vm& vm, TimePoint due, Step step);
  void CancelStep(Vm& vm);
  void StepRunning(Vm& vm);
  void StepFailed(Vm& vm);
  void StepRegistered(Vm& vm);
  void StepReady(Vm& vm);
  void StepGpuReady(Vm& vm);
  void StepGone(Vm& vm);

  api::Node BuildNode(const Pool& pool, const std::string& name, const std::string& zone,
                      NodeStage stage, TimePoint registered_at, TimePoint ready_at) const;
  void Publish(Vm& vm, NodeStage stage);
  void BeginOperation(Pool& pool, NodePoolStatus status, const std::vector<std::string>& names);
  void Settle(Pool& pool, const std::string& name, bool failed);
  void SetStatus(Pool& pool, NodePoolStatus status);
  void Notify(CloudEventKind kind, const std::string& pool, const std::string& zone,
              const std::string& instance, std::string detail = "");
  TimePoint Now() const { return timers_.clock().Now(); }

  // ---- Journal (emulated_cloud_journal.cc) ----
  // Marks a pool / VM whose record must be written (or deleted, when it is gone) by the next
  // Flush. No-ops without a journal.
  void TouchPool(const std::string& name);
  void TouchVm(const std::string& name);
  // Writes the touched records, pools first (a VM's pool is durable before the VM). A failed
  // write is logged; the state in memory stays the truth until the next write.
  void Flush();
  // Flushes when it goes out of scope: the mutating calls open one.
  struct FlushOnExit {
    EmulatedCloud& cloud;
    ~FlushOnExit() { cloud.Flush(); }
  };
  std::string PoolJson(const Pool& pool) const;
  std::string VmJson(const Vm& vm) const;
  StatusOr<Pool> PoolFromJson(const CloudRecord& record) const;
  StatusOr<Vm> VmFromJson(const CloudRecord& record) const;
  static std::string_view StepName(Step step);
  static Step StepFromName(std::string_view name);
  // Restore's steps: a pool's derived state, and a VM's node and pending step.
  void ResumePool(Pool& pool);
  void ResumeVm(Vm& vm);

  // Constant after construction.
  const std::string project_;
  const std::string cluster_;
  const std::string default_zone_;
  TimerService& timers_;
  NodeSink& sink_;
  Random& random_;
  EmulatedCloudOptions options_;  // only faults change after construction
  std::unique_ptr<EmulatedCloudProvider> provider_;

  std::vector<CloudObserver*> observers_;
  std::map<std::string, Pool, std::less<>> pools_;
  std::map<std::string, Vm, std::less<>> vms_;
  std::map<std::string, std::string, std::less<>> by_provider_id_;  // provider id -> VM name
  uint64_t instances_version_ = 1;  // moved by TouchPool / TouchVm
  uint64_t next_seq_ = 1;    // instance creation order
  uint64_t next_token_ = 1;  // identifies a scheduled lifecycle step
  // Records to write at the next Flush (only with a journal).
  std::set<std::string, std::less<>> dirty_pools_;
  std::set<std::string, std::less<>> dirty_vms_;
};

// ---- The CloudProvider --------------------------------------------------------------------------

// A node pool as a NodeGroup (Id = pool name). Owned by EmulatedCloudProvider and kept for its
// lifetime, so pointers from NodeGroups() stay valid; after the pool is deleted every call
// fails with NotFound (MinSize/MaxSize return 0).
class EmulatedNodeGroup final : public NodeGroup {
 public:
  EmulatedNodeGroup(EmulatedCloud& cloud, std::string pool);

  // The pool's group_id, else its name.
  std::string Id() const override;
  int MinSize() const override;
  int MaxSize() const override;
  StatusOr<int> TargetSize() const override;
  Status IncreaseSize(int delta) override;
  Status DeleteNodes(const std::vector<std::string>& node_names) override;
  Status DecreaseTargetSize(int delta) override;
  StatusOr<std::vector<Instance>> Nodes() const override;
  // Every pool's and VM's change moves it (EmulatedCloud::InstancesVersion).
  uint64_t NodesVersion() const override;
  StatusOr<api::Node> TemplateNode() const override;
  // "gpu-pool (0:5)", cluster-autoscaler's GCE form.
  std::string Debug() const override;

 private:
  EmulatedCloud& cloud_;
  const std::string pool_;
};

// Name "gke", GPU label cloud.google.com/gke-accelerator, prices from the catalog.
class EmulatedCloudProvider final : public CloudProvider, public PricingModel {
 public:
  explicit EmulatedCloudProvider(EmulatedCloud& cloud);

  std::string_view Name() const override;
  std::vector<NodeGroup*> NodeGroups() override;
  // By the cloud.google.com/gke-nodepool label; nullptr unless that pool is autoscaled.
  NodeGroup* NodeGroupForNode(const api::Node& node) override;
  std::string GpuLabel() const override;
  // The type from the GPU label; a node without the label but with nvidia.com/gpu allocatable
  // gets an empty type (cluster-autoscaler's GetNodeGPUFromCloudProvider); nullopt otherwise.
  std::optional<GpuConfig> GetNodeGpuConfig(const api::Node& node) const override;
  // The catalog's accelerator types.
  std::vector<std::string> AvailableGpuTypes() const override;
  const PricingModel* Pricing() const override { return this; }
  // The cloud's state is in memory: nothing to refresh.
  Status Refresh() override { return OkStatus(); }

  // (machine + GPUs) price per hour, on-demand or spot (cloud.google.com/gke-spot=true), times
  // the duration. Reads the node's labels (instance type, accelerator, spot) so template nodes
  // and nodes of deleted pools are priced too; the GPU count comes from the pool, else
  // capacity nvidia.com/gpu, else the machine's built-in count. Boot disks are not priced.
  StatusOr<double> NodePrice(const api::Node& node, TimePoint start, TimePoint end) const override;
  // CA's GCE price model for a pod (gce_price_model.go PodPrice): per container, requested
  // cpu × $0.033174 + memory GiB × $0.004446 + nvidia.com/gpu × $0.700 per hour (its base
  // rates), for the whole minutes started in [start, end). Init containers and overhead are not
  // priced, as in CA.
  StatusOr<double> PodPrice(const api::Pod& pod, TimePoint start, TimePoint end) const override;

 private:
  EmulatedNodeGroup* GroupFor(const std::string& pool);

  EmulatedCloud& cloud_;
  std::map<std::string, std::unique_ptr<EmulatedNodeGroup>, std::less<>> groups_;
};

}  // namespace tidepool::cloud::emulated
