#include "apiserver/patch/server_side_apply.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "apiserver/json_io.h"
#include "apiserver/patch/field_set.h"
#include "apiserver/patch/go_format.h"
#include "apiserver/patch/json_patch.h"
#include "apiserver/patch/patch_schema.h"

namespace tidepool::apiserver::patch {
namespace {

using json = nlohmann::json;
using schema::Field;
using schema::LookupField;
using schema::Shape;

std::string Dump(const json& v) { return json_io::Dump(v); }

Field TypeField(std::string_view type) {
  Field f;
  f.type = std::string(type);
  return f;
}

// ---- Schema-aware list handling -----------------------------------------------------------

enum class ListMode { kAtomic, kKeyed, kSet };

std::optional<std::string> ItemKey(const json& item, const Field& f) {
  if (!item.is_object() || f.keys.empty()) return std::nullopt;
  json key = json::object();
  for (const auto& k : f.keys) {
    auto it = item.find(k.name);
    if (it != item.end() && !it->is_null()) {
      if (it->is_object() || it->is_array()) return std::nullopt;
      key[k.name] = *it;
    } else if (!k.default_json.empty()) {
      key[k.name] = json::parse(k.default_json, nullptr, false);
    } else {
      return std::nullopt;
    }
  }
  return "k:" + Dump(key);
}

std::optional<std::vector<std::string>> ItemKeys(const json& list, const Field& f) {
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const auto& item : list) {
    auto k = ItemKey(item, f);
    if (!k || !seen.insert(*k).second) return std::nullopt;
    keys.push_back(std::move(*k));
  }
  return keys;
}

std::string SetKey(const json& v) { return "v:" + Dump(v); }

bool SetListOk(const json& list) {
  std::set<std::string> seen;
  for (const auto& v : list) {
    if (v.is_object() || v.is_array() || v.is_null()) return false;
    if (!seen.insert(Dump(v)).second) return false;
  }
  return true;
}

// How lists `a` and `b` (either may be null) of field `f` are compared. For a keyed list,
// `b_keys` (when given) receives b's item keys, index-aligned with its items.
ListMode ModeFor(const Field& f, const json* a, const json* b,
                 std::vector<std::string>* b_keys = nullptr) {
  auto ok = [&](auto pred) {
    for (const json* l : {a, b}) {
      if (l != nullptr && l->is_array() && !pred(*l)) return false;
    }
    return true;
  };
  if (f.shape == Shape::kMap) {
    bool keyed = a == nullptr || !a->is_array() || ItemKeys(*a, f).has_value();
    if (keyed && b != nullptr && b->is_array()) {
      auto keys = ItemKeys(*b, f);
      keyed = keys.has_value();
      if (keyed && b_keys != nullptr) *b_keys = std::move(*keys);
    }
    if (keyed) return ListMode::kKeyed;
  }
  if (f.shape == Shape::kSet && ok(SetListOk)) return ListMode::kSet;
  return ListMode::kAtomic;
}

// ---- Field sets of a configuration (ToFieldSet) ---------------------------------------------

void CollectValue(const json& v, const Field& f, FieldPath& path, FieldSet& out);

void CollectObject(const json& obj, std::string_view type, FieldPath& path, FieldSet& out) {
  for (const auto& [k, v] : obj.items()) {
    path.push_back("f:" + k);
    CollectValue(v, LookupField(type, k), path, out);
    path.pop_back();
  }
}

void CollectValue(const json& v, const Field& f, FieldPath& path, FieldSet& out) {
  if (v.is_object()) {
    if (v.empty() || f.shape == Shape::kAtomic) {
      out.Insert(path);
    } else {
      CollectObject(v, f.type, path, out);
    }
    return;
  }
  if (v.is_array() && !v.empty()) {
    ListMode mode = ModeFor(f, &v, nullptr);
    if (mode == ListMode::kKeyed) {
      for (const auto& item : v) {
        path.push_back(*ItemKey(item, f));
        out.Insert(path);
        CollectObject(item, f.type, path, out);
        path.pop_back();
      }
      return;
    }
    if (mode == ListMode::kSet) {
      for (const auto& item : v) {
        path.push_back(SetKey(item));
        out.Insert(path);
        path.pop_back();
      }
      return;
    }
  }
  out.Insert(path);
}

// ---- Comparison (Added / Modified / Removed) ----------------------------------------------

struct Comparison {
  FieldSet added;
  FieldSet modified;
  FieldSet removed;
};

void CompareValue(const json* l, const json* r, const Field& f, FieldPath& path, Comparison& c);

void CompareLeaf(const json* l, const json* r, const FieldPath& path, Comparison& c) {
  if (l == nullptr && r != nullptr) {
    c.added.Insert(path);
  } else if (l != nullptr && r == nullptr) {
    c.removed.Insert(path);
  } else if (l != nullptr && r != nullptr && *l != *r) {
    c.modified.Insert(path);
  }
}

void CompareObjects(const json* l, const json* r, std::string_view type, FieldPath& path,
                    Comparison& c) {
  std::set<std::string> keys;
  if (l != nullptr) {
    for (const auto& [k, v] : l->items()) keys.insert(k);
  }
  if (r != nullptr) {
    for (const auto& [k, v] : r->items()) keys.insert(k);
  }
  for (const auto& k : keys) {
    const json* lv = nullptr;
    const json* rv = nullptr;
    if (l != nullptr) {
      if (auto it = l->find(k); it != l->end()) lv = &*it;
    }
    if (r != nullptr) {
      if (auto it = r->find(k); it != r->end()) rv = &*it;
    }
    path.push_back("f:" + k);
    CompareValue(lv, rv, LookupField(type, k), path, c);
    path.pop_back();
  }
}

void CompareValue(const json* l, const json* r, const Field& f, FieldPath& path, Comparison& c) {
  if (l == nullptr && r == nullptr) return;
  // A null map or list (a Go nil slice without omitempty, e.g. a new Pod's spec.containers)
  // compared with a non-empty one is an empty container that exists: its items differ, the
  // container itself is neither added nor removed.
  static const json kEmptyObject = json::object();
  static const json kEmptyArray = json::array();
  auto as_empty = [](const json* null_side, const json* other) {
    if (null_side != nullptr && null_side->is_null() && other != nullptr && !other->empty() &&
        (other->is_object() || other->is_array())) {
      return other->is_object() ? &kEmptyObject : &kEmptyArray;
    }
    return null_side;
  };
  l = as_empty(l, r);
  r = as_empty(r, l);
  const bool l_map = l == nullptr || l->is_object();
  const bool r_map = r == nullptr || r->is_object();
  if (l_map && r_map && f.shape != Shape::kAtomic) {
    const bool empty = (l == nullptr || l->empty()) && (r == nullptr || r->empty());
    if (empty) return CompareLeaf(l, r, path, c);
    CompareObjects(l, r, f.type, path, c);
    if (l == nullptr) c.added.Insert(path);
    if (r == nullptr) c.removed.Insert(path);
    return;
  }
  const bool l_list = l == nullptr || l->is_array();
  const bool r_list = r == nullptr || r->is_array();
  if (l_list && r_list) {
    ListMode mode = ModeFor(f, l, r);
    const bool empty = (l == nullptr || l->empty()) && (r == nullptr || r->empty());
    if (mode != ListMode::kAtomic && !empty) {
      if (mode == ListMode::kKeyed) {
        std::map<std::string, const json*> litems;
        std::map<std::string, const json*> ritems;
        if (l != nullptr) {
          for (const auto& item : *l) litems[*ItemKey(item, f)] = &item;
        }
        if (r != nullptr) {
          for (const auto& item : *r) ritems[*ItemKey(item, f)] = &item;
        }
        std::set<std::string> keys;
        for (const auto& [k, v] : litems) keys.insert(k);
        for (const auto& [k, v] : ritems) keys.insert(k);
        for (const auto& k : keys) {
          auto li = litems.find(k);
          auto ri = ritems.find(k);
          const json* lv = li == litems.end() ? nullptr : li->second;
          const json* rv = ri == ritems.end() ? nullptr : ri->second;
          path.push_back(k);
          CompareObjects(lv, rv, f.type, path, c);
          if (lv == nullptr) c.added.Insert(path);
          if (rv == nullptr) c.removed.Insert(path);
          path.pop_back();
        }
      } else {
        std::set<std::string> lvals;
        std::set<std::string> rvals;
        if (l != nullptr) {
          for (const auto& v : *l) lvals.insert(SetKey(v));
        }
        if (r != nullptr) {
          for (const auto& v : *r) rvals.insert(SetKey(v));
        }
        for (const auto& v : rvals) {
          if (!lvals.count(v)) {
            path.push_back(v);
            c.added.Insert(path);
            path.pop_back();
          }
        }
        for (const auto& v : lvals) {
          if (!rvals.count(v)) {
            path.push_back(v);
            c.removed.Insert(path);
            path.pop_back();
          }
        }
      }
      if (l == nullptr) c.added.Insert(path);
      if (r == nullptr) c.removed.Insert(path);
      return;
    }
  }
  CompareLeaf(l, r, path, c);
}

// ---- Merging an apply configuration into the live object ---------------------------------

json MergeValue(const json* live, const json& cfg, const Field& f);

json MergeKeyed(const json& live, const json& cfg, const std::vector<std::string>& lkeys,
                const std::vector<std::string>& rkeys, const Field& f) {
  std::unordered_map<std::string, size_t> lidx;
  std::unordered_map<std::string, size_t> ridx;
  for (size_t i = 0; i < lkeys.size(); ++i) lidx[lkeys[i]] = i;
  for (size_t j = 0; j < rkeys.size(); ++j) ridx[rkeys[j]] = j;
  std::vector<std::string> shared;
  for (const auto& k : rkeys) {
    if (lidx.count(k)) shared.push_back(k);
  }
  size_t s = 0;
  std::set<std::string> emitted;
  const Field item = TypeField(f.type);
  json out = json::array();
  size_t i = 0;
  size_t j = 0;
  while (i < lkeys.size() || j < rkeys.size()) {
    if (i < lkeys.size() && j < rkeys.size()) {
      if (lkeys[i] == rkeys[j]) {
        out.push_back(MergeValue(&live[i], cfg[j], item));
        emitted.insert(lkeys[i]);
        ++i;
        ++j;
        ++s;
        continue;
      }
      if (ridx.count(lkeys[i]) && s < shared.size() && shared[s] != lkeys[i]) {
        ++i;  // a shared item, placed when the configuration reaches it.
        continue;
      }
    }
    if (i < lkeys.size()) {
      if (!ridx.count(lkeys[i])) {
        out.push_back(live[i]);
        ++i;
        continue;
      }
      if (emitted.count(lkeys[i])) {
        ++i;
        continue;
      }
    }
    if (j < rkeys.size()) {
      const std::string& k = rkeys[j];
      auto li = lidx.find(k);
      out.push_back(MergeValue(li == lidx.end() ? nullptr : &live[li->second], cfg[j], item));
      emitted.insert(k);
      if (s < shared.size() && shared[s] == k) ++s;
      ++j;
      continue;
    }
    ++i;
  }
  return out;
}

json MergeValue(const json* live, const json& cfg, const Field& f) {
  if (cfg.is_object() && (live == nullptr || live->is_object()) && f.shape != Shape::kAtomic) {
    json out = live != nullptr ? *live : json::object();
    for (const auto& [k, v] : cfg.items()) {
      auto it = out.find(k);
      json merged = MergeValue(it == out.end() ? nullptr : &*it, v, LookupField(f.type, k));
      out[k] = std::move(merged);
    }
    return out;
  }
  if (cfg.is_array() && live != nullptr && live->is_array()) {
    ListMode mode = ModeFor(f, live, &cfg);
    if (mode == ListMode::kKeyed) {
      return MergeKeyed(*live, cfg, *ItemKeys(*live, f), *ItemKeys(cfg, f), f);
    }
    if (mode == ListMode::kSet) {
      json out = *live;
      for (const auto& v : cfg) {
        if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
      }
      return out;
    }
  }
  return cfg;
}

// ---- Removing a path from an object (prune) -----------------------------------------------

struct Step {
  json* container;  // the object or array holding the element
  std::string element;
  size_t index;  // for arrays
};

void RemovePath(json& root, const FieldPath& path, const Field& root_field,
                const FieldSet& owned) {
  std::vector<Step> steps;
  json* node = &root;
  Field field = root_field;
  for (const auto& e : path) {
    if (e.size() < 2 || e[1] != ':') return;
    const std::string body = e.substr(2);
    if (e[0] == 'f') {
      if (!node->is_object()) return;
      auto it = node->find(body);
      if (it == node->end()) return;
      steps.push_back({node, e, 0});
      node = &*it;
      field = LookupField(field.type, body);
    } else if (node->is_array() && (e[0] == 'k' || e[0] == 'v' || e[0] == 'i')) {
      std::optional<size_t> found;
      for (size_t i = 0; i < node->size() && !found; ++i) {
        const json& item = (*node)[i];
        if (e[0] == 'k') {
          auto k = ItemKey(item, field);
          if (k && *k == e) found = i;
        } else if (e[0] == 'v') {
          if (SetKey(item) == e) found = i;
        } else if (std::to_string(i) == body) {
          found = i;
        }
      }
      if (!found) return;
      steps.push_back({node, e, *found});
      node = &(*node)[*found];
      if (e[0] == 'k') field = TypeField(field.type);
    } else {
      return;
    }
  }
  // Remove the last element, then containers that became empty and nobody owns.
  for (size_t n = steps.size(); n-- > 0;) {
    Step& step = steps[n];
    if (step.container->is_object()) {
      step.container->erase(step.element.substr(2));
    } else {
      step.container->erase(step.index);
    }
    if (n < 2) break;  // never remove top-level fields (metadata, spec) themselves
    const bool empty = (step.container->is_object() || step.container->is_array()) &&
                       step.container->empty();
    FieldPath container_path(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(n));
    if (!empty || steps[n - 1].element[0] != 'f' || owned.Has(container_path)) break;
  }
}

// ---- Managed fields entries ---------------------------------------------------------------

struct Entry {
  std::string manager;
  std::string operation;
  std::string api_version;
  std::string subresource;
  std::optional<std::string> time;
  FieldSet set;

