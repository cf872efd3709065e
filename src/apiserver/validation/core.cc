#include "apiserver/validation/core.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "api/name_validation.h"
#include "api/quantity.h"
#include "api/quota.h"
#include "apiserver/validation/defaults.h"
#include "apiserver/validation/object_meta.h"
#include "apiserver/validation/pod.h"
#include "common/go_quote.h"

namespace tidepool::apiserver::validation {
namespace {

using api::FieldError;
using api::FieldErrors;

// Sets obj[key] when the string member is absent, null or "" (a Go string's zero value).
void DefaultString(json* obj, std::string_view key, const char* value) {
  if (obj != nullptr && obj->is_object() && StrOf(obj, key).empty()) {
    const json* v = Member(obj, key);
    if (v == nullptr || v->is_string()) (*obj)[std::string(key)] = value;
  }
}

// The defaults of the volume sources a PersistentVolume may hold (SetDefaults_* and the
// +default tags of k8s.io/api/core/v1).
void DefaultVolumeSources(json* spec) {
  if (json* host_path = Member(spec, "hostPath") ? ObjectMember(spec, "hostPath") : nullptr) {
    SetDefault(host_path, "type", "");
  }
  if (json* iscsi = Member(spec, "iscsi") ? ObjectMember(spec, "iscsi") : nullptr) {
    DefaultString(iscsi, "iscsiInterface", "default");
  }
  if (json* rbd = Member(spec, "rbd") ? ObjectMember(spec, "rbd") : nullptr) {
    DefaultString(rbd, "pool", "rbd");
    DefaultString(rbd, "user", "admin");
    DefaultString(rbd, "keyring", "/etc/ceph/keyring");
  }
  if (json* disk = Member(spec, "azureDisk") ? ObjectMember(spec, "azureDisk") : nullptr) {
    SetDefault(disk, "cachingMode", "ReadWrite");
    SetDefault(disk, "kind", "Shared");
    SetDefault(disk, "fsType", "ext4");
    SetDefault(disk, "readOnly", false);
  }
  if (json* scale_io = Member(spec, "scaleIO") ? ObjectMember(spec, "scaleIO") : nullptr) {
    DefaultString(scale_io, "storageMode", "ThinProvisioned");
    DefaultString(scale_io, "fsType", "xfs");
  }
}

// ---- PersistentVolume
// ----------------------------------------------------------------------------

// The volume sources of a PersistentVolumeSpec in the order ValidatePersistentVolumeSpec checks
// them, with the path its "may not specify more than 1 volume type" names (cephfs is
// "cephFS" there). flexVolume is counted but never refused as a second source, as in kube.
struct VolumeSourceField {
  const char* key;
  const char* forbidden_path;
};
constexpr VolumeSourceField kVolumeSources[] = {
    {"hostPath", "hostPath"},
    {"gcePersistentDisk", "gcePersistentDisk"},
    {"awsElasticBlockStore", "awsElasticBlockStore"},
    {"glusterfs", "glusterfs"},
    {"flocker", "flocker"},
    {"nfs", "nfs"},
    {"rbd", "rbd"},
    {"quobyte", "quobyte"},
    {"cephfs", "cephFS"},
    {"iscsi", "iscsi"},
    {"cinder", "cinder"},
    {"fc", "fc"},
    {"flexVolume", nullptr},
    {"azureFile", "azureFile"},
    {"vsphereVolume", "vsphereVolume"},
    {"photonPersistentDisk", "photonPersistentDisk"},
    {"portworxVolume", "portworxVolume"},
    {"azureDisk", "azureDisk"},
    {"scaleIO", "scaleIO"},
    {"local", "local"},
    {"storageos", "storageos"},
    {"csi", "csi"},
};

// validatePathNoBacksteps: no ".." element.
void NoBacksteps(std::string_view path, const std::string& field, FieldErrors* errors) {
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = std::min(path.find('/', start), path.size());
    if (path.substr(start, slash - start) == "..") {
      errors->push_back(FieldError::Invalid(field, std::string(path), "must not contain '..'"));
      return;
    }
    start = slash + 1;
  }
}

// The checks of the sources modelled here (validateHostPathVolumeSource,
// validateLocalVolumeSource, validateNFSVolumeSource, validateCSIPersistentVolumeSource);
// other sources are taken as they are.
void ValidateVolumeSource(std::string_view key, const json* src, bool node_affinity,
                          FieldErrors* errors) {
  const std::string base = "spec." + std::string(key);
  const std::string path(StrOf(src, "path"));
  if (key == "hostPath") {
    if (path.empty()) {
      errors->push_back(FieldError::Required(base + ".path", ""));
      return;
    }
    NoBacksteps(path, base + ".path", errors);
    static const std::vector<std::string> kTypes = {
        "",     "BlockDevice",  "CharDevice", "Directory", "DirectoryOrCreate",
        "File", "FileOrCreate", "Socket"};
    const std::string type(StrOf(src, "type"));
    if (std::find(kTypes.begin(), kTypes.end(), type) == kTypes.end()) {
      errors->push_back(FieldError::NotSupported(base + ".type", type, kTypes));
    }
  } else if (key == "local") {
    if (path.empty()) {
      errors->push_back(FieldError::Required(base + ".path", ""));
    } else {
      NoBacksteps(path, base + ".path", errors);
    }
    if (!node_affinity) {
      errors->push_back(
          FieldError::Required("spec.nodeAffinity", "Local volume requires node affinity"));
    }
  } else if (key == "nfs") {
    if (StrOf(src, "server").empty()) errors->push_back(FieldError::Required(base + ".server", ""));
    if (path.empty()) errors->push_back(FieldError::Required(base + ".path", ""));
    if (path.empty() || path[0] != '/') {
      errors->push_back(FieldError::Invalid(base + ".path", path, "must be an absolute path"));
    }
  } else if (key == "csi") {
    Append(ValidateCsiDriverName(StrOf(src, "driver"), base + ".driver"), errors);
    if (StrOf(src, "volumeHandle").empty()) {
      errors->push_back(FieldError::Required(base + ".volumeHandle", ""));
    }
  }
}

// validateVolumeNodeAffinity: whether nodeAffinity is given, and its required terms.
bool ValidateVolumeNodeAffinity(const json* spec, FieldErrors* errors) {
  const json* affinity = Member(spec, "nodeAffinity");
  if (affinity == nullptr) return false;
  const json* required = Member(affinity, "required");
  if (required == nullptr) {
    errors->push_back(FieldError::Required("spec.nodeAffinity.required",
                                           "must specify required node constraints"));
  } else {
    const json* terms = Member(required, "nodeSelectorTerms");
    if (terms == nullptr || !terms->is_array() || terms->empty()) {
      errors->push_back(FieldError::Required("spec.nodeAffinity.required.nodeSelectorTerms",
                                             "must have at least one node selector term"));
    }
  }
  return true;
}

// Go's %#v of a core.ResourceList as validation prints it: exact for a missing or empty list;
// for others each quantity is written as its string (Go writes resource.Quantity's fields).
std::string GoResourceList(const json* capacity) {
  if (capacity == nullptr || !capacity->is_object()) return "core.ResourceList(nil)";
  std::string out = "core.ResourceList{";
  bool first = true;
  for (const auto& [k, v] : capacity->items()) {
    if (!first) out += ", ";
    first = false;
    out += GoQuote(k) + ":" + GoQuote(v.is_string() ? v.get<std::string>() : v.dump());
  }
  return out + "}";
}

void ValidateAccessModes(const json* spec, FieldErrors* errors,
                         std::string_view required_message = "") {
  static const std::vector<std::string> kModes = {"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce",
                                                  "ReadWriteOncePod"};
  const json* modes = Member(spec, "accessModes");
  if (modes == nullptr || !modes->is_array() || modes->empty()) {
    errors->push_back(FieldError::Required("spec.accessModes", std::string(required_message)));
  }
  bool rwop = false, other = false;
  for (const std::string& mode : Strings(modes)) {
    if (std::find(kModes.begin(), kModes.end(), mode) == kModes.end()) {
      errors->push_back(FieldError::NotSupported("spec.accessModes", mode, kModes));
    } else if (mode == "ReadWriteOncePod") {
      rwop = true;
    } else {
      other = true;
    }
  }
  if (rwop && other) {
    errors->push_back(FieldError::Forbidden(
        "spec.accessModes", "may not use ReadWriteOncePod with other access modes"));
  }
}

void ValidateCapacity(const json* spec, FieldErrors* errors) {
  const json* capacity = Member(spec, "capacity");
  const size_t n = capacity != nullptr && capacity->is_object() ? capacity->size() : 0;
  if (n == 0) errors->push_back(FieldError::Required("spec.capacity", ""));
  if (Member(capacity, "storage") == nullptr || n > 1) {
    errors->push_back(FieldError::NotSupportedRaw(
        "spec.capacity",
        n == 0 && capacity != nullptr ? "core.ResourceList{}" : GoResourceList(capacity),
        {"storage"}));
  }
  if (n == 0) return;
  for (const auto& [k, v] : capacity->items()) {
    const std::string path = "spec.capacity[" + k + "]";
    auto q = api::Quantity::Parse(v.is_string() ? v.get<std::string>() : v.dump());
    if (!q.ok()) continue;  // the decoder refused it before validation
    if (q->Value() < 0) {
      errors->push_back(FieldError::InvalidRaw(path, std::to_string(q->Value()),
                                               "must be a valid resource quantity"));
    }
    if (q->Sign() <= 0) {
      errors->push_back(FieldError::Invalid(path, q->ToString(), "must be greater than zero"));
    }
  }
}

// The volume sources: exactly one, then its own checks.
void ValidateVolumeSources(const json* spec, bool node_affinity, FieldErrors* errors) {
  int sources = 0;
  for (const VolumeSourceField& s : kVolumeSources) {
    const json* src = Member(spec, s.key);
    if (src == nullptr) continue;
    if (sources > 0 && s.forbidden_path != nullptr) {
      errors->push_back(FieldError::Forbidden(std::string("spec.") + s.forbidden_path,
                                              "may not specify more than 1 volume type"));
      continue;
    }
    ++sources;
    ValidateVolumeSource(s.key, src, node_affinity, errors);
  }
  if (sources == 0) errors->push_back(FieldError::Required("spec", "must specify a volume type"));
}

// Both specs: storageClassName (when set) a DNS-1123 subdomain, volumeMode Block or Filesystem.
void ValidateClassAndMode(const json* spec, FieldErrors* errors) {
  const std::string storage_class(StrOf(spec, "storageClassName"));
  if (!storage_class.empty()) {
    for (const std::string& msg : api::IsDns1123Subdomain(storage_class)) {
      errors->push_back(FieldError::Invalid("spec.storageClassName", storage_class, msg));
    }
  }
  if (const json* mode = Member(spec, "volumeMode")) {
    const std::string m(Str(mode));
    if (m != "Block" && m != "Filesystem") {
      errors->push_back(FieldError::NotSupported("spec.volumeMode", m, {"Block", "Filesystem"}));
    }
  }
}

void ValidatePersistentVolumeSpec(const json* spec, FieldErrors* errors) {
  ValidateAccessModes(spec, errors);
  ValidateCapacity(spec, errors);
  const std::string policy(StrOf(spec, "persistentVolumeReclaimPolicy"));
  if (!policy.empty() && policy != "Delete" && policy != "Recycle" && policy != "Retain") {
    errors->push_back(FieldError::NotSupported("spec.persistentVolumeReclaimPolicy", policy,
                                               {"Delete", "Recycle", "Retain"}));
  }
  const bool node_affinity = ValidateVolumeNodeAffinity(spec, errors);
  ValidateVolumeSources(spec, node_affinity, errors);
  if (const json* host_path = Member(spec, "hostPath")) {
    // path.Clean(p) == "/": one or more slashes and dots only, starting with '/'.
    const std::string p(StrOf(host_path, "path"));
    const bool root = !p.empty() && p[0] == '/' && p.find_first_not_of("/") == std::string::npos;
    if (root && policy == "Recycle") {
      errors->push_back(FieldError::Forbidden("spec.persistentVolumeReclaimPolicy",
                                              "may not be 'recycle' for a hostPath mount of '/'"));
    }
  }
  ValidateClassAndMode(spec, errors);
}

// ---- PersistentVolumeClaim
// ------------------------------------------------------------------------

void ValidatePersistentVolumeClaimSpec(const json* spec, FieldErrors* errors) {
  ValidateAccessModes(spec, errors, "at least 1 access mode is required");
  const json* storage = Member(Member(Member(spec, "resources"), "requests"), "storage");
  if (storage == nullptr) {
    errors->push_back(FieldError::Required("spec.resources[storage]", ""));
  } else if (auto q = api::Quantity::Parse(storage->is_string() ? storage->get<std::string>()
                                                                : storage->dump());
             q.ok() && q->Sign() <= 0) {
    errors->push_back(
        FieldError::Invalid("spec.resources[storage]", q->ToString(), "must be greater than zero"));
  }
  ValidateClassAndMode(spec, errors);
}

// The quantity's canonical text (resource.Quantity's JSON), the raw text when it does not parse.
std::string QuantityText(const json& q) {
  const std::string raw = q.is_string() ? q.get<std::string>() : q.dump();
  auto parsed = api::Quantity::Parse(raw);
  return parsed.ok() ? parsed->ToString() : raw;
}

// A resource list as the internal type marshals: null when absent, keys sorted.
nlohmann::ordered_json ResourceListJson(const json* list) {
  if (list == nullptr || !list->is_object()) return nullptr;
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [k, v] : list->items()) out[k] = QuantityText(v);
  return out;
}

