#include "controllers/garbagecollector/garbage_collector.h"

#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"
#include "controllers/testing/driven_cluster.h"

namespace tidepool::controllers::garbagecollector {
namespace {

using client::ResourcePath;
using nlohmann::json;

const std::string kCms = ResourcePath("", "v1", "configmaps", "default");
const std::string kPods = ResourcePath("", "v1", "pods", "default");
const std::string kRss = ResourcePath("apps", "v1", "replicasets", "default");
const std::string kDeploys = ResourcePath("apps", "v1", "deployments", "default");
const std::string kJobs = ResourcePath("batch", "v1", "jobs", "default");

// The collector against the real API server, over the in-process transport.
class GarbageCollectorTest : public ::testing::Test {
 public:  // the cases' lambdas use the helpers
  GarbageCollectorTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(),
                cluster::InProcessRestOptions(transport_)) {}

  // Creates an object in `collection`; returns its uid.
  std::string Create(const std::string& collection, json obj) {
    auto c = client_.Create(collection, obj);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? (*c)["metadata"].value("uid", "") : "";
  }
  std::string ConfigMap(const std::string& name, json owners = json::array(),
                        json finalizers = nullptr) {
    json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}};
    if (!owners.empty()) cm["metadata"]["ownerReferences"] = owners;
    if (!finalizers.is_null()) cm["metadata"]["finalizers"] = finalizers;
    return Create(kCms, cm);
  }
  std::string ReplicaSet(const std::string& name, json owners = json::array()) {
    json rs = {{"apiVersion", "apps/v1"},
               {"kind", "ReplicaSet"},
               {"metadata", {{"name", name}}},
               {"spec",
                {{"replicas", 0},
                 {"selector", {{"matchLabels", {{"app", name}}}}},
                 {"template",
                  {{"metadata", {{"labels", {{"app", name}}}}},
                   {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "i"}}})}}}}}}}};
    if (!owners.empty()) rs["metadata"]["ownerReferences"] = owners;
    return Create(kRss, rs);
  }
  std::string Pod(const std::string& name, json owners) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"ownerReferences", owners}}},
                {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "i"}}})}}}};
    return Create(kPods, pod);
  }
  static json Ref(const std::string& api_version, const std::string& kind, const std::string& name,
                  const std::string& uid, bool block = false) {
    json r = {{"apiVersion", api_version}, {"kind", kind}, {"name", name}, {"uid", uid}};
    if (block) {
      r["controller"] = true;
      r["blockOwnerDeletion"] = true;
    }
    return r;
  }
  bool Exists(const std::string& collection, const std::string& name) {
    return client_.Get(collection + "/" + name).ok();
  }
  json Get(const std::string& collection, const std::string& name) {
    auto g = client_.Get(collection + "/" + name);
    return g.ok() ? *g : json();
  }
  void Delete(const std::string& collection, const std::string& name, const std::string& policy) {
    json opts = json::object();
    if (!policy.empty()) opts["propagationPolicy"] = policy;
    auto d = client_.Delete(collection + "/" + name, opts);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
  }
  // Waits (up to ~10 s) for `pred`.
  static bool Eventually(const std::function<bool()>& pred) {
    for (int i = 0; i < 1000; ++i) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
  }
  void StartCollector() {
    gc_ = std::make_unique<GarbageCollector>(client_, api_.clock(), GarbageCollectorOptions{});
    gc_->Start();
    ASSERT_TRUE(Eventually([&] { return gc_->HasSynced(); }));
  }

  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  std::unique_ptr<GarbageCollector> gc_;
};

TEST_F(GarbageCollectorTest, WatchesTheDeletableResourcesButEvents) {
  StartCollector();
  // configmaps, endpoints, namespaces, nodes, pvcs, pvs, pods, podtemplates,
  // replicationcontrollers, secrets, serviceaccounts, services, 5 apps (controllerrevisions
  // too), HPAs (once, in their preferred version), cronjobs, jobs, ingresses, ingressclasses,
  // leases, endpointslices, PDBs, 4 rbac, 4 storage.k8s.io, priorityclasses, CSRs: 38 of the
  // 40 resources (no Events).
  EXPECT_EQ(gc_->stats().monitors, 38u);
}

