#include "apiserver/patch/field_set.h"

#include <algorithm>
#include <map>
#include <utility>

namespace tidepool::apiserver::patch {
namespace {

using json = nlohmann::json;

struct Node {
  bool member = false;
  std::map<std::string, Node> children;
};

Node BuildTree(const std::set<FieldPath>& paths) {
  Node root;
  for (const auto& path : paths) {
    Node* n = &root;
    for (const auto& e : path) n = &n->children[e];
    n->member = true;
  }
  return root;
}

json NodeToJson(const Node& n) {
  json out = json::object();
  if (n.member && !n.children.empty()) out["."] = json::object();
  for (const auto& [e, child] : n.children) out[e] = NodeToJson(child);
  return out;
}

Status ParseInto(const json& obj, FieldPath& prefix, std::set<FieldPath>& out) {
  if (!obj.is_object()) {
    return InvalidArgumentError("FieldsV1: expected an object at " + FieldPathString(prefix));
  }
  if (obj.empty()) {
    if (!prefix.empty()) out.insert(prefix);
    return OkStatus();
  }
  for (const auto& [key, child] : obj.items()) {
    if (key == ".") {
      if (!prefix.empty()) out.insert(prefix);
      continue;
    }
    if (key.size() < 2 || key[1] != ':' ||
        (key[0] != 'f' && key[0] != 'k' && key[0] != 'v' && key[0] != 'i')) {
      return InvalidArgumentError("FieldsV1: unknown path element \"" + key + "\"");
    }
    prefix.push_back(key);
    Status s = ParseInto(child, prefix, out);
    prefix.pop_back();
    TIDEPOOL_RETURN_IF_ERROR(s);
  }
  return OkStatus();
}

void Iterate(const Node& n, FieldPath& prefix, std::vector<FieldPath>& out) {
  for (const auto& [e, child] : n.children) {
    if (child.member) {
      prefix.push_back(e);
      out.push_back(prefix);
      prefix.pop_back();
    }
  }
  for (const auto& [e, child] : n.children) {
    if (child.children.empty()) continue;
    prefix.push_back(e);
    Iterate(child, prefix, out);
    prefix.pop_back();
  }
}

// structured-merge-diff's value.ToString for a key value: JSON text.
std::string KeyValueString(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string ElementString(const std::string& e) {
  if (e.size() < 2 || e[1] != ':') return "{{invalid path element}}";
  std::string body = e.substr(2);
  switch (e[0]) {
    case 'f':
      return "." + body;
    case 'i':
      return "[" + body + "]";
    case 'v': {
      json v = json::parse(body, nullptr, false);
      if (v.is_discarded()) return "{{invalid path element}}";
      return "[=" + KeyValueString(v) + "]";
    }
    case 'k': {
      json v = json::parse(body, nullptr, false);
      if (v.is_discarded() || !v.is_object()) return "{{invalid path element}}";
      std::string out = "[";
      bool first = true;
      for (const auto& [name, value] : v.items()) {
        if (!first) out += ",";
        first = false;
        out += name + "=" + KeyValueString(value);
      }
      return out + "]";
    }
    default:
      return "{{invalid path element}}";
  }
}

}  // namespace

std::string FieldPathString(const FieldPath& path) {
  std::string out;
  for (const auto& e : path) out += ElementString(e);
  return out;
}

StatusOr<FieldSet> FieldSet::FromFieldsV1(const nlohmann::json& fields_v1) {
  FieldSet set;
  FieldPath prefix;
  TIDEPOOL_RETURN_IF_ERROR(ParseInto(fields_v1, prefix, set.paths_));
  return set;
}

nlohmann::json FieldSet::ToFieldsV1() const { return NodeToJson(BuildTree(paths_)); }

bool FieldSet::HasPathOrDescendant(const FieldPath& path) const {
  auto it = paths_.lower_bound(path);
  if (it == paths_.end()) return false;
  return it->size() >= path.size() && std::equal(path.begin(), path.end(), it->begin());
}

FieldSet FieldSet::Union(const FieldSet& other) const {
  FieldSet out = *this;
  out.paths_.insert(other.paths_.begin(), other.paths_.end());
  return out;
}

FieldSet FieldSet::Intersection(const FieldSet& other) const {
  FieldSet out;
  std::set_intersection(paths_.begin(), paths_.end(), other.paths_.begin(), other.paths_.end(),
                        std::inserter(out.paths_, out.paths_.end()));
  return out;
}

FieldSet FieldSet::Difference(const FieldSet& other) const {
  FieldSet out;
  std::set_difference(paths_.begin(), paths_.end(), other.paths_.begin(), other.paths_.end(),
                      std::inserter(out.paths_, out.paths_.end()));
  return out;
}

std::vector<FieldPath> FieldSet::IterationOrder() const {
  std::vector<FieldPath> out;
  Node root = BuildTree(paths_);
  FieldPath prefix;
  Iterate(root, prefix, out);
  return out;
}

}  // namespace tidepool::apiserver::patch
