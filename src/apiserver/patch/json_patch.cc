#include "apiserver/patch/json_patch.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tidepool::apiserver::patch {

using json = nlohmann::json;

namespace internal {

void PruneNulls(json& v) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end();) {
      if (it->is_null()) {
        it = v.erase(it);
      } else {
        PruneNulls(*it);
        ++it;
      }
    }
  } else if (v.is_array()) {
    for (auto& e : v) PruneNulls(e);
  }
}

}  // namespace internal

namespace {

using internal::PruneNulls;

// ---- RFC 7386 ----------------------------------------------------------------------------

void MergeObjects(json& doc, const json& patch) {
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null()) {
      doc.erase(key);
      continue;
    }
    auto it = doc.find(key);
    if (it == doc.end() || it->is_null()) {
      json copy = value;
      PruneNulls(copy);
      doc[key] = std::move(copy);
    } else if (!it->is_object()) {
      json copy = value;
      PruneNulls(copy);
      *it = std::move(copy);
    } else if (!value.is_object()) {
      *it = value;  // an object replaced by a non-object: copied as is.
    } else {
      MergeObjects(*it, value);
    }
  }
}

// ---- RFC 6902 (evanphx/json-patch v4 semantics) ------------------------------------------

struct OpError {
  std::string message;
};

std::string DecodePointerToken(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

std::vector<std::string_view> SplitSlash(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) {
      parts.push_back(path.substr(start));
      return parts;
    }
    parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
}

// strconv.Atoi: optional sign, decimal digits, must fit in int64.
std::optional<int64_t> Atoi(std::string_view s, std::string* error) {
  auto fail = [&](const char* why) -> std::optional<int64_t> {
    *error = "strconv.Atoi: parsing \"" + std::string(s) + "\": " + why;
    return std::nullopt;
  };
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    negative = s[i] == '-';
    ++i;
  }
  if (i == s.size()) return fail("invalid syntax");
  uint64_t value = 0;
  bool overflow = false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return fail("invalid syntax");
    uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      overflow = true;
    } else {
      value = value * 10 + digit;
    }
  }
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (overflow || value > limit) return fail("value out of range");
  return negative ? static_cast<int64_t>(0 - value) : static_cast<int64_t>(value);
}

std::string InvalidIndex(int64_t idx) {
  return "Unable to access invalid index: " + std::to_string(idx) + ": invalid index referenced";
}

// An array index as the library resolves one: `key` parsed as strconv.Atoi does (on failure
// the error is `atoi_error_prefix` + Atoi's), a negative index counting from the end; the
// index must fall in [-len, len). Sets *out to the resolved index in [0, len).
std::optional<OpError> ArrayIndex(const std::string& key, int64_t len, size_t* out,
                                  const std::string& atoi_error_prefix = "") {
  std::string err;
  const auto idx = Atoi(key, &err);
  if (!idx) return OpError{atoi_error_prefix + err};
  int64_t i = *idx;
  if (i >= len || i < -len) return OpError{InvalidIndex(i)};
  if (i < 0) i += len;
  *out = static_cast<size_t>(i);
  return std::nullopt;
}

// The library's container: an object or an array node of the document.
struct Container {
  json* node = nullptr;

  // get: an object member (nullptr when missing or null) or an array element.
  std::optional<OpError> Get(const std::string& key, const json** out) const {
    *out = nullptr;
    if (node->is_object()) {
      auto it = node->find(key);
      if (it != node->end() && !it->is_null()) *out = &*it;
      return std::nullopt;
    }
    size_t i = 0;
    if (auto e = ArrayIndex(key, static_cast<int64_t>(node->size()), &i)) return e;
    const json& e = (*node)[i];
    if (!e.is_null()) *out = &e;
    return std::nullopt;
  }

  std::optional<OpError> Set(const std::string& key, json value) {
    if (node->is_object()) {
      (*node)[key] = std::move(value);
      return std::nullopt;
    }
    size_t i = 0;
    if (auto e = ArrayIndex(key, static_cast<int64_t>(node->size()), &i)) return e;
    (*node)[i] = std::move(value);
    return std::nullopt;
  }

  std::optional<OpError> Add(const std::string& key, json value) {
    if (node->is_object()) {
      (*node)[key] = std::move(value);
      return std::nullopt;
    }
    if (key == "-") {
      node->push_back(std::move(value));
      return std::nullopt;
    }
    size_t i = 0;
    if (auto e = ArrayIndex(key, static_cast<int64_t>(node->size()) + 1, &i,
                            "value was not a proper array index: '" + key + "': ")) {
      return e;
    }
    node->insert(node->begin() + static_cast<std::ptrdiff_t>(i), std::move(value));
    return std::nullopt;
  }

  std::optional<OpError> Remove(const std::string& key) {
    if (node->is_object()) {
      if (node->find(key) == node->end()) {
        return OpError{"Unable to remove nonexistent key: " + key + ": missing value"};
      }
      node->erase(key);
      return std::nullopt;
    }
    size_t i = 0;
    if (auto e = ArrayIndex(key, static_cast<int64_t>(node->size()), &i)) return e;
    node->erase(node->begin() + static_cast<std::ptrdiff_t>(i));
    return std::nullopt;
  }
};

