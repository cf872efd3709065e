// ClaimPods against a real in-process API server: what is kept, released and adopted, and
// kcm's RecheckDeletionTimestamp before the first adoption.
#include "controllers/controller_ref.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"

namespace tidepool::controllers {
namespace {

using client::ResourcePath;
using nlohmann::json;

struct FakePod {
  std::string name, uid, controller_uid;
  bool matches = true;
};

class ClaimPodsTest : public ::testing::Test {
 protected:
  ClaimPodsTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(),
                cluster::InProcessRestOptions(transport_)) {}

  // A pod `name`, owned by `owner` (a controller ownerReference) when it is not null.
  FakePod MakePod(const std::string& name, const json* owner) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", "default"}}},
                {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})}}}};
    if (owner != nullptr) pod["metadata"]["ownerReferences"] = json::array({*owner});
    StatusOr<json> created = client_.Create(ResourcePath("", "v1", "pods", "default"), pod);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    FakePod p{name, (*created)["metadata"]["uid"], owner ? (*owner)["uid"].get<std::string>() : ""};
    return p;
  }
  json OwnersOf(const std::string& name) {
    StatusOr<json> pod = client_.Get(ResourcePath("", "v1", "pods", "default", name));
    return pod.ok() ? (*pod)["metadata"].value("ownerReferences", json::array()) : json(nullptr);
  }

  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
};

TEST_F(ClaimPodsTest, KeepsReleasesAndAdoptsAfterOneRecheck) {
  struct Case {
    std::string name;
    Status recheck;       // what can_adopt answers
    bool owner_deleting;
    std::vector<std::string> want_claimed;
    bool want_ok;
    int want_rechecks;
  };
  const std::vector<Case> cases = {
      {"adopts after one recheck", Status(), false, {"kept", "orphan-a", "orphan-b"}, true, 1},
      {"a failed recheck adopts nothing",
       AbortedError("default/web has just been deleted at 2026-12-05T10:00:00Z"),
       false,
       {},
       false,
       1},
      {"a deleting owner neither releases nor adopts", Status(), true, {"kept"}, true, 0},
  };
  int round = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string suffix = "-" + std::to_string(++round);
    const json ref = {{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"},
                      {"name", "web"},           {"uid", "rs-uid" + suffix},
                      {"controller", true},      {"blockOwnerDeletion", true}};
    std::vector<FakePod> owned = {MakePod("kept" + suffix, &ref), MakePod("stale" + suffix, &ref)};
    owned[1].matches = false;
    std::vector<FakePod> orphans = {MakePod("orphan-a" + suffix, nullptr),
                                    MakePod("orphan-b" + suffix, nullptr)};
    int rechecks = 0;
    const PodClaimOwner owner{"default", "rs-uid" + suffix, c.owner_deleting, &ref, [&] {
                                ++rechecks;
                                return c.recheck;
                              }};
    StatusOr<std::vector<FakePod>> claimed = ClaimPods(
        client_, owner, owned, [&](const FakePod& p) { return p.matches; }, orphans);
    EXPECT_EQ(claimed.ok(), c.want_ok) << claimed.status().ToString();
    EXPECT_EQ(rechecks, c.want_rechecks);
    if (claimed.ok()) {
      std::vector<std::string> names;
      for (const FakePod& p : *claimed) {
        names.push_back(p.name.substr(0, p.name.size() - suffix.size()));
        EXPECT_EQ(p.controller_uid, "rs-uid" + suffix);
      }
      EXPECT_EQ(names, c.want_claimed);
    }
    // The store says the same: adopted orphans name the owner, a released pod names nobody; a
    // deleting owner's pod that stopped matching keeps its ownerReference.
    const bool adopted = c.want_ok && !c.owner_deleting;
    EXPECT_EQ(OwnersOf("orphan-a" + suffix).size(), adopted ? 1u : 0u);
    EXPECT_EQ(OwnersOf("stale" + suffix).size(), c.owner_deleting ? 1u : 0u);
  }
}

// Nothing to adopt: no live read of the owner.
TEST_F(ClaimPodsTest, NoOrphansNoRecheck) {
  const json ref = {{"apiVersion", "apps/v1"},
                    {"kind", "DaemonSet"},
                    {"name", "ds"},
                    {"uid", "ds-uid"},
                    {"controller", true}};
  int rechecks = 0;
  const PodClaimOwner owner{"default", "ds-uid", false, &ref, [&] {
                              ++rechecks;
                              return Status();
                            }};
  StatusOr<std::vector<FakePod>> claimed = ClaimPods(
      client_, owner, std::vector<FakePod>{MakePod("mine", &ref)},
      [](const FakePod&) { return true; }, std::vector<FakePod>{});
  ASSERT_TRUE(claimed.ok());
  EXPECT_EQ(claimed->size(), 1u);
  EXPECT_EQ(rechecks, 0);
}

// An orphan deleted before its adoption is skipped (NotFound), not an error.
TEST_F(ClaimPodsTest, AnOrphanGoneBeforeAdoptionIsSkipped) {
  const json ref = {{"apiVersion", "apps/v1"},
                    {"kind", "StatefulSet"},
                    {"name", "db"},
                    {"uid", "sts-uid"},
                    {"controller", true}};
  FakePod gone = MakePod("gone", nullptr);
  ASSERT_TRUE(
      client_.Delete(ResourcePath("", "v1", "pods", "default", "gone"), {{"gracePeriodSeconds", 0}})
          .ok());
  const PodClaimOwner owner{"default", "sts-uid", false, &ref, nullptr};
  StatusOr<std::vector<FakePod>> claimed = ClaimPods(
      client_, owner, std::vector<FakePod>{}, [](const FakePod&) { return true; },
      std::vector<FakePod>{gone});
  ASSERT_TRUE(claimed.ok()) << claimed.status().ToString();
  EXPECT_TRUE(claimed->empty());
}

}  // namespace
}  // namespace tidepool::controllers
