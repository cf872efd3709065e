#include "runtime/event_json.h"

namespace tidepool::runtime {

using nlohmann::json;

std::string EventNamespace(const autoscaler::ObjectRef& object) {
  return object.namespace_.empty() ? "default" : object.namespace_;
}

json EventJson(const sim::EventRecord& e) {
  json involved = {{"kind", e.involved_object.kind},
                   {"name", e.involved_object.name},
                   {"uid", e.involved_object.uid},
                   {"apiVersion", e.involved_object.kind == "PodDisruptionBudget" ? "policy/v1" : "v1"}};
  if (!e.involved_object.namespace_.empty()) involved["namespace"] = e.involved_object.namespace_;
  json source = {{"component", e.source.component}};
  if (!e.source.host.empty()) source["host"] = e.source.host;
  return json{{"apiVersion", "v1"},
              {"kind", "Event"},
              {"metadata", {{"name", e.name}, {"namespace", EventNamespace(e.involved_object)}}},
              {"involvedObject", involved},
              {"reason", e.reason},
              {"message", e.message},
              {"source", source},
              {"firstTimestamp", FormatRfc3339(e.first_timestamp)},
              {"lastTimestamp", FormatRfc3339(e.last_timestamp)},
              {"count", e.count},
              {"type", e.type},
              {"eventTime", nullptr},
              {"reportingComponent", e.source.component},
              {"reportingInstance", e.source.host}};
}

}  // namespace tidepool::runtime
