// File: catalog_test.cc
//
// Tests for the GKE catalog: machine shapes and built-in GPUs as Compute Engine publishes them,
// GKE's allocatable formula (plan-node-sizes; expected values worked out by hand from the
// brackets), accelerator validation with GCE/GKE's error texts, and prices from
// cluster-autoscaler's gce_price_info.go.
#include "cloud/emulated/catalog.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "testing/builders.h"

namespace tidepool::cloud::emulated {
namespace {

using ::tidepool::testing::Q;

TEST(CatalogTest, MachineShapesMatchComputeEngine) {
  struct Case {
    std::string machine;
    int vcpus;
    int64_t memory_gb;  // GCE "GB" = GiB
    std::string builtin;
    int builtin_count;
  };
  const std::vector<Case> cases = {
      {"e2-medium", 2, 4, "", 0},
      {"e2-standard-32", 32, 128, "", 0},
      {"n1-standard-16", 16, 60, "", 0},
      {"n1-standard-96", 96, 360, "", 0},
      {"n2-standard-8", 8, 32, "", 0},
      {"g2-standard-4", 4, 16, "nvidia-l4", 1},
      {"g2-standard-12", 12, 48, "nvidia-l4", 1},
      {"g2-standard-24", 24, 96, "nvidia-l4", 2},
      {"g2-standard-32", 32, 128, "nvidia-l4", 1},
      {"g2-standard-48", 48, 192, "nvidia-l4", 4},
      {"g2-standard-96", 96, 384, "nvidia-l4", 8},
      {"a2-highgpu-1g", 12, 85, "nvidia-tesla-a100", 1},
      {"a2-highgpu-2g", 24, 170, "nvidia-tesla-a100", 2},
      {"a2-highgpu-4g", 48, 340, "nvidia-tesla-a100", 4},
      {"a2-highgpu-8g", 96, 680, "nvidia-tesla-a100", 8},
      {"a2-ultragpu-1g", 12, 170, "nvidia-a100-80gb", 1},
      {"a2-ultragpu-8g", 96, 1360, "nvidia-a100-80gb", 8},
      {"a3-highgpu-8g", 208, 1872, "nvidia-h100-80gb", 8},
  };
  const Catalog catalog = Catalog::Gke();
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.machine);
    const MachineType* m = catalog.FindMachineType(tc.machine);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->vcpus, tc.vcpus);
    EXPECT_EQ(m->memory_mib, tc.memory_gb * 1024);
    EXPECT_EQ(m->builtin_accelerator, tc.builtin);
    EXPECT_EQ(m->builtin_accelerator_count, tc.builtin_count);
  }
  // The full list asked for: 6 e2, 8 n1, 5 n2, 8 g2, 4 a2-highgpu, 4 a2-ultragpu, 1 a3.
  EXPECT_EQ(catalog.MachineTypeNames().size(), 36u);
}

TEST(CatalogTest, AcceleratorsHaveProductLabelsAndQuotaMetrics) {
  struct Case {
    std::string type;
    std::string product;
    std::string quota;
    bool attachable;
  };
  const std::vector<Case> cases = {
      {"nvidia-tesla-t4", "Tesla-T4", "NVIDIA_T4_GPUS", true},
      {"nvidia-tesla-v100", "Tesla-V100-SXM2-16GB", "NVIDIA_V100_GPUS", true},
      {"nvidia-tesla-p100", "Tesla-P100-PCIE-16GB", "NVIDIA_P100_GPUS", true},
      {"nvidia-tesla-p4", "Tesla-P4", "NVIDIA_P4_GPUS", true},
      {"nvidia-l4", "NVIDIA-L4", "NVIDIA_L4_GPUS", false},
      {"nvidia-tesla-a100", "NVIDIA-A100-SXM4-40GB", "NVIDIA_A100_GPUS", false},
      {"nvidia-a100-80gb", "NVIDIA-A100-SXM4-80GB", "NVIDIA_A100_80GB_GPUS", false},
      {"nvidia-h100-80gb", "NVIDIA-H100-80GB-HBM3", "NVIDIA_H100_GPUS", false},
  };
  const Catalog catalog = Catalog::Gke();
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.type);
    const AcceleratorType* a = catalog.FindAcceleratorType(tc.type);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->product, tc.product);
    EXPECT_EQ(a->quota_metric, tc.quota);
    EXPECT_EQ(!a->n1_limits.empty(), tc.attachable);
  }
  // Every built-in accelerator is in the catalog.
  for (const std::string& name : catalog.MachineTypeNames()) {
    const MachineType* m = catalog.FindMachineType(name);
    if (!m->builtin_accelerator.empty()) {
      EXPECT_NE(catalog.FindAcceleratorType(m->builtin_accelerator), nullptr) << name;
    }
  }
}