  bool Is(std::string_view m, std::string_view op, std::string_view version,
          std::string_view sub) const {
    return manager == m && operation == op && subresource == sub &&
           (op == "Apply" || api_version == version);
  }
  std::string Printed() const {
    std::string out = internal::GoQuote(manager);
    if (!subresource.empty()) out += " with subresource " + internal::GoQuote(subresource);
    if (operation == "Update") out += " using " + api_version;
    return out;
  }
  auto SortKey() const {
    return std::make_tuple(operation, time.has_value(), time.value_or(""), manager, api_version,
                           subresource);
  }
};

std::string StringMember(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<Entry> ParseEntries(const json& object) {
  std::vector<Entry> out;
  if (!object.is_object()) return out;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return out;
  auto mf = meta->find("managedFields");
  if (mf == meta->end() || !mf->is_array()) return out;
  for (const auto& e : *mf) {
    if (!e.is_object()) continue;
    Entry entry;
    entry.manager = StringMember(e, "manager");
    entry.operation = StringMember(e, "operation");
    entry.api_version = StringMember(e, "apiVersion");
    entry.subresource = StringMember(e, "subresource");
    if (auto t = e.find("time"); t != e.end() && t->is_string()) entry.time = t->get<std::string>();
    if (entry.operation != "Apply" && entry.operation != "Update") continue;
    if (StringMember(e, "fieldsType") != "FieldsV1") continue;
    auto fields = e.find("fieldsV1");
    if (fields == e.end()) continue;
    auto set = FieldSet::FromFieldsV1(*fields);
    if (!set.ok()) continue;
    entry.set = std::move(set).value();
    out.push_back(std::move(entry));
  }
  return out;
}

void WriteEntries(json& object, std::vector<Entry> entries) {
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [](const Entry& e) { return e.set.empty(); }),
                entries.end());
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.SortKey() < b.SortKey(); });
  if (entries.empty()) {
    if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) {
      meta->erase("managedFields");
    }
    return;
  }
  json list = json::array();
  for (const auto& e : entries) {
    json j = json::object();
    j["manager"] = e.manager;
    j["operation"] = e.operation;
    j["apiVersion"] = e.api_version;
    if (e.time) j["time"] = *e.time;
    j["fieldsType"] = "FieldsV1";
    j["fieldsV1"] = e.set.ToFieldsV1();
    if (!e.subresource.empty()) j["subresource"] = e.subresource;
    list.push_back(std::move(j));
  }
  if (!object.contains("metadata") || !object["metadata"].is_object()) {
    object["metadata"] = json::object();
  }
  object["metadata"]["managedFields"] = std::move(list);
}

