// kube-apiserver's LimitRanger admission (plugin/pkg/admission/limitranger, 1.32) for pods
// created in a namespace with LimitRanges: the mutating half sets each container's missing
// limits from the Container items' `default` and missing requests from their
// `defaultRequest` (and records it in the kubernetes.io/limit-ranger annotation); the
// validating half holds every container (Container items) and the pod as a whole (Pod items)
// to `min` and `max`, with kube's texts. PersistentVolumeClaim items are not applied.
#include <algorithm>
#include <map>
#include <set>

#include "api/codec/json_codec.h"
#include "api/pod_resources.h"
#include "api/quantity.h"
#include "apiserver/handlers/handler.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

const Resource& LimitRangeResource() {
  static const Resource* r = FindResource("", "v1", "limitranges");
  return *r;
}

bool IsPods(const Resource& r) { return r.group.empty() && r.resource == "pods"; }

// The LimitRanges' items by type ("Container", "Pod", ...), in the store's order.
std::map<std::string, std::vector<json>> Items(const ObjectStore& store, const std::string& ns) {
  std::map<std::string, std::vector<json>> out;
  for (const ObjectPtr& o : store.List(LimitRangeResource(), ns).items) {
    const json lr = o->Parse();
    const json* spec = Member(lr, "spec");
    const json* limits = spec != nullptr ? Member(*spec, "limits") : nullptr;
    if (limits == nullptr || !limits->is_array()) continue;
    for (const json& item : *limits) out[Str(item, "type")].push_back(item);
  }
  return out;
}

// A LimitRange item's list ("default", "defaultRequest", "min", "max"); the API stored the
// item defaulted (validation::DefaultLimitRange), so default and defaultRequest are complete.
json ItemList(const json& item, const char* key) {
  const json* v = Member(item, key);
  return v != nullptr && v->is_object() ? *v : json::object();
}

std::optional<api::Quantity> QuantityOf(const json& v) {
  auto q = api::Quantity::Parse(v.is_string() ? v.get<std::string>() : v.dump());
  if (!q.ok()) return std::nullopt;
  return *q;
}

// mergeContainerResources: the missing entries of `into` from `defaults`; returns their names.
std::vector<std::string> Merge(json& into, const json& defaults) {
  std::vector<std::string> set;
  if (!into.is_object()) into = json::object();
  for (auto it = defaults.begin(); it != defaults.end(); ++it) {
    if (into.contains(it.key())) continue;
    into[it.key()] = *it;
    set.push_back(it.key());
  }
  std::sort(set.begin(), set.end());
  return set;
}

std::string Join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// minConstraint and maxConstraint of one resource.
void Check(const std::string& kind, const std::string& resource, const json* min, const json* max,
           const api::ResourceList& requests, const api::ResourceList& limits,
           std::vector<std::string>* errs) {
  const auto req = requests.find(resource);
  const auto lim = limits.find(resource);
  if (min != nullptr) {
    if (auto enforced = QuantityOf(*min)) {
      const std::string e = enforced->ToString();
      if (req == requests.end()) {
        errs->push_back("minimum " + resource + " usage per " + kind + " is " + e +
                        ".  No request is specified");
      } else if (req->second.Compare(*enforced) < 0) {
        errs->push_back("minimum " + resource + " usage per " + kind + " is " + e +
                        ", but request is " + req->second.ToString());
      } else if (lim != limits.end() && lim->second.Compare(*enforced) < 0) {
        errs->push_back("minimum " + resource + " usage per " + kind + " is " + e +
                        ", but limit is " + lim->second.ToString());
      }
    }
  }
  if (max != nullptr) {
    if (auto enforced = QuantityOf(*max)) {
      const std::string e = enforced->ToString();
      if (lim == limits.end()) {
        errs->push_back("maximum " + resource + " usage per " + kind + " is " + e +
                        ".  No limit is specified");
      } else if (lim->second.Compare(*enforced) > 0) {
        errs->push_back("maximum " + resource + " usage per " + kind + " is " + e +
                        ", but limit is " + lim->second.ToString());
      } else if (req != requests.end() && req->second.Compare(*enforced) > 0) {
        errs->push_back("maximum " + resource + " usage per " + kind + " is " + e +
                        ", but request is " + req->second.ToString());
      }
    }
  }
}

