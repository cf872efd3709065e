#include "cloud/emulated/catalog.h"

#include <algorithm>
#include <string>
#include <utility>

namespace tidepool::cloud::emulated {
namespace {

constexpr int64_t kMiB = 1LL << 20;
constexpr int64_t kGiB = 1LL << 30;

// ---- The GKE table ----------------------------------------------------------------------------
//
// Shapes: Compute Engine machine-type documentation (general-purpose and accelerator-optimized
// families). Memory "GB" in GCE machine types are GiB.
//
// Prices (USD/hour): cluster-autoscaler cloudprovider/gce/gce_price_info.go, the static table
// behind CA's price expander (anchors-and-data.md §4.2: "file last changed 2026-06-22; not live
// list prices"): instancePrices / preemptiblePrices per machine type (built-in GPUs included)
// and gpuPrices / preemptibleGpuPrices per attached GPU. GCE spot VMs are priced as
// preemptible ones. a3-highgpu-8g is not in that table: its price is an estimate from the
// secondary source quoted in anchors-and-data.md §4.2 (costnimbus.com, March 2026: GCP A3-High
// ~$3.00 per H100-hour on demand, ~$2.25 spot), times 8 GPUs. Indicative only.

struct MachineRow {
  const char* name;
  const char* family;
  int vcpus;
  int64_t memory_mib;
  bool shared_core;
  const char* builtin;
  int builtin_count;
  double price;
  double spot;
};

constexpr MachineRow kMachines[] = {
    // E2 (e2-medium is shared-core: 2 vCPUs at 50% each).
    {"e2-medium", "e2", 2, 4 * 1024, true, "", 0, 0.03351, 0.01005},
    {"e2-standard-2", "e2", 2, 8 * 1024, false, "", 0, 0.06701, 0.02010},
    {"e2-standard-4", "e2", 4, 16 * 1024, false, "", 0, 0.13402, 0.04021},
    {"e2-standard-8", "e2", 8, 32 * 1024, false, "", 0, 0.26805, 0.08041},
    {"e2-standard-16", "e2", 16, 64 * 1024, false, "", 0, 0.53609, 0.16083},
    {"e2-standard-32", "e2", 32, 128 * 1024, false, "", 0, 1.07210, 0.32163},
    // N1: 3.75 GB per vCPU.
    {"n1-standard-1", "n1", 1, 3840, false, "", 0, 0.0475, 0.0100},
    {"n1-standard-2", "n1", 2, 7680, false, "", 0, 0.0950, 0.0200},
    {"n1-standard-4", "n1", 4, 15360, false, "", 0, 0.1900, 0.0400},
    {"n1-standard-8", "n1", 8, 30720, false, "", 0, 0.3800, 0.0800},
    {"n1-standard-16", "n1", 16, 61440, false, "", 0, 0.7600, 0.1600},
    {"n1-standard-32", "n1", 32, 122880, false, "", 0, 1.5200, 0.3200},
    {"n1-standard-64", "n1", 64, 245760, false, "", 0, 3.0400, 0.6400},
    {"n1-standard-96", "n1", 96, 368640, false, "", 0, 4.5600, 0.9600},
    // N2: 4 GB per vCPU.
    {"n2-standard-2", "n2", 2, 8 * 1024, false, "", 0, 0.0971, 0.0235},
    {"n2-standard-4", "n2", 4, 16 * 1024, false, "", 0, 0.1942, 0.0470},
    {"n2-standard-8", "n2", 8, 32 * 1024, false, "", 0, 0.3885, 0.0940},
    {"n2-standard-16", "n2", 16, 64 * 1024, false, "", 0, 0.7769, 0.1880},
    {"n2-standard-32", "n2", 32, 128 * 1024, false, "", 0, 1.5539, 0.3760},
    // G2: NVIDIA L4 built in (default memory of each shape).
    {"g2-standard-4", "g2", 4, 16 * 1024, false, "nvidia-l4", 1, 0.76, 0.23},
    {"g2-standard-8", "g2", 8, 32 * 1024, false, "nvidia-l4", 1, 0.91, 0.27},
    {"g2-standard-12", "g2", 12, 48 * 1024, false, "nvidia-l4", 1, 1.06, 0.32},
    {"g2-standard-16", "g2", 16, 64 * 1024, false, "nvidia-l4", 1, 1.20, 0.36},
    {"g2-standard-24", "g2", 24, 96 * 1024, false, "nvidia-l4", 2, 2.11, 0.63},
    {"g2-standard-32", "g2", 32, 128 * 1024, false, "nvidia-l4", 1, 1.79, 0.54},
    {"g2-standard-48", "g2", 48, 192 * 1024, false, "nvidia-l4", 4, 4.23, 1.27},
    {"g2-standard-96", "g2", 96, 384 * 1024, false, "nvidia-l4", 8, 8.46, 2.54},
    // A2 Standard: NVIDIA A100 40GB built in.
    {"a2-highgpu-1g", "a2", 12, 85 * 1024, false, "nvidia-tesla-a100", 1, 3.673385, 1.102016},
    {"a2-highgpu-2g", "a2", 24, 170 * 1024, false, "nvidia-tesla-a100", 2, 7.34677, 2.204031},
    {"a2-highgpu-4g", "a2", 48, 340 * 1024, false, "nvidia-tesla-a100", 4, 14.69354, 4.408062},
    {"a2-highgpu-8g", "a2", 96, 680 * 1024, false, "nvidia-tesla-a100", 8, 29.38708, 8.816124},
    // A2 Ultra: NVIDIA A100 80GB built in.
    {"a2-ultragpu-1g", "a2", 12, 170 * 1024, false, "nvidia-a100-80gb", 1, 5.0688, 1.6},
    {"a2-ultragpu-2g", "a2", 24, 340 * 1024, false, "nvidia-a100-80gb", 2, 10.1376, 3.2},
    {"a2-ultragpu-4g", "a2", 48, 680 * 1024, false, "nvidia-a100-80gb", 4, 20.2752, 6.4},
    {"a2-ultragpu-8g", "a2", 96, 1360 * 1024, false, "nvidia-a100-80gb", 8, 40.5504, 12.8},
    // A3 High: NVIDIA H100 80GB built in. Price: estimate, see above.
    {"a3-highgpu-8g", "a3", 208, 1872 * 1024, false, "nvidia-h100-80gb", 8, 24.00, 18.00},
};

// Compute Engine "GPU machine types", N1 general-purpose: GPU counts and the largest vCPU
// count / memory (GB) an N1 machine may have with each count.
AcceleratorType Attachable(const char* name, const char* product, const char* quota,
                           std::vector<AttachLimit> limits, double price, double spot) {
  return AcceleratorType{name, product, quota, std::move(limits), price, spot};
}
AcceleratorType BuiltIn(const char* name, const char* product, const char* quota) {
  return AcceleratorType{name, product, quota, {}, 0, 0};
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      out += sep;
    }
    out += parts[i];
  }
  return out;
}

