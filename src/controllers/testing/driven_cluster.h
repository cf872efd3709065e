// File: driven_cluster.h
//
// Test support for the controllers' executor mode (their `TimerService* executor`):
// DrivenCluster is one EventQueue, and on its clock a real ObjectStore and ApiServer (the
// namespaces "default" and "kube-system"), a RestClient over the in-process transport, and a
// SharedInformerFactory driven from the store by cluster::StoreInformerDriver (simulate's own
// driver: first lists and every write after, in revision order, handlers inline on the
// queue's thread). RunUntil hands the factory's informers to the driver and runs the queue.
//
// Deterministic: the same calls give the same store (uids and generated names come from the
// store's seeded generator; times from the EventQueue's clock). Not thread-safe: one thread,
// the EventQueue's.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apiserver/api_server.h"
#include "apiserver/object_store.h"
#include "apiserver/pod_logs.h"
#include "autoscaler/events.h"
#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "cluster/in_process_transport.h"
#include "cluster/store_informer_driver.h"
#include "common/event_queue.h"

namespace tidepool::controllers::testing {

// An EventRecorder that keeps what it is given, in order (the controllers' tests).
class RecordedEvents final : public autoscaler::EventRecorder {
 public:
  struct Entry {
    std::string kind, namespace_, name, type, reason, message;
  };
  void Event(const autoscaler::ObjectRef& o, std::string_view type, std::string_view reason,
             std::string message) override {
    entries.push_back(
        {o.kind, o.namespace_, o.name, std::string(type), std::string(reason), std::move(message)});
  }
  // The reasons recorded for objects named `name`, in order.
  std::vector<std::string> Reasons(const std::string& name) const {
    std::vector<std::string> out;
    for (const Entry& e : entries) {
      if (e.name == name) out.push_back(e.reason);
    }
    return out;
  }
  // Each as "<kind> <namespace>/<name> <type> <reason> <message>".
  std::vector<std::string> Lines() const {
    std::vector<std::string> out;
    for (const Entry& e : entries) {
      out.push_back(e.kind + " " + e.namespace_ + "/" + e.name + " " + e.type + " " + e.reason +
                    " " + e.message);
    }
    return out;
  }
  std::vector<Entry> entries;
};

class DrivenCluster {
 public:
  DrivenCluster();
  DrivenCluster(const DrivenCluster&) = delete;
  DrivenCluster& operator=(const DrivenCluster&) = delete;

  // Starts the factory's informers (driven), then runs every callback due at or before
  // `until`, then moves the clock to `until`. Returns the number of callbacks run.
  size_t RunUntil(TimePoint until);
  size_t RunFor(Duration d) { return RunUntil(events.Now() + d); }

  // Through the API (as kubectl would write).
  nlohmann::json Create(const std::string& collection_path, const nlohmann::json& obj);
  // The items of a collection, sorted by namespace and name (the API's order).
  std::vector<nlohmann::json> List(const std::string& collection_path);
  // The process's threads now (Linux: /proc/self/status), to check that an actor made none.
  static int Threads();

  EventQueue events;
  apiserver::ObjectStore store;
  apiserver::PodLogs logs;
  apiserver::ApiServer api;
  cluster::InProcessTransport transport;
  client::RestClient client;
  client::SharedInformerFactory informers;
  cluster::StoreInformerDriver driver;
};

}  // namespace tidepool::controllers::testing