// ---- Fields nobody owns -------------------------------------------------------------------

// The part of an object a write owns fields of, by the subresource written: the status
// subresources (status, and a CertificateSigningRequest's approval) only status, as their
// strategies reset everything else; the object itself and its other subresources (scale)
// everything but status, which their strategies reset.
enum class Part { kAllButStatus, kStatus };
Part PartOf(std::string_view subresource) {
  return IsStatusSubresource(subresource) ? Part::kStatus : Part::kAllButStatus;
}

bool Ignored(const FieldPath& p, Part part = Part::kAllButStatus) {
  using namespace std::string_view_literals;
  if (p.empty()) return true;
  const std::string_view first = p[0];
  // Within status, every field is owned; status itself is not (as spec is not).
  if (part == Part::kStatus) return first != "f:status"sv || p.size() == 1;
  if (first == "f:status"sv) return true;
  if (p.size() == 1) return first == "f:apiVersion"sv || first == "f:kind"sv || first == "f:metadata"sv;
  if (first != "f:metadata"sv) return false;
  static const std::set<std::string, std::less<>> kStripped = {
      "f:name",       "f:namespace",  "f:creationTimestamp", "f:selfLink",       "f:uid",
      "f:clusterName", "f:generation", "f:managedFields",    "f:resourceVersion"};
  return kStripped.count(p[1]) > 0 && (p.size() == 2 || p[1] == "f:managedFields"sv);
}

FieldSet Filter(const FieldSet& s, Part part = Part::kAllButStatus) {
  FieldSet out;
  for (const auto& p : s.paths()) {
    if (!Ignored(p, part)) out.Insert(p);
  }
  return out;
}

Comparison CompareObjectsFiltered(const json& before, const json& after, const Field& root_field,
                                  Part part = Part::kAllButStatus) {
  Comparison c;
  FieldPath path;
  CompareValue(&before, &after, root_field, path, c);
  return Comparison{Filter(c.added, part), Filter(c.modified, part), Filter(c.removed, part)};
}

// ---- The create shortcut --------------------------------------------------------------------
//
// On a create without client-provided managedFields, UpdateManagedFields's result is one Update
// entry whose set is "added or modified" from the kind's zero object to the new object, minus
// the ignored fields. CreateFieldsWalker writes exactly that FieldsV1, as JSON text, in one walk
// over the two objects: it mirrors CompareValue/CompareObjects below but keeps only additions
// and modifications (removals cannot reach an empty starting set), and writes what
// FieldSet::ToFieldsV1 would build, serialized, instead of building path sets, filtering and
// converting them (no tree: for a create that text is all the store needs). The general path
// stays the reference (UpdateManagedFieldsGeneral; tests compare the two on many
// objects).

class CreateFieldsWalker {
 public:
  explicit CreateFieldsWalker(std::string* out) : out_(out) {}