// GCE's wording for a machine / accelerator pair that cannot go together, as Compute Engine
// returns it (e.g. "[n2-standard-32, nvidia-tesla-t4] features are not compatible for
// creating instance.").
Status NotCompatible(std::string_view machine, std::string_view accelerator) {
  return InvalidArgumentError("[" + std::string(machine) + ", " + std::string(accelerator) +
                              "] features are not compatible for creating instance.");
}

}  // namespace

Catalog Catalog::Gke() {
  Catalog c;
  for (const MachineRow& r : kMachines) {
    c.AddMachineType(MachineType{r.name, r.family, r.vcpus, r.memory_mib, r.shared_core, r.builtin,
                                 r.builtin_count, r.price, r.spot});
  }
  // Product names: what NVIDIA GPU Feature Discovery puts in nvidia.com/gpu.product (the NVML
  // device name with spaces replaced by '-'). GCE's V100 is the SXM2 16GB part and its P100 the
  // PCIe 16GB part.
  c.AddAcceleratorType(Attachable("nvidia-tesla-t4", "Tesla-T4", "NVIDIA_T4_GPUS",
                                  {{1, 48, 312}, {2, 48, 312}, {4, 96, 624}}, 0.35, 0.11));
  c.AddAcceleratorType(Attachable("nvidia-tesla-v100", "Tesla-V100-SXM2-16GB", "NVIDIA_V100_GPUS",
                                  {{1, 12, 78}, {2, 24, 156}, {4, 48, 312}, {8, 96, 624}}, 2.48,
                                  0.74));
  c.AddAcceleratorType(Attachable("nvidia-tesla-p100", "Tesla-P100-PCIE-16GB", "NVIDIA_P100_GPUS",
                                  {{1, 16, 104}, {2, 32, 208}, {4, 64, 208}}, 1.46, 0.43));
  c.AddAcceleratorType(Attachable("nvidia-tesla-p4", "Tesla-P4", "NVIDIA_P4_GPUS",
                                  {{1, 24, 156}, {2, 48, 312}, {4, 96, 624}}, 0.60, 0.216));
  c.AddAcceleratorType(BuiltIn("nvidia-l4", "NVIDIA-L4", "NVIDIA_L4_GPUS"));
  c.AddAcceleratorType(BuiltIn("nvidia-tesla-a100", "NVIDIA-A100-SXM4-40GB", "NVIDIA_A100_GPUS"));
  c.AddAcceleratorType(
      BuiltIn("nvidia-a100-80gb", "NVIDIA-A100-SXM4-80GB", "NVIDIA_A100_80GB_GPUS"));
  c.AddAcceleratorType(BuiltIn("nvidia-h100-80gb", "NVIDIA-H100-80GB-HBM3", "NVIDIA_H100_GPUS"));
  return c;
}

