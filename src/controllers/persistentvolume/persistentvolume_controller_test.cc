// The PV controller and the external provisioner together on an in-process API: static
// binding, Immediate provisioning, WaitForFirstConsumer's events and provisioning on the
// selected node's zone, release and deletion.
#include "controllers/persistentvolume/persistentvolume_controller.h"

#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"
#include "controllers/persistentvolume/external_provisioner.h"
#include "controllers/volumeprotection/volume_protection_controller.h"

namespace tidepool::controllers::persistentvolume {
namespace {

using client::ResourcePath;
using nlohmann::json;

class RecordingEvents final : public autoscaler::EventRecorder {
 public:
  void Event(const autoscaler::ObjectRef& object, std::string_view type, std::string_view reason,
             std::string message) override {
    std::lock_guard<std::mutex> lock(mu_);
    seen_.push_back(object.name + " " + std::string(type) + " " + std::string(reason) + " " +
                    message);
  }
  bool Has(const std::string& line) const {
    std::lock_guard<std::mutex> lock(mu_);
    return std::find(seen_.begin(), seen_.end(), line) != seen_.end();
  }
  std::string All() const {
    std::lock_guard<std::mutex> lock(mu_);
    std::string out;
    for (const auto& s : seen_) out += s + "\n";
    return out;
  }
  size_t Count() const {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_.size();
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> seen_;
};

PersistentVolumeControllerOptions ControllerOptions() {
  PersistentVolumeControllerOptions o;
  o.resync = std::chrono::milliseconds(200);
  return o;
}

ExternalProvisionerOptions ProvisionerOptions() {
  ExternalProvisionerOptions o;
  o.provisioning = std::chrono::milliseconds(100);
  o.project = "proj";
  o.zones = {"us-central1-c"};
  return o;
}

class PersistentVolumeControllerTest : public ::testing::Test {
 protected:
  PersistentVolumeControllerTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) { api_.api().Handle(req, w); }),
        client_(cluster::InProcessRestConfig(), api_.clock(),
                cluster::InProcessRestOptions(transport_)),
        controller_(client_, api_.clock(), ControllerOptions(), &binder_events_),
        provisioner_(client_, api_.clock(), ProvisionerOptions(), &provisioner_events_),
        pv_protection_(client_, api_.clock(), {}),
        pvc_protection_(client_, api_.clock(), {}) {
    Create("/apis/storage.k8s.io/v1/storageclasses",
           R"({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
               "metadata": {"name": "standard-rwo",
                            "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
               "provisioner": "pd.csi.storage.gke.io", "volumeBindingMode": "WaitForFirstConsumer"})");
    Create("/apis/storage.k8s.io/v1/storageclasses",
           R"({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
               "metadata": {"name": "standard"}, "provisioner": "kubernetes.io/gce-pd",
               "volumeBindingMode": "Immediate", "reclaimPolicy": "Delete"})");
  }
  ~PersistentVolumeControllerTest() override {
    controller_.Stop();
    provisioner_.Stop();
    pv_protection_.Stop();
    pvc_protection_.Stop();
  }
  void Start() {
    controller_.Start();
    provisioner_.Start();
    pv_protection_.Start();
    pvc_protection_.Start();
  }

  void Create(const std::string& collection, const std::string& body) {
    auto r = client_.Create(collection, json::parse(body));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  void Claim(const std::string& name, const std::string& class_json) {
    Create("/api/v1/namespaces/default/persistentvolumeclaims",
           R"({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": ")" +
               name + R"("}, "spec": {"accessModes": ["ReadWriteOnce"], )" + class_json +
               R"("resources": {"requests": {"storage": "1500Mi"}}}})");
  }
  json Get(const std::string& path) {
    auto r = client_.Get(path);
    return r.ok() ? *r : json();
  }
  json GetClaim(const std::string& name) {
    return Get(ResourcePath("", "v1", "persistentvolumeclaims", "default", name));
  }
  static bool Eventually(const std::function<bool()>& pred) {
    for (int i = 0; i < 800; ++i) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
  }
  bool BoundClaim(const std::string& name) {
    return Eventually([&] { return GetClaim(name)["status"].value("phase", "") == "Bound"; });
  }

  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  RecordingEvents binder_events_;
  RecordingEvents provisioner_events_;
  PersistentVolumeController controller_;
  ExternalProvisioner provisioner_;
  volumeprotection::PvProtectionController pv_protection_;
  volumeprotection::PvcProtectionController pvc_protection_;
};

