#include "controllers/history/controller_history.h"

#include <gtest/gtest.h>

#include <thread>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"

namespace tidepool::controllers::history {
namespace {

using nlohmann::json;

json Set(const std::string& image) {
  return {{"metadata", {{"name", "web"}, {"namespace", "ns"}, {"uid", "u1"}}},
          {"spec",
           {{"replicas", 3},
            {"template",
             {{"metadata", {{"labels", {{"app", "web"}}}}},
              {"spec", {{"containers", json::array({{{"name", "c"}, {"image", image}}})}}}}}}}};
}

// The expected values are FNV-1 / FNV-1a of the exact texts, computed independently.
TEST(ControllerHistoryTest, HashesAsKcm) {
  struct Case {
    std::string name;
    json data;
    std::optional<int32_t> probe;
    std::string want;
  };
  const json patch = TemplatePatch(Set("a<b"));
  for (const Case& c : {Case{"patch", patch, std::nullopt, "6fdf477b5"},
                        Case{"patch_probe_1", patch, 1, "56df8df694"}}) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(HashRevision(c.data, c.probe), c.want);
  }
  // ComputeHash: FNV-1a, the collision count as 8 little-endian bytes.
  EXPECT_EQ(ComputeHash(json{{"a", 1}}, std::nullopt), "67868497f7");
  EXPECT_EQ(ComputeHash(json{{"a", 1}}, 2), "78b4479bff");
  EXPECT_EQ(SafeEncode(0x050c5d7e), "d8bfb88b");  // FNV-1 32 of "a" is 84696446
}

TEST(ControllerHistoryTest, PatchReplacesTheTemplate) {
  const json patch = TemplatePatch(Set("nginx"));
  EXPECT_EQ(patch.dump(),
            R"({"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"web"}},)"
            R"("spec":{"containers":[{"image":"nginx","name":"c"}]}}}})");
  json cr = {{"data", patch}};
  EXPECT_EQ(TemplateOf(cr), Set("nginx")["spec"]["template"]);
  EXPECT_TRUE(TemplateOf(json::object()).is_null());
}

TEST(ControllerHistoryTest, NewRevisionIsNamedForItsHash) {
  const json ref = {{"apiVersion", "apps/v1"}, {"kind", "StatefulSet"},
                    {"name", "web"},           {"uid", "u1"},
                    {"controller", true},      {"blockOwnerDeletion", true}};
  const json set = Set("a<b");
  const json cr = NewRevision(set, ref, set["spec"]["template"]["metadata"]["labels"],
                              TemplatePatch(set), 4, 0);
  EXPECT_EQ(cr["metadata"]["name"], "web-" + HashRevision(TemplatePatch(set), 0));
  EXPECT_EQ(cr["metadata"]["namespace"], "ns");
  EXPECT_EQ(cr["metadata"]["labels"]["app"], "web");
  EXPECT_EQ(cr["metadata"]["labels"][kHashLabel], HashRevision(TemplatePatch(set), 0));
  EXPECT_EQ(cr["metadata"]["ownerReferences"][0], ref);
  EXPECT_EQ(cr["revision"], 4);
  EXPECT_EQ(RevisionOf(cr), 4);
  EXPECT_EQ(RevisionName(std::string(300, 'x'), "h").size(), 225u);
}

TEST(ControllerHistoryTest, SortsAndComparesAsKcm) {
  auto cr = [](const std::string& name, int64_t rev, const std::string& created, const json& data) {
    return std::make_shared<const json>(
        json{{"metadata", {{"name", name}, {"creationTimestamp", created}}},
             {"revision", rev},
             {"data", data}});
  };
  std::vector<client::ObjectRef> v = {
      cr("c", 2, "2024-01-01T00:00:00Z", 1), cr("b", 1, "2024-01-02T00:00:00Z", 2),
      cr("a", 1, "2024-01-02T00:00:00Z", 1), cr("d", 1, "2024-01-01T00:00:00Z", 1)};
  SortByRevision(&v);
  std::string order;
  for (const auto& r : v) order += (*r)["metadata"]["name"].get<std::string>();
  EXPECT_EQ(order, "dabc");
  EXPECT_TRUE(EqualRevision(*v[0], *v[1]));
  EXPECT_FALSE(EqualRevision(*v[1], *v[2]));
  // Numeric hash labels that differ make revisions unequal, whatever their data.
  json x = *v[0], y = *v[1];
  x["metadata"]["labels"][kHashLabel] = "12";
  y["metadata"]["labels"][kHashLabel] = "13";
  EXPECT_FALSE(EqualRevision(x, y));
  y["metadata"]["labels"][kHashLabel] = "abc";  // not a number: the data decide
  EXPECT_TRUE(EqualRevision(x, y));
}