  // Writes the FieldsV1 members of the node at path_ (after its "{", comma-separated);
  // returns whether path_ itself is in the set.
  bool Value(const json* l, const json* r, const Field& f) {
    if (r == nullptr) return false;  // absent from the new object: removals only
    static const json kEmptyObject = json::object();
    static const json kEmptyArray = json::array();
    // CompareValue's nil-container rule, both ways.
    if (l != nullptr && l->is_null() && !r->empty() && (r->is_object() || r->is_array())) {
      l = r->is_object() ? &kEmptyObject : &kEmptyArray;
    }
    if (r->is_null() && l != nullptr && !l->empty() && (l->is_object() || l->is_array())) {
      r = l->is_object() ? &kEmptyObject : &kEmptyArray;
    }
    const bool l_map = l == nullptr || l->is_object();
    if (l_map && r->is_object() && f.shape != Shape::kAtomic) {
      const bool empty = (l == nullptr || l->empty()) && r->empty();
      if (empty) return Leaf(l, r);
      const bool member = SelfIfMember(l == nullptr && Member());
      Objects(l, r, f.type);
      return member;
    }
    const bool l_list = l == nullptr || l->is_array();
    if (l_list && r->is_array()) {
      std::vector<std::string> rkeys;
      const ListMode mode = ModeFor(f, l, r, &rkeys);
      const bool empty = (l == nullptr || l->empty()) && r->empty();
      if (mode != ListMode::kAtomic && !empty) {
        const bool member = SelfIfMember(l == nullptr && Member());
        if (mode == ListMode::kKeyed) {
          std::map<std::string, const json*, std::less<>> litems;
          if (l != nullptr) {
            for (const auto& item : *l) litems[*ItemKey(item, f)] = &item;
          }
          // r's items in key order, as FieldsV1 lists them.
          std::vector<std::pair<std::string, const json*>> ritems;
          ritems.reserve(rkeys.size());
          for (size_t i = 0; i < rkeys.size(); ++i) ritems.emplace_back(std::move(rkeys[i]), &(*r)[i]);
          std::sort(ritems.begin(), ritems.end(),
                    [](const auto& a, const auto& b) { return a.first < b.first; });
          for (auto& [k, rv] : ritems) {
            auto li = litems.find(k);
            const json* lv = li == litems.end() ? nullptr : li->second;
            path_.push_back(std::move(k));
            Child([&] {
              const bool item_member = SelfIfMember(lv == nullptr && Member());
              Objects(lv, rv, f.type);
              return item_member;
            });
            path_.pop_back();
          }
        } else {
          std::set<std::string> lvals;
          if (l != nullptr) {
            for (const auto& v : *l) lvals.insert(SetKey(v));
          }
          std::vector<std::string> added;  // values new in r, in key order
          for (const auto& v : *r) {
            std::string k = SetKey(v);
            if (!lvals.count(k)) added.push_back(std::move(k));
          }
          std::sort(added.begin(), added.end());
          for (std::string& k : added) {
            path_.push_back(std::move(k));
            Child([&] { return Member(); });
            path_.pop_back();
          }
        }
        return member;
      }
    }
    return Leaf(l, r);
  }

  // The members of `r` (an object of struct type `type`) as children of the node at path_.
  void Objects(const json* l, const json* r, std::string_view type) {
    if (r == nullptr || !r->is_object()) return;  // only removals below
    for (const auto& [k, rv] : r->items()) {
      // All of status and of metadata.managedFields is ignored (UpdateManagedFields leaves
      // them out of the comparison).
      using namespace std::string_view_literals;
      if (path_.empty() && std::string_view(k) == "status"sv) continue;
      if (path_.size() == 1 && std::string_view(k) == "managedFields"sv &&
          std::string_view(path_[0]) == "f:metadata"sv) {
        continue;
      }
      const json* lv = nullptr;
      if (l != nullptr) {
        if (auto it = l->find(k); it != l->end()) lv = &*it;
      }
      std::string name;
      name.reserve(k.size() + 2);
      name.append("f:", 2).append(k);
      path_.push_back(std::move(name));
      Child([&] { return Value(lv, &rv, LookupField(type, k)); });
      path_.pop_back();
    }
  }

  FieldPath path_;

 private:
  bool Member() const { return !Ignored(path_); }

  bool Leaf(const json* l, const json* r) {
    return (l == nullptr || *l != *r) && Member();
  }

  static constexpr std::string_view kSelf = R"(".":{})";

  // A node in the set that has children lists "." first ("." sorts before "f:", "k:" and
  // "v:"): written before its children as soon as membership is known; Child takes it back
  // when no child follows.
  bool SelfIfMember(bool member) {
    if (member) out_->append(kSelf);
    return member;
  }

  // Writes the node at path_ as a member of the node being written: `"name":{...}` where
  // `body` writes its children (after SelfIfMember) and says whether the node is itself in the
  // set. As FieldSet::ToFieldsV1 builds it: a node in the set with children is
  // {".":{},children...}, one in the set without children is {}, one with children only is
  // {children...}, and one neither in the set nor with children is left out.
  template <typename Body>
  void Child(Body&& body) {
    std::string& out = *out_;
    const size_t start = out.size();
    if (out.back() != '{') out.push_back(',');
    json_io::AppendString(path_.back(), &out);
    out.append(":{", 2);
    const size_t open = out.size();
    const bool member = body();
    if (member) {
      if (out.size() == open + kSelf.size()) out.resize(open);  // "." and no child
    } else if (out.size() == open) {
      out.resize(start);
      return;
    }
    out.push_back('}');
  }

  std::string* out_;
};

// What a create is compared with: the kind's zero object without status, with an empty spec
// when the new object has one and the zero object does not. Parsed once per kind and kept
// (immutable once cached; the map's nodes never move).
const json& CreateBaseline(std::string_view root_type, bool with_spec) {
  static std::mutex mu;
  static auto* cache = new std::map<std::pair<std::string, bool>, json>();
  std::lock_guard<std::mutex> lock(mu);
  auto key = std::make_pair(std::string(root_type), with_spec);
  auto it = cache->find(key);
  if (it != cache->end()) return it->second;
  json before = json::parse(schema::ZeroObjectJson(root_type));
  before.erase("status");
  if (with_spec && !before.contains("spec")) before["spec"] = json::object();
  return cache->emplace(std::move(key), std::move(before)).first->second;
}

// A copy without metadata.managedFields and status.
json WithoutManagedFieldsAndStatus(const json& object) {
  json out = object;
  out.erase("status");
  if (auto meta = out.find("metadata"); meta != out.end() && meta->is_object()) {
    meta->erase("managedFields");
  }
  return out;
}

// What of `object` a write to `part` compares and owns: all but status and managedFields, or
// {"status": ...} alone (empty when the object has no status).
json OwnedPart(const json& object, Part part) {
  if (part == Part::kAllButStatus) return WithoutManagedFieldsAndStatus(object);
  json out = json::object();
  if (auto s = object.find("status"); s != object.end()) out["status"] = *s;
  return out;
}