// A claim of no class binds the smallest Available volume of no class that fits; the volume is
// Available first.
TEST_F(PersistentVolumeControllerTest, StaticBindingToTheSmallestFittingVolume) {
  for (const std::string size : {"1", "5", "2"}) {
    Create("/api/v1/persistentvolumes",
           std::string(
               R"({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-)") +
               size + R"(gi"}, "spec": {"capacity": {"storage": ")" + size + "Gi" +
               R"("}, "accessModes": ["ReadWriteOnce", "ReadOnlyMany"], "storageClassName": "",
                  "hostPath": {"path": "/d"}}})");
  }
  Start();
  ASSERT_TRUE(Eventually([&] {
    return Get(ResourcePath("", "v1", "persistentvolumes", "", "pv-1gi"))["status"].value(
               "phase", "") == "Available";
  }));
  Claim("data", R"("storageClassName": "", )");
  ASSERT_TRUE(BoundClaim("data")) << GetClaim("data").dump();
  const json claim = GetClaim("data");
  EXPECT_EQ(claim["spec"]["volumeName"], "pv-2gi");
  EXPECT_EQ(claim["metadata"]["annotations"][kAnnBindCompleted], "yes");
  EXPECT_EQ(claim["metadata"]["annotations"][kAnnBoundByController], "yes");
  EXPECT_EQ(claim["status"]["capacity"], json({{"storage", "2Gi"}}));
  EXPECT_EQ(claim["status"]["accessModes"], json::array({"ReadWriteOnce", "ReadOnlyMany"}));
  const json pv = Get(ResourcePath("", "v1", "persistentvolumes", "", "pv-2gi"));
  EXPECT_EQ(pv["status"]["phase"], "Bound");
  EXPECT_EQ(pv["spec"]["claimRef"]["uid"], claim["metadata"]["uid"]);
  EXPECT_EQ(pv["spec"]["claimRef"]["kind"], "PersistentVolumeClaim");
  EXPECT_EQ(pv["metadata"]["annotations"][kAnnBoundByController], "yes");

  // The next one gets the larger volume; then none fits (1Gi < 1500Mi): kcm's FailedBinding.
  Claim("next", R"("storageClassName": "", )");
  ASSERT_TRUE(BoundClaim("next"));
  EXPECT_EQ(GetClaim("next")["spec"]["volumeName"], "pv-5gi");
  Claim("big", R"("storageClassName": "", )");
  EXPECT_TRUE(Eventually([&] {
    return binder_events_.Has(
        "big Normal FailedBinding no persistent volumes available for this claim and no storage "
        "class is set");
  })) << binder_events_.All();
}

// Once every claim is bound the controllers are quiet: resyncs (every 200 ms here) write
// nothing and record no event (no write loop between the binder, the provisioner and the
// protection controllers).
TEST_F(PersistentVolumeControllerTest, BoundClaimsAreLeftAloneByResyncs) {
  Create("/api/v1/persistentvolumes",
         R"({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-static"},
             "spec": {"capacity": {"storage": "2Gi"}, "accessModes": ["ReadWriteOnce"],
                      "storageClassName": "", "hostPath": {"path": "/d"}}})");
  Start();
  Claim("static", R"("storageClassName": "", )");
  Claim("provisioned", R"("storageClassName": "standard", )");
  ASSERT_TRUE(BoundClaim("static")) << GetClaim("static").dump();
  ASSERT_TRUE(BoundClaim("provisioned")) << GetClaim("provisioned").dump();
  // Each claim's and volume's resourceVersion (other objects' writes do not count).
  auto revision = [&] {
    std::string rv;
    for (const char* path : {"/api/v1/persistentvolumeclaims", "/api/v1/persistentvolumes"}) {
      for (const json& item : Get(path)["items"]) {
        rv += item["metadata"].value("name", "") + "@" +
              item["metadata"].value("resourceVersion", "") + " ";
      }
    }
    return rv;
  };
  // The final state: both volumes Bound and protected, both claims bound and protected.
  ASSERT_TRUE(Eventually([&] {
    const json pvs = Get("/api/v1/persistentvolumes")["items"];
    const json pvcs = Get("/api/v1/persistentvolumeclaims")["items"];
    if (pvs.size() != 2 || pvcs.size() != 2) return false;
    for (const json& v : pvs) {
      if (v["status"].value("phase", "") != "Bound" || !v["metadata"].contains("finalizers")) {
        return false;
      }
    }
    for (const json& c : pvcs) {
      if (!c["metadata"].contains("finalizers") ||
          !c["metadata"]["annotations"].contains(kAnnBindCompleted)) {
        return false;
      }
    }
    return true;
  }));
  // Then three looks a resync apart agree before the window starts.
  ASSERT_TRUE(Eventually([&] {
    const std::string first = revision();
    for (int i = 0; i < 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      if (revision() != first) return false;
    }
    return true;
  }));
  const std::string before = revision();
  const size_t events = binder_events_.Count() + provisioner_events_.Count();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // five resyncs
  EXPECT_EQ(revision(), before);
  EXPECT_EQ(binder_events_.Count() + provisioner_events_.Count(), events)
      << binder_events_.All() << provisioner_events_.All();
}