// An optional member as the internal type's pointer marshals: null when absent.
nlohmann::ordered_json Optional(const json* spec, std::string_view key) {
  const json* v = Member(spec, key);
  return v == nullptr ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(*v);
}

// A typed (local) object reference with the internal type's Go field names.
nlohmann::ordered_json ReferenceJson(const json* ref, bool with_namespace) {
  if (ref == nullptr || !ref->is_object()) return nullptr;
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  out["APIGroup"] = Optional(ref, "apiGroup");
  out["Kind"] = std::string(Str(Member(ref, "kind")));
  out["Name"] = std::string(Str(Member(ref, "name")));
  if (with_namespace) out["Namespace"] = Optional(ref, "namespace");
  return out;
}

// The internal core.PersistentVolumeClaimSpec as json.Marshal writes it (Go field names, in
// the struct's order, every field): what apimachinery's diff.Diff compares.
nlohmann::ordered_json InternalClaimSpec(const json& spec) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  const json* modes = Member(spec, "accessModes");
  out["AccessModes"] =
      modes != nullptr && modes->is_array() ? nlohmann::ordered_json(*modes) : nullptr;
  // metav1.LabelSelector's own JSON names, in its order.
  if (const json* sel = Member(spec, "selector"); sel != nullptr && sel->is_object()) {
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    if (const json* l = Member(sel, "matchLabels")) o["matchLabels"] = *l;
    if (const json* e = Member(sel, "matchExpressions")) o["matchExpressions"] = *e;
    out["Selector"] = std::move(o);
  } else {
    out["Selector"] = nullptr;
  }
  const json* resources = Member(spec, "resources");
  out["Resources"] = {{"Limits", ResourceListJson(Member(resources, "limits"))},
                      {"Requests", ResourceListJson(Member(resources, "requests"))}};
  out["VolumeName"] = std::string(Str(Member(spec, "volumeName")));
  out["StorageClassName"] = Optional(&spec, "storageClassName");
  out["VolumeMode"] = Optional(&spec, "volumeMode");
  out["DataSource"] = ReferenceJson(Member(spec, "dataSource"), false);
  out["DataSourceRef"] = ReferenceJson(Member(spec, "dataSourceRef"), true);
  out["VolumeAttributesClassName"] = Optional(&spec, "volumeAttributesClassName");
  return out;
}

