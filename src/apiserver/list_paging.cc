#include "apiserver/list_paging.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "apiserver/json_io.h"
#include "common/base64.h"

namespace tidepool::apiserver {

using nlohmann::json;

namespace {

constexpr std::string_view kTokenVersion = "meta.k8s.io/v1";

Status Invalid(std::string_view why) {
  return Status(StatusCode::kInvalidArgument, "continue key is not valid" + std::string(why));
}

// Go's path.Clean(key) == key, for a key that starts with '/': no empty, "." or ".." element
// and no trailing '/' (the root alone excepted).
bool IsClean(std::string_view key) {
  if (key == "/") return true;
  if (key.back() == '/') return false;
  size_t at = 1;
  while (at <= key.size()) {
    size_t end = key.find('/', at);
    if (end == std::string_view::npos) end = key.size();
    const std::string_view element = key.substr(at, end - at);
    if (element.empty() || element == "." || element == "..") return false;
    at = end + 1;
  }
  return true;
}

// encoding/json's type error for the token's field `field` of Go type `type`.
Status TypeError(const json& v, std::string_view field, std::string_view type) {
  const char* got = v.is_string()    ? "string"
                    : v.is_number()  ? "number"
                    : v.is_boolean() ? "bool"
                    : v.is_array()   ? "array"
                                     : "object";
  return Invalid(": json: cannot unmarshal " + std::string(got) +
                 " into Go struct field continueToken." + std::string(field) + " of type " +
                 std::string(type));
}

}  // namespace

std::string EncodeContinue(const ContinueToken& token) {
  std::string text = "{\"v\":\"" + std::string(kTokenVersion) +
                     "\",\"rv\":" + std::to_string(token.resource_version) + ",\"start\":";
  json_io::Dump(json(token.start_key), &text);
  text += '}';
  return Base64Encode(text, Base64Encoding::kRawUrl);
}

StatusOr<ContinueToken> DecodeContinue(std::string_view text) {
  StatusOr<std::string> data = Base64Decode(text, Base64Encoding::kRawUrl);
  if (!data.ok()) return Invalid(": " + std::string(data.status().message()));
  StatusOr<json> parsed = json_io::Parse(*data);
  if (!parsed.ok()) {
    std::string why = json_io::GoSyntaxError(*data);
    if (why.empty()) why = std::string(parsed.status().message());
    return Invalid(": " + why);
  }
  ContinueToken token;
  std::string version;
  if (parsed->is_object()) {
    if (auto v = parsed->find("v"); v != parsed->end() && !v->is_null()) {
      if (!v->is_string()) return TypeError(*v, "v", "string");
      version = v->get<std::string>();
    }
    if (auto rv = parsed->find("rv"); rv != parsed->end() && !rv->is_null()) {
      if (!rv->is_number_integer()) return TypeError(*rv, "rv", "int64");
      token.resource_version = rv->get<int64_t>();
    }
    if (auto start = parsed->find("start"); start != parsed->end() && !start->is_null()) {
      if (!start->is_string()) return TypeError(*start, "start", "string");
      token.start_key = start->get<std::string>();
    }
  } else if (!parsed->is_null()) {
    return Invalid(": json: cannot unmarshal " +
                   std::string(parsed->is_array()     ? "array"
                               : parsed->is_string()  ? "string"
                               : parsed->is_boolean() ? "bool"
                                                      : "number") +
                   " into Go value of type storage.continueToken");
  }
  if (version != kTokenVersion) {
    return Invalid(": server does not recognize this encoded version " + version);
  }
  if (token.resource_version == 0) {
    return Invalid(": incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  if (token.start_key.empty()) {
    return Invalid(": encoded start key empty (version meta.k8s.io/v1)");
  }
  std::string key = token.start_key;
  if (key.front() != '/') key.insert(key.begin(), '/');
  if (!IsClean(key)) return Invalid(": " + token.start_key);
  token.start_key = key.substr(1);
  return token;
}

std::string StorageKey(const Resource& r, const StoredObject& o) {
  const json* meta =
      o.view.is_object() && o.view.contains("metadata") ? &o.view["metadata"] : nullptr;
  std::string name, ns;
  if (meta != nullptr && meta->is_object()) {
    name = meta->value("name", std::string());
    ns = meta->value("namespace", std::string());
  }
  return r.namespaced ? ns + "/" + name : name;
}

std::string StoreKeyOf(const Resource& r, std::string_view storage_key) {
  return r.namespaced ? std::string(storage_key) : "/" + std::string(storage_key);
}

std::string ContinueAfter(const Resource& r, int64_t rv, const StoredObject& last) {
  return EncodeContinue({rv, StorageKey(r, last) + '\0'});
}

}  // namespace tidepool::apiserver