TEST(CatalogTest, CapacityAndAllocatableFollowGkeReservations) {
  struct Case {
    std::string name;
    std::string machine;
    std::optional<Accelerator> accelerator;
    std::string capacity_cpu;
    std::string capacity_memory;
    std::string allocatable_cpu;
    std::string allocatable_memory;
  };
  const std::vector<Case> cases = {
      // cpu: 4000 - (60 + 10 + 10) = 3920m; memory: 15360 - (1024 + 819.2 + 716.8) - 100 MiB.
      {"n1-standard-4 with a T4", "n1-standard-4", Accelerator{"nvidia-tesla-t4", 1}, "4", "15Gi",
       "3920m", "12700Mi"},
      // shared-core E2: 1060m reserved; memory 4096 - 1024 - 100.
      {"shared-core e2-medium", "e2-medium", std::nullopt, "2", "4Gi", "940m", "2972Mi"},
      // one core: 6%; 3840 MiB: 25%.
      {"n1-standard-1", "n1-standard-1", std::nullopt, "1", "3840Mi", "940m", "2780Mi"},
      {"n1-standard-2", "n1-standard-2", std::nullopt, "2", "7680Mi", "1930m", "5840Mi"},
      {"e2-standard-4", "e2-standard-4", std::nullopt, "4", "16Gi", "3920m", "13622Mi"},
      // 128 GiB exactly: 1024 + 819.2 + 819.2 + 6881.28 MiB.
      {"n2-standard-32", "n2-standard-32", std::nullopt, "32", "128Gi", "31850m", "121429Mi"},
      // 12 cores: + 0.25% of 8 cores; 85 GiB: + 6% of 69 GiB.
      {"a2-highgpu-1g", "a2-highgpu-1g", Accelerator{"nvidia-tesla-a100", 1}, "12", "85Gi",
       "11900m", "80039Mi"},
      // Above 128 GiB: + 2%.
      {"a3-highgpu-8g", "a3-highgpu-8g", Accelerator{"nvidia-h100-80gb", 8}, "208", "1872Gi",
       "207410m", "1871568Mi"},
  };
  const Catalog catalog = Catalog::Gke();
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    const MachineType* m = catalog.FindMachineType(tc.machine);
    ASSERT_NE(m, nullptr);
    const api::ResourceList cap = Capacity(*m, tc.accelerator);
    const api::ResourceList alloc = Allocatable(*m, tc.accelerator);
    EXPECT_EQ(api::Get(cap, "cpu"), Q(tc.capacity_cpu));
    EXPECT_EQ(api::Get(cap, "memory"), Q(tc.capacity_memory));
    EXPECT_EQ(api::Get(alloc, "cpu"), Q(tc.allocatable_cpu));
    EXPECT_EQ(api::Get(alloc, "memory"), Q(tc.allocatable_memory));
    EXPECT_EQ(api::Get(cap, "pods"), Q("110"));
    EXPECT_EQ(api::Get(alloc, "pods"), Q("110"));
    const int gpus = tc.accelerator.has_value() ? tc.accelerator->count : 0;
    EXPECT_EQ(api::Get(cap, "nvidia.com/gpu").Value(), gpus);
    EXPECT_EQ(api::Get(alloc, "nvidia.com/gpu").Value(), gpus);
    EXPECT_EQ(cap.count("nvidia.com/gpu"), gpus > 0 ? 1u : 0u);
  }
}

