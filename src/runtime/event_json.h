// File: event_json.h
//
// A core/v1 Event as client-go's legacy recorder (k8s.io/client-go/tools/record, v0.32) writes
// it: name "<object>.<hex nanoseconds>", namespace the object's ("default" for cluster-scoped
// objects), involvedObject, source.component, first/lastTimestamp, count, reportingComponent.
// The shape of the events every API client of tidepool posts (kube_cluster's recorder: the
// autoscaler, kube-scheduler, the kubelets and kcm's controllers).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/cluster_changes.h"

namespace tidepool::runtime {

// The Event object for `e` (without resourceVersion).
// The apiVersion of an involved object of `kind` (events name it beside the kind).
std::string_view KindApiVersion(std::string_view kind);

nlohmann::json EventJson(const sim::EventRecord& e);
// The namespace an event about `object` lives in.
std::string EventNamespace(const autoscaler::ObjectRef& object);

}  // namespace tidepool::runtime