// An Immediate class is provisioned at once by the driver its provisioner migrated to, in one
// of the provisioner's zones; deleting the claim releases and deletes the volume.
TEST_F(PersistentVolumeControllerTest, ImmediateClaimProvisionedBoundAndReclaimed) {
  Start();
  Claim("data", R"("storageClassName": "standard", )");
  ASSERT_TRUE(BoundClaim("data")) << GetClaim("data").dump() << binder_events_.All();
  const json claim = GetClaim("data");
  const std::string uid = claim["metadata"]["uid"];
  EXPECT_EQ(claim["metadata"]["annotations"][kAnnStorageProvisioner], "pd.csi.storage.gke.io");
  EXPECT_EQ(claim["metadata"]["annotations"][kAnnBetaStorageProvisioner], "pd.csi.storage.gke.io");
  EXPECT_EQ(claim["spec"]["volumeName"], "pvc-" + uid);
  EXPECT_TRUE(binder_events_.Has(
      "data Normal ExternalProvisioning Waiting for a volume to be created either by the external "
      "provisioner 'pd.csi.storage.gke.io' or manually by the system administrator. If volume "
      "creation is delayed, please verify that the provisioner is running and correctly "
      "registered."))
      << binder_events_.All();
  EXPECT_TRUE(provisioner_events_.Has(
      "data Normal Provisioning External provisioner is provisioning volume for claim "
      "\"default/data\""));
  EXPECT_TRUE(
      provisioner_events_.Has("data Normal ProvisioningSucceeded Successfully provisioned "
                              "volume pvc-" +
                              uid));
  const std::string pv_path = ResourcePath("", "v1", "persistentvolumes", "", "pvc-" + uid);
  const json pv = Get(pv_path);
  EXPECT_EQ(pv["spec"]["capacity"]["storage"], "2Gi") << "1500Mi rounded up to whole GiB";
  EXPECT_EQ(pv["spec"]["csi"]["volumeHandle"],
            "projects/proj/zones/us-central1-c/disks/pvc-" + uid);
  EXPECT_EQ(pv["spec"]["persistentVolumeReclaimPolicy"], "Delete");
  EXPECT_EQ(pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0],
            json::parse(R"({"key": "topology.gke.io/zone", "operator": "In",
                            "values": ["us-central1-c"]})"));
  EXPECT_EQ(pv["metadata"]["annotations"][kAnnProvisionedBy], "pd.csi.storage.gke.io");
  EXPECT_EQ(pv["metadata"]["finalizers"],
            json::array({kProvisionerFinalizer, "kubernetes.io/pv-protection"}));
  EXPECT_EQ(claim["status"]["capacity"]["storage"], "2Gi");

  ASSERT_TRUE(
      client_.Delete(ResourcePath("", "v1", "persistentvolumeclaims", "default", "data")).ok());
  EXPECT_TRUE(Eventually([&] { return Get(pv_path).is_null(); })) << Get(pv_path).dump();
}

