#include "apiserver/validation/storage.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "api/name_validation.h"
#include "api/quantity.h"
#include "apiserver/validation/core.h"
#include "apiserver/validation/defaults.h"
#include "apiserver/validation/object_meta.h"
#include "common/go_quote.h"

namespace tidepool::apiserver::validation {
namespace {

using api::FieldError;
using api::FieldErrors;

FieldErrors Meta(const json& object, const json* old, bool namespaced) {
  return old == nullptr ? ValidateObjectMeta(object, NameRule::kDns1123Subdomain, namespaced)
                        : ValidateObjectMetaUpdate(object, *old);
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// ValidateQualifiedName of `value` at `path`.
void QualifiedName(const std::string& value, const std::string& path, FieldErrors* errors) {
  for (const std::string& msg : api::IsQualifiedName(value)) {
    errors->push_back(FieldError::Invalid(path, value, msg));
  }
}

// Semantic equality of two members (absent, null, [] and {} are all the zero value).
bool SameValue(const json* a, const json* b) {
  auto zero = [](const json* v) {
    return v == nullptr || ((v->is_array() || v->is_object()) && v->empty());
  };
  if (zero(a) || zero(b)) return zero(a) && zero(b);
  return *a == *b;
}

// ---- StorageClass ------------------------------------------------------------------------------

// validateParameters (allowEmpty): at most 512, no empty key, at most 256 KiB in all.
void ValidateParameters(const json* params, FieldErrors* errors) {
  constexpr size_t kMaxLen = 512;
  constexpr size_t kMaxSize = 256 * (1 << 10);
  if (params == nullptr || !params->is_object()) return;
  if (params->size() > kMaxLen) {
    errors->push_back(FieldError::TooLong("parameters", kMaxLen));
    return;
  }
  size_t total = 0;
  for (const auto& [k, v] : params->items()) {
    if (k.empty())
      errors->push_back(FieldError::Invalid("parameters", k, "field can not be empty."));
    total += k.size() + (v.is_string() ? v.get_ref<const std::string&>().size() : 0);
  }
  if (total > kMaxSize) errors->push_back(FieldError::TooLong("parameters", kMaxSize));
}

void ValidateStorageClassFields(const json& object, FieldErrors* errors) {
  const std::string provisioner(StrOf(&object, "provisioner"));
  if (provisioner.empty()) {
    errors->push_back(FieldError::Required("provisioner", ""));
  } else {
    QualifiedName(ToLower(provisioner), "provisioner", errors);
  }
  ValidateParameters(Member(object, "parameters"), errors);
  const std::string policy(StrOf(&object, "reclaimPolicy"));
  if (!policy.empty() && policy != "Delete" && policy != "Retain") {
    errors->push_back(FieldError::NotSupported("reclaimPolicy", policy, {"Delete", "Retain"}));
  }
  if (const json* mode = Member(object, "volumeBindingMode"); mode == nullptr) {
    errors->push_back(FieldError::Required("volumeBindingMode", ""));
  } else if (Str(mode) != "Immediate" && Str(mode) != "WaitForFirstConsumer") {
    errors->push_back(FieldError::NotSupported("volumeBindingMode", std::string(Str(mode)),
                                               {"Immediate", "WaitForFirstConsumer"}));
  }
}

// ---- CSIDriver ---------------------------------------------------------------------------------

void ValidateTokenRequests(const json* requests, FieldErrors* errors) {
  if (requests == nullptr || !requests->is_array()) return;
  std::set<std::string> audiences;
  for (size_t i = 0; i < requests->size(); ++i) {
    const json& r = (*requests)[i];
    const std::string path = "spec.tokenRequests[" + std::to_string(i) + "]";
    const std::string audience(StrOf(&r, "audience"));
    if (!audiences.insert(audience).second) {
      errors->push_back(FieldError::Duplicate(path + ".audience", audience));
      continue;
    }
    const std::optional<int64_t> seconds = Int(Member(r, "expirationSeconds"));
    if (!seconds) continue;
    if (*seconds < 600) {
      errors->push_back(FieldError::InvalidRaw(path + ".expirationSeconds",
                                               std::to_string(*seconds),
                                               "may not specify a duration less than 10 minutes"));
    }
    if (*seconds > (int64_t{1} << 32)) {
      errors->push_back(
          FieldError::InvalidRaw(path + ".expirationSeconds", std::to_string(*seconds),
                                 "may not specify a duration larger than 2^32 seconds"));
    }
  }
}

void ValidateCsiDriverSpec(const json* spec, FieldErrors* errors) {
  for (const auto& [key, path] : {std::pair{"attachRequired", "spec.attachedRequired"},
                                  std::pair{"podInfoOnMount", "spec.podInfoOnMount"},
                                  std::pair{"storageCapacity", "spec.storageCapacity"}}) {
    if (Member(spec, key) == nullptr) errors->push_back(FieldError::Required(path, ""));
  }
  if (const json* policy = Member(spec, "fsGroupPolicy")) {
    const std::string p(Str(policy));
    if (p != "File" && p != "None" && p != "ReadWriteOnceWithFSType") {
      errors->push_back(FieldError::NotSupported("spec.fsGroupPolicy", p,
                                                 {"File", "None", "ReadWriteOnceWithFSType"}));
    }
  }
  ValidateTokenRequests(Member(spec, "tokenRequests"), errors);
  for (const std::string& mode : Strings(Member(spec, "volumeLifecycleModes"))) {
    if (mode != "Persistent" && mode != "Ephemeral") {
      errors->push_back(
          FieldError::NotSupported("spec.volumeLifecycleModes", mode, {"Persistent", "Ephemeral"}));
    }
  }
  if (Member(spec, "seLinuxMount") == nullptr) {
    errors->push_back(FieldError::Required("spec.seLinuxMount", ""));
  }
}

// Go's %#v of []storage.VolumeLifecycleMode.
std::string GoLifecycleModes(const json* modes) {
  const std::vector<std::string> v = Strings(modes);
  if (v.empty()) return "[]storage.VolumeLifecycleMode(nil)";
  std::string out = "[]storage.VolumeLifecycleMode{";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + GoQuote(v[i]);
  return out + "}";
}

// ---- CSINode -----------------------------------------------------------------------------------

void ValidateCsiNodeDriver(const json& driver, const std::string& path,
                           std::set<std::string>* names, FieldErrors* errors) {
  const std::string name(StrOf(&driver, "name"));
  Append(ValidateCsiDriverName(name, path + ".name"), errors);
  const std::string node_id(StrOf(&driver, "nodeID"));
  if (node_id.empty()) errors->push_back(FieldError::Required(path + ".nodeID", ""));
  if (node_id.size() > 256) {
    errors->push_back(
        FieldError::Invalid(path + ".nodeID", node_id, "must be 256 characters or less"));
  }
  NonNegative(At(driver, {"allocatable", "count"}), path + ".allocatable.count", errors);
  if (!names->insert(name).second) errors->push_back(FieldError::Duplicate(path + ".name", name));
  std::set<std::string> keys;
  for (const std::string& key : Strings(Member(driver, "topologyKeys"))) {
    if (key.empty()) errors->push_back(FieldError::Required(path, ""));
    if (!keys.insert(key).second) errors->push_back(FieldError::Duplicate(path, key));
    QualifiedName(key, path, errors);
  }
}

// Go's %#v of a storage.CSINodeDriver.
std::string GoCsiNodeDriver(const json& driver) {
  return "storage.CSINodeDriver{Name:" + GoQuote(StrOf(&driver, "name")) +
         ", NodeID:" + GoQuote(StrOf(&driver, "nodeID")) +
         ", TopologyKeys:" + GoStringSlice(Strings(Member(driver, "topologyKeys"))) +
         ", Allocatable:" +
         GoPointer("storage.VolumeNodeResources", Member(driver, "allocatable") != nullptr) + "}";
}

bool SameCsiNodeDriver(const json& a, const json& b) {
  for (const char* k : {"name", "nodeID", "topologyKeys", "allocatable"}) {
    if (!SameValue(Member(a, k), Member(b, k))) return false;
  }
  return true;
}

}  // namespace

void DefaultStorageClass(json& object) {
  if (!object.is_object()) return;
  SetDefault(&object, "reclaimPolicy", "Delete");
  SetDefault(&object, "volumeBindingMode", "Immediate");
}

Status ValidateStorageClass(const json& object, const json* old, FieldErrors* errors) {
  *errors = Meta(object, old, false);
  ValidateStorageClassFields(object, errors);
  if (old == nullptr) return Status::Ok();
  if (!SameValue(Member(object, "parameters"), Member(*old, "parameters"))) {
    errors->push_back(FieldError::Forbidden("parameters", "updates to parameters are forbidden."));
  }
  if (StrOf(&object, "provisioner") != StrOf(old, "provisioner")) {
    errors->push_back(
        FieldError::Forbidden("provisioner", "updates to provisioner are forbidden."));
  }
  if (StrOf(&object, "reclaimPolicy") != StrOf(old, "reclaimPolicy")) {
    errors->push_back(
        FieldError::Forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."));
  }
  if (StrOf(&object, "volumeBindingMode") != StrOf(old, "volumeBindingMode")) {
    errors->push_back(FieldError::Invalid("volumeBindingMode",
                                          std::string(StrOf(&object, "volumeBindingMode")),
                                          "field is immutable"));
  }
  return Status::Ok();
}

void DefaultCsiDriver(json& object) {
  if (!object.is_object()) return;
  json* spec = ObjectMember(&object, "spec");
  SetDefault(spec, "attachRequired", true);
  SetDefault(spec, "podInfoOnMount", false);
  SetDefault(spec, "storageCapacity", false);
  SetDefault(spec, "fsGroupPolicy", "ReadWriteOnceWithFSType");
  const json* modes = Member(spec, "volumeLifecycleModes");
  if (spec != nullptr && (modes == nullptr || (modes->is_array() && modes->empty()))) {
    (*spec)["volumeLifecycleModes"] = json::array({"Persistent"});
  }
  SetDefault(spec, "requiresRepublish", false);
  SetDefault(spec, "seLinuxMount", false);
}

Status ValidateCsiDriver(const json& object, const json* old, FieldErrors* errors) {
  *errors = Meta(object, old, false);
  const json* spec = Member(object, "spec");
  ValidateCsiDriverSpec(spec, errors);
  if (old == nullptr) return Status::Ok();
  const json* attach = Member(spec, "attachRequired");
  if (!SameValue(attach, At(*old, {"spec", "attachRequired"}))) {
    // A nil *bool prints as the string "null", quoted (field.Error.ErrorBody).
    errors->push_back(
        attach != nullptr
            ? FieldError::InvalidRaw("spec.attachedRequired", attach->dump(), "field is immutable")
            : FieldError::Invalid("spec.attachedRequired", "null", "field is immutable"));
  }
  const json* modes = Member(spec, "volumeLifecycleModes");
  if (!SameValue(modes, At(*old, {"spec", "volumeLifecycleModes"}))) {
    errors->push_back(FieldError::InvalidRaw("spec.volumeLifecycleModes", GoLifecycleModes(modes),
                                             "field is immutable"));
  }
  return Status::Ok();
}

Status ValidateCsiNode(const json& object, const json* old, FieldErrors* errors) {
  *errors = Meta(object, old, false);
  const json* drivers = At(object, {"spec", "drivers"});
  std::set<std::string> names;
  if (drivers != nullptr && drivers->is_array()) {
    for (size_t i = 0; i < drivers->size(); ++i) {
      ValidateCsiNodeDriver((*drivers)[i], "spec.drivers[" + std::to_string(i) + "]", &names,
                            errors);
    }
  }
  const json* old_drivers = old != nullptr ? At(*old, {"spec", "drivers"}) : nullptr;
  if (old_drivers == nullptr || !old_drivers->is_array() || drivers == nullptr ||
      !drivers->is_array()) {
    return Status::Ok();
  }
  for (const json& before : *old_drivers) {
    for (const json& now : *drivers) {
      if (StrOf(&before, "name") == StrOf(&now, "name") && !SameCsiNodeDriver(before, now)) {
        errors->push_back(
            FieldError::InvalidRaw("spec.drivers", GoCsiNodeDriver(now), "field is immutable"));
      }
    }
  }
  return Status::Ok();
}

Status ValidateCsiStorageCapacity(const json& object, const json* old, FieldErrors* errors) {
  *errors = Meta(object, old, true);
  const json* topology = Member(object, "nodeTopology");
  Append(ValidateLabelSelector(topology, "nodeTopology"), errors);
  const std::string storage_class(StrOf(&object, "storageClassName"));
  for (const std::string& msg : api::IsDns1123Subdomain(storage_class)) {
    errors->push_back(FieldError::Invalid("storageClassName", storage_class, msg));
  }
  if (const json* capacity = Member(object, "capacity")) {
    auto q = api::Quantity::Parse(capacity->is_string() ? capacity->get<std::string>()
                                                        : capacity->dump());
    if (q.ok() && q->Sign() < 0) {
      errors->push_back(
          FieldError::Invalid("capacity", q->ToString(), "must be greater than or equal to 0"));
    }
  }
  if (old == nullptr) return Status::Ok();
  const json* old_topology = Member(*old, "nodeTopology");
  if ((topology == nullptr) != (old_topology == nullptr) ||
      (topology != nullptr && *topology != *old_topology)) {
    errors->push_back(topology != nullptr
                          ? FieldError::InvalidRaw("nodeTopology", GoLabelSelector(topology),
                                                   "field is immutable")
                          : FieldError::Invalid("nodeTopology", "null", "field is immutable"));
  }
  if (storage_class != StrOf(old, "storageClassName")) {
    errors->push_back(FieldError::Invalid("storageClassName", storage_class, "field is immutable"));
  }
  return Status::Ok();
}

}  // namespace tidepool::apiserver::validation
