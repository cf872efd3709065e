#include "apiserver/eviction.h"

#include "api/codec/json_codec.h"
#include "apiserver/resources.h"
#include "controllers/disruption/budget_status.h"

namespace tidepool::apiserver {
namespace {

using nlohmann::json;

constexpr char kCannotEvict[] = "Cannot evict pod as it would violate the pod's disruption budget.";
constexpr size_t kMaxDisruptedPodSize = 2000;

const json& Obj(const json& j, const char* key) {
  static const json kEmpty = json::object();
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

int64_t Int(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

bool IsReady(const json& pod) {
  const json& status = Obj(pod, "status");
  if (auto c = status.find("conditions"); c != status.end() && c->is_array()) {
    for (const json& x : *c) {
      if (x.is_object() && x.value("type", "") == "Ready") return x.value("status", "") == "True";
    }
  }
  return false;
}

EvictionVerdict Refuse(int code, std::string reason, std::string message, json details) {
  EvictionVerdict v;
  v.allowed = false;
  v.code = code;
  v.reason = std::move(reason);
  v.message = std::move(message);
  v.details = std::move(details);
  return v;
}

json BudgetCause(const std::string& message) {
  return {{"causes", json::array({{{"reason", "DisruptionBudget"}, {"message", message}}})}};
}

EvictionVerdict Forbidden(const std::string& pdb, const std::string& why) {
  return Refuse(403, "Forbidden",
                "poddisruptionbudgets.policy \"" + pdb + "\" is forbidden: " + why,
                {{"name", pdb}, {"group", "policy"}, {"kind", "poddisruptionbudgets"}});
}

// The budgets of the pod's namespace that select it (a null or empty selector: none).
std::vector<ObjectPtr> BudgetsOf(ObjectStore& store, const json& pod, const std::string& ns) {
  const Resource* pdbs = FindResource("policy", "v1", "poddisruptionbudgets");
  api::Labels labels;
  if (auto l = Obj(pod, "metadata").find("labels"); l != Obj(pod, "metadata").end() && l->is_object()) {
    for (const auto& [k, v] : l->items()) {
      if (v.is_string()) labels[k] = v.get<std::string>();
    }
  }
  std::vector<ObjectPtr> out;
  for (const ObjectPtr& pdb : store.List(*pdbs, ns).items) {
    const json& spec = Obj(pdb->view, "spec");
    auto sel = spec.find("selector");
    if (sel == spec.end() || sel->is_null()) continue;
    StatusOr<api::LabelSelector> selector = api::codec::LabelSelectorFromJson(*sel);
    if (!selector.ok() || selector->Empty() || !selector->Matches(labels)) continue;
    out.push_back(pdb);
  }
  return out;
}

}  // namespace

bool EvictionIgnoresBudgets(const json& pod) {
  const std::string phase = Obj(pod, "status").value("phase", "");
  const json& meta = Obj(pod, "metadata");
  return phase == "Succeeded" || phase == "Failed" || phase == "Pending" ||
         (meta.contains("deletionTimestamp") && !meta["deletionTimestamp"].is_null());
}

EvictionVerdict TooManyRequestsVerdict(const std::string& pdb_name) {
  EvictionVerdict v = Refuse(429, "TooManyRequests", kCannotEvict,
                             BudgetCause("The disruption budget " + pdb_name +
                                                       " is still being processed by the server."));
  v.details["retryAfterSeconds"] = 10;
  return v;
}

EvictionVerdict CheckEvictionBudgets(ObjectStore& store, const json& pod, const std::string& ns,
                                     bool dry_run, TimePoint now) {
  const std::vector<ObjectPtr> budgets = BudgetsOf(store, pod, ns);
  if (budgets.size() > 1) {
    return Refuse(500, "",
                  "This pod has more than one PodDisruptionBudget, which the eviction "
                  "subresource does not support.",
                  nullptr);
  }
  if (budgets.empty()) return {};
  const json& first = budgets[0]->view;
  const std::string pdb_name = Obj(first, "metadata").value("name", "");
  if (!IsReady(pod)) {
    const json& status = Obj(first, "status");
    const bool always = Obj(first, "spec").value("unhealthyPodEvictionPolicy", "") == "AlwaysAllow";
    const int64_t desired = Int(status, "desiredHealthy");
    if (always || (Int(status, "currentHealthy") >= desired && desired > 0)) {
      EvictionVerdict v;
      v.only_if_unchanged = true;
      v.pdb_name = pdb_name;
      return v;
    }
  }
  // checkAndDecrement, atomically on the budget as stored now.
  const std::string pod_name = Obj(pod, "metadata").value("name", "");
  EvictionVerdict verdict;
  const Resource* pdbs = FindResource("policy", "v1", "poddisruptionbudgets");
  ObjectStore::WriteOptions opts{"api", dry_run};
  auto updated = store.Update(
      *pdbs, ns, pdb_name,
      [&](const StoredObject* cur) -> StatusOr<json> {
        if (cur == nullptr) return NotFoundError(pdb_name);
        json next = cur->Parse();
        json& status = next["status"];
        if (!status.is_object()) status = json::object();
        if (Int(status, "observedGeneration") < Int(Obj(next, "metadata"), "generation")) {
          verdict = TooManyRequestsVerdict(pdb_name);
          return AbortedError("refused");
        }
        const int64_t allowed = Int(status, "disruptionsAllowed");
        if (allowed < 0) {
          verdict = Forbidden(pdb_name, "pdb disruptions allowed is negative");
          return AbortedError("refused");
        }
        if (status.contains("disruptedPods") && status["disruptedPods"].size() > kMaxDisruptedPodSize) {
          verdict = Forbidden(pdb_name,
                              "DisruptedPods map too big - too many evictions not confirmed by "
                              "PDB controller");
          return AbortedError("refused");
        }
        if (allowed == 0) {
          verdict = Refuse(429, "TooManyRequests", kCannotEvict,
                           BudgetCause("The disruption budget " + pdb_name + " needs " +
                                                     std::to_string(Int(status, "desiredHealthy")) +
                                                     " healthy pods and has " +
                                                     std::to_string(Int(status, "currentHealthy")) +
                                                     " currently"));
          return AbortedError("refused");
        }
        status["disruptionsAllowed"] = allowed - 1;
        if (allowed - 1 == 0) controllers::disruption::UpdateDisruptionAllowedCondition(status, now);
        status["disruptedPods"][pod_name] =
            FormatRfc3339(std::chrono::time_point_cast<std::chrono::seconds>(now));
        next["metadata"]["resourceVersion"] = std::to_string(cur->resource_version);
        return next;
      },
      opts);
  if (!verdict.allowed) return verdict;
  if (!updated.ok()) {
    if (updated.status().code() == StatusCode::kNotFound) return {};  // gone meanwhile
    return Refuse(500, "InternalError", std::string(updated.status().message()), nullptr);
  }
  return {};
}

}  // namespace tidepool::apiserver