std::string ApiVersionOf(const json& a, const json& b) {
  for (const json* o : {&a, &b}) {
    if (o->is_object()) {
      std::string v = StringMember(*o, "apiVersion");
      if (!v.empty()) return v;
    }
  }
  return "";
}

std::string KindOf(const json& a, const json& b) {
  for (const json* o : {&a, &b}) {
    if (o->is_object()) {
      std::string v = StringMember(*o, "kind");
      if (!v.empty()) return v;
    }
  }
  return "";
}

constexpr const char* kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";
constexpr size_t kTotalAnnotationSizeLimit = 256 * 1024;

// The kubectl.kubernetes.io/last-applied-configuration annotation, or nullptr.
const json* LastAppliedAnnotation(const json& object) {
  if (!object.is_object()) return nullptr;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return nullptr;
  auto annotations = meta->find("annotations");
  if (annotations == meta->end() || !annotations->is_object()) return nullptr;
  auto value = annotations->find(kLastApplied);
  if (value == annotations->end() || !value->is_string() || value->get_ref<const std::string&>().empty()) {
    return nullptr;
  }
  return &*value;
}

struct Conflicting {
  Entry entry;  // the other manager (its set is not used)
  FieldSet fields;
};

struct CoreResult {
  json object;                         // when `conflicts` is empty
  std::vector<Conflicting> conflicts;  // sorted by manager identity
};

// structured-merge-diff's Updater.Apply: merge, prune, conflicts, ownership.
CoreResult ApplyCore(const json& live, const json& live_plain, const json& cfg,
                     std::vector<Entry> entries, std::string_view manager,
                     std::string_view subresource, const std::string& api_version,
                     const Field& root, bool force, TimePoint now) {
  const Part part = PartOf(subresource);
  auto is_mine = [&](const Entry& e) { return e.Is(manager, "Apply", "", subresource); };
  auto mine = std::find_if(entries.begin(), entries.end(), is_mine);
  const FieldSet last_set = mine == entries.end() ? FieldSet() : mine->set;
  FieldSet new_set;
  {
    FieldPath path;
    CollectValue(cfg, root, path, new_set);
    new_set = Filter(new_set, part);
  }

  // Merge.
  json merged = MergeValue(&live_plain, cfg, root);

  // Prune what this manager stopped applying.
  FieldSet owned = new_set;
  for (const auto& e : entries) {
    if (!is_mine(e)) owned = owned.Union(e.set);
  }
  const FieldSet dropped = last_set.Difference(new_set);
  for (const auto& p : dropped.paths()) {
    if (owned.HasPathOrDescendant(p)) continue;
    RemovePath(merged, p, root, owned);
  }

  // Conflicts.
  const Comparison cmp = CompareObjectsFiltered(live_plain, merged, root, part);
  const FieldSet changed = cmp.added.Union(cmp.modified);
  CoreResult result;
  if (!force) {
    for (const auto& e : entries) {
      if (is_mine(e)) continue;
      FieldSet c = e.set.Intersection(changed);
      if (!c.empty()) result.conflicts.push_back({e, std::move(c)});
    }
    if (!result.conflicts.empty()) return result;
  }

  // Ownership.
  for (auto& e : entries) {
    if (is_mine(e)) continue;
    e.set = e.set.Difference(changed).Difference(cmp.removed);
  }
  mine = std::find_if(entries.begin(), entries.end(), is_mine);
  if (mine == entries.end()) {
    Entry e;
    e.manager = std::string(manager);
    e.operation = "Apply";
    e.subresource = std::string(subresource);
    entries.push_back(std::move(e));
    mine = entries.end() - 1;
  }
  mine->set = new_set;
  mine->api_version = api_version;
  if (merged != live_plain) mine->time = FormatRfc3339(now);

  // The rest of the live object is kept: its status, or all but its status.
  if (part == Part::kStatus) {
    json whole = live;
    if (auto status = merged.find("status"); status != merged.end()) {
      whole["status"] = std::move(*status);
    } else {
      whole.erase("status");
    }
    merged = std::move(whole);
  } else if (live.is_object()) {
    if (auto status = live.find("status"); status != live.end()) merged["status"] = *status;
  }
  WriteEntries(merged, std::move(entries));
  result.object = std::move(merged);
  return result;
}

// kube's lastAppliedManager: the fields of the last-applied annotation whose live values still
// match it. nullopt when there is no usable annotation.
std::optional<FieldSet> AllowedFromLastApplied(const json& live, const json& live_plain,
                                               const std::string& api_version,
                                               const Field& root) {
  const json* annotation = LastAppliedAnnotation(live);
  if (annotation == nullptr) return std::nullopt;
  json last_applied = json::parse(annotation->get_ref<const std::string&>(), nullptr, false);
  if (last_applied.is_discarded() || !last_applied.is_object()) return std::nullopt;
  if (StringMember(last_applied, "apiVersion") != api_version) return std::nullopt;
  FieldSet set;
  FieldPath path;
  CollectValue(last_applied, root, path, set);
  Comparison c;
  CompareValue(&last_applied, &live_plain, root, path, c);
  return set.Difference(c.modified).Difference(c.added).Difference(c.removed);
}

// kube's lastAppliedUpdater: after an apply by "kubectl", an existing last-applied annotation is
// rewritten to the applied configuration (without that annotation), as kubectl encodes it; it
// is dropped when the annotations would exceed 256 KiB.
void SyncLastApplied(json& object, const json& applied) {
  if (LastAppliedAnnotation(object) == nullptr) return;
  json config = applied;
  if (auto meta = config.find("metadata"); meta != config.end() && meta->is_object()) {
    if (auto a = meta->find("annotations"); a != meta->end() && a->is_object()) {
      a->erase(kLastApplied);
    }
  }
  json& annotations = object["metadata"]["annotations"];
  annotations[kLastApplied] = internal::GoJsonEncode(config);
  size_t total = 0;
  for (const auto& [k, v] : annotations.items()) {
    total += k.size() + (v.is_string() ? v.get_ref<const std::string&>().size() : 0);
  }
  if (total > kTotalAnnotationSizeLimit) annotations.erase(kLastApplied);
}

