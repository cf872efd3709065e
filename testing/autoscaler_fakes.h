// File: autoscaler_fakes.h
//
// Fakes for the autoscaler's outputs: an EventRecorder that keeps every event, and a
// ClusterWriter that records its calls (its one read too: "pods n1,n2"), answers that read
// from `pods_on` and fails on request.
#pragma once

#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "autoscaler/cluster_view.h"
#include "autoscaler/events.h"

namespace tidepool::testing {

struct RecordedEvent {
  std::string object;  // "<Kind>/<namespace>/<name>", or "<Kind>/<name>" when cluster-scoped
  std::string type, reason, message;
  friend bool operator==(const RecordedEvent&, const RecordedEvent&) = default;
};

inline std::ostream& operator<<(std::ostream& os, const RecordedEvent& e) {
  return os << "{" << e.object << " " << e.type << " " << e.reason << " \"" << e.message << "\"}";
}

class RecordingEventRecorder final : public autoscaler::EventRecorder {
 public:
  void Event(const autoscaler::ObjectRef& o, std::string_view type, std::string_view reason,
             std::string message) override {
    std::string obj = o.kind + "/" + (o.namespace_.empty() ? "" : o.namespace_ + "/") + o.name;
    events.push_back({obj, std::string(type), std::string(reason), std::move(message)});
  }
  bool Has(const std::string& reason, const std::string& message) const {
    for (const auto& e : events) {
      if (e.reason == reason && e.message == message) {
        return true;
      }
    }
    return false;
  }
  int Count(const std::string& reason) const {
    int n = 0;
    for (const auto& e : events) {
      n += e.reason == reason ? 1 : 0;
    }
    return n;
  }
  std::vector<RecordedEvent> events;
};

class FakeClusterWriter final : public autoscaler::ClusterWriter {
 public:
  std::map<std::string, std::vector<scheduler::PodInfoConstSharedPtr>> PodsOnNodes(
      const std::set<std::string, std::less<>>& nodes) const override {
    std::string names;
    for (const std::string& n : nodes) names += (names.empty() ? "" : ",") + n;
    calls.push_back("pods " + names);
    std::map<std::string, std::vector<scheduler::PodInfoConstSharedPtr>> out;
    for (const auto& [node, pods] : pods_on) {
      if (nodes.count(node) > 0) out[node] = pods;
    }
    return out;
  }
  Status AddNodeTaint(const std::string& node, const api::Taint& taint) override {
    calls.push_back("taint " + node + " " + taint.ToString());
    if (fail_taint.count(node) > 0) {
      return UnavailableError("the server is currently unable to handle the request");
    }
    return OkStatus();
  }
  Status RemoveNodeTaint(const std::string& node, const std::string& key) override {
    calls.push_back("untaint " + node + " " + key);
    return OkStatus();
  }
  Status EvictPod(const std::string& ns, const std::string& name,
                  int64_t grace_period_seconds) override {
    calls.push_back("evict " + ns + "/" + name + " grace " + std::to_string(grace_period_seconds));
    if (fail_evict.count(ns + "/" + name) > 0) {
      return ResourceExhaustedError(
          "Cannot evict pod as it would violate the pod's disruption budget.");
    }
    return OkStatus();
  }
  // What PodsOnNodes answers: the pods bound to each node now (none unless set).
  std::map<std::string, std::vector<scheduler::PodInfoConstSharedPtr>> pods_on;
  std::set<std::string> fail_taint;
  std::set<std::string> fail_evict;
  mutable std::vector<std::string> calls;
};

}  // namespace tidepool::testing
