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
// informer event from before that write, delivered later, does not undo it; a newer one, or
// the write's own event, replaces it.
TEST(VolumeCacheTest, AnOlderObjectDoesNotReplaceTheOneKept) {
  VolumeCache cache;
  cache.PutVolume(Volume("10", false));
  ASSERT_EQ(cache.UnboundVolumes("local").size(), 1u);
  cache.PutVolume(Volume("12", true));  // the scheduler's write, as the API answered it
  EXPECT_TRUE(cache.UnboundVolumes("local").empty());
  const uint64_t generation = cache.generation();
  cache.PutVolume(Volume("11", false));  // an event from before the write
  EXPECT_TRUE(cache.UnboundVolumes("local").empty());
  EXPECT_EQ(cache.Volume("pv-1")->meta.resource_version, "12");
  EXPECT_EQ(cache.generation(), generation);
  cache.PutVolume(Volume("12", true));   // the write's own event
  cache.PutVolume(Volume("13", false));  // unbound again later
  EXPECT_EQ(cache.UnboundVolumes("local").size(), 1u);

  cache.PutClaim(Claim("20", "n1"));
  cache.PutClaim(Claim("19", ""));
  EXPECT_EQ(cache.Claim("default", "data")->SelectedNode(), "n1");
  cache.PutClaim(Claim("21", ""));
  EXPECT_EQ(cache.Claim("default", "data")->SelectedNode(), "");
  // Versions that are not numbers are not compared.
  cache.PutClaim(Claim("x", "n2"));
  EXPECT_EQ(cache.Claim("default", "data")->SelectedNode(), "n2");
}

}  // namespace
}  // namespace tidepool::scheduler