// Background collection: a dependent none of whose owners exists is deleted.
TEST_F(GarbageCollectorTest, Background) {
  struct Case {
    std::string name;
    // Sets up owners and dependents; returns the dependents that must go and those that stay.
    std::function<void(GarbageCollectorTest&, std::vector<std::string>* gone,
                       std::vector<std::string>* kept)>
        setup;
  };
  const std::vector<Case> cases = {
      {"the owner deleted in the background takes its dependents",
       [](GarbageCollectorTest& t, auto* gone, auto*) {
         const std::string uid = t.ConfigMap("owner");
         t.ConfigMap("dep-1", {Ref("v1", "ConfigMap", "owner", uid)});
         t.Pod("dep-pod", {Ref("v1", "ConfigMap", "owner", uid, true)});
         t.StartCollector();
         t.Delete(kCms, "owner", "Background");
         *gone = {"dep-1", "pod:dep-pod"};
       }},
      {"an owner that never existed (a virtual node, verified by a GET)",
       [](GarbageCollectorTest& t, auto* gone, auto*) {
         t.StartCollector();
         t.ConfigMap("dep-2", {Ref("v1", "ConfigMap", "nobody", "0000-not-a-uid")});
         *gone = {"dep-2"};
       }},
      {"an owner of that name but another uid is absent",
       [](GarbageCollectorTest& t, auto* gone, auto* kept) {
         t.ConfigMap("impostor");
         t.ConfigMap("dep-3", {Ref("v1", "ConfigMap", "impostor", "1111-old-uid")});
         t.StartCollector();
         *gone = {"dep-3"};
         *kept = {"impostor"};
       }},
      {"an owner of an unknown kind is never assumed absent",
       [](GarbageCollectorTest& t, auto*, auto* kept) {
         t.ConfigMap("dep-4", {Ref("example.com/v1", "Widget", "w", "2222")});
         t.StartCollector();
         *kept = {"dep-4"};
       }},
      {"a dependent with an owner left keeps it and loses the dangling reference",
       [](GarbageCollectorTest& t, auto*, auto* kept) {
         const std::string a = t.ConfigMap("owner-a");
         const std::string b = t.ConfigMap("owner-b");
         t.ConfigMap("dep-5", {Ref("v1", "ConfigMap", "owner-a", a), Ref("v1", "ConfigMap", "owner-b", b)});
         t.StartCollector();
         t.Delete(kCms, "owner-a", "Background");
         *kept = {"dep-5", "owner-b"};
         ASSERT_TRUE(Eventually([&] {
           return t.Get(kCms, "dep-5")["metadata"]["ownerReferences"].size() == 1;
         }));
         EXPECT_EQ(t.Get(kCms, "dep-5")["metadata"]["ownerReferences"][0]["uid"], b);
       }},
      {"chains: a collected dependent's own dependents follow",
       [](GarbageCollectorTest& t, auto* gone, auto*) {
         const std::string top = t.ConfigMap("top");
         const std::string mid = t.ReplicaSet("mid", {Ref("v1", "ConfigMap", "top", top)});
         t.ConfigMap("leaf", {Ref("apps/v1", "ReplicaSet", "mid", mid)});
         t.StartCollector();
         t.Delete(kCms, "top", "");
         *gone = {"rs:mid", "leaf"};
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> gone, kept;
    c.setup(*this, &gone, &kept);
    auto collection = [](std::string& name) {
      if (name.rfind("pod:", 0) == 0) return name = name.substr(4), kPods;
      if (name.rfind("rs:", 0) == 0) return name = name.substr(3), kRss;
      return kCms;
    };
    for (std::string name : gone) {
      const std::string coll = collection(name);
      EXPECT_TRUE(Eventually([&] { return !Exists(coll, name); })) << name;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (std::string name : kept) {
      const std::string coll = collection(name);
      EXPECT_TRUE(Exists(coll, name)) << name;
    }
    gc_->Stop();
    gc_.reset();
  }
}

// Foreground: the dependents go first; the owner keeps foregroundDeletion while a blocking
// dependent is left, and goes last.
TEST_F(GarbageCollectorTest, ForegroundDeletesTheOwnerLast) {
  const std::string rs = ReplicaSet("web");
  // One dependent holds on (a finalizer of its own) so the owner's wait can be seen.
  ConfigMap("held", {Ref("apps/v1", "ReplicaSet", "web", rs, true)}, {"example.com/hold"});
  ConfigMap("free", {Ref("apps/v1", "ReplicaSet", "web", rs, true)});
  Pod("web-pod", {Ref("apps/v1", "ReplicaSet", "web", rs, true)});
  StartCollector();
  Delete(kRss, "web", "Foreground");
  ASSERT_TRUE(Eventually([&] { return !Exists(kCms, "free") && !Exists(kPods, "web-pod"); }));
  // "held" is terminating; the owner waits for it.
  EXPECT_TRUE(Get(kCms, "held")["metadata"].contains("deletionTimestamp"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const json owner = Get(kRss, "web");
  ASSERT_FALSE(owner.is_null());
  EXPECT_EQ(owner["metadata"]["finalizers"], json({"foregroundDeletion"}));
  EXPECT_TRUE(owner["metadata"].contains("deletionTimestamp"));
  // The hold goes: the dependent is removed, then the owner.
  ASSERT_TRUE(client_.Patch(kCms + "/held", client::PatchType::kMerge,
                            json{{"metadata", {{"finalizers", nullptr}}}})
                  .ok());
  EXPECT_TRUE(Eventually([&] { return !Exists(kCms, "held") && !Exists(kRss, "web"); }));
}

TEST_F(GarbageCollectorTest, ForegroundDoesNotWaitForDependentsThatDoNotBlock) {
  const std::string rs = ReplicaSet("loose");
  ConfigMap("loose-held", {Ref("apps/v1", "ReplicaSet", "loose", rs)}, {"example.com/hold"});
  StartCollector();
  Delete(kRss, "loose", "Foreground");
  // The owner goes at once; the dependent is deleted (and waits on its own finalizer).
  EXPECT_TRUE(Eventually([&] { return !Exists(kRss, "loose"); }));
  EXPECT_TRUE(Eventually([&] { return Get(kCms, "loose-held")["metadata"].contains("deletionTimestamp"); }));
}

// Foreground through two levels: a Deployment, its ReplicaSet (which has dependents: deleted
// in the foreground too), the ReplicaSet's pods.
TEST_F(GarbageCollectorTest, ForegroundCascadesThroughOwnersWithDependents) {
  json deploy = {{"apiVersion", "apps/v1"},
                 {"kind", "Deployment"},
                 {"metadata", {{"name", "d"}}},
                 {"spec",
                  {{"replicas", 0},
                   {"selector", {{"matchLabels", {{"app", "d"}}}}},
                   {"template",
                    {{"metadata", {{"labels", {{"app", "d"}}}}},
                     {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "i"}}})}}}}}}}};
  const std::string d = Create(kDeploys, deploy);
  const std::string rs = ReplicaSet("d-1", {Ref("apps/v1", "Deployment", "d", d, true)});
  ConfigMap("d-1-held", {Ref("apps/v1", "ReplicaSet", "d-1", rs, true)}, {"example.com/hold"});
  StartCollector();
  Delete(kDeploys, "d", "Foreground");
  // The ReplicaSet is deleted in the foreground: it waits for its dependent, the Deployment
  // for it.
  ASSERT_TRUE(Eventually([&] {
    return Get(kRss, "d-1")["metadata"].value("finalizers", json()) == json({"foregroundDeletion"});
  }));
  EXPECT_TRUE(Exists(kDeploys, "d"));
  ASSERT_TRUE(client_.Patch(kCms + "/d-1-held", client::PatchType::kMerge,
                            json{{"metadata", {{"finalizers", nullptr}}}})
                  .ok());
  EXPECT_TRUE(Eventually([&] {
    return !Exists(kCms, "d-1-held") && !Exists(kRss, "d-1") && !Exists(kDeploys, "d");
  }));
}

