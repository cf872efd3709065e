// File: events.h
//
// Where the autoscaler's Kubernetes events go (CA's LogRecorder / client-go EventRecorder):
// the embedded object store in `up` and `simulate`, the API server in `autoscale`, a vector in
// tests.
#pragma once

#include <string>
#include <string_view>

namespace tidepool::autoscaler {

struct ObjectRef {
  std::string kind;  // "Pod", "Node", "ConfigMap"
  std::string namespace_;
  std::string name;
  std::string uid;
};

class EventRecorder {
 public:
  virtual ~EventRecorder() = default;
  // `type` is "Normal" or "Warning".
  virtual void Event(const ObjectRef& object, std::string_view type, std::string_view reason,
                     std::string message) = 0;
};

}  // namespace tidepool::autoscaler
