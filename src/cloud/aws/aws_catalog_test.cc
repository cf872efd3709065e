// File: aws_catalog_test.cc
//
// Tests for the EKS instance-type catalog: rows checked against the sources named in
// aws_catalog.cc (cluster-autoscaler's ec2_instance_types.go for shapes, Karpenter's
// zz_generated.pricing_aws.go for us-east-1 on-demand prices, amazon-eks-ami's eni-max-pods.txt
// for max pods), the built-in GPUs every GPU type resolves to, and prices (spot = 0.7 x
// on-demand).
#include "cloud/aws/aws_catalog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace tidepool::cloud::aws {
namespace {

using emulated::Accelerator;
using emulated::AcceleratorType;
using emulated::Catalog;
using emulated::MachineType;

constexpr char kZone[] = "us-east-1a";

TEST(AwsCatalogTest, RowsMatchTheSources) {
  struct Case {
    std::string name;
    std::string family;
    int vcpus;
    int64_t memory_mib;
    std::string accelerator;
    int count;
    double price;
    int max_pods;
  };
  const std::vector<Case> cases = {
      {"t3.medium", "t3", 2, 4096, "", 0, 0.0416, 17},
      {"m5.large", "m5", 2, 8192, "", 0, 0.096, 29},
      {"m6i.2xlarge", "m6i", 8, 32768, "", 0, 0.384, 58},
      {"c5.xlarge", "c5", 4, 8192, "", 0, 0.17, 58},
      {"g4dn.xlarge", "g4dn", 4, 16384, "nvidia-tesla-t4", 1, 0.526, 29},
      {"g4dn.12xlarge", "g4dn", 48, 196608, "nvidia-tesla-t4", 4, 3.912, 234},
      {"g4dn.metal", "g4dn", 96, 393216, "nvidia-tesla-t4", 8, 7.824, 737},
      {"g5.xlarge", "g5", 4, 16384, "nvidia-a10g", 1, 1.006, 58},
      {"g5.48xlarge", "g5", 192, 786432, "nvidia-a10g", 8, 16.288, 345},
      {"g6.xlarge", "g6", 4, 16384, "nvidia-l4", 1, 0.8048, 58},
      {"g6e.xlarge", "g6e", 4, 32768, "nvidia-l40s", 1, 1.861, 58},
      {"g6e.12xlarge", "g6e", 48, 393216, "nvidia-l40s", 4, 10.49264, 292},
      {"p3.2xlarge", "p3", 8, 62464, "nvidia-tesla-v100", 1, 3.06, 58},
      {"p3.16xlarge", "p3", 64, 499712, "nvidia-tesla-v100", 8, 24.48, 234},
      {"p3dn.24xlarge", "p3dn", 96, 786432, "nvidia-tesla-v100-32gb", 8, 31.212, 737},
      {"p4d.24xlarge", "p4d", 96, 1179648, "nvidia-tesla-a100", 8, 21.957642, 737},
      {"p4de.24xlarge", "p4de", 96, 1179648, "nvidia-a100-80gb", 8, 27.44705, 737},
      {"p5.4xlarge", "p5", 16, 262144, "nvidia-h100", 1, 6.88, 118},
      {"p5.48xlarge", "p5", 192, 2097152, "nvidia-h100", 8, 55.04, 100},
      {"p5en.48xlarge", "p5en", 192, 2097152, "nvidia-h200", 8, 63.296, 198},
  };
  const Catalog catalog = AwsCatalog();
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    const MachineType* m = catalog.FindMachineType(tc.name);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->name, tc.name);
    EXPECT_EQ(m->family, tc.family);
    EXPECT_EQ(m->vcpus, tc.vcpus);
    EXPECT_EQ(m->memory_mib, tc.memory_mib);
    EXPECT_FALSE(m->shared_core);
    EXPECT_EQ(m->builtin_accelerator, tc.accelerator);
    EXPECT_EQ(m->builtin_accelerator_count, tc.count);
    EXPECT_DOUBLE_EQ(m->price_per_hour, tc.price);
    EXPECT_DOUBLE_EQ(m->spot_price_per_hour, tc.price * 0.7);
    EXPECT_EQ(m->max_pods, tc.max_pods);
  }
}

TEST(AwsCatalogTest, EveryFamilyHasAllItsSizes) {
  const std::vector<std::string> want = {
      // CPU types.
      "c5.2xlarge", "c5.xlarge", "m5.2xlarge", "m5.4xlarge", "m5.large", "m5.xlarge", "m6i.2xlarge",
      "m6i.large", "m6i.xlarge", "t3.large", "t3.medium",
      // GPU types, each family with every size CA's table lists.
      "g4dn.12xlarge", "g4dn.16xlarge", "g4dn.2xlarge", "g4dn.4xlarge", "g4dn.8xlarge",
      "g4dn.metal", "g4dn.xlarge", "g5.12xlarge", "g5.16xlarge", "g5.24xlarge", "g5.2xlarge",
      "g5.48xlarge", "g5.4xlarge", "g5.8xlarge", "g5.xlarge", "g6.12xlarge", "g6.16xlarge",
      "g6.24xlarge", "g6.2xlarge", "g6.48xlarge", "g6.4xlarge", "g6.8xlarge", "g6.xlarge",
      "g6e.12xlarge", "g6e.16xlarge", "g6e.24xlarge", "g6e.2xlarge", "g6e.48xlarge", "g6e.4xlarge",
      "g6e.8xlarge", "g6e.xlarge", "p3.16xlarge", "p3.2xlarge", "p3.8xlarge", "p3dn.24xlarge",
      "p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5.4xlarge", "p5en.48xlarge"};
  std::vector<std::string> sorted = want;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(AwsCatalog().MachineTypeNames(), sorted);
}