// Orphan: the owner's uid leaves its dependents' ownerReferences, then the owner goes alone.
TEST_F(GarbageCollectorTest, Orphan) {
  struct Case {
    std::string name;
    std::string collection, owner;
    std::function<std::string(GarbageCollectorTest&)> make_owner;
    std::string policy;  // "" : the resource's default
  };
  const std::vector<Case> cases = {
      {"propagationPolicy Orphan", kRss, "orph",
       [](GarbageCollectorTest& t) { return t.ReplicaSet("orph"); }, "Orphan"},
      {"a batch/v1 Job orphans by default", kJobs, "job",
       [](GarbageCollectorTest& t) {
         json job = {{"apiVersion", "batch/v1"},
                     {"kind", "Job"},
                     {"metadata", {{"name", "job"}}},
                     {"spec",
                      {{"template",
                        {{"spec",
                          {{"restartPolicy", "Never"},
                           {"containers", json::array({{{"name", "c"}, {"image", "i"}}})}}}}}}}};
         return t.Create(kJobs, job);
       },
       ""},
  };
  StartCollector();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string uid = c.make_owner(*this);
    const json ref = Ref(c.collection == kJobs ? "batch/v1" : "apps/v1",
                         c.collection == kJobs ? "Job" : "ReplicaSet", c.owner, uid, true);
    const std::string other = ConfigMap(c.owner + "-other");
    ConfigMap(c.owner + "-a", {ref});
    ConfigMap(c.owner + "-b", {ref, Ref("v1", "ConfigMap", c.owner + "-other", other)});
    Pod(c.owner + "-pod", {ref});
    // Let the graph see them.
    ASSERT_TRUE(Eventually([&] { return gc_->stats().nodes >= 5; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    Delete(c.collection, c.owner, c.policy);
    EXPECT_TRUE(Eventually([&] { return !Exists(c.collection, c.owner); }));
    EXPECT_FALSE(Get(kCms, c.owner + "-a")["metadata"].contains("ownerReferences"));
    const json b = Get(kCms, c.owner + "-b")["metadata"]["ownerReferences"];
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b[0]["uid"], other);
    EXPECT_FALSE(Get(kPods, c.owner + "-pod")["metadata"].contains("ownerReferences"));
  }
}

// A dependent the graph learns of only after its owner was orphaned (its informer's event came
// after the owner's; here: created after the owner went) loses the reference and stays, as the
// orphaning promised; a dependent of an owner deleted in the background is still collected.
TEST_F(GarbageCollectorTest, ADependentSeenAfterItsOwnerWasOrphanedStays) {
  StartCollector();
  const std::string orphaned = ReplicaSet("late-orph");
  const std::string collected = ReplicaSet("late-bg");
  ASSERT_TRUE(Eventually([&] { return gc_->stats().nodes >= 2; }));
  Delete(kRss, "late-orph", "Orphan");
  Delete(kRss, "late-bg", "Background");
  ASSERT_TRUE(Eventually([&] { return !Exists(kRss, "late-orph") && !Exists(kRss, "late-bg"); }));
  Pod("late-orph-pod", {Ref("apps/v1", "ReplicaSet", "late-orph", orphaned, true)});
  Pod("late-bg-pod", {Ref("apps/v1", "ReplicaSet", "late-bg", collected, true)});
  EXPECT_TRUE(Eventually([&] { return !Exists(kPods, "late-bg-pod"); }));
  EXPECT_TRUE(Eventually(
      [&] { return !Get(kPods, "late-orph-pod")["metadata"].contains("ownerReferences"); }));
  EXPECT_TRUE(Exists(kPods, "late-orph-pod"));
}

// A CRD created after the collector started: discovery runs again, its resource gets a monitor,
// and its objects' owners, dependents and finalizers are handled as a built-in's (kubectl
// delete --cascade=orphan of a custom resource waits for exactly this); once the CRD is gone
// the monitor goes too.
TEST_F(GarbageCollectorTest, ACustomResourceDefinedLaterIsWatched) {
  StartCollector();
  const size_t before = gc_->stats().monitors;
  const std::string crds =
      ResourcePath("apiextensions.k8s.io", "v1", "customresourcedefinitions", "");
  Create(crds, json::parse(R"({"apiVersion": "apiextensions.k8s.io/v1",
      "kind": "CustomResourceDefinition", "metadata": {"name": "bars.company.com"},
      "spec": {"group": "company.com", "scope": "Namespaced",
               "names": {"plural": "bars", "kind": "Bar"},
               "versions": [{"name": "v1", "served": true, "storage": true,
                             "schema": {"openAPIV3Schema": {"type": "object",
                               "x-kubernetes-preserve-unknown-fields": true}}}]}})"));
  ASSERT_TRUE(Eventually([&] { return gc_->stats().monitors == before + 1 && gc_->HasSynced(); }));
  const std::string bars = ResourcePath("company.com", "v1", "bars", "default");
  auto bar = [&](const std::string& name) {
    return Create(
        bars, {{"apiVersion", "company.com/v1"}, {"kind", "Bar"}, {"metadata", {{"name", name}}}});
  };
  struct Case {
    std::string policy;
    bool dependent_stays;
  };
  for (const Case& c :
       std::vector<Case>{{"Orphan", true}, {"Background", false}, {"Foreground", false}}) {
    SCOPED_TRACE(c.policy);
    std::string owner = "bar-" + c.policy;
    for (char& ch : owner) ch = static_cast<char>(std::tolower(ch));
    const std::string uid = bar(owner);
    ConfigMap(owner + "-dep", {Ref("company.com/v1", "Bar", owner, uid, true)});
    ASSERT_TRUE(Eventually([&] { return gc_->stats().nodes >= 2; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    Delete(bars, owner, c.policy);
    EXPECT_TRUE(Eventually([&] { return !Exists(bars, owner); }));
    if (c.dependent_stays) {
      EXPECT_FALSE(Get(kCms, owner + "-dep")["metadata"].contains("ownerReferences"));
    } else {
      EXPECT_TRUE(Eventually([&] { return !Exists(kCms, owner + "-dep"); }));
    }
  }
  auto gone = client_.Delete(crds + "/bars.company.com", json::object());
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_TRUE(Eventually([&] { return gc_->stats().monitors == before; }));
}

}  // namespace
}  // namespace tidepool::controllers::garbagecollector

namespace tidepool::controllers::garbagecollector {
namespace {

// Scale: one owner of 2,000 pods (200 more owners of 10 each around it); the owner deleted in
// the foreground waits for all 2,000 and goes last. A graph rescanned per event, or an owner's
// dependents copied per look, would show here.
TEST_F(GarbageCollectorTest, AnOwnerOfThousandsOfPods) {
  const std::string big = ReplicaSet("big");
  auto pod = [&](const std::string& name, const std::string& owner, const std::string& uid) {
    json p = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", name},
                {"ownerReferences", {Ref("apps/v1", "ReplicaSet", owner, uid, true)}}}},
              {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "i"}}})}}}};
    ASSERT_TRUE(client_.Create(kPods, p).ok());
  };
  for (int i = 0; i < 2000; ++i) pod("big-" + std::to_string(i), "big", big);
  for (int o = 0; o < 200; ++o) {
    const std::string name = "small-" + std::to_string(o);
    const std::string uid = ReplicaSet(name);
    for (int i = 0; i < 10; ++i) pod(name + "-" + std::to_string(i), name, uid);
  }
  const RealClock wall;  // for the figures printed
  const TimePoint t0 = wall.Now();
  StartCollector();
  const Duration synced = wall.Now() - t0;
  EXPECT_EQ(gc_->stats().nodes, 2000u + 201u + 2000u + 2u);  // and the two namespaces
  const TimePoint t1 = wall.Now();
  Delete(kRss, "big", "Foreground");
  ASSERT_TRUE(Eventually([&] { return !Exists(kRss, "big"); }));
  const Duration collected = wall.Now() - t1;
  auto pods = client_.List(kPods);
  ASSERT_TRUE(pods.ok());
  EXPECT_EQ((*pods)["items"].size(), 2000u);  // the small owners' pods
  EXPECT_EQ(gc_->stats().deletes, 2000u);
  std::printf("synced 4,201 objects in %lld ms; 2,000 dependents then their owner in %lld ms\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(synced).count()),
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(collected).count()));
}