StatusOr<json> Apply(const json& live, const json& applied, std::string_view manager,
                     std::string_view subresource, bool force, TimePoint now,
                     std::vector<ApplyConflict>* conflicts) {
  if (manager.empty()) return InvalidArgumentError("fieldManager is required for apply requests");
  if (!applied.is_object()) return InvalidArgumentError("the apply configuration must be an object");
  if (!live.is_null() && !live.is_object()) return InvalidArgumentError("invalid live object");
  if (auto meta = applied.find("metadata"); meta != applied.end() && meta->is_object()) {
    if (auto mf = meta->find("managedFields");
        mf != meta->end() && !mf->is_null() && !(mf->is_array() && mf->empty())) {
      return InvalidArgumentError("metadata.managedFields must be nil");
    }
  }

  // The configuration.
  const Part part = PartOf(subresource);
  if (part == Part::kStatus && !live.is_object()) return NotFoundError("no object to apply to");
  json cfg = applied;
  internal::PruneNulls(cfg);
  const std::string api_version = ApiVersionOf(cfg, live);
  const Field root = TypeField(schema::RootType(api_version, KindOf(cfg, live)));
  if (part == Part::kStatus) {
    // The status strategy resets everything else (kube's reset fields).
    cfg = OwnedPart(cfg, part);
  } else {
    cfg.erase("status");
  }
  if (auto meta = cfg.find("metadata"); meta != cfg.end() && meta->is_object()) {
    for (const char* k : {"managedFields", "uid", "resourceVersion", "creationTimestamp",
                          "generation", "selfLink", "deletionTimestamp",
                          "deletionGracePeriodSeconds"}) {
      meta->erase(k);
    }
  }
  const json live_plain = live.is_object() ? OwnedPart(live, part) : json::object();
  const std::vector<Entry> entries = ParseEntries(live);

  CoreResult result = ApplyCore(live, live_plain, cfg, entries, manager, subresource, api_version,
                                root, force, now);
  // kube's last-applied handling is the object's own: a subresource's apply has none.
  if (!result.conflicts.empty() && manager == "kubectl" && subresource.empty()) {
    // Upgrade from client-side apply: conflicts on fields that still hold their
    // last-applied values are not conflicts for kubectl's own manager.
    if (auto allowed = AllowedFromLastApplied(live, live_plain, api_version, root)) {
      std::vector<Conflicting> remaining;
      for (auto& c : result.conflicts) {
        c.fields = c.fields.Difference(*allowed);
        if (!c.fields.empty()) remaining.push_back(std::move(c));
      }
      if (remaining.empty()) {
        result = ApplyCore(live, live_plain, cfg, entries, manager, subresource, api_version, root,
                           /*force=*/true, now);
      } else {
        result.conflicts = std::move(remaining);
      }
    }
  }

  if (!result.conflicts.empty()) {
    auto& found = result.conflicts;
    std::sort(found.begin(), found.end(), [](const Conflicting& a, const Conflicting& b) {
      return std::tie(a.entry.manager, a.entry.operation, a.entry.api_version,
                      a.entry.subresource) < std::tie(b.entry.manager, b.entry.operation,
                                                      b.entry.api_version, b.entry.subresource);
    });
    std::vector<ApplyConflict> list;
    std::string lines;
    for (const auto& f : found) {
      const std::string printed = f.entry.Printed();
      lines += (lines.empty() ? "" : "\n") + std::string("conflicts with ") + printed + ":";
      for (const auto& p : f.fields.IterationOrder()) {
        const std::string field = FieldPathString(p);
        lines += "\n- " + field;
        list.push_back({field, "conflict with " + printed});
      }
    }
    std::string message =
        list.size() == 1
            ? "Apply failed with 1 conflict: " + list[0].message + ": " + list[0].field
            : "Apply failed with " + std::to_string(list.size()) + " conflicts: " + lines;
    if (conflicts != nullptr) *conflicts = std::move(list);
    return AbortedError(message);
  }
  if (manager == "kubectl" && subresource.empty()) SyncLastApplied(result.object, applied);
  return std::move(result.object);
}

}  // namespace

bool IsStatusSubresource(std::string_view subresource) {
  return subresource == "status" || subresource == "approval";
}

StatusOr<nlohmann::json> ServerSideApply(const nlohmann::json& live, const nlohmann::json& applied,
                                         std::string_view manager, bool force, TimePoint now,
                                         std::vector<ApplyConflict>* conflicts,
                                         std::string_view subresource) {
  if (conflicts != nullptr) conflicts->clear();
  try {
    return Apply(live, applied, manager, subresource, force, now, conflicts);
  } catch (const nlohmann::json::exception& e) {
    return InternalError(std::string("server-side apply: ") + e.what());
  }
}

nlohmann::json UpdateManagedFieldsGeneral(const nlohmann::json& old, nlohmann::json updated,
                                          std::string_view manager, TimePoint now,
                                          std::string_view subresource) {
  if (manager.empty() || !updated.is_object()) return updated;
  const Part part = PartOf(subresource);
  try {
    std::vector<Entry> entries;
    const json* provided = nullptr;
    if (auto meta = updated.find("metadata"); meta != updated.end() && meta->is_object()) {
      if (auto mf = meta->find("managedFields");
          mf != meta->end() && mf->is_array() && !mf->empty()) {
        provided = &*mf;
      }
    }
    entries = ParseEntries(provided != nullptr ? updated : old);

    const json after = OwnedPart(updated, part);
    const std::string api_version = ApiVersionOf(updated, old);
    const std::string_view root_type = schema::RootType(api_version, KindOf(updated, old));
    const Field root = TypeField(root_type);
    json before;
    if (old.is_object()) {
      before = OwnedPart(old, part);
    } else {
      // kube compares a created object against the empty typed object.
      before = json::parse(schema::ZeroObjectJson(root_type));
      if (after.contains("spec") && after["spec"].is_object() && !before.contains("spec")) {
        before["spec"] = json::object();
      }
    }
    const Comparison cmp = CompareObjectsFiltered(before, after, root, part);
    const FieldSet changed = cmp.added.Union(cmp.modified);

    for (auto& e : entries) {
      if (e.Is(manager, "Update", api_version, subresource)) continue;
      e.set = e.set.Difference(changed).Difference(cmp.removed);
    }
    auto mine = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) {
      return e.Is(manager, "Update", api_version, subresource);
    });
    if (mine == entries.end() && !changed.empty()) {
      Entry e;
      e.manager = std::string(manager);
      e.operation = "Update";
      e.api_version = api_version;
      e.subresource = std::string(subresource);
      entries.push_back(std::move(e));
      mine = entries.end() - 1;
    }
    if (mine != entries.end()) {
      mine->set = mine->set.Difference(cmp.removed).Union(changed);
      if (!changed.empty()) mine->time = FormatRfc3339(now);
    }
    WriteEntries(updated, std::move(entries));
    return updated;
  } catch (const nlohmann::json::exception&) {
    return updated;
  }
}

