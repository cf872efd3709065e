#include "apiserver/protobuf/openapi_v2.h"

#include <cstdint>
#include <string_view>

#include "apiserver/protobuf/wire.h"

namespace tidepool::apiserver::protobuf {
namespace {

using nlohmann::json;

// ---- Scalars of a JSON object, written under proto3's presence rules. ----

const json* Get(const json& o, std::string_view key) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

void String(std::string& out, uint32_t n, const json& o, std::string_view key) {
  const json* v = Get(o, key);
  if (v != nullptr && v->is_string() && !v->get_ref<const std::string&>().empty()) {
    PutBytesField(out, n, v->get_ref<const std::string&>());
  }
}

void Strings(std::string& out, uint32_t n, const json& o, std::string_view key) {
  const json* v = Get(o, key);
  if (v == nullptr || !v->is_array()) return;
  for (const json& e : *v) {
    if (e.is_string()) PutBytesField(out, n, e.get_ref<const std::string&>());
  }
}

void Bool(std::string& out, uint32_t n, const json& o, std::string_view key) {
  const json* v = Get(o, key);
  if (v != nullptr && v->is_boolean() && v->get<bool>()) PutVarintField(out, n, 1);
}

void Int64(std::string& out, uint32_t n, const json& o, std::string_view key) {
  const json* v = Get(o, key);
  if (v == nullptr || !v->is_number()) return;
  int64_t i = 0;
  if (!v->is_number_float()) {
    i = v->is_number_unsigned() && v->get<uint64_t>() > uint64_t{INT64_MAX} ? INT64_MAX
                                                                            : v->get<int64_t>();
  } else if (const double d = v->get<double>(); d >= -9.2e18 && d <= 9.2e18) {
    i = static_cast<int64_t>(d);  // (a value outside int64 is not a length or a count)
  }
  if (i != 0) PutVarintField(out, n, static_cast<uint64_t>(i));
}

void Double(std::string& out, uint32_t n, const json& o, std::string_view key) {
  const json* v = Get(o, key);
  if (v != nullptr && v->is_number() && v->get<double>() != 0) {
    PutDoubleField(out, n, v->get<double>());
  }
}

// ---- Any, vendor extensions, named maps. ----

// Any{yaml = 2}: the value's JSON text.
std::string AnyOf(const json& value) {
  std::string any;
  PutBytesField(any, 2, value.dump(-1, ' ', false, json::error_handler_t::replace));
  return any;
}

void Any(std::string& out, uint32_t n, const json& o, std::string_view key) {
  if (const json* v = Get(o, key)) PutBytesField(out, n, AnyOf(*v));
}

void Anys(std::string& out, uint32_t n, const json& o, std::string_view key) {
  const json* v = Get(o, key);
  if (v == nullptr || !v->is_array()) return;
  for (const json& e : *v) PutBytesField(out, n, AnyOf(e));
}

// NamedAny{name = 1, value = 2} for each "x-..." key.
void VendorExtensions(std::string& out, uint32_t n, const json& o) {
  if (!o.is_object()) return;
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (it.key().rfind("x-", 0) != 0) continue;
    std::string named;
    PutBytesField(named, 1, it.key());
    PutBytesField(named, 2, AnyOf(it.value()));
    PutBytesField(out, n, named);
  }
}

// A Named<T>{name = 1, value = 2} per key of `map`, the value encoded by `encode`. Paths and
// Responses keep their "x-..." keys as vendor extensions instead (`vendor_apart`); every other
// map (definitions, properties, ...) has them as ordinary entries, as gnostic's compiler does.
template <typename Encode>
void NamedMap(std::string& out, uint32_t n, const json* map, Encode encode,
              bool vendor_apart = false) {
  if (map == nullptr || !map->is_object()) return;
  for (auto it = map->begin(); it != map->end(); ++it) {
    if (vendor_apart && it.key().rfind("x-", 0) == 0) continue;
    std::string named;
    PutBytesField(named, 1, it.key());
    PutBytesField(named, 2, encode(it.value()));
    PutBytesField(out, n, named);
  }
}

// A message field: written when the key is present and an object.
template <typename Encode>
void Message(std::string& out, uint32_t n, const json& o, std::string_view key, Encode encode) {
  const json* v = Get(o, key);
  if (v != nullptr && v->is_object()) PutBytesField(out, n, encode(*v));
}

std::string ExternalDocs(const json& d) {
  std::string out;
  String(out, 1, d, "description");
  String(out, 2, d, "url");
  VendorExtensions(out, 3, d);
  return out;
}

// ---- Schema. ----

std::string Schema(const json& s) {
  std::string out;
  String(out, 1, s, "$ref");
  String(out, 2, s, "format");
  String(out, 3, s, "title");
  String(out, 4, s, "description");
  Any(out, 5, s, "default");
  Double(out, 6, s, "multipleOf");
  Double(out, 7, s, "maximum");
  Bool(out, 8, s, "exclusiveMaximum");
  Double(out, 9, s, "minimum");
  Bool(out, 10, s, "exclusiveMinimum");
  Int64(out, 11, s, "maxLength");
  Int64(out, 12, s, "minLength");
  String(out, 13, s, "pattern");
  Int64(out, 14, s, "maxItems");
  Int64(out, 15, s, "minItems");
  Bool(out, 16, s, "uniqueItems");
  Int64(out, 17, s, "maxProperties");
  Int64(out, 18, s, "minProperties");
  Strings(out, 19, s, "required");
  Anys(out, 20, s, "enum");
  if (const json* extra = Get(s, "additionalProperties")) {
    // AdditionalPropertiesItem: schema = 1 | boolean = 2.
    std::string item;
    if (extra->is_boolean()) {
      PutVarintField(item, 2, extra->get<bool>() ? 1 : 0);
    } else if (extra->is_object()) {
      PutBytesField(item, 1, Schema(*extra));
    }
    PutBytesField(out, 21, item);
  }
  if (const json* type = Get(s, "type")) {
    std::string item;  // TypeItem{repeated string value = 1}
    if (type->is_string()) PutBytesField(item, 1, type->get_ref<const std::string&>());
    Strings(item, 1, s, "type");
    PutBytesField(out, 22, item);
  }
  if (const json* items = Get(s, "items")) {
    std::string item;  // ItemsItem{repeated Schema schema = 1}
    if (items->is_object()) PutBytesField(item, 1, Schema(*items));
    if (items->is_array()) {
      for (const json& e : *items) PutBytesField(item, 1, Schema(e));
    }
    PutBytesField(out, 23, item);
  }
  if (const json* all = Get(s, "allOf"); all != nullptr && all->is_array()) {
    for (const json& e : *all) PutBytesField(out, 24, Schema(e));
  }
  if (const json* props = Get(s, "properties"); props != nullptr && props->is_object()) {
    std::string properties;  // Properties{repeated NamedSchema additional_properties = 1}
    NamedMap(properties, 1, props, Schema);
    PutBytesField(out, 25, properties);
  }
  String(out, 26, s, "discriminator");
  Bool(out, 27, s, "readOnly");
  Message(out, 29, s, "externalDocs", ExternalDocs);
  Any(out, 30, s, "example");
  VendorExtensions(out, 31, s);
  return out;
}

// ---- Parameters. ----

// The fields PrimitivesItems and the non-body parameter sub-schemas share, in the same order:
// type, format, items, collectionFormat, default, maximum, exclusiveMaximum, minimum,
// exclusiveMinimum, maxLength, minLength, pattern, maxItems, minItems, uniqueItems, enum,
// multipleOf and the vendor extensions, numbered from `first` on.
std::string Primitives(const json& p);
void PrimitiveFields(std::string& out, const json& p, uint32_t first) {
  uint32_t n = first;
  String(out, n++, p, "type");
  String(out, n++, p, "format");
  Message(out, n++, p, "items", Primitives);
  String(out, n++, p, "collectionFormat");
  Any(out, n++, p, "default");
  Double(out, n++, p, "maximum");
  Bool(out, n++, p, "exclusiveMaximum");
  Double(out, n++, p, "minimum");
  Bool(out, n++, p, "exclusiveMinimum");
  Int64(out, n++, p, "maxLength");
  Int64(out, n++, p, "minLength");
  String(out, n++, p, "pattern");
  Int64(out, n++, p, "maxItems");
  Int64(out, n++, p, "minItems");
  Bool(out, n++, p, "uniqueItems");
  Anys(out, n++, p, "enum");
  Double(out, n++, p, "multipleOf");
  VendorExtensions(out, n, p);
}

// PrimitivesItems (a non-body parameter's "items"): from field 1.
std::string Primitives(const json& p) {
  std::string out;
  PrimitiveFields(out, p, 1);
  return out;
}

// Query/FormData/Header/PathParameterSubSchema: required, in, description, name; query and
// formData then allow_empty_value (5); then the primitive fields.
std::string NonBodySubSchema(const json& p, bool allow_empty) {
  std::string out;
  Bool(out, 1, p, "required");
  String(out, 2, p, "in");
  String(out, 3, p, "description");
  String(out, 4, p, "name");
  if (allow_empty) Bool(out, 5, p, "allowEmptyValue");
  PrimitiveFields(out, p, allow_empty ? 6 : 5);
  return out;
}

// Parameter: body_parameter = 1 | non_body_parameter = 2 (NonBodyParameter: header = 1,
// formData = 2, query = 3, path = 4).
std::string Parameter(const json& p) {
  std::string out;
  const std::string in = p.value("in", "");
  if (in == "body") {
    std::string body;
    String(body, 1, p, "description");
    String(body, 2, p, "name");
    String(body, 3, p, "in");
    Bool(body, 4, p, "required");
    Message(body, 5, p, "schema", Schema);
    VendorExtensions(body, 6, p);
    PutBytesField(out, 1, body);
    return out;
  }
  std::string non_body;
  if (in == "header") PutBytesField(non_body, 1, NonBodySubSchema(p, false));
  if (in == "formData") PutBytesField(non_body, 2, NonBodySubSchema(p, true));
  if (in == "query") PutBytesField(non_body, 3, NonBodySubSchema(p, true));
  if (in == "path") PutBytesField(non_body, 4, NonBodySubSchema(p, false));
  PutBytesField(out, 2, non_body);
  return out;
}

// JsonReference{_ref = 1, description = 2}.
std::string JsonReference(const json& r) {
  std::string out;
  String(out, 1, r, "$ref");
  String(out, 2, r, "description");
  return out;
}

// ParametersItem: parameter = 1 | json_reference = 2.
void ParametersItems(std::string& out, uint32_t n, const json& o) {
  const json* params = Get(o, "parameters");
  if (params == nullptr || !params->is_array()) return;
  for (const json& p : *params) {
    std::string item;
    if (p.contains("$ref")) {
      PutBytesField(item, 2, JsonReference(p));
    } else {
      PutBytesField(item, 1, Parameter(p));
    }
    PutBytesField(out, n, item);
  }
}

// ---- Operations and paths. ----

std::string Response(const json& r) {
  std::string out;
  String(out, 1, r, "description");
  if (const json* schema = Get(r, "schema"); schema != nullptr && schema->is_object()) {
    std::string item;  // SchemaItem: schema = 1 | file_schema = 2
    PutBytesField(item, 1, Schema(*schema));
    PutBytesField(out, 2, item);
  }
  VendorExtensions(out, 5, r);
  return out;
}

// ResponseValue: response = 1 | json_reference = 2.
std::string ResponseValue(const json& r) {
  std::string out;
  PutBytesField(out, r.contains("$ref") ? 2 : 1,
                r.contains("$ref") ? JsonReference(r) : Response(r));
  return out;
}

std::string Responses(const json& r) {
  std::string out;
  NamedMap(out, 1, &r, ResponseValue, /*vendor_apart=*/true);
  VendorExtensions(out, 2, r);
  return out;
}

// SecurityRequirement{repeated NamedStringArray additional_properties = 1}.
void Security(std::string& out, uint32_t n, const json& o) {
  const json* security = Get(o, "security");
  if (security == nullptr || !security->is_array()) return;
  for (const json& requirement : *security) {
    std::string req;
    NamedMap(req, 1, &requirement, [](const json& scopes) {
      std::string array;  // StringArray{repeated string value = 1}
      if (scopes.is_array()) {
        for (const json& s : scopes) {
          if (s.is_string()) PutBytesField(array, 1, s.get_ref<const std::string&>());
        }
      }
      return array;
    });
    PutBytesField(out, n, req);
  }
}

std::string Operation(const json& op) {
  std::string out;
  Strings(out, 1, op, "tags");
  String(out, 2, op, "summary");
  String(out, 3, op, "description");
  Message(out, 4, op, "externalDocs", ExternalDocs);
  String(out, 5, op, "operationId");
  Strings(out, 6, op, "produces");
  Strings(out, 7, op, "consumes");
  ParametersItems(out, 8, op);
  Message(out, 9, op, "responses", Responses);
  Strings(out, 10, op, "schemes");
  Bool(out, 11, op, "deprecated");
  Security(out, 12, op);
  VendorExtensions(out, 13, op);
  return out;
}

std::string PathItem(const json& item) {
  std::string out;
  String(out, 1, item, "$ref");
  uint32_t n = 2;
  for (const char* verb : {"get", "put", "post", "delete", "options", "head", "patch"}) {
    Message(out, n++, item, verb, Operation);
  }
  ParametersItems(out, 9, item);
  VendorExtensions(out, 10, item);
  return out;
}

std::string Paths(const json& paths) {
  std::string out;
  VendorExtensions(out, 1, paths);
  NamedMap(out, 2, &paths, PathItem, /*vendor_apart=*/true);
  return out;
}

// ---- Document. ----

std::string Info(const json& info) {
  std::string out;
  String(out, 1, info, "title");
  String(out, 2, info, "version");
  String(out, 3, info, "description");
  String(out, 4, info, "termsOfService");
  VendorExtensions(out, 7, info);
  return out;
}

// SecurityDefinitionsItem: basic = 1 (BasicAuthenticationSecurity{type, description}),
// apiKey = 2 (ApiKeySecurity{type, name, in, description}); OAuth2 flows are not written.
std::string SecurityDefinitionsItem(const json& d) {
  std::string out, sec;
  const std::string type = d.value("type", "");
  if (type == "apiKey") {
    String(sec, 1, d, "type");
    String(sec, 2, d, "name");
    String(sec, 3, d, "in");
    String(sec, 4, d, "description");
    VendorExtensions(sec, 5, d);
    PutBytesField(out, 2, sec);
  } else if (type == "basic") {
    String(sec, 1, d, "type");
    String(sec, 2, d, "description");
    VendorExtensions(sec, 3, d);
    PutBytesField(out, 1, sec);
  }
  return out;
}

std::string Tag(const json& t) {
  std::string out;
  String(out, 1, t, "name");
  String(out, 2, t, "description");
  Message(out, 3, t, "externalDocs", ExternalDocs);
  VendorExtensions(out, 4, t);
  return out;
}

// Definitions, ParameterDefinitions, SecurityDefinitions: {repeated Named<T> = 1}.
template <typename Encode>
void NamedMapMessage(std::string& out, uint32_t n, const json& doc, std::string_view key,
                     Encode encode) {
  const json* map = Get(doc, key);
  if (map == nullptr || !map->is_object()) return;
  std::string message;
  NamedMap(message, 1, map, encode);
  PutBytesField(out, n, message);
}

}  // namespace

std::string EncodeOpenApiV2Document(const json& doc) {
  std::string out;
  String(out, 1, doc, "swagger");
  Message(out, 2, doc, "info", Info);
  String(out, 3, doc, "host");
  String(out, 4, doc, "basePath");
  Strings(out, 5, doc, "schemes");
  Strings(out, 6, doc, "consumes");
  Strings(out, 7, doc, "produces");
  Message(out, 8, doc, "paths", Paths);
  NamedMapMessage(out, 9, doc, "definitions", Schema);
  NamedMapMessage(out, 10, doc, "parameters", Parameter);
  NamedMapMessage(out, 11, doc, "responses", Response);
  Security(out, 12, doc);
  NamedMapMessage(out, 13, doc, "securityDefinitions", SecurityDefinitionsItem);
  if (const json* tags = Get(doc, "tags"); tags != nullptr && tags->is_array()) {
    for (const json& t : *tags) PutBytesField(out, 14, Tag(t));
  }
  Message(out, 15, doc, "externalDocs", ExternalDocs);
  VendorExtensions(out, 16, doc);
  return out;
}

}  // namespace tidepool::apiserver::protobuf
