// File: volume_binding_test.cc
//
// VolumeBinding against kube-scheduler 1.32 (plugins/volumebinding, binder.go): PreFilter's
// per-claim errors, Filter's reasons for bound and delayed claims, the scope, and the hints.
#include "scheduler/plugins/volume_binding/volume_binding.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/builders.h"

namespace tidepool::scheduler::plugins {
namespace {

using ::tidepool::testing::MakeNode;
using ::tidepool::testing::MakePod;

constexpr char kZone[] = "topology.gke.io/zone";

api::PersistentVolumeClaim Claim(const std::string& name, const std::string& sc) {
  api::PersistentVolumeClaim c;
  c.meta.name = name;
  c.meta.namespace_ = "default";
  c.meta.uid = "uid-" + name;
  c.storage_class_name = sc;
  c.access_modes = {"ReadWriteOnce"};
  c.storage_request = int64_t{10} << 30;
  c.phase = "Pending";
  return c;
}

api::PersistentVolumeClaim Bound(api::PersistentVolumeClaim c, const std::string& volume) {
  c.volume_name = volume;
  c.meta.annotations[std::string(api::kAnnBindCompleted)] = "yes";
  c.phase = "Bound";
  return c;
}

api::PersistentVolume Volume(const std::string& name, const std::string& sc,
                             const std::string& zone) {
  api::PersistentVolume v;
  v.meta.name = name;
  v.storage_class_name = sc;
  v.access_modes = {"ReadWriteOnce"};
  v.capacity = int64_t{20} << 30;
  v.phase = "Available";
  if (!zone.empty()) {
    api::NodeSelectorTerm term;
    term.match_expressions.push_back({kZone, api::SelectorOperator::kIn, {zone}});
    v.node_affinity = api::NodeSelector{{term}};
  }
  return v;
}

api::StorageClass Class(const std::string& name, const std::string& provisioner,
                        const std::string& mode) {
  api::StorageClass sc;
  sc.name = name;
  sc.provisioner = provisioner;
  sc.volume_binding_mode = mode;
  return sc;
}

struct World {
  std::vector<api::PersistentVolumeClaim> claims;
  std::vector<api::PersistentVolume> volumes;
};

std::shared_ptr<VolumeCache> Cache(const World& w) {
  auto cache = std::make_shared<VolumeCache>();
  cache->PutClass(std::make_shared<const api::StorageClass>(
      Class("standard-rwo", "pd.csi.storage.gke.io", "WaitForFirstConsumer")));
  cache->PutClass(std::make_shared<const api::StorageClass>(
      Class("standard", "kubernetes.io/gce-pd", "Immediate")));
  cache->PutClass(std::make_shared<const api::StorageClass>(
      Class("local", std::string(api::kNotSupportedProvisioner), "WaitForFirstConsumer")));
  api::StorageClass zonal = Class("zonal-b", "pd.csi.storage.gke.io", "WaitForFirstConsumer");
  zonal.allowed_topologies = {{{kZone, {"us-central1-b"}}}};
  cache->PutClass(std::make_shared<const api::StorageClass>(zonal));
  api::StorageClass empty_term =
      Class("empty-term", "pd.csi.storage.gke.io", "WaitForFirstConsumer");
  empty_term.allowed_topologies = {{}};
  cache->PutClass(std::make_shared<const api::StorageClass>(empty_term));
  for (const auto& c : w.claims)
    cache->PutClaim(std::make_shared<const api::PersistentVolumeClaim>(c));
  for (const auto& v : w.volumes)
    cache->PutVolume(std::make_shared<const api::PersistentVolume>(v));
  return cache;
}

PodInfoConstSharedPtr PodWithClaims(std::vector<std::string> claims) {
  api::Pod pod = MakePod("p").Obj();
  pod.spec.volumes.push_back(
      {"cfg", {{api::ConfigReference::Kind::kConfigMap, "cfg", {}, false, false}}, ""});
  for (const std::string& c : claims) pod.spec.volumes.push_back({"v-" + c, {}, c});
  return MakePodInfo(pod);
}

TEST(VolumeBindingTest, PreFilterAndFilter) {
  api::PersistentVolumeClaim deleting = Claim("data", "standard-rwo");
  deleting.meta.deletion_timestamp = TimePoint{};
  api::PersistentVolumeClaim lost = Bound(Claim("data", "standard-rwo"), "pv-gone");
  lost.phase = "Lost";
  api::PersistentVolumeClaim selected = Claim("data", "standard-rwo");
  selected.meta.annotations[std::string(api::kAnnSelectedNode)] = "n1";
  api::PersistentVolumeClaim selected_other = selected;
  selected_other.meta.annotations[std::string(api::kAnnSelectedNode)] = "n2";
  api::PersistentVolume claimed = Volume("pv-1", "local", "us-central1-a");
  claimed.claim_ref = api::PersistentVolume::ClaimRef{"default", "other", ""};
  api::PersistentVolume small = Volume("pv-1", "local", "us-central1-a");
  small.capacity = int64_t{1} << 30;

  struct Case {
    std::string name;
    World world;
    std::vector<std::string> pod_claims;
    PluginCode pre_filter;             // kSuccess: Filter runs
    std::vector<std::string> reasons;  // PreFilter's or Filter's; empty: fits
    NodeScope scope = NodeScope::kClass;
  };
  const std::string bind = VolumeBinding::kErrReasonBindConflict;
  const std::vector<Case> cases = {
      {"no claims", {}, {}, PluginCode::kSkip, {}},
      {"a missing claim",
       {},
       {"data"},
       PluginCode::kUnschedulableAndUnresolvable,
       {"persistentvolumeclaim \"data\" not found"}},
      {"a claim being deleted",
       {{deleting}, {}},
       {"data"},
       PluginCode::kUnschedulableAndUnresolvable,
       {"persistentvolumeclaim \"data\" is being deleted"}},
      {"a lost claim",
       {{lost}, {}},
       {"data"},
       PluginCode::kUnschedulableAndUnresolvable,
       {"persistentvolumeclaim \"data\" bound to non-existent persistentvolume \"pv-gone\""}},
      {"the first failing claim in volume order",
       {{Claim("b", "standard-rwo")}, {}},
       {"a", "b"},
       PluginCode::kUnschedulableAndUnresolvable,
       {"persistentvolumeclaim \"a\" not found"}},
      {"bound to a volume in the node's zone",
       {{Bound(Claim("data", "standard-rwo"), "pv-1")},
        {Volume("pv-1", "standard-rwo", "us-central1-a")}},
       {"data"},
       PluginCode::kSuccess,
       {}},
      {"bound to a volume in another zone",
       {{Bound(Claim("data", "standard-rwo"), "pv-1")},
        {Volume("pv-1", "standard-rwo", "us-central1-b")}},
       {"data"},
       PluginCode::kSuccess,
       {VolumeBinding::kErrReasonNodeConflict}},
      {"bound to a volume that is gone",
       {{Bound(Claim("data", "standard-rwo"), "pv-1")}, {}},
       {"data"},
       PluginCode::kSuccess,
       {VolumeBinding::kErrReasonPVNotExist}},
      {"a delayed claim its class provisions",
       {{Claim("data", "standard-rwo")}, {}},
       {"data"},
       PluginCode::kSuccess,
       {}},
      {"a delayed claim no class can provision and no volume fits",
       {{Claim("data", "local")}, {}},
       {"data"},
       PluginCode::kSuccess,
       {bind}},
      {"a delayed claim an available volume in the zone fits",
       {{Claim("data", "local")}, {Volume("pv-1", "local", "us-central1-a")}},
       {"data"},
       PluginCode::kSuccess,
       {}},
      {"a delayed claim whose volume is in another zone",
       {{Claim("data", "local")}, {Volume("pv-1", "local", "us-central1-b")}},
       {"data"},
       PluginCode::kSuccess,
       {bind}},
      {"a volume pre-bound to another claim",
       {{Claim("data", "local")}, {claimed}},
       {"data"},
       PluginCode::kSuccess,
       {bind}},
      {"two claims, one volume: the second finds none",
       {{Claim("a", "local"), Claim("b", "local")}, {Volume("pv-1", "local", "us-central1-a")}},
       {"a", "b"},
       PluginCode::kSuccess,
       {bind}},
      {"two claims, two volumes",
       {{Claim("a", "local"), Claim("b", "local")},
        {Volume("pv-1", "local", "us-central1-a"), Volume("pv-2", "local", "us-central1-a")}},
       {"a", "b"},
       PluginCode::kSuccess,
       {}},
      {"a volume too small",
       {{Claim("data", "local")}, {small}},
       {"data"},
       PluginCode::kSuccess,
       {bind}},
      {"a claim given this node",
       {{selected}, {}},
       {"data"},
       PluginCode::kSuccess,
       {},
       NodeScope::kNode},
      {"a claim given another node",
       {{selected_other}, {}},
       {"data"},
       PluginCode::kSuccess,
       {bind},
       NodeScope::kNode},
      {"a class whose allowed topologies leave out the node's zone",
       {{Claim("data", "zonal-b")}, {}},
       {"data"},
       PluginCode::kSuccess,
       {bind}},
      {"an empty topology term selects no node",
       {{Claim("data", "empty-term")}, {}},
       {"data"},
       PluginCode::kSuccess,
       {bind}},
      {"an unbound immediate claim",
       {{Claim("data", "standard")}, {}},
       {"data"},
       PluginCode::kUnschedulableAndUnresolvable,
       {"pod has unbound immediate PersistentVolumeClaims"}},
      {"a claim without a class is immediate",
       {{Claim("data", "")}, {}},
       {"data"},
       PluginCode::kUnschedulableAndUnresolvable,
       {"pod has unbound immediate PersistentVolumeClaims"}},
      {"a claim pre-bound by its user is immediate",
       {{[] {
          auto c = Claim("data", "standard-rwo");
          c.volume_name = "pv-1";
          return c;
        }()},
        {}},
       {"data"},
       PluginCode::kUnschedulableAndUnresolvable,
       {"pod has unbound immediate PersistentVolumeClaims"}},
  };
  const api::NodeConstSharedPtr node =
      MakeNode("n1").Label(kZone, "us-central1-a").Label("kubernetes.io/hostname", "n1").Ptr();
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    VolumeBinding plugin(Cache(tc.world));
    PodInfoConstSharedPtr pod = PodWithClaims(tc.pod_claims);
    CycleState state;
    PreFilterResult result;
    const PluginStatus pre = plugin.PreFilter(state, *pod, result);
    ASSERT_EQ(pre.code(), tc.pre_filter) << (pre.reasons().empty() ? "" : pre.reasons()[0]);
    if (pre.code() != PluginCode::kSuccess) {
      EXPECT_EQ(pre.reasons(), tc.reasons);
      continue;
    }
    EXPECT_EQ(plugin.FilterScope(state, *pod), tc.scope);
    const PluginStatus st = plugin.Filter(state, *pod, NodeInfo(node));
    if (tc.reasons.empty()) {
      EXPECT_TRUE(st.IsSuccess()) << st.reasons()[0];
    } else {
      EXPECT_EQ(st.code(), PluginCode::kUnschedulableAndUnresolvable);
      EXPECT_EQ(st.reasons(), tc.reasons);
    }
  }
}

TEST(VolumeBindingTest, WithoutListersEveryPodSkips) {
  VolumeBinding plugin(nullptr);
  CycleState state;
  PreFilterResult result;
  EXPECT_EQ(plugin.PreFilter(state, *PodWithClaims({"data"}), result).code(), PluginCode::kSkip);
}

TEST(VolumeBindingTest, Hints) {
  VolumeBinding plugin(Cache({}));
  PodInfoConstSharedPtr pod = PodWithClaims({"data"});
  ClusterEvent claim;
  claim.kind = ClusterEvent::Kind::kStorageChange;
  claim.storage = ClusterEvent::Storage::kClaim;
  claim.claim_namespace = "default";
  claim.claim_name = "data";
  EXPECT_EQ(plugin.Hint(claim, *pod), QueueingHint::kQueue);
  claim.claim_name = "other";
  EXPECT_EQ(plugin.Hint(claim, *pod), QueueingHint::kSkip);
  claim.claim_name = "data";
  claim.claim_namespace = "elsewhere";
  EXPECT_EQ(plugin.Hint(claim, *pod), QueueingHint::kSkip);
  ClusterEvent volume = claim;
  volume.storage = ClusterEvent::Storage::kVolume;
  EXPECT_EQ(plugin.Hint(volume, *pod), QueueingHint::kQueue);
  const api::NodeConstSharedPtr node = MakeNode("n9").Ptr();
  const ClusterEvent added{ClusterEvent::Kind::kNodeAdd, 0, nullptr, node.get(), nullptr};
  EXPECT_EQ(plugin.Hint(added, *pod), QueueingHint::kQueue);
  const ClusterEvent cond{ClusterEvent::Kind::kNodeUpdate, ClusterEvent::kUpdateNodeCondition,
                          node.get(), node.get(), nullptr};
  EXPECT_EQ(plugin.Hint(cond, *pod), std::nullopt);
}

// IsVolumeBoundToClaim: a volume whose claimRef has the claim's uid (written for it by an
// earlier binding cycle that failed later) is the claim's, before any Available volume; none is
// when that volume's affinity does not match the node.
TEST(VolumeBindingTest, AVolumeAlreadyGivenTheClaimIsItsMatch) {
  api::PersistentVolume given = Volume("pv-given", "standard-rwo", "us-central1-b");
  given.claim_ref = api::PersistentVolume::ClaimRef{"default", "data", "uid-data"};
  api::PersistentVolume other = Volume("pv-other", "standard-rwo", "us-central1-b");
  other.capacity = int64_t{10} << 30;  // smaller: the first choice of an unbound claim
  const auto cache = Cache({{Claim("data", "standard-rwo")}, {given, other}});
  const auto claim = cache->Claim("default", "data");
  const auto in_b = FindVolumeFor(*cache, *claim, {{kZone, "us-central1-b"}});
  ASSERT_NE(in_b, nullptr);
  EXPECT_EQ(in_b->meta.name, "pv-given");
  EXPECT_EQ(FindVolumeFor(*cache, *claim, {{kZone, "us-central1-a"}}), nullptr);
  // Another claim of that name (a new uid) does not get it.
  api::PersistentVolumeClaim again = Claim("data", "standard-rwo");
  again.meta.uid = "uid-data-2";
  const auto other_match = FindVolumeFor(*cache, again, {{kZone, "us-central1-b"}});
  ASSERT_NE(other_match, nullptr);
  EXPECT_EQ(other_match->meta.name, "pv-other");
}

// checkBindings: each claim the binding cycle wrote, as the informers see it then.
TEST(VolumeBindingTest, CheckBindings) {
  const api::Labels node_b = {{kZone, "us-central1-b"}};
  auto with_version = [](auto obj, const std::string& rv) {
    obj.meta.resource_version = rv;
    return obj;
  };
  auto selected = [](api::PersistentVolumeClaim c, const std::string& node) {
    c.meta.annotations[std::string(api::kAnnSelectedNode)] = node;
    return c;
  };
  auto other_annotation = [](api::PersistentVolumeClaim c) {
    c.meta.annotations["other"] = "x";
    return c;
  };
  auto claimed = [](api::PersistentVolume v, const std::string& claim) {
    v.claim_ref = api::PersistentVolume::ClaimRef{"default", claim, "uid-" + claim};
    return v;
  };
  PodVolumeWrites provision;  // "data" given node n1 at resourceVersion 10
  provision.provisions.push_back({"data", "10"});
  PodVolumeWrites binding;  // the static "pv-b" given "data" at resourceVersion 20
  binding.bindings.push_back({"data", "pv-b", "20"});
  const auto data = Claim("data", "standard-rwo");
  struct Case {
    std::string name;
    World world;
    PodVolumeWrites writes;
    StatusOr<bool> want;
  };
  const std::vector<Case> cases = {
      {"provisioning: the view predates the write",
       {{with_version(data, "9")}, {}},
       provision,
       false},
      {"provisioning: not bound yet",
       {{with_version(selected(data, "n1"), "10")}, {}},
       provision,
       false},
      {"provisioning: bound to a volume of the node's zone",
       {{with_version(selected(Bound(data, "pvc-1"), "n1"), "12")},
        {claimed(Volume("pvc-1", "standard-rwo", "us-central1-b"), "data")}},
       provision,
       true},
      {"provisioning: bound, its volume not seen yet",
       {{with_version(selected(Bound(data, "pvc-1"), "n1"), "12")}, {}},
       provision,
       false},
      {"provisioning: the volume is in another zone",
       {{with_version(selected(Bound(data, "pvc-1"), "n1"), "12")},
        {claimed(Volume("pvc-1", "standard-rwo", "us-central1-a"), "data")}},
       provision,
       Status(StatusCode::kFailedPrecondition,
              "pv \"pvc-1\" node affinity doesn't match node \"n1\": no matching "
              "NodeSelectorTerms")},
      {"provisioning: the provisioner gave up (annotation removed)",
       {{with_version(other_annotation(data), "11")}, {}},
       provision,
       Status(StatusCode::kFailedPrecondition, "provisioning failed for PVC \"data\"")},
      {"provisioning: the claim names another node",
       {{with_version(selected(data, "n2"), "11")}, {}},
       provision,
       Status(StatusCode::kFailedPrecondition, "provisioning failed for PVC \"data\"")},
      {"provisioning: no annotation at all",
       {{with_version(data, "11")}, {}},
       provision,
       Status(StatusCode::kFailedPrecondition, "selectedNode annotation reset for PVC \"data\"")},
      {"provisioning: the claim is gone",
       {{}, {}},
       provision,
       Status(StatusCode::kFailedPrecondition,
              "failed to check provisioning pvc: could not find v1.PersistentVolumeClaim "
              "\"default/data\"")},
      {"binding: the view predates the write",
       {{data}, {with_version(Volume("pv-b", "standard-rwo", "us-central1-b"), "19")}},
       binding,
       false},
      {"binding: the PV controller has not bound the claim yet",
       {{data},
        {with_version(claimed(Volume("pv-b", "standard-rwo", "us-central1-b"), "data"), "20")}},
       binding,
       false},
      {"binding: done",
       {{Bound(data, "pv-b")},
        {with_version(claimed(Volume("pv-b", "standard-rwo", "us-central1-b"), "data"), "21")}},
       binding,
       true},
      {"binding: the claim reference was dropped",
       {{data}, {with_version(Volume("pv-b", "standard-rwo", "us-central1-b"), "21")}},
       binding,
       Status(StatusCode::kFailedPrecondition, "ClaimRef got reset for pv \"pv-b\"")},
      {"binding: the volume is gone",
       {{data}, {}},
       binding,
       Status(StatusCode::kFailedPrecondition,
              "failed to check binding: could not find v1.PersistentVolume \"pv-b\"")},
  };
  for (const Case& c : cases) {
    const auto cache = Cache(c.world);
    const StatusOr<bool> got = CheckBindings(*cache, "default", "n1", node_b, c.writes);
    ASSERT_EQ(got.ok(), c.want.ok()) << c.name << ": " << got.status().ToString();
    if (got.ok()) {
      EXPECT_EQ(*got, *c.want) << c.name;
    } else {
      EXPECT_EQ(got.status(), c.want.status()) << c.name;
    }
  }
}

}  // namespace
}  // namespace tidepool::scheduler::plugins
