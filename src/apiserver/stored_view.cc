#include "apiserver/stored_view.h"

#include <string_view>
#include <type_traits>

namespace tidepool::apiserver {

using nlohmann::json;

namespace {

// The pod spec fields that printPod (printers/pods.cc) and the pod field selectors
// (selectors/fields.cc) read, besides containers and initContainers.
constexpr std::string_view kPodSpecKeys[] = {"hostNetwork",   "nodeName",
                                             "readinessGates", "restartPolicy",
                                             "schedulerName", "serviceAccountName"};

json PodSpecView(const json& spec) {
  json out = json::object();
  for (std::string_view k : kPodSpecKeys) {
    auto it = spec.find(k);
    if (it != spec.end()) out[std::string(k)] = *it;
  }
  if (auto it = spec.find("containers"); it != spec.end()) {
    if (it->is_array()) {
      json cs = json::array();
      cs.get_ref<json::array_t&>().resize(it->size(), json::object());
      out["containers"] = std::move(cs);
    } else {
      out["containers"] = *it;  // not an array: printers read it as absent either way
    }
  }
  if (auto it = spec.find("initContainers"); it != spec.end()) {
    if (it->is_array()) {
      json cs = json::array();
      for (const json& c : *it) {
        json v = json::object();
        if (c.is_object()) {
          for (const char* k : {"name", "restartPolicy"}) {
            if (auto f = c.find(k); f != c.end()) v[k] = *f;
          }
        }
        cs.push_back(std::move(v));
      }
      out["initContainers"] = std::move(cs);
    } else {
      out["initContainers"] = *it;
    }
  }
  return out;
}

// The view, from an object that is copied (const json&) or taken apart (json&&): the one
// template keeps the two overloads' results identical.
template <typename Json>
json BuildView(const Resource& r, Json&& object) {
  constexpr bool kMove = !std::is_lvalue_reference_v<Json>;
  auto take = [](auto& v) -> json {
    if constexpr (kMove) {
      return std::move(v);
    } else {
      return v;
    }
  };
  if (!object.is_object()) return take(object);
  const bool pod = r.group.empty() && r.resource == "pods";
  json out = json::object();
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& key = it.key();
    if (key == "metadata" && it->is_object()) {
      json meta = json::object();
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (m.key() == "managedFields") continue;
        if (m.key() == "annotations" && m->is_object()) {
          json ann = json::object();
          for (auto a = m->begin(); a != m->end(); ++a) {
            if (a.key() != "kubectl.kubernetes.io/last-applied-configuration") {
              ann[a.key()] = take(*a);
            }
          }
          if (!ann.empty()) meta["annotations"] = std::move(ann);
          continue;
        }
        meta[m.key()] = take(*m);
      }
      out["metadata"] = std::move(meta);
    } else if (pod && key == "spec" && it->is_object()) {
      out["spec"] = PodSpecView(*it);
    } else {
      out[key] = take(*it);
    }
  }
  return out;
}

}  // namespace

json StoredView(const Resource& r, const json& object) { return BuildView(r, object); }

json StoredView(const Resource& r, json&& object) { return BuildView(r, std::move(object)); }

}  // namespace tidepool::apiserver
