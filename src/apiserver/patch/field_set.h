// File: field_set.h
//
// Sets of field paths, as server-side apply records them in metadata.managedFields
// (structured-merge-diff's fieldpath.Set and its "FieldsV1" JSON encoding).
//
// A path is a list of elements, each spelled as in FieldsV1:
//   "f:<name>"    a field of a map or struct           (".name" in messages)
//   "k:<json>"    a keyed list item, by its key fields  ("[name=\"cuda\"]")
//                 e.g. k:{"containerPort":80,"protocol":"TCP"} (keys sorted, compact JSON)
//   "v:<json>"    an item of a set of primitives        ("[=\"finalizer\"]")
//   "i:<n>"       a list item by index                  ("[3]")
// FieldsV1 nests one JSON object per element; a path in the set is an empty object {} when it
// has no children in the set, and carries a "." : {} member when it is in the set and has
// children too:
//   {"f:metadata":{"f:labels":{".":{},"f:app":{}}},
//    "f:spec":{"f:containers":{"k:{\"name\":\"cuda\"}":{".":{},"f:image":{},"f:name":{}}}}}
// holds .metadata.labels, .metadata.labels.app, .spec.containers[name="cuda"] and its .image
// and .name.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status_or.h"

namespace tidepool::apiserver::patch {

using FieldPath = std::vector<std::string>;

// ".spec.containers[name=\"cuda\"].image": structured-merge-diff's Path.String(), the text of
// conflict messages and of details.causes[].field. An element that is not one of the four
// forms is written "{{invalid path element}}".
std::string FieldPathString(const FieldPath& path);

class FieldSet {
 public:
  FieldSet() = default;

  // Parses a FieldsV1 object. Keys other than "." must start with f:, k:, v: or i: and values
  // must be objects; otherwise InvalidArgument naming the key.
  static StatusOr<FieldSet> FromFieldsV1(const nlohmann::json& fields_v1);
  // The FieldsV1 object (an empty set gives {}).
  nlohmann::json ToFieldsV1() const;

  void Insert(FieldPath path) { paths_.insert(std::move(path)); }
  void Erase(const FieldPath& path) { paths_.erase(path); }
  bool Has(const FieldPath& path) const { return paths_.count(path) > 0; }
  // True when `path` or a path below it is in the set.
  bool HasPathOrDescendant(const FieldPath& path) const;
  bool empty() const { return paths_.empty(); }
  size_t size() const { return paths_.size(); }

  FieldSet Union(const FieldSet& other) const;
  FieldSet Intersection(const FieldSet& other) const;
  FieldSet Difference(const FieldSet& other) const;
  // The paths in lexicographic element order (a path sorts before its descendants).
  const std::set<FieldPath>& paths() const { return paths_; }
  // The paths in structured-merge-diff's iteration order: at each level the member paths
  // first, then the levels below, elements in sorted order. Conflict messages use it.
  std::vector<FieldPath> IterationOrder() const;

  friend bool operator==(const FieldSet& a, const FieldSet& b) { return a.paths_ == b.paths_; }

 private:
  std::set<FieldPath> paths_;
};

}  // namespace tidepool::apiserver::patch