TEST(AwsCatalogTest, AcceleratorsHaveProductLabelsAndNoQuotaOrPrice) {
  struct Case {
    std::string type;
    std::string product;
  };
  const std::vector<Case> cases = {
      {"nvidia-tesla-t4", "Tesla-T4"},
      {"nvidia-a10g", "NVIDIA-A10G"},
      {"nvidia-l4", "NVIDIA-L4"},
      {"nvidia-l40s", "NVIDIA-L40S"},
      {"nvidia-tesla-v100", "Tesla-V100-SXM2-16GB"},
      {"nvidia-tesla-v100-32gb", "Tesla-V100-SXM2-32GB"},
      {"nvidia-tesla-a100", "NVIDIA-A100-SXM4-40GB"},
      {"nvidia-a100-80gb", "NVIDIA-A100-SXM4-80GB"},
      {"nvidia-h100", "NVIDIA-H100-80GB-HBM3"},
      {"nvidia-h200", "NVIDIA-H200"},
  };
  const Catalog catalog = AwsCatalog();
  EXPECT_EQ(catalog.AcceleratorTypeNames().size(), cases.size());
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.type);
    const AcceleratorType* a = catalog.FindAcceleratorType(tc.type);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->product, tc.product);
    EXPECT_EQ(a->quota_metric, "");
    EXPECT_TRUE(a->n1_limits.empty());
    EXPECT_EQ(a->price_per_hour, 0);
    EXPECT_EQ(a->spot_price_per_hour, 0);
  }
}

TEST(AwsCatalogTest, EveryTypeResolvesToItsBuiltInGpus) {
  const Catalog catalog = AwsCatalog();
  for (const std::string& name : catalog.MachineTypeNames()) {
    SCOPED_TRACE(name);
    const MachineType* m = catalog.FindMachineType(name);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->family, name.substr(0, name.find('.')));
    EXPECT_GT(m->max_pods, 0);
    EXPECT_GT(m->price_per_hour, 0);
    const StatusOr<std::optional<Accelerator>> got = catalog.Resolve(name, std::nullopt, kZone);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    if (m->builtin_accelerator.empty()) {
      EXPECT_EQ(*got, std::nullopt);
      continue;
    }
    EXPECT_NE(catalog.FindAcceleratorType(m->builtin_accelerator), nullptr);
    EXPECT_EQ(*got, (Accelerator{m->builtin_accelerator, m->builtin_accelerator_count}));
    // A request may name the built-in GPUs with their count.
    const StatusOr<std::optional<Accelerator>> named = catalog.Resolve(
        name, Accelerator{m->builtin_accelerator, m->builtin_accelerator_count}, kZone);
    ASSERT_TRUE(named.ok()) << named.status().ToString();
    EXPECT_EQ(*named, *got);
  }
}

TEST(AwsCatalogTest, ResolveRejectsGpusATypeDoesNotHave) {
  const Catalog catalog = AwsCatalog();
  // Nothing attaches to a CPU type.
  EXPECT_FALSE(catalog.Resolve("m5.large", Accelerator{"nvidia-tesla-t4", 1}, kZone).ok());
  // Another GPU model, or another count, than the built-in one.
  EXPECT_FALSE(catalog.Resolve("g4dn.xlarge", Accelerator{"nvidia-a10g", 1}, kZone).ok());
  EXPECT_FALSE(catalog.Resolve("g4dn.xlarge", Accelerator{"nvidia-tesla-t4", 2}, kZone).ok());
  EXPECT_FALSE(catalog.Resolve("p3dn.24xlarge", Accelerator{"nvidia-tesla-v100", 8}, kZone).ok());
  // Unknown instance type.
  EXPECT_FALSE(catalog.Resolve("g4dn.huge", std::nullopt, kZone).ok());
}

TEST(AwsCatalogTest, HourlyPriceIncludesTheBuiltInGpus) {
  struct Case {
    std::string name;
    double on_demand;
  };
  const std::vector<Case> cases = {
      {"m5.large", 0.096},         {"g4dn.xlarge", 0.526}, {"g5.48xlarge", 16.288},
      {"p4d.24xlarge", 21.957642}, {"p5.48xlarge", 55.04},
  };
  const Catalog catalog = AwsCatalog();
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    const StatusOr<std::optional<Accelerator>> gpus = catalog.Resolve(tc.name, std::nullopt, kZone);
    ASSERT_TRUE(gpus.ok());
    const StatusOr<double> on_demand = catalog.HourlyPrice(tc.name, *gpus, /*spot=*/false);
    const StatusOr<double> spot = catalog.HourlyPrice(tc.name, *gpus, /*spot=*/true);
    ASSERT_TRUE(on_demand.ok());
    ASSERT_TRUE(spot.ok());
    EXPECT_DOUBLE_EQ(*on_demand, tc.on_demand);
    EXPECT_DOUBLE_EQ(*spot, tc.on_demand * 0.7);
  }
  EXPECT_FALSE(catalog.HourlyPrice("g4dn.huge", std::nullopt, false).ok());
}

TEST(AwsCatalogTest, LabelIsCasAwsGpuLabel) {
  EXPECT_EQ(kLabelAwsAccelerator, "k8s.amazonaws.com/accelerator");
}

}  // namespace
}  // namespace tidepool::cloud::aws