// apimachinery's Semantic.DeepEqual treats an empty map or slice as nil.
nlohmann::ordered_json NilIfEmpty(const nlohmann::ordered_json& v) {
  if ((v.is_object() || v.is_array()) && v.empty()) return nullptr;
  if (v.is_object()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& [k, e] : v.items()) out[k] = NilIfEmpty(e);
    return out;
  }
  if (v.is_array()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& e : v) out.push_back(NilIfEmpty(e));
    return out;
  }
  return v;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

// go-difflib's formatRangeUnified: "start,length" (1-based; "start" alone for one line).
std::string UnifiedRange(size_t start, size_t stop) {
  const size_t length = stop - start;
  if (length == 1) return std::to_string(start + 1);
  return std::to_string(length == 0 ? start : start + 1) + "," + std::to_string(length);
}

// apimachinery's diff.Diff of two objects: a unified diff with 3 lines of context of their JSON
// texts, indented by one space, without file headers (go-difflib). Lines match by a longest
// common subsequence; a changed run prints its removals before its additions.
struct DiffOp {
  bool equal;
  size_t i1, i2, j1, j2;
};

// difflib's SequenceMatcher (no junk: texts this short get no autojunk) on lines: the longest
// matching block of x[alo, ahi) and y[blo, bhi) (the first in x, then in y, among equals), then
// the same on either side of it; `blocks` gets (i, j, size) in order.
void MatchingBlocks(const std::vector<std::string>& x, const std::vector<std::string>& y,
                    size_t alo, size_t ahi, size_t blo, size_t bhi,
                    std::vector<std::array<size_t, 3>>* blocks) {
  size_t bi = alo, bj = blo, best = 0;
  for (size_t i = alo; i < ahi; ++i) {
    for (size_t j = blo; j < bhi; ++j) {
      size_t k = 0;
      while (i + k < ahi && j + k < bhi && x[i + k] == y[j + k]) ++k;
      if (k > best) bi = i, bj = j, best = k;
    }
  }
  if (best == 0) return;
  MatchingBlocks(x, y, alo, bi, blo, bj, blocks);
  blocks->push_back({bi, bj, best});
  MatchingBlocks(x, y, bi + best, ahi, bj + best, bhi, blocks);
}