void Catalog::AddMachineType(MachineType m) {
  std::string name = m.name;
  machines_[name] = std::move(m);
}

void Catalog::AddAcceleratorType(AcceleratorType a) {
  std::string name = a.name;
  accelerators_[name] = std::move(a);
}

void Catalog::SetZones(std::string_view name, std::vector<std::string> zones) {
  zones_[std::string(name)] = std::move(zones);
}

bool Catalog::OfferedIn(std::string_view name, std::string_view zone) const {
  auto it = zones_.find(name);
  if (it == zones_.end()) {
    return true;
  }
  return std::find(it->second.begin(), it->second.end(), zone) != it->second.end();
}

const MachineType* Catalog::FindMachineType(std::string_view name) const {
  auto it = machines_.find(name);
  return it == machines_.end() ? nullptr : &it->second;
}

const AcceleratorType* Catalog::FindAcceleratorType(std::string_view name) const {
  auto it = accelerators_.find(name);
  return it == accelerators_.end() ? nullptr : &it->second;
}

std::vector<std::string> Catalog::MachineTypeNames() const {
  std::vector<std::string> out;
  for (const auto& [name, m] : machines_) {
    out.push_back(name);
  }
  return out;
}

std::vector<std::string> Catalog::AcceleratorTypeNames() const {
  std::vector<std::string> out;
  for (const auto& [name, a] : accelerators_) {
    out.push_back(name);
  }
  return out;
}