// ---- The ownership shortcuts --------------------------------------------------------------------
//
// Two kinds of update leave the entries' sets as they are, and are most of a cluster's writes
// (status writes, Lease renewals, heartbeats):
//   1. a write that changes nothing its part of the object holds (see Part): e.g. only status,
//      managedFields, or the server's metadata (resourceVersion, uid, creationTimestamp...
//      which a client's PUT may leave out) differ for a write to the object itself. The
//      general path would parse old's entries, find no field added, modified or removed, and
//      write them back: every entry stays as it was.
//   2. a write whose only changes are new values of fields the sets hold whole (scalars,
//      atomic maps and lists; reached through maps and the items of keyed lists, present on
//      both sides: a node's heartbeat times, a condition's status) that the writer's own
//      Update entry already owns and no other entry owns: the general path would take them
//      from nobody and give them to the writer, who has them; only the writer's time becomes
//      `now` (and the entries are re-sorted, as the time is part of their order).
// Neither applies when the client sends entries of its own, or when old's entries are not in
// the form WriteEntries gives them (as every entry the store holds is); the general path runs.

// The changes from `old` to `updated` when they are all values the sets hold whole replaced by
// others of their type (paths of "f:<key>" through maps, and "k:{...}" through the items of
// keyed lists whose keys stay in place; what the write's part does not own is skipped: for the
// object, status, managedFields, and scalar apiVersion, kind, metadata name, namespace, uid,
// creationTimestamp, resourceVersion, generation...; for status, everything else); nullopt for
// any other change (a member or item added, removed or moved, a set changed, null, a type
// changed) or more than a few.
using ScalarChanges = std::vector<std::vector<std::string>>;
const std::set<std::string, std::less<>> kServerMetadata = {
    "name", "namespace",   "creationTimestamp", "selfLink",
    "uid",  "clusterName", "generation",        "resourceVersion"};
constexpr size_t kMaxScalarChanges = 8;

bool DiffScalars(const json& a, const json& b, const Field& f, Part part,
                 std::vector<std::string>& path, ScalarChanges& out) {
  // A value the set holds whole (a scalar, an atomic map or list) replaced by another of its
  // type: one change at `path`, as CompareLeaf's "modified".
  auto leaf_changed = [&] {
    if (a == b) return true;
    if (a.is_null() || b.is_null() || a.type() != b.type() || out.size() == kMaxScalarChanges) {
      return false;
    }
    out.push_back(path);
    return true;
  };
  if (a.is_object() && b.is_object()) {
    if (f.shape == Shape::kAtomic) return leaf_changed();
    // What Ignored() leaves out: all of status and managedFields; scalar apiVersion, kind and
    // the server's metadata fields (a structured one has children that count). Of a status
    // write, everything but status.
    auto skipped = [&](const std::string& k, const json& v) {
      if (part == Part::kStatus) return path.empty() && k != "status";
      if (path.empty())
        return k == "status" || ((k == "apiVersion" || k == "kind") && !v.is_structured());
      if (path.size() == 1 && path[0] == "f:metadata") {
        return k == "managedFields" || (kServerMetadata.count(k) > 0 && !v.is_structured());
      }
      return false;
    };
    size_t counted = 0;
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (skipped(it.key(), it.value())) continue;
      ++counted;
      auto other = b.find(it.key());
      if (other == b.end() || skipped(other.key(), *other)) return false;
      path.push_back("f:" + it.key());
      const bool ok =
          DiffScalars(it.value(), *other, LookupField(f.type, it.key()), part, path, out);
      path.pop_back();
      if (!ok) return false;
    }
    for (auto it = b.begin(); it != b.end(); ++it) {
      if (!skipped(it.key(), it.value())) --counted;
    }
    return counted == 0;  // b has no member a lacks
  }
  if (a.is_array() && b.is_array()) {
    if (a == b) return true;
    std::vector<std::string> b_keys;
    const ListMode mode = ModeFor(f, &a, &b, &b_keys);
    if (mode == ListMode::kAtomic) return leaf_changed();
    // Items of a keyed list, the same keys in the same order: their members, item by item.
    // Anything else (an item added, removed or moved; a set's values) is not a scalar change.
    if (mode != ListMode::kKeyed || a.size() != b.size()) return false;
    const Field item = TypeField(f.type);
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i] == b[i]) continue;
      if (ItemKey(a[i], f) != b_keys[i]) return false;
      path.push_back(b_keys[i]);
      const bool ok = DiffScalars(a[i], b[i], item, part, path, out);
      path.pop_back();
      if (!ok) return false;
    }
    return true;
  }
  if (a.is_structured() || b.is_structured()) return a == b;
  return leaf_changed();
}

std::optional<ScalarChanges> ScalarChangesOf(const json& old, const json& updated, Part part) {
  ScalarChanges out;
  std::vector<std::string> path;
  const Field root = TypeField(schema::RootType(ApiVersionOf(updated, old), KindOf(updated, old)));
  if (!DiffScalars(old, updated, root, part, path, out)) return std::nullopt;
  return out;
}

// How `path` stands in a FieldsV1 tree: whether it is in the set, and whether a node above it
// is in the set with no children (a parent owned whole).
struct Ownership {
  bool member = false;
  bool parent_owned_whole = false;
};
Ownership OwnershipOf(const json& fields_v1, const std::vector<std::string>& path) {
  Ownership o;
  const json* node = &fields_v1;
  for (size_t i = 0; i < path.size(); ++i) {
    if (!node->is_object()) return o;
    auto it = node->find(path[i]);
    if (it == node->end()) return o;
    node = &*it;
    const bool member = node->is_object() && (node->empty() || node->contains("."));
    if (i + 1 < path.size() && member && node->empty()) o.parent_owned_whole = true;
    if (i + 1 == path.size()) o.member = member;
  }
  return o;
}

// Whether `object`'s managedFields are as WriteEntries writes them: absent, or a non-empty list
// of well-formed entries in SortKey order. (The fieldsV1 trees are not re-checked: the store's
// are ToFieldsV1's.)
using EntryKey = decltype(Entry().SortKey());
std::optional<EntryKey> WrittenEntryKey(const json& e) {
  if (!e.is_object()) return std::nullopt;
  Entry entry;
  entry.manager = StringMember(e, "manager");
  entry.operation = StringMember(e, "operation");
  entry.api_version = StringMember(e, "apiVersion");
  entry.subresource = StringMember(e, "subresource");
  if (auto t = e.find("time"); t != e.end()) {
    if (!t->is_string()) return std::nullopt;
    entry.time = t->get<std::string>();
  }
  if (entry.operation != "Apply" && entry.operation != "Update") return std::nullopt;
  if (StringMember(e, "fieldsType") != "FieldsV1") return std::nullopt;
  auto fields = e.find("fieldsV1");
  if (fields == e.end() || !fields->is_object() || fields->empty()) return std::nullopt;
  const size_t members = 5 + (entry.time ? 1 : 0) + (entry.subresource.empty() ? 0 : 1);
  if (e.size() != members) return std::nullopt;
  return entry.SortKey();
}