// get_opcodes: the equal runs and the changed runs between them.
std::vector<DiffOp> Opcodes(const std::vector<std::string>& x, const std::vector<std::string>& y) {
  std::vector<std::array<size_t, 3>> blocks;
  MatchingBlocks(x, y, 0, x.size(), 0, y.size(), &blocks);
  blocks.push_back({x.size(), y.size(), 0});
  std::vector<DiffOp> ops;
  size_t i = 0, j = 0;
  for (const auto& [ai, bj, size] : blocks) {
    if (i < ai || j < bj) ops.push_back({false, i, ai, j, bj});
    i = ai + size;
    j = bj + size;
    // Adjacent blocks (which difflib collapses first) extend the previous equal run.
    if (size > 0 && !ops.empty() && ops.back().equal && ops.back().i2 == ai) {
      ops.back().i2 = i;
      ops.back().j2 = j;
    } else if (size > 0) {
      ops.push_back({true, ai, i, bj, j});
    }
  }
  return ops;
}

// apimachinery's diff.Diff of two objects: go-difflib's unified diff with 3 lines of context of
// their JSON texts, indented by one space, without file headers.
std::string JsonDiff(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b) {
  const std::vector<std::string> x = Lines(a.dump(1)), y = Lines(b.dump(1));
  using Op = DiffOp;
  std::vector<Op> ops = Opcodes(x, y);
  if (ops.empty()) return "";
  // difflib's get_grouped_opcodes(3): the changes with 3 lines of context, a group ending
  // where more than 6 lines are equal.
  constexpr size_t kContext = 3;
  if (ops.front().equal) {
    Op& f = ops.front();
    f.i1 = std::max(f.i1, f.i2 - std::min(f.i2, kContext));
    f.j1 = std::max(f.j1, f.j2 - std::min(f.j2, kContext));
  }
  if (ops.back().equal) {
    Op& l = ops.back();
    l.i2 = std::min(l.i2, l.i1 + kContext);
    l.j2 = std::min(l.j2, l.j1 + kContext);
  }
  std::vector<std::vector<Op>> groups(1);
  for (Op op : ops) {
    if (op.equal && op.i2 - op.i1 > 2 * kContext) {
      groups.back().push_back({true, op.i1, op.i1 + kContext, op.j1, op.j1 + kContext});
      groups.emplace_back();
      op.i1 = op.i2 - kContext;
      op.j1 = op.j2 - kContext;
    }
    groups.back().push_back(op);
  }
  std::string out;
  for (const std::vector<Op>& g : groups) {
    if (g.empty() || (g.size() == 1 && g.front().equal)) continue;
    out += "@@ -" + UnifiedRange(g.front().i1, g.back().i2) + " +" +
           UnifiedRange(g.front().j1, g.back().j2) + " @@\n";
    for (const Op& op : g) {
      if (op.equal) {
        for (size_t t = op.i1; t < op.i2; ++t) out += " " + x[t] + "\n";
        continue;
      }
      for (size_t t = op.i1; t < op.i2; ++t) out += "-" + x[t] + "\n";
      for (size_t t = op.j1; t < op.j2; ++t) out += "+" + y[t] + "\n";
    }
  }
  return out;
}

