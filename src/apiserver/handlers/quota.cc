// kube-apiserver's ResourceQuota admission (k8s.io/apiserver/pkg/admission/plugin/resourcequota,
// 1.32) for creates: the object's usage (api/quota.h) is checked against every quota of its
// namespace that tracks any of it, and added to their status.used, so that two creates never
// both take the last of a quota; kube-controller-manager's resourcequota controller
// (controllers/resourcequota/) keeps status.used true afterwards (a pod that ends, an object
// deleted). As kube's, it goes by status.hard: a quota the controller has not synced yet
// (no status.hard) limits nothing, and one whose status.used lacks a resource it limits
// refuses with "status unknown for quota".
#include "api/quota.h"

#include <algorithm>

#include "api/codec/json_codec.h"
#include "apiserver/handlers/handler.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

const Resource& QuotaResource() {
  static const Resource* r = FindResource("", "v1", "resourcequotas");
  return *r;
}

api::ResourceList ListOf(const json* j) {
  api::ResourceList out;
  if (j == nullptr || !j->is_object()) return out;
  for (auto it = j->begin(); it != j->end(); ++it) {
    auto q = api::Quantity::Parse(it->is_string() ? it->get<std::string>() : it->dump());
    if (q.ok()) out[it.key()] = *q;
  }
  return out;
}

const json* At(const json& j, const char* a, const char* b) {
  const json* x = Member(j, a);
  return x != nullptr ? Member(*x, b) : nullptr;
}

// quota's prettyPrint: "name=quantity" sorted, joined by ",".
std::string Pretty(const api::ResourceList& list, const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += ",";
    out += n + "=" + api::Get(list, n).ToString();
  }
  return out;
}

}  // namespace

std::optional<ApiError> AdmitQuota(Context& c, const json& obj, const std::string& ns,
                                   const std::string& object_name) {
  const Resource& res = StorageOf(c.res);
  if (!res.namespaced || ns.empty()) return std::nullopt;
  const auto quotas = c.store.List(QuotaResource(), ns).items;
  if (quotas.empty()) return std::nullopt;
  std::optional<api::Pod> pod;
  api::ResourceList delta;
  if (res.group.empty() && res.resource == "pods") {
    auto decoded = api::codec::PodFromJson(obj);
    if (!decoded.ok()) return std::nullopt;  // validation refused it already
    pod = std::move(decoded).value();
    delta = api::PodQuotaUsage(*pod);
  } else {
    delta = api::ObjectQuotaUsage(c.res.group, c.res.resource);  // the request's resource
  }
  struct Charge {
    std::string quota;
    api::ResourceList delta;  // what this quota tracks of the object's usage
  };
  std::vector<Charge> charges;
  for (const ObjectPtr& q : quotas) {  // by name, as the store lists them
    const json quota = q->Parse();
    const std::string qname = Str(quota, "metadata", "name");
    const api::ResourceList hard = ListOf(At(quota, "status", "hard"));
    if (pod) {
      auto missing = api::MissingQuotaResources(*pod, hard);
      if (!missing.empty()) {
        std::string what;
        for (const auto& [resource, containers] : missing) {
          if (!what.empty()) what += "; ";
          std::string list;
          for (const std::string& n : containers) list += (list.empty() ? "" : ",") + n;
          what += resource + " for: " + list;
        }
        return AdmissionForbidden(c.res, obj, object_name,
                                  "failed quota: " + qname + ": must specify " + what);
      }
    }
    std::vector<std::string> tracked;
    for (const auto& [resource, q] : delta) {
      if (hard.count(resource) != 0 && !q.IsZero()) tracked.push_back(resource);
    }
    if (tracked.empty()) continue;
    const api::ResourceList used = ListOf(At(quota, "status", "used"));
    std::vector<std::string> unknown;
    for (const auto& [resource, limit] : hard) {
      if (used.count(resource) == 0 && (pod ? api::IsPodQuotaResource(resource)
                                            : api::CountedResourceOf(resource).has_value())) {
        unknown.push_back(resource);
      }
    }
    if (!unknown.empty()) {
      std::string list;
      for (const std::string& r : unknown) list += (list.empty() ? "" : ",") + r;
      return AdmissionForbidden(c.res, obj, object_name,
                                "status unknown for quota: " + qname + ", resources: " + list);
    }
    std::vector<std::string> exceeded;
    api::ResourceList charge;
    for (const std::string& resource : tracked) {
      api::Quantity after = api::Get(used, resource);
      after.Add(api::Get(delta, resource));
      if (after.Compare(api::Get(hard, resource)) > 0) exceeded.push_back(resource);
      charge[resource] = api::Get(delta, resource);
    }
    if (!exceeded.empty()) {
      return AdmissionForbidden(
          c.res, obj, object_name,
          "exceeded quota: " + qname + ", requested: " + Pretty(delta, exceeded) +
              ", used: " + Pretty(used, exceeded) + ", limited: " + Pretty(hard, exceeded));
    }
    charges.push_back({qname, std::move(charge)});
  }
  if (c.wopts.dry_run) return std::nullopt;
  // The usage is taken, quota by quota, as kube's admission writes it back.
  const ObjectStore::WriteOptions opts{"resourcequota-admission", false, {}};
  for (const Charge& charge : charges) {
    (void)c.store.Update(
        QuotaResource(), ns, charge.quota,
        [&](const StoredObject* cur) -> StatusOr<json> {
          if (cur == nullptr) return Status(StatusCode::kNotFound, "gone");
          json quota = cur->Parse();
          json& status = quota["status"];
          if (!status.is_object()) status = json::object();
          json& used = status["used"];
          if (!used.is_object()) used = json::object();
          for (const auto& [resource, q] : charge.delta) {
            api::Quantity total = api::Get(ListOf(&used), resource);
            total.Add(q);
            used[resource] = total.ToString();
          }
          return quota;
        },
        opts);
  }
  return std::nullopt;
}

}  // namespace tidepool::apiserver::handlers