TEST(CatalogTest, EphemeralStorageMatchesGkeDocumentedExample) {
  // GKE's plan-node-sizes example (100 GB boot disk): capacity 98831908Ki, allocatable
  // 47060071478 bytes. Ours: the capacity exactly, allocatable within 200 bytes.
  const Catalog catalog = Catalog::Gke();
  const MachineType* m = catalog.FindMachineType("n1-standard-4");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(api::Get(Capacity(*m, std::nullopt), "ephemeral-storage"), Q("98831908Ki"));
  const int64_t alloc = api::Get(Allocatable(*m, std::nullopt), "ephemeral-storage").Value();
  EXPECT_EQ(alloc, 47060071629);
  EXPECT_NEAR(static_cast<double>(alloc), 47060071478.0, 200.0);
  // A bigger disk: the system reservation is capped at 100 GiB.
  EXPECT_EQ(GkeEphemeralStorageAllocatableBytes(500),
            BootDiskFilesystemBytes(500) - (100LL << 30) - BootDiskFilesystemBytes(500) / 10);
}

TEST(CatalogTest, ResolveAcceptsValidCombinationsAndRejectsInvalidOnes) {
  struct Case {
    std::string name;
    std::string machine;
    std::optional<Accelerator> requested;
    std::optional<Accelerator> want;  // when the error is empty
    std::string error;                // the whole message, or empty
  };
  const std::vector<Case> cases = {
      {"T4 on N1", "n1-standard-4", Accelerator{"nvidia-tesla-t4", 1},
       Accelerator{"nvidia-tesla-t4", 1}, ""},
      {"4 T4 on a 96-vCPU N1", "n1-standard-96", Accelerator{"nvidia-tesla-t4", 4},
       Accelerator{"nvidia-tesla-t4", 4}, ""},
      {"8 V100 on N1", "n1-standard-64", Accelerator{"nvidia-tesla-v100", 8},
       Accelerator{"nvidia-tesla-v100", 8}, ""},
      {"CPU-only machine", "n2-standard-4", std::nullopt, std::nullopt, ""},
      {"G2 without a request gets its built-in L4s", "g2-standard-24", std::nullopt,
       Accelerator{"nvidia-l4", 2}, ""},
      {"G2 may name its built-in GPUs", "g2-standard-24", Accelerator{"nvidia-l4", 2},
       Accelerator{"nvidia-l4", 2}, ""},
      {"A3 gets 8 H100", "a3-highgpu-8g", std::nullopt, Accelerator{"nvidia-h100-80gb", 8}, ""},
      {"a different GPU on A2", "a2-highgpu-1g", Accelerator{"nvidia-tesla-t4", 1}, std::nullopt,
       "[a2-highgpu-1g, nvidia-tesla-t4] features are not compatible for creating instance."},
      {"GPU on N2", "n2-standard-4", Accelerator{"nvidia-tesla-t4", 1}, std::nullopt,
       "[n2-standard-4, nvidia-tesla-t4] features are not compatible for creating instance."},
      {"GPU on E2", "e2-medium", Accelerator{"nvidia-tesla-t4", 1}, std::nullopt,
       "[e2-medium, nvidia-tesla-t4] features are not compatible for creating instance."},
      {"built-in-only GPU on N1", "n1-standard-4", Accelerator{"nvidia-l4", 1}, std::nullopt,
       "[n1-standard-4, nvidia-l4] features are not compatible for creating instance."},
      {"three T4", "n1-standard-4", Accelerator{"nvidia-tesla-t4", 3}, std::nullopt,
       "Invalid value for field 'resource.guestAccelerators[0].acceleratorCount': '3'. "
       "Accelerator type nvidia-tesla-t4 can be attached in counts of 1, 2, 4."},
      {"zero GPUs", "n1-standard-4", Accelerator{"nvidia-tesla-t4", 0}, std::nullopt,
       "Invalid value for field 'resource.guestAccelerators[0].acceleratorCount': '0'. "
       "Accelerator count must be at least 1."},
      {"N1 too large for one V100", "n1-standard-32", Accelerator{"nvidia-tesla-v100", 1},
       std::nullopt,
       "Machine type n1-standard-32 (32 vCPUs, 120 GB) is too large for 1 nvidia-tesla-v100 "
       "GPU(s): at most 12 vCPUs and 78 GB of memory."},
      {"N1 memory too large for four P100", "n1-standard-64", Accelerator{"nvidia-tesla-p100", 4},
       std::nullopt,
       "Machine type n1-standard-64 (64 vCPUs, 240 GB) is too large for 4 nvidia-tesla-p100 "
       "GPU(s): at most 64 vCPUs and 208 GB of memory."},
      {"wrong built-in count", "a2-highgpu-2g", Accelerator{"nvidia-tesla-a100", 1}, std::nullopt,
       "Accelerator count 1 of type nvidia-tesla-a100 does not match machine type a2-highgpu-2g, "
       "which comes with 2 nvidia-tesla-a100 GPU(s)."},
      {"unknown accelerator", "n1-standard-4", Accelerator{"nvidia-tesla-k9000", 1}, std::nullopt,
       "Accelerator type \"nvidia-tesla-k9000\" does not exist in zone us-central1-a."},
      {"unknown machine", "n9-standard-4", std::nullopt, std::nullopt,
       "Invalid value for field 'resource.machineType': "
       "'zones/us-central1-a/machineTypes/n9-standard-4'. Machine type with name "
       "'n9-standard-4' does not exist in zone 'us-central1-a'."},
  };
  const Catalog catalog = Catalog::Gke();
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    StatusOr<std::optional<Accelerator>> got =
        catalog.Resolve(tc.machine, tc.requested, "us-central1-a");
    if (tc.error.empty()) {
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(*got, tc.want);
    } else {
      ASSERT_FALSE(got.ok());
      EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(got.status().message(), tc.error);
    }
  }
}