// ValidatePersistentVolumeClaimUpdate's spec rules (kube-apiserver 1.32).
void ValidatePersistentVolumeClaimUpdate(const json& object, const json& old, FieldErrors* errors) {
  constexpr std::string_view kBeta = "volume.beta.kubernetes.io/storage-class";
  const json empty = json::object();
  const json* new_spec = Member(object, "spec");
  const json* old_spec = Member(old, "spec");
  json now = new_spec != nullptr ? *new_spec : empty;
  json was = old_spec != nullptr ? *old_spec : empty;
  if (!now.is_object() || !was.is_object()) return;
  // volumeName may be set once (kcm's PV controller binds the claim).
  if (Str(Member(was, "volumeName")).empty()) {
    if (const json* v = Member(now, "volumeName")) {
      was["volumeName"] = *v;
    } else {
      was.erase("volumeName");
    }
  }
  const json* old_ann = Member(Member(old, "metadata"), "annotations");
  const json* new_ann = Member(Member(object, "metadata"), "annotations");
  const json* old_beta = Member(old_ann, kBeta);
  const json* new_beta = Member(new_ann, kBeta);
  const json* old_class = Member(was, "storageClassName");
  const json* new_class = Member(now, "storageClassName");
  if (old_beta != nullptr && old_class == nullptr && new_class != nullptr &&
      Str(new_class) == Str(old_beta) && (new_beta == nullptr || Str(new_beta) == Str(old_beta))) {
    now.erase("storageClassName");  // from the beta annotation to the field
  } else {
    // ValidateImmutableAnnotation: fldPath.Child("annotations", key).
    if (Str(new_beta) != Str(old_beta)) {
      errors->push_back(FieldError::Invalid("metadata.annotations." + std::string(kBeta),
                                            std::string(Str(new_beta)), "field is immutable"));
    }
    // A class set where there was none (the retroactive default class).
    if (old_beta == nullptr && Str(old_class).empty() && !Str(new_class).empty()) {
      now.erase("storageClassName");
      if (old_class != nullptr) was.erase("storageClassName");
    }
  }
  // A bound claim's storage request may change (expansion).
  if (Str(At(object, {"status", "phase"})) == "Bound") {
    if (json* requests = ObjectMember(ObjectMember(&now, "resources"), "requests")) {
      if (const json* old_storage = At(was, {"resources", "requests", "storage"})) {
        (*requests)["storage"] = *old_storage;
      } else {
        requests->erase("storage");
      }
    }
  }
  const nlohmann::ordered_json a = InternalClaimSpec(was), b = InternalClaimSpec(now);
  if (NilIfEmpty(a) != NilIfEmpty(b)) {  // Semantic.DeepEqual: an empty map or list is nil
    errors->push_back(
        FieldError::Forbidden("spec",
                              "spec is immutable after creation except resources.requests and "
                              "volumeAttributesClassName for bound claims\n" +
                                  JsonDiff(a, b)));
  }
  // A smaller request (RecoverVolumeExpansionFailure, beta and on in 1.32): above what the
  // volume has (status.capacity), to recover from an expansion that failed.
  auto quantity = [](const json* v) {
    return api::Quantity::Parse(v != nullptr ? QuantityText(*v) : "0");
  };
  auto size = quantity(At(object, {"spec", "resources", "requests", "storage"}));
  auto old_size = quantity(At(old, {"spec", "resources", "requests", "storage"}));
  auto capacity = quantity(At(old, {"status", "capacity", "storage"}));
  if (size.ok() && old_size.ok() && capacity.ok() && size->Compare(*old_size) < 0 &&
      size->Compare(*capacity) <= 0) {
    errors->push_back(FieldError::Forbidden("spec.resources.requests.storage",
                                            "field can not be less than status.capacity"));
  }
  const json* mode = Member(new_spec, "volumeMode");
  const json* old_mode = Member(old_spec, "volumeMode");
  if ((mode == nullptr) != (old_mode == nullptr) || (mode != nullptr && *mode != *old_mode)) {
    errors->push_back(FieldError::Invalid(
        "volumeMode", mode == nullptr ? "null" : std::string(Str(mode)), "field is immutable"));
  }
}

// ---- ReplicationController
// -----------------------------------------------------------------------

// ValidatePodTemplateSpecForRC.
Status ValidateReplicationControllerTemplate(const json* spec, FieldErrors* errors) {
  const json* tmpl = Member(spec, "template");
  if (tmpl == nullptr) {
    errors->push_back(FieldError::Required("spec.template", ""));
    return Status::Ok();
  }
  const api::Labels selector = StringMap(Member(spec, "selector"));
  const json* labels = Member(Member(tmpl, "metadata"), "labels");
  if (!selector.empty()) {
    const api::Labels have = StringMap(labels);
    for (const auto& [k, v] : selector) {
      auto it = have.find(k);
      if (it == have.end() || it->second != v) {
        errors->push_back(FieldError::InvalidRaw("spec.template.metadata.labels",
                                                 GoStringMap(labels),
                                                 "`selector` does not match template `labels`"));
        break;
      }
    }
  }
  TIDEPOOL_RETURN_IF_ERROR(
      ValidatePodTemplate(tmpl, "spec.template", "ReplicationController", errors));
  const json* pod_spec = Member(tmpl, "spec");
  const std::string policy(StrOf(pod_spec, "restartPolicy"));
  if (policy != "Always") {
    errors->push_back(
        FieldError::NotSupported("spec.template.spec.restartPolicy", policy, {"Always"}));
  }
  if (const json* deadline = Member(pod_spec, "activeDeadlineSeconds")) {
    errors->push_back(FieldError::InvalidRaw("spec.template.spec.activeDeadlineSeconds",
                                             deadline->dump(), "must not be specified"));
  }
  return Status::Ok();
}

}  // namespace