bool EntriesInWrittenForm(const json* managed_fields) {
  if (managed_fields == nullptr) return true;
  if (!managed_fields->is_array() || managed_fields->empty()) return false;
  std::optional<EntryKey> last;
  for (const json& e : *managed_fields) {
    std::optional<EntryKey> key = WrittenEntryKey(e);
    if (!key || (last && *key < *last)) return false;
    last = std::move(key);
  }
  return true;
}

// Shortcut 2's entries: old's, with the writer's time now and the order kept; nullopt when a
// change is not the writer's alone.
std::optional<json> EntriesAfterOwnedChanges(const json& entries, const ScalarChanges& changes,
                                             std::string_view manager, std::string_view api_version,
                                             std::string_view subresource, TimePoint now) {
  std::optional<size_t> mine;
  for (size_t i = 0; i < entries.size(); ++i) {
    const json& e = entries[i];
    if (StringMember(e, "manager") == manager && StringMember(e, "operation") == "Update" &&
        StringMember(e, "subresource") == subresource &&
        StringMember(e, "apiVersion") == api_version) {
      mine = i;
    }
  }
  if (!mine) return std::nullopt;
  for (size_t i = 0; i < entries.size(); ++i) {
    for (const auto& change : changes) {
      const Ownership o = OwnershipOf(entries[i]["fieldsV1"], change);
      if (o.parent_owned_whole) return std::nullopt;
      if (o.member != (i == *mine)) return std::nullopt;
    }
  }
  json out = entries;
  out[*mine]["time"] = FormatRfc3339(now);
  std::vector<std::pair<EntryKey, json>> keyed;
  keyed.reserve(out.size());
  for (json& e : out) {
    std::optional<EntryKey> key = WrittenEntryKey(e);
    if (!key) return std::nullopt;
    keyed.emplace_back(std::move(*key), std::move(e));
  }
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  json sorted = json::array();
  for (auto& [key, e] : keyed) sorted.push_back(std::move(e));
  return sorted;
}

// The shortcuts' result, or nullopt when the general path must run.
std::optional<json> OwnershipShortcut(const json& old, json& updated, std::string_view manager,
                                      std::string_view subresource, TimePoint now) {
  const json* old_mf = nullptr;
  if (auto meta = old.find("metadata"); meta != old.end() && meta->is_object()) {
    if (auto mf = meta->find("managedFields"); mf != meta->end()) old_mf = &*mf;
  }
  auto meta = updated.find("metadata");
  if (meta == updated.end() || !meta->is_object()) return std::nullopt;
  if (auto mf = meta->find("managedFields"); mf != meta->end() && mf->is_array() && !mf->empty() &&
                                             (old_mf == nullptr || *mf != *old_mf)) {
    return std::nullopt;  // the client's own entries
  }
  if (!EntriesInWrittenForm(old_mf)) return std::nullopt;
  const std::optional<ScalarChanges> changes = ScalarChangesOf(old, updated, PartOf(subresource));
  if (!changes) return std::nullopt;
  if (changes->empty()) {  // shortcut 1
    if (old_mf == nullptr) {
      meta->erase("managedFields");
    } else {
      (*meta)["managedFields"] = *old_mf;
    }
    return std::move(updated);
  }
  if (old_mf == nullptr) return std::nullopt;
  std::optional<json> entries = EntriesAfterOwnedChanges(
      *old_mf, *changes, manager, ApiVersionOf(updated, old), subresource, now);
  if (!entries) return std::nullopt;
  (*meta)["managedFields"] = std::move(*entries);
  return std::move(updated);
}

nlohmann::json UpdateManagedFields(const nlohmann::json& old, nlohmann::json updated,
                                   std::string_view manager, TimePoint now,
                                   std::string* fields_v1_text, std::string_view subresource) {
  if (fields_v1_text != nullptr) fields_v1_text->clear();
  if (manager.empty() || !updated.is_object()) return updated;
  if (old.is_object()) {
    try {
      if (auto same = OwnershipShortcut(old, updated, manager, subresource, now)) {
        return std::move(*same);
      }
    } catch (const nlohmann::json::exception&) {
    }
    return UpdateManagedFieldsGeneral(old, std::move(updated), manager, now, subresource);
  }
  try {
    if (auto meta = updated.find("metadata"); meta != updated.end() && meta->is_object()) {
      if (auto mf = meta->find("managedFields");
          mf != meta->end() && mf->is_array() && !mf->empty()) {
        // The client's entries are the starting point: the general path.
        return UpdateManagedFieldsGeneral(old, std::move(updated), manager, now, subresource);
      }
    }
    // A create: the set is every field of the new object that differs from the kind's zero
    // object (see UpdateManagedFieldsGeneral for the general rule).
    const std::string api_version = ApiVersionOf(updated, old);
    const std::string_view root_type = schema::RootType(api_version, KindOf(updated, old));
    const auto spec = updated.find("spec");
    const json& before =
        CreateBaseline(root_type, spec != updated.end() && spec->is_object());
    std::string text = "{";
    text.reserve(8192);
    CreateFieldsWalker walker(&text);
    walker.Objects(&before, &updated, root_type);
    text.push_back('}');
    auto meta = updated.find("metadata");
    if (text == "{}") {
      if (meta != updated.end() && meta->is_object()) meta->erase("managedFields");
      return updated;
    }
    json entry = json::object();
    entry["manager"] = std::string(manager);
    entry["operation"] = "Update";
    entry["apiVersion"] = api_version;
    entry["time"] = FormatRfc3339(now);
    entry["fieldsType"] = "FieldsV1";
    if (fields_v1_text != nullptr) {
      entry["fieldsV1"] = json::object();  // its text is handed over instead
      *fields_v1_text = std::move(text);
    } else {
      StatusOr<json> fields = json_io::Parse(text);
      if (!fields.ok()) return updated;  // not expected: the text is ours
      entry["fieldsV1"] = std::move(*fields);
    }
    if (meta == updated.end() || !meta->is_object()) {
      updated["metadata"] = json::object();
      meta = updated.find("metadata");
    }
    (*meta)["managedFields"] = json::array({std::move(entry)});
    return updated;
  } catch (const nlohmann::json::exception&) {
    if (fields_v1_text != nullptr) fields_v1_text->clear();
    return updated;
  }
}

}  // namespace tidepool::apiserver::patch