// WaitForFirstConsumer: the claim waits (WaitForFirstConsumer, then WaitForPodScheduled while a
// pending pod uses it) until the scheduler names a node; then it is provisioned in that node's
// zone. A selected node that does not exist is refused and the annotation removed.
TEST_F(PersistentVolumeControllerTest, DelayedClaimWaitsForItsNode) {
  Start();
  Claim("data", "");  // the default class, by admission
  EXPECT_TRUE(Eventually([&] {
    return binder_events_.Has(
        "data Normal WaitForFirstConsumer waiting for first consumer to be created before binding");
  })) << binder_events_.All();
  Create("/api/v1/namespaces/default/pods",
         R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user"},
             "spec": {"containers": [{"name": "c", "image": "busybox"}],
                      "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}})");
  EXPECT_TRUE(Eventually([&] {
    return binder_events_.Has(
        "data Normal WaitForPodScheduled waiting for pod user to be scheduled");
  })) << binder_events_.All();
  EXPECT_EQ(GetClaim("data")["status"]["phase"], "Pending");

  const std::string claim_path =
      ResourcePath("", "v1", "persistentvolumeclaims", "default", "data");
  auto select = [&](const std::string& node) {
    ASSERT_TRUE(client_
                    .Patch(claim_path, client::PatchType::kMerge,
                           {{"metadata", {{"annotations", {{kAnnSelectedNode, node}}}}}})
                    .ok());
  };
  select("nowhere");
  EXPECT_TRUE(Eventually([&] {
    return provisioner_events_.Has(
        "data Warning ProvisioningFailed failed to get target node: node \"nowhere\" not found");
  })) << provisioner_events_.All();
  EXPECT_TRUE(Eventually(
      [&] { return !GetClaim("data")["metadata"]["annotations"].contains(kAnnSelectedNode); }));
  Create("/api/v1/nodes",
         R"({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1",
             "labels": {"topology.gke.io/zone": "us-central1-f"}}})");
  select("n1");
  ASSERT_TRUE(BoundClaim("data")) << GetClaim("data").dump() << provisioner_events_.All();
  const json pv = Get(ResourcePath("", "v1", "persistentvolumes", "",
                                   GetClaim("data")["spec"]["volumeName"].get<std::string>()));
  EXPECT_EQ(pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]
              ["values"],
            json::array({"us-central1-f"}));
}

// A claim that names its volume is bound to it only when the volume satisfies it (kcm's
// VolumeMismatch otherwise); a retained volume is Released when its claim goes, and Available
// again once its user removes the claimRef.
TEST_F(PersistentVolumeControllerTest, PreBoundClaimsAndRetainedVolumes) {
  for (const char* pv :
       {R"({"name": "small", "size": "1Gi"})", R"({"name": "big", "size": "5Gi"})"}) {
    const json p = json::parse(pv);
    Create("/api/v1/persistentvolumes", json({{"apiVersion", "v1"},
                                              {"kind", "PersistentVolume"},
                                              {"metadata", {{"name", p["name"]}}},
                                              {"spec",
                                               {{"capacity", {{"storage", p["size"]}}},
                                                {"accessModes", {"ReadWriteOnce"}},
                                                {"storageClassName", ""},
                                                {"persistentVolumeReclaimPolicy", "Retain"},
                                                {"hostPath", {{"path", "/d"}}}}}})
                                            .dump());
  }
  Start();
  Claim("want", R"("volumeName": "small", "storageClassName": "", )");
  EXPECT_TRUE(Eventually([&] {
    return binder_events_.Has(
        "want Warning VolumeMismatch Cannot bind to requested volume \"small\": requested PV is "
        "too small");
  })) << binder_events_.All();
  EXPECT_EQ(GetClaim("want")["status"]["phase"], "Pending");
  Claim("keep", R"("volumeName": "big", "storageClassName": "", )");
  ASSERT_TRUE(BoundClaim("keep"));
  const std::string big = ResourcePath("", "v1", "persistentvolumes", "", "big");
  // The claim named its volume (no bound-by-controller on it); the volume's claimRef is the
  // controller's.
  EXPECT_FALSE(GetClaim("keep")["metadata"]["annotations"].contains(kAnnBoundByController));
  EXPECT_EQ(Get(big)["metadata"]["annotations"][kAnnBoundByController], "yes");
  ASSERT_TRUE(
      client_.Delete(ResourcePath("", "v1", "persistentvolumeclaims", "default", "keep")).ok());
  ASSERT_TRUE(Eventually([&] { return Get(big)["status"].value("phase", "") == "Released"; }))
      << Get(big).dump();
  ASSERT_TRUE(
      client_.Patch(big, client::PatchType::kMerge, {{"spec", {{"claimRef", nullptr}}}}).ok());
  EXPECT_TRUE(Eventually([&] { return Get(big)["status"].value("phase", "") == "Available"; }))
      << Get(big).dump();
}

TEST(ExternalProvisionerOfTest, MigratedAndInTreeProvisioners) {
  EXPECT_EQ(ExternalProvisionerOf("pd.csi.storage.gke.io"), "pd.csi.storage.gke.io");
  EXPECT_EQ(ExternalProvisionerOf("kubernetes.io/gce-pd"), "pd.csi.storage.gke.io");
  EXPECT_EQ(ExternalProvisionerOf("kubernetes.io/no-provisioner"), "");
  EXPECT_EQ(ExternalProvisionerOf("ebs.csi.aws.com"), "ebs.csi.aws.com");
}

}  // namespace
}  // namespace tidepool::controllers::persistentvolume
