// The storage admission plugins of kube-apiserver 1.32 that mutate on create:
// DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault) and
// StorageObjectInUseProtection (plugin/pkg/admission/storage/storageobjectinuseprotection).
#include <algorithm>

#include "apiserver/handlers/handler.h"
#include "apiserver/validation/fields.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

constexpr std::string_view kDefaultClassAnnotation = "storageclass.kubernetes.io/is-default-class";
constexpr std::string_view kBetaDefaultClassAnnotation =
    "storageclass.beta.kubernetes.io/is-default-class";
constexpr std::string_view kBetaClassAnnotation = "volume.beta.kubernetes.io/storage-class";

const Resource& StorageClassResource() {
  static const Resource* r = FindResource("storage.k8s.io", "v1", "storageclasses");
  return *r;
}

bool IsCore(const Resource& res, std::string_view resource) {
  return res.group.empty() && res.resource == resource;
}

// storageutil.IsDefaultAnnotation.
bool IsDefaultClass(const json& sc) {
  const json* annotations = validation::At(sc, {"metadata", "annotations"});
  if (annotations == nullptr || !annotations->is_object()) return false;
  auto is_true = [&](std::string_view key) {
    auto it = annotations->find(key);
    return it != annotations->end() && it->is_string() && it->get<std::string>() == "true";
  };
  return is_true(kDefaultClassAnnotation) || is_true(kBetaDefaultClassAnnotation);
}

// helper.PersistentVolumeClaimHasClass: the beta annotation, or spec.storageClassName set (""
// included: an explicit "no class").
bool HasClass(const json& pvc) {
  const json* annotations = validation::At(pvc, {"metadata", "annotations"});
  if (annotations != nullptr && annotations->is_object() &&
      annotations->contains(kBetaClassAnnotation)) {
    return true;
  }
  const json* name = validation::At(pvc, {"spec", "storageClassName"});
  return name != nullptr && !name->is_null();
}

// Adds `finalizer` to metadata.finalizers unless it is there.
void AddFinalizer(json& obj, std::string_view finalizer) {
  json& meta = obj["metadata"];
  if (!meta.is_object()) return;
  json& finalizers = meta["finalizers"];
  if (finalizers.is_null()) finalizers = json::array();
  if (!finalizers.is_array()) return;  // validation's to refuse
  for (const json& f : finalizers) {
    if (f.is_string() && f.get<std::string>() == finalizer) return;
  }
  finalizers.push_back(finalizer);
}

}  // namespace

std::string DefaultStorageClassName(const ObjectStore& store, const Resource& res) {
  if (!IsCore(res, "persistentvolumeclaims")) return "";
  // GetDefaultClass: among the default classes the newest (creationTimestamp), then the
  // first by name.
  std::vector<std::pair<std::string, std::string>> defaults;  // (creationTimestamp, name)
  for (const ObjectPtr& o : store.List(StorageClassResource(), "").items) {
    if (!IsDefaultClass(o->view)) continue;
    defaults.emplace_back(Str(o->view, "metadata", "creationTimestamp"),
                          Str(o->view, "metadata", "name"));
  }
  if (defaults.empty()) return "";
  std::sort(defaults.begin(), defaults.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;  // RFC 3339 in UTC: ordered as text
    return a.second < b.second;
  });
  return defaults.front().second;
}

void AdmitStorageOnCreate(const std::string& default_class, const Resource& res, json& obj) {
  if (IsCore(res, "persistentvolumeclaims")) {
    auto spec = obj.find("spec");
    if (!HasClass(obj) && !default_class.empty() && spec != obj.end() && spec->is_object()) {
      (*spec)["storageClassName"] = default_class;
    }
    AddFinalizer(obj, "kubernetes.io/pvc-protection");
  } else if (IsCore(res, "persistentvolumes")) {
    AddFinalizer(obj, "kubernetes.io/pv-protection");
  }
}

}  // namespace tidepool::apiserver::handlers
