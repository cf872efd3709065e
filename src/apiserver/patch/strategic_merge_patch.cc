#include "apiserver/patch/strategic_merge_patch.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/patch/go_format.h"
#include "apiserver/patch/patch_schema.h"

namespace tidepool::apiserver::patch {
namespace {

using json = nlohmann::json;
using internal::GoValue;
using schema::Field;
using schema::LookupField;

constexpr std::string_view kDirective = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList";
constexpr std::string_view kSetElementOrder = "$setElementOrder";

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Go's reflect type of a value decoded into interface{}.
std::string GoType(const json& v) {
  if (v.is_object()) return "map[string]interface {}";
  if (v.is_array()) return "[]interface {}";
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  if (v.is_number_integer()) return "int64";
  if (v.is_number()) return "float64";
  return "<nil>";
}

Status ErrNoMergeKey(const json& m, std::string_view key) {
  return InvalidArgumentError("map: " + GoValue(m) +
                              " does not contain declared merge key: " + std::string(key));
}
Status ErrBadPatchType(const json& type, const json& m) {
  return InvalidArgumentError("unknown patch type: " + GoValue(type) + " in map: " + GoValue(m));
}
Status ErrBadArgType(std::string_view expected, const json& actual) {
  return InvalidArgumentError("expected a " + std::string(expected) + ", but received a " +
                              GoType(actual));
}

// extractKey: "<prefix>/<field>" -> field.
StatusOr<std::string> ExtractKey(std::string_view key, std::string_view prefix) {
  size_t slash = key.find('/');
  if (slash == std::string_view::npos || key.substr(0, slash) != prefix) {
    if (prefix == kDeleteFromPrimitiveList) {
      return InvalidArgumentError("invalid patch format of primitive list");
    }
    return InvalidArgumentError("invalid patch format of setElementOrder list");
  }
  return std::string(key.substr(slash + 1));
}

enum class ElemKind { kNone, kMap, kScalar };

// sliceElementType: all elements must be of one JSON type, and not lists.
StatusOr<ElemKind> ElementKind(const json& a, const json& b) {
  int prev = -1;
  for (const json* list : {&a, &b}) {
    for (const auto& e : *list) {
      if (e.is_array()) return InvalidArgumentError("lists of lists are not supported");
      int cur = e.is_object() ? 0 : e.is_string() ? 1 : e.is_number() ? 2 : e.is_boolean() ? 3 : 4;
      if (prev >= 0 && cur != prev) {
        return InvalidArgumentError("list element types are not identical: " +
                                    GoValue(json::array({a, b})));
      }
      prev = cur;
    }
  }
  if (prev < 0) return ElemKind::kNone;
  return prev == 0 ? ElemKind::kMap : ElemKind::kScalar;
}

bool HasDeleteDirective(const json& item) {
  if (!item.is_object()) return false;
  auto it = item.find(kDirective);
  return it != item.end() && *it == "delete";
}

// index(): position of `item` in `list`, by merge key value for maps, by value otherwise.
int IndexOf(const json& list, const json& item, const std::string& merge_key, ElemKind kind) {
  auto key_of = [&](const json& v) -> const json* {
    if (kind != ElemKind::kMap) return &v;
    if (!v.is_object()) return nullptr;
    auto it = v.find(merge_key);
    return it == v.end() ? nullptr : &*it;
  };
  const json* want = key_of(item);
  for (size_t i = 0; i < list.size(); ++i) {
    const json* got = key_of(list[i]);
    if (want == nullptr ? got == nullptr : (got != nullptr && *got == *want)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

Status ValidateMergeKeyInLists(const std::string& merge_key, const json& a, const json& b) {
  for (const json* list : {&a, &b}) {
    for (const auto& item : *list) {
      if (!item.is_object()) return ErrBadArgType("map[string]interface {}", item);
      if (!item.contains(merge_key)) return ErrNoMergeKey(item, merge_key);
    }
  }
  return OkStatus();
}

// normalizeSliceOrder: sorts `to_sort` by `order` (stable); delete directives go last.
StatusOr<json> NormalizeSliceOrder(const json& to_sort, const json& order,
                                   const std::string& merge_key, ElemKind kind) {
  std::vector<json> keep;
  std::vector<json> deletes;
  if (kind == ElemKind::kMap) {
    TIDEPOOL_RETURN_IF_ERROR(ValidateMergeKeyInLists(merge_key, to_sort, order));
  }
  for (const auto& item : to_sort) {
    if (kind == ElemKind::kMap && HasDeleteDirective(item)) {
      deletes.push_back(item);
    } else {
      keep.push_back(item);
    }
  }
  std::vector<std::pair<int, size_t>> rank;
  rank.reserve(keep.size());
  for (size_t i = 0; i < keep.size(); ++i) {
    int idx = IndexOf(order, keep[i], merge_key, kind);
    rank.emplace_back(idx < 0 ? static_cast<int>(order.size()) : idx, i);
  }
  std::stable_sort(rank.begin(), rank.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  json out = json::array();
  for (const auto& [r, i] : rank) out.push_back(std::move(keep[i]));
  for (auto& d : deletes) out.push_back(std::move(d));
  return out;
}

// mergeSortedSlice: interleaves the sorted `left` (target-only items) into the sorted `right`
// (patch items), using the target order where both items appear in it.
json MergeSortedSlice(const json& left, const json& right, const json& server_order,
                      const std::string& merge_key, ElemKind kind) {
  json out = json::array();
  size_t i = 0;
  size_t j = 0;
  while (i < left.size() || j < right.size()) {
    if (i >= left.size()) {
      out.push_back(right[j++]);
    } else if (j >= right.size()) {
      out.push_back(left[i++]);
    } else {
      int li = IndexOf(server_order, left[i], merge_key, kind);
      int ri = IndexOf(server_order, right[j], merge_key, kind);
      if (li >= 0 && ri >= 0 && li < ri) {
        out.push_back(left[i++]);
      } else {
        out.push_back(right[j++]);
      }
    }
  }
  return out;
}

StatusOr<json> NormalizeElementOrder(const json& patch_items, const json& server_only,
                                     const json& patch_order, const json& server_order,
                                     const std::string& merge_key, ElemKind kind) {
  TIDEPOOL_ASSIGN_OR_RETURN(json sorted_patch,
                            NormalizeSliceOrder(patch_items, patch_order, merge_key, kind));
  TIDEPOOL_ASSIGN_OR_RETURN(json sorted_server,
                            NormalizeSliceOrder(server_only, server_order, merge_key, kind));
  return MergeSortedSlice(sorted_server, sorted_patch, server_order, merge_key, kind);
}

// findMapInSliceBasedOnKeyValue.
StatusOr<int> FindByKey(const json& list, const std::string& merge_key, const json& value) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_object()) {
      return InvalidArgumentError("value for key " + std::to_string(i) + " is not a map.");
    }
    auto it = list[i].find(merge_key);
    if (it != list[i].end() && *it == value) return static_cast<int>(i);
  }
  return -1;
}

// partition{Primitives,Maps}ByPresentInList.
StatusOr<std::pair<json, json>> Partition(const json& merged, const json& by,
                                          const std::string& merge_key) {
  json in = json::array();
  json out = json::array();
  for (const auto& v : merged) {
    bool found = false;
    if (merge_key.empty()) {
      found = std::find(by.begin(), by.end(), v) != by.end();
    } else {
      if (!v.is_object()) return ErrBadArgType("map[string]interface {}", v);
      auto key = v.find(merge_key);
      if (key == v.end()) return ErrNoMergeKey(v, merge_key);
      TIDEPOOL_ASSIGN_OR_RETURN(int idx, FindByKey(by, merge_key, *key));
      found = idx >= 0;
    }
    (found ? in : out).push_back(v);
  }
  return std::make_pair(std::move(in), std::move(out));
}

json DeleteFromSlice(const json& current, const json& to_delete) {
  json out = json::array();
  for (const auto& v : current) {
    if (std::find(to_delete.begin(), to_delete.end(), v) == to_delete.end()) out.push_back(v);
  }
  return out;
}

class Merger {
 public:
  StatusOr<json> MergeMap(json original, json patch, std::string_view type);

 private:
  StatusOr<json> MergeSlice(json original, json patch, const Field& field);
  StatusOr<json> MergeSliceHandler(const json& original, const json& patch, const Field& field);
  // A value added where the target has none: merged into an empty value of its kind.
  StatusOr<json> Clean(const json& value, const Field& field);
  Status ApplySetElementOrder(json& original, json& patch, std::string_view type);
};

StatusOr<json> Merger::Clean(const json& value, const Field& field) {
  if (value.is_object()) return MergeMap(json::object(), value, field.type);
  if (value.is_array() && field.MergeList()) return MergeSlice(json::array(), value, field);
  return value;
}

StatusOr<json> Merger::MergeSliceHandler(const json& original, const json& patch,
                                         const Field& field) {
  if (field.MergeList()) return MergeSlice(original, patch, field);
  return patch;
}

StatusOr<json> Merger::MergeSlice(json original, json patch, const Field& field) {
  if (original.empty() && patch.empty()) return original;
  TIDEPOOL_ASSIGN_OR_RETURN(ElemKind kind, ElementKind(original, patch));
  const std::string& merge_key = field.patch_merge_key;
  json merged;
  if (kind != ElemKind::kMap) {
    merged = json::array();
    for (const json* list : {&original, &patch}) {
      for (const auto& v : *list) {
        if (std::find(merged.begin(), merged.end(), v) == merged.end()) merged.push_back(v);
      }
    }
    TIDEPOOL_ASSIGN_OR_RETURN(auto parts, Partition(merged, patch, ""));
    return NormalizeElementOrder(parts.first, parts.second, patch, original, "", kind);
  }
  if (merge_key.empty()) {
    return InvalidArgumentError("cannot merge lists without merge key for type struct");
  }
  // mergeSliceWithSpecialElements.
  json plain = json::array();
  bool replace = false;
  for (const auto& item : patch) {
    auto directive = item.find(kDirective);
    if (directive == item.end()) {
      plain.push_back(item);
    } else if (*directive == "delete") {
      auto value = item.find(merge_key);
      if (value == item.end()) return ErrNoMergeKey(item, merge_key);
      json kept = json::array();
      for (size_t i = 0; i < original.size(); ++i) {
        const json& o = original[i];
        if (!o.is_object()) {
          return InvalidArgumentError("value for key " + std::to_string(i) + " is not a map.");
        }
        auto ov = o.find(merge_key);
        if (ov == o.end() || *ov != *value) kept.push_back(o);
      }
      original = std::move(kept);
    } else if (*directive == "replace") {
      replace = true;
    } else if (*directive == "merge") {
      return InvalidArgumentError("merging lists cannot yet be specified in the patch");
    } else {
      return ErrBadPatchType(*directive, item);
    }
  }
  if (replace) {
    original = json::array();
    for (const auto& item : plain) {
      TIDEPOOL_ASSIGN_OR_RETURN(json cleaned, MergeMap(json::object(), item, field.type));
      original.push_back(std::move(cleaned));
    }
    plain = json::array();
  }
  // mergeSliceWithoutSpecialElements. The order reference is the target list before new
  // items are appended (Go passes the slice by value), so new items sort first.
  const json server_order = original;
  for (const auto& item : plain) {
    auto value = item.find(merge_key);
    if (value == item.end()) return ErrNoMergeKey(item, merge_key);
    TIDEPOOL_ASSIGN_OR_RETURN(int idx, FindByKey(original, merge_key, *value));
    if (idx >= 0) {
      TIDEPOOL_ASSIGN_OR_RETURN(json m, MergeMap(original[idx], item, field.type));
      original[static_cast<size_t>(idx)] = std::move(m);
    } else {
      TIDEPOOL_ASSIGN_OR_RETURN(json cleaned, MergeMap(json::object(), item, field.type));
      original.push_back(std::move(cleaned));
    }
  }
  TIDEPOOL_ASSIGN_OR_RETURN(auto parts, Partition(original, plain, merge_key));
  return NormalizeElementOrder(parts.first, parts.second, plain, server_order, merge_key, kind);
}

// validatePatchWithSetOrderList.
Status ValidateSetOrder(const json& patch_list, const json& order, const std::string& merge_key) {
  if (order.empty() || patch_list.empty()) return OkStatus();
  std::vector<const json*> non_delete;
  for (const auto& item : patch_list) {
    if (!merge_key.empty()) {
      if (!item.is_object()) return ErrBadArgType("map[string]interface {}", item);
      if (HasDeleteDirective(item)) continue;
    }
    non_delete.push_back(&item);
  }
  size_t pi = 0;
  size_t si = 0;
  while (pi < non_delete.size() && si < order.size()) {
    const json& item = *non_delete[pi];
    if (item.is_object() && item.contains(kDirective)) {
      ++pi;
      continue;
    }
    bool equal;
    if (merge_key.empty()) {
      equal = item == order[si];
    } else {
      if (!order[si].is_object()) return ErrBadArgType("map[string]interface {}", order[si]);
      auto l = item.find(merge_key);
      if (l == item.end()) return ErrNoMergeKey(item, merge_key);
      auto r = order[si].find(merge_key);
      if (r == order[si].end()) return ErrNoMergeKey(order[si], merge_key);
      equal = *l == *r;
    }
    if (equal) ++pi;
    ++si;
  }
  if (pi < non_delete.size() && si >= order.size()) {
    return InvalidArgumentError("The order in patch list:\n" + GoValue(patch_list) +
                                "\n doesn't match " + std::string(kSetElementOrder) +
                                " list:\n" + GoValue(order) + "\n");
  }
  return OkStatus();
}

// mergePatchIntoOriginal: the $setElementOrder directives and their lists.
Status Merger::ApplySetElementOrder(json& original, json& patch, std::string_view type) {
  std::vector<std::string> directives;
  for (const auto& [key, value] : patch.items()) {
    if (StartsWith(key, kSetElementOrder)) directives.push_back(key);
  }
  for (const std::string& key : directives) {
    json order = patch[key];
    patch.erase(key);
    if (!order.is_array()) return ErrBadArgType("[]interface {}", order);
    TIDEPOOL_ASSIGN_OR_RETURN(std::string field_name, ExtractKey(key, kSetElementOrder));
    const Field& field = LookupField(type, field_name);
    auto orig_it = original.find(field_name);
    auto patch_it = patch.find(field_name);
    const bool has_orig = orig_it != original.end();
    const bool has_patch = patch_it != patch.end();
    json orig_list = has_orig ? *orig_it : json::array();
    json patch_list = has_patch ? *patch_it : json::array();
    if (has_orig && !orig_list.is_array()) return ErrBadArgType("[]interface {}", orig_list);
    if (has_patch && !patch_list.is_array()) return ErrBadArgType("[]interface {}", patch_list);
    const std::string merge_key = field.MergeList() ? field.patch_merge_key : "";
    TIDEPOOL_RETURN_IF_ERROR(ValidateSetOrder(patch_list, order, merge_key));
    json merged;
    if (has_orig && !has_patch) {
      merged = orig_list;
    } else if (!has_orig && has_patch) {
      TIDEPOOL_ASSIGN_OR_RETURN(merged, Clean(patch_list, field));
    } else if (has_orig && has_patch) {
      TIDEPOOL_ASSIGN_OR_RETURN(merged, MergeSliceHandler(orig_list, patch_list, field));
    } else {
      continue;
    }
    TIDEPOOL_ASSIGN_OR_RETURN(ElemKind kind, ElementKind(orig_list, patch_list));
    if (kind == ElemKind::kNone) {
      original[field_name] = std::move(merged);
      patch.erase(field_name);
      continue;
    }
    TIDEPOOL_ASSIGN_OR_RETURN(auto parts, Partition(merged, order, merge_key));
    TIDEPOOL_ASSIGN_OR_RETURN(
        json ordered, NormalizeElementOrder(parts.first, parts.second, order, orig_list,
                                            merge_key, merge_key.empty() ? ElemKind::kScalar
                                                                         : kind));
    original[field_name] = std::move(ordered);
    patch.erase(field_name);
  }
  return OkStatus();
}

StatusOr<json> Merger::MergeMap(json original, json patch, std::string_view type) {
  if (auto d = patch.find(kDirective); d != patch.end()) {
    if (*d == "replace") {
      patch.erase(std::string(kDirective));
      return MergeMap(json::object(), std::move(patch), type);
    }
    if (*d == "delete") return json::object();
    return ErrBadPatchType(*d, patch);
  }
  if (!original.is_object()) original = json::object();

  // applyRetainKeysDirective.
  if (auto rk = patch.find(kRetainKeys); rk != patch.end()) {
    json keep = *rk;
    patch.erase(std::string(kRetainKeys));
    if (!keep.is_array()) return InvalidArgumentError("invalid patch format of retainKeys");
    auto listed = [&](const std::string& k) {
      return std::find(keep.begin(), keep.end(), json(k)) != keep.end();
    };
    for (const auto& [k, v] : patch.items()) {
      if (v.is_null() || StartsWith(k, kDeleteFromPrimitiveList) ||
          StartsWith(k, kSetElementOrder)) {
        continue;
      }
      if (!listed(k)) return InvalidArgumentError("patch content doesn't match retainKeys list");
    }
    for (auto it = original.begin(); it != original.end();) {
      if (listed(it.key())) {
        ++it;
      } else {
        it = original.erase(it);
      }
    }
  }

  TIDEPOOL_RETURN_IF_ERROR(ApplySetElementOrder(original, patch, type));

  for (const auto& [patch_key, value] : patch.items()) {
    std::string key = patch_key;
    bool delete_list = false;
    if (StartsWith(key, kDeleteFromPrimitiveList)) {
      TIDEPOOL_ASSIGN_OR_RETURN(key, ExtractKey(key, kDeleteFromPrimitiveList));
      delete_list = true;
    }
    auto it = original.find(key);
    if (value.is_null()) {
      if (it != original.end()) original.erase(it);
      continue;
    }
    const Field& field = LookupField(type, key);
    if (delete_list) {
      if (!value.is_array()) return ErrBadArgType("[]interface {}", value);
      if (it != original.end() && it->is_array()) {
        TIDEPOOL_ASSIGN_OR_RETURN(ElemKind kind, ElementKind(*it, value));
        (void)kind;
        *it = DeleteFromSlice(*it, value);
      }
      continue;
    }
    if (it == original.end()) {
      TIDEPOOL_ASSIGN_OR_RETURN(json cleaned, Clean(value, field));
      original[key] = std::move(cleaned);
      continue;
    }
    const bool both_maps = it->is_object() && value.is_object();
    const bool both_lists = it->is_array() && value.is_array();
    if (both_maps) {
      if (field.patch_strategy == "replace") {
        *it = value;
      } else {
        TIDEPOOL_ASSIGN_OR_RETURN(json m, MergeMap(*it, value, field.type));
        *it = std::move(m);
      }
    } else if (both_lists) {
      TIDEPOOL_ASSIGN_OR_RETURN(json m, MergeSliceHandler(*it, value, field));
      *it = std::move(m);
    } else if (it->type() != value.type() && (value.is_object() || value.is_array())) {
      TIDEPOOL_ASSIGN_OR_RETURN(json cleaned, Clean(value, field));
      *it = std::move(cleaned);
    } else {
      *it = value;
    }
  }
  return original;
}

}  // namespace

StatusOr<nlohmann::json> StrategicMergePatch(const nlohmann::json& target,
                                             const nlohmann::json& patch,
                                             std::string_view api_version,
                                             std::string_view kind) {
  if (!target.is_object()) return InvalidArgumentError("invalid JSON document");
  if (patch.is_null()) return target;
  if (!patch.is_object()) {
    std::string type = patch.is_array()     ? "array"
                       : patch.is_string()  ? "string"
                       : patch.is_boolean() ? "bool"
                                            : "number";
    return InvalidArgumentError("json: cannot unmarshal " + type +
                                " into Go value of type map[string]interface {}");
  }
  try {
    Merger merger;
    return merger.MergeMap(target, patch, schema::RootType(api_version, kind));
  } catch (const nlohmann::json::exception& e) {
    return InternalError(std::string("strategic merge patch: ") + e.what());
  }
}

}  // namespace tidepool::apiserver::patch
