#include "apiserver/schema/openapi.h"

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string_view>

namespace tidepool::apiserver::schema {
namespace internal {
std::string_view EmbeddedK8sOpenApiJson();  // k8s_openapi_embedded.cc (generated)
}  // namespace internal

using nlohmann::json;

namespace {

const json& Embedded() {
  static const json kDoc = [] {
    json doc = json::parse(internal::EmbeddedK8sOpenApiJson(), nullptr, /*allow_exceptions=*/false);
    if (!doc.is_object() || !doc.contains("definitions") || !doc.contains("kinds")) {
      std::fprintf(stderr, "k8s_openapi.json: embedded text is not valid (a build defect)\n");
      std::abort();
    }
    return doc;
  }();
  return kDoc;
}

constexpr std::string_view kRefPrefix = "#/components/schemas/";

// Adds the names of the definitions `schema` references.
void CollectRefs(const json& schema, std::vector<std::string>* out) {
  if (schema.is_object()) {
    for (auto it = schema.begin(); it != schema.end(); ++it) {
      if (it.key() == "$ref" && it->is_string()) {
        const std::string& ref = it->get_ref<const std::string&>();
        if (ref.rfind(kRefPrefix, 0) == 0) out->push_back(ref.substr(kRefPrefix.size()));
      } else {
        CollectRefs(it.value(), out);
      }
    }
  } else if (schema.is_array()) {
    for (const json& e : schema) CollectRefs(e, out);
  }
}

}  // namespace

json OpenApiDefinitions(std::vector<std::string> pending) {
  const json& definitions = Embedded()["definitions"];
  json out = json::object();
  std::set<std::string> seen;
  while (!pending.empty()) {
    const std::string name = std::move(pending.back());
    pending.pop_back();
    if (!seen.insert(name).second) continue;
    auto def = definitions.find(name);
    if (def == definitions.end()) continue;
    out[name] = *def;
    CollectRefs(*def, &pending);
  }
  return out;
}

std::string OpenApiDefinitionName(const std::string& kind) {
  const json& by_kind = Embedded()["kinds"];
  auto it = by_kind.find(kind);
  return it != by_kind.end() && it->is_string() ? it->get<std::string>() : std::string();
}

json OpenApiComponents(const std::vector<std::string>& kinds) {
  std::vector<std::string> names;
  for (const std::string& k : kinds) {
    if (std::string name = OpenApiDefinitionName(k); !name.empty())
      names.push_back(std::move(name));
  }
  return OpenApiDefinitions(std::move(names));
}

}  // namespace tidepool::apiserver::schema
