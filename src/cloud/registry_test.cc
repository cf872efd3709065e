#include "cloud/registry.h"

#include <gtest/gtest.h>

namespace tidepool::cloud {
namespace {

using Kind = ProviderFlag::Kind;

// A provider that builds nothing; enough to exercise the registry.
CloudProviderRegistration Fake(std::string name, std::vector<ProviderFlag> flags) {
  return CloudProviderRegistration{
      std::move(name), std::move(flags), [](const CloudProviderOptions&) { return OkStatus(); },
      [](const CloudProviderOptions&,
         const CloudProviderEnvironment&) -> StatusOr<CloudProviderHandlePtr> {
        return UnimplementedError("fake");
      }};
}

TEST(CloudProviderRegistryTest, FindsProvidersByNameAndOffersEveryFlagOnce) {
  CloudProviderRegistry r;
  r.Register(Fake("zeta", {{"region", "zeta's region", Kind::kValue},
                           {"zeta-no-auth", "", Kind::kSwitch}}));
  r.Register(Fake("alpha", {{"region", "alpha's region", Kind::kValue},
                            {"alpha-key", "", Kind::kValue}}));
  EXPECT_EQ(r.Names(), (std::vector<std::string>{"alpha", "zeta"}));
  ASSERT_NE(r.Find("alpha"), nullptr);
  EXPECT_EQ(r.Find("alpha")->name, "alpha");
  EXPECT_EQ(r.Find("beta"), nullptr);
  std::vector<std::string> flags;
  for (const ProviderFlag& f : r.AllFlags()) flags.push_back(f.name + ":" + f.help);
  EXPECT_EQ(flags, (std::vector<std::string>{"region:zeta's region", "zeta-no-auth:",
                                             "alpha-key:"}));
}

TEST(CloudProviderRegistryTest, UnknownProviderIsCAsText) {
  EXPECT_EQ(UnknownCloudProviderMessage("aws"), "Unknown cloud provider: aws");
}

TEST(CloudProviderRegistryTest, OptionsAndForeignFlags) {
  CloudProviderOptions o;
  o.flags = {{"region", "eu"}, {"alpha-key", "k"}, {"zeta-no-auth", "true"}, {"off", "false"}};
  EXPECT_EQ(o.Flag("region"), "eu");
  EXPECT_EQ(o.Flag("absent"), "");
  EXPECT_TRUE(o.Switch("zeta-no-auth"));
  EXPECT_FALSE(o.Switch("off"));
  EXPECT_FALSE(o.Switch("absent"));
  const CloudProviderRegistration alpha =
      Fake("alpha", {{"region", "", Kind::kValue}, {"alpha-key", "", Kind::kValue}});
  EXPECT_EQ(ForeignFlags(alpha, o), (std::vector<std::string>{"--off", "--zeta-no-auth"}));
}

TEST(CloudProviderRegistryDeathTest, ANameIsRegisteredOnce) {
  CloudProviderRegistry r;
  r.Register(Fake("a", {}));
  EXPECT_DEATH(r.Register(Fake("a", {})), "check failed");
}

TEST(CloudProviderRegistryDeathTest, ASharedFlagHasOneKind) {
  CloudProviderRegistry r;
  r.Register(Fake("a", {{"x", "", Kind::kValue}}));
  EXPECT_DEATH(r.Register(Fake("b", {{"x", "", Kind::kSwitch}})), "check failed");
}

}  // namespace
}  // namespace tidepool::cloud