// ---- With an executor: on an EventQueue, its monitors made by the factory and fed by hand ----

// Background and foreground deletion; returns what is left (names, finalizers, the revision)
// to compare two runs.
std::string CollectOnAnEventQueue() {
  testing::DrivenCluster c;
  GarbageCollector gc(c.client, c.events.clock(), {}, nullptr, nullptr, &c.informers, &c.events);
  auto cm = [&](const std::string& name, json owners, json finalizers = nullptr) {
    json obj = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}};
    if (!owners.empty()) obj["metadata"]["ownerReferences"] = owners;
    if (!finalizers.is_null()) obj["metadata"]["finalizers"] = finalizers;
    return c.Create(kCms, obj)["metadata"]["uid"].get<std::string>();
  };
  const std::string owner = cm("owner", json::array());
  cm("dep", {GarbageCollectorTest::Ref("v1", "ConfigMap", "owner", owner)});
  const std::string fg = cm("fg-owner", json::array());
  cm("fg-dep", {GarbageCollectorTest::Ref("v1", "ConfigMap", "fg-owner", fg, true)},
     json::array({"example.com/hold"}));
  const int threads = testing::DrivenCluster::Threads();
  gc.Start();
  EXPECT_FALSE(gc.HasSynced());
  c.RunFor(std::chrono::seconds(1));
  EXPECT_EQ(testing::DrivenCluster::Threads(), threads);  // none of its own, nor monitors'
  // Discovery ran on the queue; its monitors came from the factory and were fed.
  EXPECT_TRUE(gc.HasSynced());
  EXPECT_EQ(gc.stats().monitors, 38u);
  EXPECT_EQ(c.informers.informers(), 38u);

  EXPECT_TRUE(c.client.Delete(kCms + "/owner", {{"propagationPolicy", "Background"}}).ok());
  EXPECT_TRUE(c.client.Delete(kCms + "/fg-owner", {{"propagationPolicy", "Foreground"}}).ok());
  c.RunFor(std::chrono::seconds(5));
  // "dep" went with its owner; "fg-owner" waits for "fg-dep", which its own finalizer holds.
  std::string out;
  for (const json& o : c.List(kCms)) {
    out += o["metadata"]["name"].get<std::string>() + " " +
           o["metadata"].value("finalizers", json::array()).dump() + " " +
           (o["metadata"].contains("deletionTimestamp") ? "deleting" : "live") + "\n";
  }
  EXPECT_EQ(out,
            "fg-dep [\"example.com/hold\"] deleting\n"
            "fg-owner [\"foregroundDeletion\"] deleting\n");
  // The hold released: the dependent goes, then the owner's finalizer.
  EXPECT_TRUE(c.client
                  .Patch(kCms + "/fg-dep", client::PatchType::kMerge,
                         {{"metadata", {{"finalizers", nullptr}}}})
                  .ok());
  c.RunFor(std::chrono::seconds(5));
  EXPECT_TRUE(c.List(kCms).empty());
  out += std::to_string(gc.stats().deletes) + " " + std::to_string(gc.stats().finalizers_removed) +
         " " + std::to_string(c.store.resource_version());
  gc.Stop();
  return out;
}

TEST(GarbageCollectorExecutorTest, DiscoversAndCollectsOnAnEventQueue) {
  const std::string first = CollectOnAnEventQueue();
  EXPECT_EQ(first, CollectOnAnEventQueue());
}

}  // namespace
}  // namespace tidepool::controllers::garbagecollector