void CheckItem(const json& item, const std::string& kind, const api::ResourceList& requests,
               const api::ResourceList& limits, std::vector<std::string>* errs) {
  std::set<std::string> resources;
  for (const char* key : {"min", "max"}) {
    const json* l = Member(item, key);
    if (l == nullptr || !l->is_object()) continue;
    for (auto it = l->begin(); it != l->end(); ++it) resources.insert(it.key());
  }
  for (const std::string& r : resources) {
    const json* min = Member(item, "min");
    const json* max = Member(item, "max");
    Check(kind, r, min != nullptr ? Member(*min, r) : nullptr,
          max != nullptr ? Member(*max, r) : nullptr, requests, limits, errs);
  }
}

}  // namespace

bool ApplyLimitRanges(Context& c, json& pod, const std::string& ns) {
  if (!IsPods(StorageOf(c.res)) || ns.empty()) return false;
  json limits = json::object(), requests = json::object();
  auto items = Items(c.store, ns);  // a local: the loop below reads into it
  for (const json& item : items["Container"]) {
    for (auto [from, into] :
         {std::pair{"default", &limits}, std::pair{"defaultRequest", &requests}}) {
      const json list = ItemList(item, from);
      for (auto it = list.begin(); it != list.end(); ++it) {
        if (!into->contains(it.key())) (*into)[it.key()] = *it;
      }
    }
  }
  if (limits.empty() && requests.empty()) return false;
  std::vector<std::string> notes;
  json* spec = pod.contains("spec") && pod["spec"].is_object() ? &pod["spec"] : nullptr;
  if (spec == nullptr) return false;
  for (auto [key, prefix] :
       {std::pair{"containers", "container"}, std::pair{"initContainers", "init container"}}) {
    if (!spec->contains(key) || !(*spec)[key].is_array()) continue;
    for (json& container : (*spec)[key]) {
      if (!container.is_object()) continue;
      json& resources = container["resources"];
      if (!resources.is_object()) resources = json::object();
      const std::vector<std::string> set_limits = Merge(resources["limits"], limits);
      const std::vector<std::string> set_requests = Merge(resources["requests"], requests);
      const std::string name = Str(container, "name");
      if (!set_requests.empty()) {
        notes.push_back(Join(set_requests, ", ") + " request for " + prefix + " " + name);
      }
      if (!set_limits.empty()) {
        notes.push_back(Join(set_limits, ", ") + " limit for " + prefix + " " + name);
      }
      if (resources["limits"].empty()) resources.erase("limits");
      if (resources["requests"].empty()) resources.erase("requests");
    }
  }
  if (notes.empty()) return false;
  pod["metadata"]["annotations"]["kubernetes.io/limit-ranger"] =
      "LimitRanger plugin set: " + Join(notes, "; ");
  return true;
}

std::optional<ApiError> CheckLimitRanges(Context& c, const json& obj, const std::string& ns,
                                         const std::string& name) {
  if (!IsPods(StorageOf(c.res)) || ns.empty()) return std::nullopt;
  auto items = Items(c.store, ns);
  const std::vector<json>& containers = items["Container"];
  const std::vector<json>& pods = items["Pod"];
  if (containers.empty() && pods.empty()) return std::nullopt;
  auto pod = api::codec::PodFromJson(obj);
  if (!pod.ok()) return std::nullopt;
  std::vector<std::string> errs;
  for (const json& item : containers) {
    for (const auto* list : {&pod->spec.containers, &pod->spec.init_containers}) {
      for (const api::Container& ct : *list) {
        CheckItem(item, "Container", ct.resources.requests, ct.resources.limits, &errs);
      }
    }
  }
  api::PodRequestsOptions no_overhead;
  no_overhead.exclude_overhead = true;
  api::PodRequestsOptions limits = no_overhead;
  limits.limits = true;
  for (const json& item : pods) {
    CheckItem(item, "Pod", api::PodRequests(*pod, no_overhead), api::PodRequests(*pod, limits),
              &errs);
  }
  if (errs.empty()) return std::nullopt;
  std::vector<std::string> unique;
  for (const std::string& e : errs) {
    if (std::find(unique.begin(), unique.end(), e) == unique.end()) unique.push_back(e);
  }
  const std::string agg = unique.size() == 1 ? unique[0] : "[" + Join(unique, ", ") + "]";
  return AdmissionForbidden(c.res, obj, name, agg);
}

}  // namespace tidepool::apiserver::handlers
