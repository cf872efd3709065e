#include "controllers/clusterroleaggregation/clusterrole_aggregation_controller.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "api/codec/json_codec.h"
#include "controllers/object_json.h"

namespace tidepool::controllers::clusterroleaggregation {

using nlohmann::json;

namespace {

constexpr char kFieldManager[] = "clusterrole-aggregation-controller";

// The role's aggregation selectors (invalid ones are skipped, as a selector that does not
// convert lists nothing).
std::vector<api::LabelSelector> SelectorsOf(const json& role) {
  std::vector<api::LabelSelector> out;
  const json& selectors = Member(Member(role, "aggregationRule"), "clusterRoleSelectors");
  if (!selectors.is_array()) return out;
  for (const json& s : selectors) {
    StatusOr<api::LabelSelector> sel = api::codec::LabelSelectorFromJson(s);
    if (sel.ok()) out.push_back(*std::move(sel));
  }
  return out;
}

}  // namespace

ClusterRoleAggregationController::ClusterRoleAggregationController(
    const client::RestClient& client, const Clock& clock,
    ClusterRoleAggregationControllerOptions options, log::Logger* logger,
    client::SharedInformerFactory* informers, TimerService* executor)
    : client_(client),
      clock_(clock),
      options_(options),
      log_(logger),
      executor_(executor),
      queue_(
          clock, [this](const std::string& key) { return Sync(key); },
          [this] { return HasSynced(); }, std::chrono::milliseconds(50), executor) {
  client::InformerOptions roles;
  roles.path = "/apis/rbac.authorization.k8s.io/v1/clusterroles";
  roles.name = "clusterroles";
  roles.seed = options_.seed;
  roles_ = client::MakeInformer(informers, client_, clock_, roles, logger);
  auto any = [this](const client::ObjectRef&) { EnqueueAggregated(); };
  roles_->AddEventHandlers({[any](const client::ObjectRef& o, bool) { any(o); },
                            [any](const client::ObjectRef&, const client::ObjectRef& o) { any(o); },
                            [any](const client::ObjectRef& o, bool) { any(o); }});
}

ClusterRoleAggregationController::~ClusterRoleAggregationController() { Stop(); }

void ClusterRoleAggregationController::Start() {
  if (executor_ == nullptr) roles_->Start();
  queue_.Start();
}

void ClusterRoleAggregationController::Stop() {
  queue_.Stop();
  client::StopAll({roles_.get()});
}

bool ClusterRoleAggregationController::HasSynced() const { return roles_->HasSynced(); }

void ClusterRoleAggregationController::EnqueueAggregated() {
  for (const client::ObjectRef& role : roles_->List()) {
    if (!Member(*role, "aggregationRule").is_null()) queue_.Add(Str(Member(Meta(*role), "name")));
  }
}

std::optional<TimePoint> ClusterRoleAggregationController::Sync(const std::string& name) {
  const client::ObjectRef shared = roles_->Get(name);
  if (shared == nullptr || Member(*shared, "aggregationRule").is_null()) return std::nullopt;
  std::vector<client::ObjectRef> roles = roles_->List();
  std::sort(roles.begin(), roles.end(), [](const client::ObjectRef& a, const client::ObjectRef& b) {
    return Str(Member(Meta(*a), "name")) < Str(Member(Meta(*b), "name"));
  });
  json rules = json::array();
  for (const api::LabelSelector& sel : SelectorsOf(*shared)) {
    for (const client::ObjectRef& role : roles) {
      if (Str(Member(Meta(*role), "name")) == name) continue;
      if (!sel.Matches(LabelsOf(Member(Meta(*role), "labels")))) continue;
      const json& own = Member(*role, "rules");
      if (!own.is_array()) continue;
      for (const json& rule : own) {
        if (std::find(rules.begin(), rules.end(), rule) == rules.end()) rules.push_back(rule);
      }
    }
  }
  const json& current = Member(*shared, "rules");
  if (rules == current || (rules.empty() && !current.is_array())) return std::nullopt;
  const json apply = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                      {"kind", "ClusterRole"},
                      {"metadata", {{"name", name}}},
                      {"rules", rules}};
  const std::string path =
      client::ResourcePath("rbac.authorization.k8s.io", "v1", "clusterroles", "", name) +
      "?fieldManager=" + kFieldManager + "&force=true";
  Status s = client_.Patch(path, client::PatchType::kApply, apply).status();
  if (s.ok() || s.code() == StatusCode::kNotFound) return std::nullopt;
  if (log_ != nullptr && s.code() != StatusCode::kAborted) {
    log_->Warning("Failed to aggregate ClusterRole",
                  {{"clusterRole", name}, {"err", s.ToString()}});
  }
  return clock_.Now() + std::chrono::seconds(1);
}

}  // namespace tidepool::controllers::clusterroleaggregation
