// VolumeCache: the unbound-volume index and the assume cache's version rule.
#include "scheduler/framework/volume_lister.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace tidepool::scheduler {
namespace {

api::PersistentVolumeConstSharedPtr Volume(const std::string& rv, bool claimed) {
  api::PersistentVolume v;
  v.meta.name = "pv-1";
  v.meta.resource_version = rv;
  v.storage_class_name = "local";
  if (claimed) v.claim_ref = api::PersistentVolume::ClaimRef{"default", "data", "uid-data"};
  return std::make_shared<const api::PersistentVolume>(v);
}

api::PersistentVolumeClaimConstSharedPtr Claim(const std::string& rv, const std::string& node) {
  api::PersistentVolumeClaim c;
  c.meta.name = "data";
  c.meta.namespace_ = "default";
  c.meta.resource_version = rv;
  if (!node.empty()) c.meta.annotations[std::string(api::kAnnSelectedNode)] = node;
  return std::make_shared<const api::PersistentVolumeClaim>(c);
}

// The scheduler keeps the API's answer to its write (a volume given a claim) at once; an
// informer event from before that write, delivered later, does not undo it; a newer one
// replaces it, the same version changes nothing.
TEST(VolumeCacheTest, AnOlderObjectDoesNotReplaceTheOneKept) {
  VolumeCache cache;
  cache.PutVolume(Volume("10", false));
  ASSERT_EQ(cache.UnboundVolumes("local").size(), 1u);
  EXPECT_EQ(cache.VolumeClaimedBy("default", "data"), nullptr);
  EXPECT_TRUE(cache.AssumeVolume(Volume("12", true)));  // the scheduler's write, as answered
  EXPECT_TRUE(cache.UnboundVolumes("local").empty());
  ASSERT_NE(cache.VolumeClaimedBy("default", "data"), nullptr);
  EXPECT_EQ(cache.VolumeClaimedBy("default", "data")->meta.resource_version, "12");
  const uint64_t generation = cache.generation();
  cache.PutVolume(Volume("11", false));  // an event from before the write
  cache.PutVolume(Volume("12", true));   // the write's own event
  EXPECT_TRUE(cache.UnboundVolumes("local").empty());
  EXPECT_EQ(cache.generation(), generation);
  cache.PutVolume(Volume("13", false));  // unbound again later
  EXPECT_EQ(cache.UnboundVolumes("local").size(), 1u);
  EXPECT_EQ(cache.VolumeClaimedBy("default", "data"), nullptr);

  cache.PutClaim(Claim("20", "n1"));
  cache.PutClaim(Claim("19", ""));
  EXPECT_EQ(cache.Claim("default", "data")->SelectedNode(), "n1");
  cache.PutClaim(Claim("21", ""));
  EXPECT_EQ(cache.Claim("default", "data")->SelectedNode(), "");
  // Versions that are not numbers are not compared.
  cache.PutClaim(Claim("x", "n2"));
  EXPECT_EQ(cache.Claim("default", "data")->SelectedNode(), "n2");
}

// The answer to a write of an object deleted meanwhile (the informer's delete came first) does
// not bring it back: Assume keeps only what the cache has.
TEST(VolumeCacheTest, AssumeDoesNotBringBackADeletedObject) {
  VolumeCache cache;
  cache.PutVolume(Volume("10", false));
  cache.PutClaim(Claim("10", ""));
  cache.RemoveVolume("pv-1");
  cache.RemoveClaim("default", "data");
  EXPECT_FALSE(cache.AssumeVolume(Volume("12", true)));
  EXPECT_FALSE(cache.AssumeClaim(Claim("12", "n1")));
  EXPECT_EQ(cache.Volume("pv-1"), nullptr);
  EXPECT_EQ(cache.Claim("default", "data"), nullptr);
  EXPECT_EQ(cache.VolumeClaimedBy("default", "data"), nullptr);
}

}  // namespace
}  // namespace tidepool::scheduler
