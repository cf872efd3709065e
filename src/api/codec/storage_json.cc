#include "api/codec/storage_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

namespace tidepool::api::codec {
namespace {

using json = nlohmann::json;

constexpr char kBetaClass[] = "volume.beta.kubernetes.io/storage-class";

const json* Child(const json* obj, const char* key) {
  if (obj == nullptr || !obj->is_object()) return nullptr;
  auto it = obj->find(key);
  return it == obj->end() ? nullptr : &*it;
}

std::string StringAt(const json* v) {
  return v != nullptr && v->is_string() ? v->get<std::string>() : "";
}

const json* Annotations(const json& obj) { return Child(Child(&obj, "metadata"), "annotations"); }

}  // namespace

std::string ClassNameOf(const json& obj) {
  if (const json* beta = Child(Annotations(obj), kBetaClass)) return StringAt(beta);
  return StringAt(Child(Child(&obj, "spec"), "storageClassName"));
}

bool ClaimHasClass(const json& claim) {
  if (Child(Annotations(claim), kBetaClass) != nullptr) return true;
  const json* name = Child(Child(&claim, "spec"), "storageClassName");
  return name != nullptr && !name->is_null();
}

std::string DefaultStorageClassName(const std::vector<const json*>& classes) {
  std::vector<std::pair<std::string, std::string>> defaults;  // (creationTimestamp, name)
  for (const json* sc : classes) {
    if (sc == nullptr) continue;
    const json* a = Annotations(*sc);
    if (StringAt(Child(a, "storageclass.kubernetes.io/is-default-class")) != "true" &&
        StringAt(Child(a, "storageclass.beta.kubernetes.io/is-default-class")) != "true") {
      continue;
    }
    const json* meta = Child(sc, "metadata");
    defaults.emplace_back(StringAt(Child(meta, "creationTimestamp")),
                          StringAt(Child(meta, "name")));
  }
  if (defaults.empty()) return "";
  // RFC 3339 in UTC: ordered as text.
  std::sort(defaults.begin(), defaults.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first > y.first : x.second < y.second;
  });
  return defaults.front().second;
}

}  // namespace tidepool::api::codec