FieldErrors ValidateCsiDriverName(std::string_view name, const std::string& path) {
  FieldErrors errors;
  if (name.empty()) errors.push_back(FieldError::Required(path, ""));
  if (name.size() > 63) errors.push_back(FieldError::TooLong(path, 63));
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const std::string& msg : api::IsDns1123Subdomain(lower)) {
    errors.push_back(FieldError::Invalid(path, std::string(name), msg));
  }
  return errors;
}

void DefaultPersistentVolume(json& object) {
  if (!object.is_object()) return;
  json* spec = ObjectMember(&object, "spec");
  DefaultString(spec, "persistentVolumeReclaimPolicy", "Retain");
  SetDefault(spec, "volumeMode", "Filesystem");
  DefaultVolumeSources(spec);
  DefaultString(ObjectMember(&object, "status"), "phase", "Pending");
}

void PreparePersistentVolumeForCreate(json& object, const std::string& now) {
  if (!object.is_object()) return;
  object["status"] = {{"phase", "Pending"}, {"lastPhaseTransitionTime", now}};
}

void PreparePersistentVolumeStatusUpdate(json& object, const json& old, const std::string& now) {
  if (!object.is_object()) return;
  const json* old_status = Member(old, "status");
  json* status = ObjectMember(&object, "status");
  if (status == nullptr) return;
  const json* old_time = Member(old_status, "lastPhaseTransitionTime");
  const json* time = Member(status, "lastPhaseTransitionTime");
  const bool same_phase = StrOf(status, "phase") == StrOf(old_status, "phase");
  if (same_phase && time == nullptr) {
    if (old_time != nullptr) (*status)["lastPhaseTransitionTime"] = *old_time;
  } else if (!same_phase && (time == nullptr || (old_time != nullptr && *time == *old_time))) {
    (*status)["lastPhaseTransitionTime"] = now;
  }
}

Status ValidatePersistentVolume(const json& object, const json* old, FieldErrors* errors) {
  *errors = old == nullptr ? ValidateObjectMeta(object, NameRule::kDns1123Subdomain, false)
                           : ValidateObjectMetaUpdate(object, *old);
  ValidatePersistentVolumeSpec(Member(object, "spec"), errors);
  if (old != nullptr) {
    const json* mode = At(object, {"spec", "volumeMode"});
    const json* old_mode = At(*old, {"spec", "volumeMode"});
    if ((mode == nullptr) != (old_mode == nullptr) || (mode != nullptr && *mode != *old_mode)) {
      // A nil pointer prints as the string "null" (field.Error.ErrorBody), quoted.
      errors->push_back(FieldError::Invalid(
          "volumeMode", mode == nullptr ? "null" : std::string(Str(mode)), "field is immutable"));
    }
  }
  return Status::Ok();
}

void DefaultPersistentVolumeClaim(json& object) {
  if (!object.is_object()) return;
  SetDefault(ObjectMember(&object, "spec"), "volumeMode", "Filesystem");
  DefaultString(ObjectMember(&object, "status"), "phase", "Pending");
}

void PreparePersistentVolumeClaimForCreate(json& object) {
  if (!object.is_object()) return;
  object["status"] = {{"phase", "Pending"}};
}

void PreparePersistentVolumeClaimForUpdate(json& object, const json& old) {
  if (!object.is_object()) return;
  if (const json* status = Member(old, "status")) {
    object["status"] = *status;
  } else {
    object.erase("status");
  }
}

Status ValidatePersistentVolumeClaim(const json& object, const json* old, FieldErrors* errors) {
  *errors = old == nullptr ? ValidateObjectMeta(object, NameRule::kDns1123Subdomain, true)
                           : ValidateObjectMetaUpdate(object, *old);
  ValidatePersistentVolumeClaimSpec(Member(object, "spec"), errors);
  if (old != nullptr) ValidatePersistentVolumeClaimUpdate(object, *old, errors);
  return Status::Ok();
}

void DefaultReplicationController(json& object) {
  json* spec = ObjectMember(&object, "spec");
  if (spec == nullptr) return;
  const json* labels = At(*spec, {"template", "metadata", "labels"});
  if (labels != nullptr && labels->is_object()) {
    const json* selector = Member(spec, "selector");
    if (selector == nullptr || (selector->is_object() && selector->empty())) {
      (*spec)["selector"] = *labels;
    }
    json* meta = ObjectMember(&object, "metadata");
    const json* own = Member(meta, "labels");
    if (meta != nullptr && (own == nullptr || (own->is_object() && own->empty()))) {
      (*meta)["labels"] = *labels;
    }
  }
  SetDefault(spec, "replicas", 1);
}

void PrepareReplicationControllerForCreate(json& object) {
  if (object.is_object()) object["status"] = {{"replicas", 0}};
}

