#include "runtime/event_json.h"

namespace tidepool::runtime {

using nlohmann::json;

std::string EventNamespace(const autoscaler::ObjectRef& object) {
  return object.namespace_.empty() ? "default" : object.namespace_;
}

std::string_view KindApiVersion(std::string_view kind) {
  if (kind == "PodDisruptionBudget") return "policy/v1";
  if (kind == "ReplicaSet" || kind == "Deployment" || kind == "StatefulSet" ||
      kind == "DaemonSet" || kind == "ControllerRevision") {
    return "apps/v1";
  }
  if (kind == "Job" || kind == "CronJob") return "batch/v1";
  return "v1";
}

json EventJson(const sim::EventRecord& e) {
  json involved = {{"kind", e.involved_object.kind},
                   {"name", e.involved_object.name},
                   {"uid", e.involved_object.uid},
                   {"apiVersion", KindApiVersion(e.involved_object.kind)}};
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