TEST(CatalogTest, ZoneRestrictionsUseGkeWording) {
  Catalog catalog = Catalog::Gke();
  catalog.SetZones("nvidia-tesla-t4", {"us-central1-b", "us-central1-c"});
  catalog.SetZones("a3-highgpu-8g", {"us-central1-c"});
  const Accelerator t4{"nvidia-tesla-t4", 1};
  EXPECT_TRUE(catalog.Resolve("n1-standard-4", t4, "us-central1-b").ok());
  StatusOr<std::optional<Accelerator>> got = catalog.Resolve("n1-standard-4", t4, "us-central1-a");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(),
            "Accelerator type \"nvidia-tesla-t4\" does not exist in zone us-central1-a.");
  EXPECT_FALSE(catalog.Resolve("a3-highgpu-8g", std::nullopt, "us-central1-a").ok());
  EXPECT_TRUE(catalog.Resolve("a3-highgpu-8g", std::nullopt, "us-central1-c").ok());
}

TEST(CatalogTest, HourlyPrices) {
  struct Case {
    std::string machine;
    std::optional<Accelerator> accelerator;
    bool spot;
    double want;
  };
  const std::vector<Case> cases = {
      {"n1-standard-4", Accelerator{"nvidia-tesla-t4", 1}, false, 0.19 + 0.35},
      {"n1-standard-4", Accelerator{"nvidia-tesla-t4", 1}, true, 0.04 + 0.11},
      {"n1-standard-8", Accelerator{"nvidia-tesla-v100", 2}, false, 0.38 + 2 * 2.48},
      {"g2-standard-4", Accelerator{"nvidia-l4", 1}, false, 0.76},
      {"g2-standard-4", Accelerator{"nvidia-l4", 1}, true, 0.23},
      {"a2-highgpu-1g", Accelerator{"nvidia-tesla-a100", 1}, false, 3.673385},
      {"a2-highgpu-8g", Accelerator{"nvidia-tesla-a100", 8}, true, 8.816124},
      {"a2-ultragpu-1g", std::nullopt, false, 5.0688},
      {"e2-medium", std::nullopt, false, 0.03351},
  };
  const Catalog catalog = Catalog::Gke();
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.machine + (tc.spot ? " spot" : " on-demand"));
    StatusOr<double> got = catalog.HourlyPrice(tc.machine, tc.accelerator, tc.spot);
    ASSERT_TRUE(got.ok());
    EXPECT_NEAR(*got, tc.want, 1e-9);
  }
  EXPECT_EQ(catalog.HourlyPrice("n9-standard-4", std::nullopt, false).status().code(),
            StatusCode::kNotFound);
}

}  // namespace
}  // namespace tidepool::cloud::emulated