Status ValidateReplicationController(const json& object, const json* old, FieldErrors* errors) {
  *errors = old == nullptr ? ValidateObjectMeta(object, NameRule::kDns1123Subdomain, true)
                           : ValidateObjectMetaUpdate(object, *old);
  const json* spec = Member(object, "spec");
  NonNegative(Member(spec, "minReadySeconds"), "spec.minReadySeconds", errors);
  if (StringMap(Member(spec, "selector")).empty()) {
    errors->push_back(FieldError::Required("spec.selector", ""));
  }
  NonNegative(Member(spec, "replicas"), "spec.replicas", errors);
  return ValidateReplicationControllerTemplate(spec, errors);
}

Status ValidatePodTemplateObject(const json& object, const json* old, FieldErrors* errors) {
  *errors = old == nullptr ? ValidateObjectMeta(object, NameRule::kDns1123Subdomain, true)
                           : ValidateObjectMetaUpdate(object, *old);
  static const json kZeroTemplate = json::object();  // Template is a struct: zero when absent
  const json* tmpl = Member(&object, "template");
  return ValidatePodTemplate(tmpl != nullptr ? tmpl : &kZeroTemplate, "template", "PodTemplate",
                             errors);
}

Status ValidateServiceUpdate(const json& object, const json& old, api::FieldErrors* errors) {
  *errors = ValidateObjectMetaUpdate(object, old);
  // validateUpgradeDowngradeClusterIPs: the cluster IPs stay as allocated, except to or from
  // ExternalName and between two headless forms.
  const std::string_view type = Str(At(object, {"spec", "type"}));
  const std::string_view old_type = Str(At(old, {"spec", "type"}));
  if (type == "ExternalName" || old_type == "ExternalName") return Status::Ok();
  const std::vector<std::string> ips = Strings(At(object, {"spec", "clusterIPs"}));
  const std::vector<std::string> old_ips = Strings(At(old, {"spec", "clusterIPs"}));
  const auto headless = [](const std::vector<std::string>& v) {
    return v.size() == 1 && v[0] == "None";
  };
  if (headless(ips) && headless(old_ips)) return Status::Ok();
  const auto invalid = [&](size_t i, const char* why) {
    errors->push_back(api::FieldError::InvalidRaw("spec.clusterIPs[" + std::to_string(i) + "]",
                                                  GoStringSlice(ips), why));
  };
  if (ips.size() == old_ips.size()) {
    for (size_t i = 0; i < ips.size(); ++i) {
      if (ips[i] != old_ips[i]) invalid(i, "may not change once set");
    }
  } else if (ips.size() < old_ips.size()) {
    if (ips.empty()) {
      invalid(0, "primary clusterIP can not be unset");
    } else if (ips[0] != old_ips[0]) {
      invalid(0, "may not change once set");
    }
  } else if (!old_ips.empty() && ips[0] != old_ips[0]) {
    invalid(0, "may not change once set");
  }
  return Status::Ok();
}

}  // namespace tidepool::apiserver::validation

namespace tidepool::apiserver::validation {

namespace {

// The quota resources that hold counts: a fraction is refused.
bool IsIntegerQuotaResource(const std::string& name) {
  static const char* const kIntegers[] = {"pods",
                                          "services",
                                          "replicationcontrollers",
                                          "resourcequotas",
                                          "secrets",
                                          "configmaps",
                                          "persistentvolumeclaims",
                                          "services.nodeports",
                                          "services.loadbalancers"};
  for (const char* n : kIntegers) {
    if (name == n) return true;
  }
  return name.rfind("count/", 0) == 0;
}

// ValidateResourceQuotaResourceName and the quantity rules of one ResourceList (spec.hard,
// status.hard, status.used).
void ValidateQuotaList(const json* list, const std::string& path, FieldErrors* errors) {
  if (list == nullptr || !list->is_object()) return;
  for (auto it = list->begin(); it != list->end(); ++it) {
    const std::string& name = it.key();
    const std::string p = path + "[" + name + "]";
    if (!api::IsQuotaResourceName(name)) {
      errors->push_back(
          FieldError::Invalid(p, name, "must be a standard resource type or fully qualified"));
      errors->push_back(FieldError::Invalid(p, name, "must be a standard resource for quota"));
      continue;
    }
    const std::string text = it->is_string() ? it->get<std::string>() : it->dump();
    auto q = api::Quantity::Parse(text);
    if (!q.ok()) continue;  // the typed decode refused it
    if (q->Sign() < 0) {
      errors->push_back(
          FieldError::Invalid(p, q->ToString(), "must be greater than or equal to 0"));
    } else if (IsIntegerQuotaResource(name) && q->MilliValue() % 1000 != 0) {
      errors->push_back(FieldError::Invalid(p, q->ToString(), "must be an integer"));
    }
  }
}

}  // namespace

Status ValidateResourceQuota(const json& object, const json* old, FieldErrors* errors) {
  *errors = old == nullptr ? ValidateObjectMeta(object, NameRule::kDns1123Subdomain, true)
                           : ValidateObjectMetaUpdate(object, *old);
  ValidateQuotaList(At(object, {"spec", "hard"}), "spec.hard", errors);
  ValidateQuotaList(At(object, {"status", "hard"}), "status.hard", errors);
  ValidateQuotaList(At(object, {"status", "used"}), "status.used", errors);
  static const char* const kScopes[] = {"Terminating",   "NotTerminating",
                                        "BestEffort",    "NotBestEffort",
                                        "PriorityClass", "CrossNamespacePodAffinity"};
  if (const json* scopes = At(object, {"spec", "scopes"});
      scopes != nullptr && scopes->is_array()) {
    for (size_t i = 0; i < scopes->size(); ++i) {
      const std::string s(Str(&(*scopes)[i]));
      if (std::none_of(std::begin(kScopes), std::end(kScopes),
                       [&](const char* k) { return s == k; })) {
        errors->push_back(
            FieldError::Invalid("spec.scopes[" + std::to_string(i) + "]", s, "unsupported scope"));
      }
    }
  }
  if (old != nullptr) {
    const json* scopes = At(object, {"spec", "scopes"});
    const json* old_scopes = At(*old, {"spec", "scopes"});
    if ((scopes == nullptr) != (old_scopes == nullptr) ||
        (scopes != nullptr && *scopes != *old_scopes)) {
      errors->push_back(FieldError::InvalidRaw(
          "spec.scopes", scopes != nullptr ? scopes->dump() : "null", "field is immutable"));
    }
  }
  return Status::Ok();
}

}  // namespace tidepool::apiserver::validation