StatusOr<std::optional<Accelerator>> Catalog::Resolve(std::string_view machine_type,
                                                      const std::optional<Accelerator>& requested,
                                                      std::string_view zone) const {
  const MachineType* m = FindMachineType(machine_type);
  if (m == nullptr || !OfferedIn(machine_type, zone)) {
    // Compute Engine's field error for an unknown machine type.
    return InvalidArgumentError("Invalid value for field 'resource.machineType': 'zones/" +
                                std::string(zone) + "/machineTypes/" + std::string(machine_type) +
                                "'. Machine type with name '" + std::string(machine_type) +
                                "' does not exist in zone '" + std::string(zone) + "'.");
  }
  if (!requested.has_value() || requested->type.empty()) {
    if (!m->builtin_accelerator.empty()) {
      return std::optional<Accelerator>(
          Accelerator{m->builtin_accelerator, m->builtin_accelerator_count});
    }
    return std::optional<Accelerator>();
  }
  const std::string& type = requested->type;
  const AcceleratorType* a = FindAcceleratorType(type);
  if (a == nullptr || !OfferedIn(type, zone)) {
    // GKE's 400 for node-pools create, e.g. `Accelerator type "nvidia-tesla-t4" does not exist
    // in zone us-west4-c.`
    return InvalidArgumentError("Accelerator type \"" + type + "\" does not exist in zone " +
                                std::string(zone) + ".");
  }
  if (requested->count < 1) {
    // The field part is Compute Engine's error shape; the sentence after it is tidepool's.
    return InvalidArgumentError(
        "Invalid value for field 'resource.guestAccelerators[0].acceleratorCount': '" +
        std::to_string(requested->count) + "'. Accelerator count must be at least 1.");
  }
  if (!m->builtin_accelerator.empty()) {
    if (type != m->builtin_accelerator) {
      return NotCompatible(m->name, type);
    }
    if (requested->count != m->builtin_accelerator_count) {
      // tidepool's wording.
      return InvalidArgumentError(
          "Accelerator count " + std::to_string(requested->count) + " of type " + type +
          " does not match machine type " + m->name + ", which comes with " +
          std::to_string(m->builtin_accelerator_count) + " " + type + " GPU(s).");
    }
    return std::optional<Accelerator>(Accelerator{type, requested->count});
  }
  if (!m->AcceptsAttachedAccelerators() || a->n1_limits.empty()) {
    return NotCompatible(m->name, type);
  }
  const AttachLimit* limit = nullptr;
  std::vector<std::string> counts;
  for (const AttachLimit& l : a->n1_limits) {
    counts.push_back(std::to_string(l.count));
    if (l.count == requested->count) {
      limit = &l;
    }
  }
  if (limit == nullptr) {
    // The field part is Compute Engine's error shape; the sentence after it is tidepool's.
    return InvalidArgumentError(
        "Invalid value for field 'resource.guestAccelerators[0].acceleratorCount': '" +
        std::to_string(requested->count) + "'. Accelerator type " + type +
        " can be attached in counts of " + Join(counts, ", ") + ".");
  }
  if (m->vcpus > limit->max_vcpus || m->memory_mib > limit->max_memory_gb * 1024) {
    // tidepool's wording; the limits are Compute Engine's N1 GPU table.
    return InvalidArgumentError("Machine type " + m->name + " (" + std::to_string(m->vcpus) +
                                " vCPUs, " + std::to_string(m->memory_mib / 1024) +
                                " GB) is too large for " + std::to_string(limit->count) + " " +
                                type + " GPU(s): at most " + std::to_string(limit->max_vcpus) +
                                " vCPUs and " + std::to_string(limit->max_memory_gb) +
                                " GB of memory.");
  }
  return std::optional<Accelerator>(Accelerator{type, requested->count});
}

StatusOr<double> Catalog::HourlyPrice(std::string_view machine_type,
                                      const std::optional<Accelerator>& accelerator,
                                      bool spot) const {
  const MachineType* m = FindMachineType(machine_type);
  if (m == nullptr) {
    return NotFoundError("no price for machine type " + std::string(machine_type));
  }
  double price = spot ? m->spot_price_per_hour : m->price_per_hour;
  if (accelerator.has_value() && accelerator->count > 0) {
    const AcceleratorType* a = FindAcceleratorType(accelerator->type);
    if (a == nullptr) {
      return NotFoundError("no price for accelerator type " + accelerator->type);
    }
    // Built-in GPUs carry price 0: the machine price includes them.
    price += accelerator->count * (spot ? a->spot_price_per_hour : a->price_per_hour);
  }
  return price;
}

// ---- GKE node resources ----------------------------------------------------------------------

int64_t GkeReservedCpuMillis(const MachineType& machine) {
  if (machine.shared_core) {
    // "For shared-core E2 machine types, GKE reserves a total of 1060 millicores."
    return 1060;
  }
  const int64_t c = int64_t{machine.vcpus} * 1000;
  auto slice = [c](int64_t from, int64_t to) {
    return std::clamp<int64_t>(c - from, 0, to - from);
  };
  // 6% / 1% / 0.5% / 0.25%, in units of 1/2000 millicore so the sum stays an integer.
  const int64_t x2000 = 120 * slice(0, 1000) + 20 * slice(1000, 2000) + 10 * slice(2000, 4000) +
                        5 * std::max<int64_t>(c - 4000, 0);
  return x2000 / 2000;
}

