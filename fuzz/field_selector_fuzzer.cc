// Fuzz target: apiserver/selectors FieldSelector::Parse, Validate and Matches (the
// fieldSelector query parameter).
// Input: any bytes, as the parameter's decoded value.
// Oracle: nothing crashes; validating against every kind of resource and matching a pod, a node
// and an event (and objects of the wrong shape) returns normally.
#include <nlohmann/json.hpp>

#include "apiserver/json_io.h"
#include "apiserver/selectors/fields.h"
#include "fuzz/fuzz_support.h"

using tidepool::apiserver::selectors::FieldSelector;

namespace {

const std::vector<nlohmann::json>& Objects() {
  static const std::vector<nlohmann::json> kObjects = [] {
    std::vector<nlohmann::json> out;
    for (const char* text : {
             R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},
                 "spec":{"nodeName":"n1","restartPolicy":"Always","hostNetwork":true},
                 "status":{"phase":"Running","podIPs":[{"ip":"10.0.0.1"}]}})",
             R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"spec":{"unschedulable":true}})",
             R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"e","namespace":"default"},
                 "involvedObject":{"kind":"Pod","name":"p"},"reason":"Scheduled","source":{}})",
             R"({"metadata":"x","spec":[],"status":{"podIPs":"x","succeeded":"x"}})",
             R"({"metadata":{"name":1},"involvedObject":[1],"source":"s","status":{"podIPs":[1]}})",
             R"([])", R"(null)"}) {
      out.push_back(*tidepool::apiserver::json_io::Parse(text));
    }
    return out;
  }();
  return kObjects;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto s = FieldSelector::Parse(tidepool::fuzz::AsText(data, size));
  if (!s.ok()) return 0;
  (void)s->String();
  static const std::pair<const char*, const char*> kResources[] = {
      {"", "pods"},       {"", "nodes"},       {"", "events"},    {"", "namespaces"},
      {"", "secrets"},    {"", "replicationcontrollers"},         {"events.k8s.io", "events"},
      {"batch", "jobs"},  {"apps", "deployments"}};
  for (const auto& [group, resource] : kResources) {
    (void)s->Validate(group, resource);
    for (const nlohmann::json& o : Objects()) (void)s->Matches(group, resource, o);
  }
  return 0;
}