namespace tidepool::apiserver::validation {

void DefaultLimitRange(json& object) {
  json* spec = ObjectMember(&object, "spec");
  if (spec == nullptr || !spec->contains("limits") || !(*spec)["limits"].is_array()) return;
  for (json& item : (*spec)["limits"]) {
    if (!item.is_object() || Str(Member(&item, "type")) != "Container") continue;
    auto fill = [&](const char* into_key, const char* from_key) {
      const json* from = Member(&item, from_key);
      if (from == nullptr || !from->is_object()) return;
      json& into = item[into_key];
      if (!into.is_object()) into = json::object();
      for (auto it = from->begin(); it != from->end(); ++it) {
        if (!into.contains(it.key())) into[it.key()] = *it;
      }
    };
    fill("default", "max");
    fill("defaultRequest", "default");
    fill("defaultRequest", "min");
    for (const char* k : {"default", "defaultRequest"}) {
      if (item.contains(k) && item[k].is_object() && item[k].empty()) item.erase(k);
    }
  }
}

}  // namespace tidepool::apiserver::validation

namespace tidepool::apiserver::validation {

void DefaultService(json& object) {
  // LoadBalancerIPMode (beta, on in 1.32): an ingress IP without an ipMode is a VIP.
  if (json* status = ObjectMember(&object, "status")) {
    if (json* lb = ObjectMember(status, "loadBalancer")) {
      if (lb->contains("ingress") && (*lb)["ingress"].is_array()) {
        for (json& ing : (*lb)["ingress"]) {
          if (ing.is_object() && ing.contains("ip") && ing["ip"].is_string() &&
              !ing["ip"].get_ref<const std::string&>().empty() &&
              (!ing.contains("ipMode") || ing["ipMode"].is_null())) {
            ing["ipMode"] = "VIP";
          }
        }
      }
    }
  }
  json* spec = ObjectMember(&object, "spec");
  if (spec == nullptr) return;
  if (!spec->contains("type") || !(*spec)["type"].is_string()) (*spec)["type"] = "ClusterIP";
  const std::string type = (*spec)["type"].get<std::string>();
  if (type == "ExternalName") return;
  if (!spec->contains("sessionAffinity")) (*spec)["sessionAffinity"] = "None";
  if (!spec->contains("internalTrafficPolicy")) (*spec)["internalTrafficPolicy"] = "Cluster";
  if ((type == "NodePort" || type == "LoadBalancer") && !spec->contains("externalTrafficPolicy")) {
    (*spec)["externalTrafficPolicy"] = "Cluster";
  }
  if (spec->contains("ports") && (*spec)["ports"].is_array()) {
    for (json& p : (*spec)["ports"]) {
      if (!p.is_object()) continue;
      if (!p.contains("protocol")) p["protocol"] = "TCP";
      if (!p.contains("targetPort") && p.contains("port")) p["targetPort"] = p["port"];
    }
  }
}

void KeepServiceAddresses(json& object, const json& old) {
  json* spec = ObjectMember(&object, "spec");
  const json* old_spec = Member(&old, "spec");
  if (spec == nullptr || old_spec == nullptr || !old_spec->is_object()) return;
  if (spec->contains("clusterIP") && (*spec)["clusterIP"].is_string() &&
      !(*spec)["clusterIP"].get<std::string>().empty()) {
    // normalizeClusterIPs: a new clusterIP with the old clusterIPs moves clusterIPs[0].
    const std::string ip = (*spec)["clusterIP"].get<std::string>();
    const std::vector<std::string> old_ips = Strings(Member(old_spec, "clusterIPs"));
    const json* ips = Member(spec, "clusterIPs");
    if (ips == nullptr || Strings(ips) == old_ips) {
      std::vector<std::string> moved = old_ips;
      if (moved.empty()) moved.push_back(ip);
      moved[0] = ip;
      (*spec)["clusterIPs"] = moved;
    }
    return;
  }
  for (const char* k : {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"}) {
    if (const json* v = Member(old_spec, k); v != nullptr && !spec->contains(k))
      (*spec)[k] = *v;
    else if (v != nullptr && std::string_view(k) == "clusterIP")
      (*spec)[k] = *v;
  }
}

}  // namespace tidepool::apiserver::validation
