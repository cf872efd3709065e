// File: gke_api.h
//
// GkeApi: the Google Kubernetes Engine REST surface that the real `gcloud container ...` (SDK
// 528) drives, served by `tidepool up` over the emulated cloud's node pools
// (../shared/reference/cloud-apis.md §2 is what gcloud sends and needs). Transport-free: it
// takes a GkeRequest (method, decoded path, body) and returns a GkeResponse (status, JSON
// body); `tidepool up` routes HTTP requests whose path IsGkePath() here.
//
// Served (every path also under /v1beta1/, the `zones/` collection form is accepted as
// `locations/`, the query string, `alt=json` included, is ignored but for compute resize's size):
//   container  /v1/projects/P/locations/L/clusters                        GET (L may be "-"), POST
//              /v1/projects/P/locations/L/clusters/C                      GET, PUT (update:
//                                      desiredNodePoolAutoscaling + desiredNodePoolId), DELETE
//              /v1/projects/P/locations/L/clusters/C/nodePools            GET, POST
//              /v1/projects/P/locations/L/clusters/C/nodePools/NP         GET, PUT (labels,
//                                                                         taints), DELETE
//              .../nodePools/NP:setSize   .../nodePools/NP:setAutoscaling  POST
//              /v1/projects/P/locations/L/operations[/ID]                GET (L may be "-")
//   serviceusage  /v1/projects/P/services/S                               GET -> ENABLED
//   compute    /compute/v1/projects/P/zones[/Z]                           GET
//              /compute/v1/projects/P/zones/Z/instances                   GET
//              /compute/v1/projects/P/aggregated/instances                GET
//              /compute/v1/projects/P/zones/Z/machineTypes/MT             GET
//              /compute/v1/projects/P/zones/Z/instanceGroupManagers[/IGM] GET
//              .../instanceGroupManagers/IGM/listManagedInstances         POST
//              .../instanceGroupManagers/IGM/deleteInstances              POST
//              .../instanceGroupManagers/IGM/resize?size=N                POST
//              /compute/v1/projects/P/zones/Z/operations/OP               GET
//
// Model. There is one cluster, the emulated one (project, name, zone from GkeControl::Cluster());
// clusters create answers 409 for its name and 400 for another, clusters delete 400. Node
// pools are the emulated cloud's pools: GKE's per-zone counts (initialNodeCount, min/max,
// setSize's nodeCount) are multiplied by the pool's zone count into the cloud's totals, and
// divided back. Taint effects map NO_SCHEDULE <-> NoSchedule, PREFER_NO_SCHEDULE <->
// PreferNoSchedule, NO_EXECUTE <-> NoExecute. Pool status is the cloud's (PROVISIONING,
// RUNNING, RECONCILING, STOPPING, ERROR).
//
// Deviation (GkeApiOptions::autoscaled_pools_start_at_min, on by default): a pool created with
// autoscaling enabled starts at its min node count, whatever initialNodeCount says (gcloud sends
// 3 unless --num-nodes is given). Real GKE starts it at initialNodeCount and lets the cluster
// autoscaler remove the unneeded nodes later; the seed walkthrough's step 1 expects "no nodes
// yet".
//
// Operations. Every mutating call returns an Operation (name "operation-<ms>-<hex8>"). An
// operation on a pool stays RUNNING while the pool settles (status PROVISIONING, RECONCILING or
// STOPPING; a deleted pool is settled when it is gone) and is DONE afterwards. A pool that ends
// in ERROR (every new VM failed, e.g. a ZONE_RESOURCE_POOL_EXHAUSTED stockout) makes it DONE with
// a statusMessage (gcloud: "finished with error: ...") naming the VMs' error codes and texts.
// A GPU quota refusal (QUOTA_EXCEEDED) is a DONE operation with statusMessage
// "Insufficient quota to satisfy the request: <Compute Engine's text>", as GKE reports it.
//
// Managed instance groups (what a live cluster autoscaler drives; compute v1 shapes). Each pool
// has one MIG per zone, named as the pool's instanceGroupUrls say ("gke-<cluster>-<pool>-<hash>-
// grp"; baseInstanceName and instance template without "-grp"). A MIG's instances are the pool's
// VMs in its zone: PROVISIONING VMs are currentAction CREATING, RUNNING ones NONE, STOPPING ones
// DELETING, and failed creations stay listed as CREATING without instanceStatus, with
// lastAttempt.errors.errors[] {code, message} (e.g. ZONE_RESOURCE_POOL_EXHAUSTED), as a MIG that
// keeps retrying reports them; targetSize counts every instance not being deleted.
// deleteInstances ({"instances": [URLs or zones/Z/instances/NAME]}) deletes those VMs and lowers
// the target by as many; an instance that is not a member, or already being deleted, fails the
// operation unless skipInstancesOnValidationError is true (compute v1 reference), and a URL in
// another zone always does. resize?size=N sets the MIG's target (the pool's total is the other
// MIGs' targets plus N), regardless of the autoscaling limits. Compute operations are done when
// returned (the MIG has accepted the change); a refusal is a DONE operation with error.errors[]
// (QUOTA_EXCEEDED with Compute Engine's text for GPU quota). Deviation: the emulated cloud
// refuses to delete running instances below the pool's autoscaling minimum (a real MIG has no
// minimum); that is a DONE operation with error CONDITION_NOT_MET.
//
// Errors are google.rpc-style JSON: {"error":{"code":404,"message":"...","status":"NOT_FOUND"}}
// (compute adds errors[].reason). Codes: NotFound 404, AlreadyExists 409, InvalidArgument 400,
// FailedPrecondition 400, Unimplemented 501, PermissionDenied 403; never 500 or 429 (gcloud
// retries those for ~30 s). Messages are GKE's where known ("Not found: projects/...",
// "Already exists: projects/...") and the emulated cloud's otherwise.
//
// Threading: Handle() is thread-safe (one mutex); it calls GkeControl with the mutex held.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/taint.h"
#include "cloud/cloud_journal.h"
#include "cloud/emulated/emulated_cloud.h"
#include "common/clock.h"
#include "common/kube_version.h"
#include "common/speed.h"
#include "common/status_or.h"

