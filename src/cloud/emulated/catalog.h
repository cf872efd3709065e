// File: catalog.h
//
// The emulated cloud's catalog of GCE machine types and NVIDIA accelerators, GKE-shaped:
//   - machine shapes (vCPUs, memory, built-in GPUs) as Compute Engine publishes them;
//   - which accelerators a machine may carry: T4 / V100 / P100 / P4 attach to N1 machines only,
//     with per-count vCPU and memory limits; L4 / A100 40GB / A100 80GB / H100 80GB come built
//     into their families (G2 / A2 / A2 Ultra / A3) and no other accelerator may be attached;
//   - the NVIDIA GPU product label values (GPU Feature Discovery's nvidia.com/gpu.product) and
//     the GCE GPU quota metric names;
//   - on-demand and spot prices in USD per hour;
//   - GKE's node allocatable: capacity minus kube-reserved and the eviction thresholds.
//
// Errors use Compute Engine / GKE wording where it is known (see each message's comment in
// catalog.cc); the rest is tidepool's own wording and says so.
//
// A Catalog is a plain value: copy Catalog::Gke() and edit it (SetZones, AddMachineType, ...)
// to model a region or a price change. Thread-compatible (const methods may run concurrently).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource_list.h"
#include "common/status_or.h"

namespace tidepool::cloud::emulated {

// GKE's default boot disk size, in GB (GCE's "GB" are GiB for disks).
inline constexpr int64_t kDefaultBootDiskGb = 100;
// GKE's default --max-pods-per-node.
inline constexpr int64_t kDefaultMaxPodsPerNode = 110;

// An accelerator request or a node's effective accelerators: `count` GPUs of `type`, shared by
// up to `max_shared_clients` containers each when `sharing` is set (GKE's GPUSharingConfig:
// TIME_SHARING or MPS). A shared GPU is `max_shared_clients` nvidia.com/gpu to Kubernetes (GKE's
// device plugin advertises one per client) and the node carries the labels
// cloud.google.com/gke-gpu-sharing-strategy (time-sharing, mps) and
// cloud.google.com/gke-max-shared-clients-per-gpu that workloads select.
struct Accelerator {
  std::string type;  // e.g. "nvidia-tesla-t4"
  int count = 0;
  std::string sharing;  // "", "TIME_SHARING" or "MPS"
  int max_shared_clients = 0;
  // nvidia.com/gpu the node advertises: count, times max_shared_clients when shared.
  int Advertised() const {
    return sharing.empty() || max_shared_clients < 1 ? count : count * max_shared_clients;
  }
  friend bool operator==(const Accelerator&, const Accelerator&) = default;
};

// GKE's node labels for GPU sharing.
inline constexpr std::string_view kLabelGpuSharingStrategy =
    "cloud.google.com/gke-gpu-sharing-strategy";
inline constexpr std::string_view kLabelMaxSharedClientsPerGpu =
    "cloud.google.com/gke-max-shared-clients-per-gpu";

// For an accelerator attachable to N1 machines: with `count` GPUs the machine may have at most
// `max_vcpus` vCPUs and `max_memory_gb` GB of memory (Compute Engine "GPU machine types", N1).
struct AttachLimit {
  int count = 0;
  int max_vcpus = 0;
  int64_t max_memory_gb = 0;
};

struct AcceleratorType {
  std::string name;          // "nvidia-tesla-t4"
  std::string product;       // GPU Feature Discovery's nvidia.com/gpu.product: "Tesla-T4"
  std::string quota_metric;  // GCE quota for on-demand VMs: "NVIDIA_T4_GPUS"; spot VMs use
                             // "PREEMPTIBLE_" + quota_metric
  // Attachable to N1 machine types with these counts; empty for accelerators that come built
  // into their machine family (they cannot be attached to anything else).
  std::vector<AttachLimit> n1_limits;
  // Per GPU per hour, for attachable GPUs; 0 for built-in GPUs (their price is in the machine
  // type's price, as in GCE's price list).
  double price_per_hour = 0;
  double spot_price_per_hour = 0;
};

struct MachineType {
  std::string name;    // "n1-standard-4"
  std::string family;  // "n1"; the cloud.google.com/machine-family label
  int vcpus = 0;
  int64_t memory_mib = 0;    // GCE's "GB" of memory are GiB: n1-standard-4 has 15 GB = 15360 MiB
  bool shared_core = false;  // e2-micro / e2-small / e2-medium
  // Built-in GPUs (G2, A2, A3); empty type for machines without.
  std::string builtin_accelerator;
  int builtin_accelerator_count = 0;
  double price_per_hour = 0;       // on-demand, built-in GPUs included
  double spot_price_per_hour = 0;  // spot (GCE's spot and preemptible prices are the same)
  // The kubelet's max pods for this machine: 0 for the cloud's default (GKE: 110 on every
  // machine); EKS derives it from the instance type's network interfaces (cloud/aws).
  int max_pods = 0;

  // True if N1 (the only family accelerators can be attached to).
  bool AcceptsAttachedAccelerators() const { return family == "n1"; }
};

class Catalog {
 public:
  // An empty catalog (no machine types, no accelerators).
  Catalog() = default;

