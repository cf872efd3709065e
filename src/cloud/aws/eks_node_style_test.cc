#include "cloud/aws/eks_node_style.h"

#include <gtest/gtest.h>

#include "cloud/aws/aws_catalog.h"

namespace tidepool::cloud::aws {
namespace {

TEST(EksNodeStyleTest, NamesAndRegions) {
  struct Case {
    std::string in;
    std::string out;
  };
  for (const Case& c : std::vector<Case>{{"us-west-2a", "us-west-2"},
                                         {"us-east-1f", "us-east-1"},
                                         {"eu-central-1b", "eu-central-1"}}) {
    EXPECT_EQ(AwsRegionOf(c.in), c.out);
  }
  EXPECT_EQ(PrivateDnsSuffix("us-east-1"), "ec2.internal");
  EXPECT_EQ(PrivateDnsSuffix("us-west-2"), "us-west-2.compute.internal");
  EXPECT_EQ(InstanceIdOf("aws:///us-west-2a/i-0123456789abcdef0"), "i-0123456789abcdef0");
  EXPECT_EQ(InstanceIdOf("gce://p/z/n"), "");
  EXPECT_EQ(emulated::IpInNodeName("ip-10-0-3-7.us-west-2.compute.internal"), "10.0.3.7");
  EXPECT_EQ(emulated::IpInNodeName("ip-10-0-3.x"), "");
  EXPECT_EQ(emulated::IpInNodeName("gke-tidepool-pool-1234abcd-x1y2"), "");

  Random random(3);
  const emulated::NodeStyle& style = EksNodeStyle();
  emulated::VmIdentity a =
      style.NewVm({"123", "ng", "us-east-1a", ""}, random, [](std::string_view) { return false; });
  EXPECT_TRUE(a.name.starts_with("ip-10-0-")) << a.name;
  EXPECT_TRUE(a.name.ends_with(".ec2.internal")) << a.name;
  EXPECT_TRUE(a.provider_id.starts_with("aws:///us-east-1a/i-0")) << a.provider_id;
  EXPECT_TRUE(style.System().kubelet_version.find("-eks-") != std::string::npos);
  EXPECT_EQ(style.DefaultGroupId("gpu-ng"), "eks-gpu-ng-" + DerivedUuid("gpu-ng"));
  EXPECT_EQ(DerivedUuid("gpu-ng").size(), 36u);
}

TEST(EksNodeStyleTest, AllocatableIsTheEksAmisReservation) {
  const emulated::Catalog catalog = AwsCatalog();
  const emulated::MachineType* m = catalog.FindMachineType("g4dn.xlarge");
  ASSERT_NE(m, nullptr);
  const api::ResourceList r = EksNodeStyle().Allocatable(*m, std::nullopt, 20);
  // cpu: 4000m - (60 + 10 + 5 + 5) = 3920m; memory: 16 GiB - (11 * 29 + 255) MiB - 100 MiB.
  EXPECT_EQ(api::Get(r, "cpu").MilliValue(), 3920);
  EXPECT_EQ(api::Get(r, "memory").Value(), (16384LL - 574 - 100) << 20);
  EXPECT_EQ(api::Get(r, "pods").Value(), 29);
  EXPECT_EQ(api::Get(r, "ephemeral-storage").Value(), (20LL << 30) - (1LL << 30) - (2LL << 30));
  EXPECT_EQ(api::Get(r, "nvidia.com/gpu").Value(), 0);
}

}  // namespace
}  // namespace tidepool::cloud::aws