// findObject: the container holding the last token of `path`, and that token decoded.
// nullopt when the path has no "/" or an intermediate token does not name an object or array.
std::optional<std::pair<Container, std::string>> FindObject(json& doc, std::string_view path) {
  std::vector<std::string_view> split = SplitSlash(path);
  if (split.size() < 2) return std::nullopt;
  json* cur = &doc;
  for (size_t i = 1; i + 1 < split.size(); ++i) {
    Container c{cur};
    const json* next = nullptr;
    if (c.Get(DecodePointerToken(split[i]), &next) || next == nullptr) return std::nullopt;
    if (!next->is_object() && !next->is_array()) return std::nullopt;
    cur = const_cast<json*>(next);
  }
  return std::make_pair(Container{cur}, DecodePointerToken(split.back()));
}

// Operation.Path() / From(): the string member, or the library's error.
std::optional<std::string> StringMember(const json& op, const char* name, std::string* err) {
  auto it = op.find(name);
  if (it == op.end() || it->is_null()) {
    *err = std::string(name) == "path" ? "operation missing path field: missing value"
                                       : "operation, missing from field: missing value";
    return std::nullopt;
  }
  if (!it->is_string()) {
    std::string type = it->is_number() ? "number"
                       : it->is_boolean() ? "bool"
                       : it->is_array()   ? "array"
                                          : "object";
    *err = "json: cannot unmarshal " + type + " into Go value of type string";
    return std::nullopt;
  }
  return it->get<std::string>();
}

json ValueOf(const json& op) {
  auto it = op.find("value");
  return it == op.end() ? json(nullptr) : *it;
}

std::optional<OpError> DoAdd(json& doc, const json& op) {
  std::string err;
  auto path = StringMember(op, "path", &err);
  if (!path) return OpError{"add operation failed to decode path: missing value"};
  auto found = FindObject(doc, *path);
  if (!found) {
    return OpError{"add operation does not apply: doc is missing path: \"" + *path +
                   "\": missing value"};
  }
  if (auto e = found->first.Add(found->second, ValueOf(op))) {
    return OpError{"error in add for path: '" + *path + "': " + e->message};
  }
  return std::nullopt;
}

std::optional<OpError> DoRemove(json& doc, const json& op) {
  std::string err;
  auto path = StringMember(op, "path", &err);
  if (!path) return OpError{"remove operation failed to decode path: missing value"};
  auto found = FindObject(doc, *path);
  if (!found) {
    return OpError{"remove operation does not apply: doc is missing path: \"" + *path +
                   "\": missing value"};
  }
  if (auto e = found->first.Remove(found->second)) {
    return OpError{"error in remove for path: '" + *path + "': " + e->message};
  }
  return std::nullopt;
}

std::optional<OpError> DoReplace(json& doc, const json& op) {
  std::string err;
  auto path = StringMember(op, "path", &err);
  if (!path) return OpError{"replace operation failed to decode path: " + err};
  if (path->empty()) {
    json value = ValueOf(op);
    if (!value.is_object() && !value.is_array()) {
      return OpError{"replace operation value must be object or array: %!w(<nil>)"};
    }
    doc = std::move(value);
    return std::nullopt;
  }
  auto found = FindObject(doc, *path);
  if (!found) {
    return OpError{"replace operation does not apply: doc is missing path: " + *path +
                   ": missing value"};
  }
  const json* existing = nullptr;
  if (found->first.Get(found->second, &existing)) {
    return OpError{"replace operation does not apply: doc is missing key: " + *path +
                   ": missing value"};
  }
  if (auto e = found->first.Set(found->second, ValueOf(op))) {
    return OpError{"error in remove for path: '" + *path + "': " + e->message};
  }
  return std::nullopt;
}

std::optional<OpError> DoMove(json& doc, const json& op) {
  std::string err;
  auto from = StringMember(op, "from", &err);
  if (!from) return OpError{"move operation failed to decode from: " + err};
  auto src = FindObject(doc, *from);
  if (!src) {
    return OpError{"move operation does not apply: doc is missing from path: " + *from +
                   ": missing value"};
  }
  const json* value_ptr = nullptr;
  if (auto e = src->first.Get(src->second, &value_ptr)) {
    return OpError{"error in move for path: '" + src->second + "': " + e->message};
  }
  json value = value_ptr ? *value_ptr : json(nullptr);
  if (auto e = src->first.Remove(src->second)) {
    return OpError{"error in move for path: '" + src->second + "': " + e->message};
  }
  auto path = StringMember(op, "path", &err);
  if (!path) return OpError{"move operation failed to decode path: " + err};
  auto dst = FindObject(doc, *path);
  if (!dst) {
    return OpError{"move operation does not apply: doc is missing destination path: " + *path +
                   ": missing value"};
  }
  if (auto e = dst->first.Add(dst->second, std::move(value))) {
    return OpError{"error in move for path: '" + *path + "': " + e->message};
  }
  return std::nullopt;
}

