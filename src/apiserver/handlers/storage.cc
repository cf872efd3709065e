// The storage admission plugins of kube-apiserver 1.32 that mutate on create:
// DefaultStorageClass (plugin/pkg/admission/storage/storageclass/setdefault) and
// StorageObjectInUseProtection (plugin/pkg/admission/storage/storageobjectinuseprotection).
#include <vector>

#include "api/codec/storage_json.h"
#include "apiserver/handlers/handler.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

const Resource& StorageClassResource() {
  static const Resource* r = FindResource("storage.k8s.io", "v1", "storageclasses");
  return *r;
}

bool IsCore(const Resource& res, std::string_view resource) {
  return res.group.empty() && res.resource == resource;
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
  const std::vector<ObjectPtr> items = store.List(StorageClassResource(), "").items;
  std::vector<const json*> classes;
  classes.reserve(items.size());
  for (const ObjectPtr& o : items) classes.push_back(&o->view);
  return api::codec::DefaultStorageClassName(classes);
}

void AdmitStorageOnCreate(const std::string& default_class, const Resource& res, json& obj) {
  if (IsCore(res, "persistentvolumeclaims")) {
    auto spec = obj.find("spec");
    if (!api::codec::ClaimHasClass(obj) && !default_class.empty() && spec != obj.end() &&
        spec->is_object()) {
      (*spec)["storageClassName"] = default_class;
    }
    AddFinalizer(obj, "kubernetes.io/pvc-protection");
  } else if (IsCore(res, "persistentvolumes")) {
    AddFinalizer(obj, "kubernetes.io/pv-protection");
  }
}

}  // namespace tidepool::apiserver::handlers