int64_t GkeReservedMemoryBytes(int64_t memory_bytes) {
  const int64_t mib = memory_bytes / kMiB;
  if (mib <= 0) {
    return 0;
  }
  if (mib < 1024) {
    return 255 * kMiB;
  }
  auto slice = [mib](int64_t from, int64_t to) {
    return std::clamp<int64_t>(mib - from, 0, to - from);
  };
  // 25% / 20% / 10% / 6% / 2%, in hundredths of a MiB; truncated to whole MiB like CA.
  const int64_t x100 = 25 * slice(0, 4096) + 20 * slice(4096, 8192) + 10 * slice(8192, 16384) +
                       6 * slice(16384, 131072) + 2 * std::max<int64_t>(mib - 131072, 0);
  return (x100 / 100) * kMiB;
}

int64_t BootDiskFilesystemBytes(int64_t disk_gb) {
  constexpr int64_t kNonStatefulBytes = 6025692LL * 1024;
  return std::max<int64_t>(disk_gb * kGiB - kNonStatefulBytes, 0);
}

int64_t GkeEphemeralStorageAllocatableBytes(int64_t disk_gb) {
  const int64_t disk = disk_gb * kGiB;
  const int64_t fs = BootDiskFilesystemBytes(disk_gb);
  const int64_t reserved = std::min({disk / 2, 6 * kGiB + disk * 35 / 100, 100 * kGiB});
  const int64_t eviction = fs / 10;  // nodefs.available < 10%
  return std::max<int64_t>(fs - reserved - eviction, 0);
}

api::ResourceList Capacity(const MachineType& machine,
                           const std::optional<Accelerator>& accelerator, int64_t boot_disk_gb) {
  using api::Quantity;
  using api::QuantityFormat;
  api::ResourceList r;
  r[std::string(api::kResourceCpu)] = Quantity::FromInt(machine.vcpus, QuantityFormat::kDecimalSI);
  r[std::string(api::kResourceMemory)] =
      Quantity::FromInt(machine.memory_mib * kMiB, QuantityFormat::kBinarySI);
  r[std::string(api::kResourcePods)] =
      Quantity::FromInt(kDefaultMaxPodsPerNode, QuantityFormat::kDecimalSI);
  r[std::string(api::kResourceEphemeralStorage)] =
      Quantity::FromInt(BootDiskFilesystemBytes(boot_disk_gb), QuantityFormat::kBinarySI);
  if (accelerator.has_value() && accelerator->count > 0) {
    r[std::string(api::kResourceNvidiaGpu)] =
        Quantity::FromInt(accelerator->Advertised(), QuantityFormat::kDecimalSI);
  }
  return r;
}

api::ResourceList Allocatable(const MachineType& machine,
                              const std::optional<Accelerator>& accelerator, int64_t boot_disk_gb) {
  using api::Quantity;
  using api::QuantityFormat;
  api::ResourceList r = Capacity(machine, accelerator, boot_disk_gb);
  r[std::string(api::kResourceCpu)] = Quantity::FromMilli(
      int64_t{machine.vcpus} * 1000 - GkeReservedCpuMillis(machine), QuantityFormat::kDecimalSI);
  const int64_t memory = machine.memory_mib * kMiB;
  r[std::string(api::kResourceMemory)] = Quantity::FromInt(
      std::max<int64_t>(memory - GkeReservedMemoryBytes(memory) - kGkeEvictionHardMemoryBytes, 0),
      QuantityFormat::kBinarySI);
  r[std::string(api::kResourceEphemeralStorage)] = Quantity::FromInt(
      GkeEphemeralStorageAllocatableBytes(boot_disk_gb), QuantityFormat::kDecimalSI);
  return r;
}

}  // namespace tidepool::cloud::emulated