std::optional<OpError> DoTest(json& doc, const json& op) {
  std::string err;
  auto path = StringMember(op, "path", &err);
  if (!path) return OpError{"test operation failed to decode path: " + err};
  auto failed = [&] { return OpError{"testing value " + *path + " failed: test failed"}; };
  const bool has_value = op.contains("value");
  if (path->empty()) {
    if (has_value && op["value"] == doc) return std::nullopt;
    return failed();
  }
  auto found = FindObject(doc, *path);
  if (!found) {
    return OpError{"test operation does not apply: is missing path: " + *path +
                   ": missing value"};
  }
  const json* actual = nullptr;
  if (auto e = found->first.Get(found->second, &actual)) {
    return OpError{"error in test for path: '" + *path + "': " + e->message};
  }
  if (actual == nullptr) {
    if (!has_value || op["value"].is_null()) return std::nullopt;
    return failed();
  }
  if (!has_value) return failed();
  if (*actual == op["value"]) return std::nullopt;
  return failed();
}

std::optional<OpError> DoCopy(json& doc, const json& op) {
  std::string err;
  auto from = StringMember(op, "from", &err);
  if (!from) return OpError{"copy operation failed to decode from: " + err};
  auto src = FindObject(doc, *from);
  if (!src) {
    return OpError{"copy operation does not apply: doc is missing from path: " + *from +
                   ": missing value"};
  }
  const json* value_ptr = nullptr;
  if (auto e = src->first.Get(src->second, &value_ptr)) {
    return OpError{"error in copy for from: '" + *from + "': " + e->message};
  }
  json value = value_ptr ? *value_ptr : json(nullptr);
  auto path = StringMember(op, "path", &err);
  if (!path) return OpError{"copy operation failed to decode path: missing value"};
  auto dst = FindObject(doc, *path);
  if (!dst) {
    return OpError{"copy operation does not apply: doc is missing destination path: " + *path +
                   ": missing value"};
  }
  if (auto e = dst->first.Add(dst->second, std::move(value))) {
    return OpError{"error while adding value during copy: " + e->message};
  }
  return std::nullopt;
}

const char* GoJsonType(const json& v) {
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  return "number";
}

StatusOr<json> MergePatchImpl(const json& target, const json& patch) {
  if (patch.is_array()) {
    json out = patch;
    PruneNulls(out);
    return out;
  }
  if (!patch.is_object()) return InvalidArgumentError("Invalid JSON Patch");
  if (target.is_null()) return InvalidArgumentError("Invalid JSON Document");
  if (!target.is_object()) {
    json out = patch;
    PruneNulls(out);
    return out;
  }
  json out = target;
  MergeObjects(out, patch);
  return out;
}

StatusOr<json> JsonPatchImpl(const json& target, const json& operations) {
  if (!operations.is_array()) {
    if (operations.is_null()) return target;  // Go decodes null into an empty patch.
    return InvalidArgumentError(std::string("json: cannot unmarshal ") + GoJsonType(operations) +
                                " into Go value of type jsonpatch.Patch");
  }
  for (const auto& op : operations) {
    if (!op.is_object() && !op.is_null()) {
      return InvalidArgumentError(std::string("json: cannot unmarshal ") + GoJsonType(op) +
                                  " into Go value of type jsonpatch.Operation");
    }
  }
  if (!target.is_object() && !target.is_array()) {
    return InvalidArgumentError("Invalid JSON Document");
  }
  json doc = target;
  for (const auto& raw_op : operations) {
    const json op = raw_op.is_null() ? json::object() : raw_op;
    std::string kind = "unknown";
    if (auto it = op.find("op"); it != op.end() && it->is_string()) kind = it->get<std::string>();
    std::optional<OpError> err;
    if (kind == "add") {
      err = DoAdd(doc, op);
    } else if (kind == "remove") {
      err = DoRemove(doc, op);
    } else if (kind == "replace") {
      err = DoReplace(doc, op);
    } else if (kind == "move") {
      err = DoMove(doc, op);
    } else if (kind == "test") {
      err = DoTest(doc, op);
    } else if (kind == "copy") {
      err = DoCopy(doc, op);
    } else {
      err = OpError{"Unexpected kind: " + kind};
    }
    if (err) return InvalidArgumentError(err->message);
  }
  return doc;
}

}  // namespace

StatusOr<nlohmann::json> MergePatch(const nlohmann::json& target, const nlohmann::json& patch) {
  try {
    return MergePatchImpl(target, patch);
  } catch (const nlohmann::json::exception& e) {
    return InternalError(std::string("merge patch: ") + e.what());
  }
}

StatusOr<nlohmann::json> JsonPatch(const nlohmann::json& target,
                                   const nlohmann::json& operations) {
  try {
    return JsonPatchImpl(target, operations);
  } catch (const nlohmann::json::exception& e) {
    return InternalError(std::string("json patch: ") + e.what());
  }
}

}  // namespace tidepool::apiserver::patch