// History::Controlled as ClaimControllerRevisions: orphans adopted only after the parent's
// recheck passes; owned revisions that stop matching released, or only ignored while the
// parent is being deleted.
class HistoryClaimTest : public ::testing::Test {
 protected:
  HistoryClaimTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(),
                cluster::InProcessRestOptions(transport_)),
        history_(client_, api_.clock(), nullptr, 1, nullptr, nullptr) {}
  ~HistoryClaimTest() override { history_.informer().Stop(); }

  void CreateRevision(const std::string& name, const json& labels, const json& owners) {
    json cr = {{"apiVersion", "apps/v1"},
               {"kind", "ControllerRevision"},
               {"metadata", {{"name", name}, {"labels", labels}}},
               {"data", {{"spec", json::object()}}},
               {"revision", 1}};
    if (!owners.is_null()) cr["metadata"]["ownerReferences"] = owners;
    ASSERT_TRUE(
        client_.Create(client::ResourcePath("apps", "v1", "controllerrevisions", "default"), cr)
            .ok());
  }
  json Get(const std::string& name) {
    auto got =
        client_.Get(client::ResourcePath("apps", "v1", "controllerrevisions", "default", name));
    return got.ok() ? *got : json();
  }
  void WaitFor(size_t n) {
    for (int i = 0; i < 500 && history_.informer().List().size() < n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  History history_;
};

TEST_F(HistoryClaimTest, AdoptsAfterTheRecheckAndReleasesWhatStopsMatching) {
  const json ref = {{"apiVersion", "apps/v1"}, {"kind", "DaemonSet"}, {"name", "agent"},
                    {"uid", "ds-1"},           {"controller", true},  {"blockOwnerDeletion", true}};
  const json parent = {
      {"metadata", {{"name", "agent"}, {"namespace", "default"}, {"uid", "ds-1"}}}};
  CreateRevision("orphan", {{"app", "agent"}}, nullptr);
  CreateRevision("other", {{"app", "else"}}, nullptr);
  CreateRevision("owned-stale", {{"app", "else"}}, json::array({ref}));
  history_.informer().Start();
  WaitFor(3);
  api::LabelSelector sel;
  sel.match_labels = {{"app", "agent"}};

  // While the parent is being deleted: nothing adopted, nothing released.
  json deleting = parent;
  deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  auto ignored = history_.Controlled(deleting, sel, ref, [&] { return OkStatus(); });
  ASSERT_TRUE(ignored.ok());
  EXPECT_TRUE(ignored->empty());
  EXPECT_EQ(Get("owned-stale")["metadata"]["ownerReferences"].size(), 1u);

  int rechecks = 0;
  auto refused = history_.Controlled(parent, sel, ref, [&] {
    ++rechecks;
    return AbortedError("default/agent has just been deleted");
  });
  EXPECT_EQ(refused.status().code(), StatusCode::kAborted);
  EXPECT_EQ(rechecks, 1);
  EXPECT_FALSE(Get("orphan")["metadata"].contains("ownerReferences"));
  EXPECT_TRUE(Get("owned-stale")["metadata"]["ownerReferences"].empty());  // released all the same

  auto claimed = history_.Controlled(parent, sel, ref, [&] { return OkStatus(); });
  ASSERT_TRUE(claimed.ok()) << claimed.status().ToString();
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ((*claimed->front())["metadata"]["name"], "orphan");
  EXPECT_EQ(Get("orphan")["metadata"]["ownerReferences"][0]["uid"], "ds-1");
  EXPECT_FALSE(Get("other")["metadata"].contains("ownerReferences"));
}

}  // namespace
}  // namespace tidepool::controllers::history