namespace tidepool::cloud::gke {

// What the GKE API reports about the one cluster.
struct ClusterInfo {
  std::string project = "tidepool-local";
  std::string name = "tidepool";
  std::string zone = "us-central1-a";
  // host:port of the Kubernetes API as get-credentials writes it (server: https://<endpoint>).
  std::string endpoint;
  // PEM of the CA that signed the endpoint's certificate; empty: none (get-credentials then
  // writes insecure-skip-tls-verify).
  std::string ca_pem;
  std::string version = std::string(kGkeVersion);
  TimePoint create_time{};
  std::string services_ipv4_cidr = "34.118.224.0/20";
};

// A VM as Compute Engine lists it.
struct VmInfo {
  cloud::emulated::InstanceInfo instance;
  std::string internal_ip;  // empty: not reported
  std::optional<cloud::emulated::Accelerator> accelerator;
};

// The emulated cloud as the GKE API drives it. Implementations are called from Handle()'s
// threads and must be thread-safe (runtime/gke_control.h runs them on the emulated cloud's thread).
class GkeControl {
 public:
  virtual ~GkeControl() = default;
  virtual ClusterInfo Cluster() = 0;
  virtual std::vector<cloud::emulated::NodePoolInfo> ListNodePools() = 0;
  virtual StatusOr<cloud::emulated::NodePoolInfo> GetNodePool(const std::string& name) = 0;
  virtual Status CreateNodePool(cloud::emulated::NodePoolSpec spec) = 0;
  virtual Status DeleteNodePool(const std::string& name) = 0;
  // Totals over the pool's zones.
  virtual Status SetAutoscaling(const std::string& name, bool enabled, int min_nodes,
                                int max_nodes) = 0;
  virtual Status SetSize(const std::string& name, int node_count) = 0;
  // Replace the pool's user labels / taints (nodes included). May be Unimplemented.
  virtual Status SetLabels(const std::string& name, const api::Labels& labels) = 0;
  virtual Status SetTaints(const std::string& name, const std::vector<api::Taint>& taints) = 0;
  // Every VM (failed creations included; the compute API hides those), sorted by name.
  virtual std::vector<VmInfo> ListVms() = 0;
  // Deletes these VMs (by name) of the pool, lowering its target by as many (the emulated
  // cloud's DeleteNodes). NotFound for an unknown pool or VM; FailedPrecondition below the
  // pool's autoscaling minimum.
  virtual Status DeleteInstances(const std::string& pool, const std::vector<std::string>& names) = 0;
  // A machine type offered in `zone`, as the emulated cloud's catalog has it. NotFound.
  virtual StatusOr<cloud::emulated::MachineType> GetMachineType(const std::string& zone,
                                                                const std::string& name) = 0;
};

struct GkeRequest {
  std::string method;
  std::string path;  // percent-decoded, no query
  std::string body;
  // Decoded query parameters (only compute's resize reads one: size).
  std::multimap<std::string, std::string> query;
};

struct GkeResponse {
  int status = 200;
  std::string body;  // JSON
};

struct GkeApiOptions {
  // See the file comment.
  bool autoscaled_pools_start_at_min = true;
  // Optional; must outlive the api. Operations (container and compute) and the taints users
  // asked for per pool are written to it (kinds "operations", "computeoperations",
  // "nodepooltaints") when they change, and read back at construction: after a restart of
  // `tidepool up --data-dir`, `gcloud container operations list/describe` and a pool's
  // config.taints are what they were.
  CloudJournal* journal = nullptr;

  // Every Duration member, once (common/speed.h): none. Operations take as long as the emulated
  // cloud's steps behind them (EmulatedCloudOptions), which --speed divides.
  template <typename F>
  void ForEachDuration(F&&) {}
};

// True for the paths GkeApi serves (container, serviceusage and compute; see the file comment).
bool IsGkePath(std::string_view path);

class GkeApi {
 public:
  // `control` and `clock` must outlive the api.
  GkeApi(GkeControl& control, const Clock& clock, GkeApiOptions options = {});
  ~GkeApi();
  GkeApi(const GkeApi&) = delete;
  GkeApi& operator=(const GkeApi&) = delete;

  GkeResponse Handle(const GkeRequest& request);

  // GKE taint effect names <-> Kubernetes'. InvalidArgument for an unknown name.
  static StatusOr<api::TaintEffect> ParseGkeEffect(std::string_view effect);
  static std::string_view GkeEffectName(api::TaintEffect effect);
  // A node pool's config.accelerators[i] (AcceleratorConfig): acceleratorType, acceleratorCount
  // (default 1) and gpuSharingConfig {gpuSharingStrategy, maxSharedClientsPerGpu}, int64s as
  // numbers or strings. InvalidArgument for a malformed count.
  static StatusOr<cloud::emulated::Accelerator> ParseAcceleratorConfig(
      const nlohmann::json& accelerator);
  // The inverse, as GKE returns it (int64s as strings).
  static nlohmann::json AcceleratorConfigJson(const cloud::emulated::Accelerator& accelerator);

 private:
  struct Operation;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tidepool::cloud::gke