  // GKE's machine types and GPUs listed in catalog.cc, available in every zone.
  static Catalog Gke();

  void AddMachineType(MachineType m);
  void AddAcceleratorType(AcceleratorType a);
  // Restricts a machine type or accelerator type (by name) to these zones. Without a call it is
  // offered in every zone.
  void SetZones(std::string_view name, std::vector<std::string> zones);
  // True if `name` (a machine or accelerator type) is offered in `zone`.
  bool OfferedIn(std::string_view name, std::string_view zone) const;

  // nullptr if unknown.
  const MachineType* FindMachineType(std::string_view name) const;
  const AcceleratorType* FindAcceleratorType(std::string_view name) const;
  // Sorted by name.
  std::vector<std::string> MachineTypeNames() const;
  std::vector<std::string> AcceleratorTypeNames() const;

  // Validates a node configuration for `zone` and returns the node's effective accelerators:
  // the requested ones for N1, the built-in ones for G2/A2/A3 (a request may name them, with
  // the built-in count or count 0), nullopt for a CPU-only machine. InvalidArgument with
  // GCE/GKE's message for an unknown machine or accelerator, one not offered in the zone, an
  // accelerator the machine cannot take, or a count / machine size outside the N1 limits.
  StatusOr<std::optional<Accelerator>> Resolve(std::string_view machine_type,
                                               const std::optional<Accelerator>& requested,
                                               std::string_view zone) const;

  // The price per hour of one VM: machine plus attached GPUs; spot or on-demand. NotFound for
  // an unknown machine or accelerator type.
  StatusOr<double> HourlyPrice(std::string_view machine_type,
                               const std::optional<Accelerator>& accelerator, bool spot) const;

 private:
  std::map<std::string, MachineType, std::less<>> machines_;
  std::map<std::string, AcceleratorType, std::less<>> accelerators_;
  std::map<std::string, std::vector<std::string>, std::less<>> zones_;
};

// ---- GKE node resources --------------------------------------------------------------------
//
// Capacity is what the kubelet reports for the machine: cpu = vCPUs, memory = the machine's
// memory exactly (the guest kernel's own reservation, which makes real nodes report a little
// less, is not modelled), pods = 110, ephemeral-storage = the boot disk's stateful partition
// (see BootDiskFilesystemBytes), nvidia.com/gpu = the GPU count once the device plugin runs.
//
// Allocatable = capacity - GKE's reservations (cloud.google.com/kubernetes-engine/docs/
// concepts/plan-node-sizes, "Node allocatable resources"):
//   cpu:    6% of the first core, 1% of the next core (up to 2), 0.5% of the next 2 cores (up to
//           4), 0.25% of any core above 4; shared-core E2 machines: 1060m in total;
//   memory: 255 MiB for machines under 1 GiB, else 25% of the first 4 GiB, 20% of the next 4
//           GiB, 10% of the next 8 GiB, 6% of the next 112 GiB, 2% of anything above 128 GiB;
//           plus the kubelet's 100 MiB hard eviction threshold (memory.available);
//   ephemeral-storage (boot disk, no local SSD): min(50% of the disk, 6 GiB + 35% of the disk,
//           100 GiB) plus the 10% nodefs.available eviction threshold of the filesystem.
// Fractions are truncated to whole millicores / MiB / bytes, as cluster-autoscaler's
// cloudprovider/gce/reserved.go does. Deviation: reserved.go places the memory brackets at
// 4000 / 8000 / 16000 / 128000 MiB ("duplicating an upstream bug treating GB as 1000*MiB");
// this follows GKE's documentation (GiB brackets), so allocatable memory can differ from CA's
// prediction by a few MiB.

// The reservations, exposed for tests and for the GKE front-end.
int64_t GkeReservedCpuMillis(const MachineType& machine);
int64_t GkeReservedMemoryBytes(int64_t memory_bytes);  // kube-reserved, without eviction
inline constexpr int64_t kGkeEvictionHardMemoryBytes = 100LL << 20;
// The size of the filesystem the kubelet reports as ephemeral-storage capacity for a boot disk
// of `disk_gb` GB. Approximation: the disk minus a fixed 6025692 KiB for Container-Optimized
// OS's other partitions and filesystem overhead, calibrated on GKE's documented 100 GB example
// (capacity 98831908Ki); 0 if the disk is smaller than that.
int64_t BootDiskFilesystemBytes(int64_t disk_gb);
// ephemeral-storage allocatable for a boot disk of `disk_gb` GB (GKE's documented 100 GB
// example: 47060071478 bytes; this gives 47060071629).
int64_t GkeEphemeralStorageAllocatableBytes(int64_t disk_gb);

// cpu, memory, pods, ephemeral-storage and (when `accelerator` has GPUs) nvidia.com/gpu.
api::ResourceList Capacity(const MachineType& machine,
                           const std::optional<Accelerator>& accelerator,
                           int64_t boot_disk_gb = kDefaultBootDiskGb);
// Capacity minus GKE's reservations; nvidia.com/gpu is not reduced.
api::ResourceList Allocatable(const MachineType& machine,
                              const std::optional<Accelerator>& accelerator,
                              int64_t boot_disk_gb = kDefaultBootDiskGb);

}  // namespace tidepool::cloud::emulated
