// File: driven_cluster.h
//
// Test support for the controllers' executor mode (their `TimerService* executor`), until
// src/cluster/ has `tidepool simulate`'s own driver (which will replace this):
//
//   - InformerFeed: feeds the informers of a SharedInformerFactory - never started - from an
//     ObjectStore, by hand, on the caller's thread: an informer the feed has not seen yet gets
//     the store's current objects of its collection as its first list (ReplaceForTest); then
//     every event of the store (an unbounded watch of every resource, drained) goes to the
//     informers whose collection holds it (ApplyForTest), in revision order, informers in the
//     order the factory made them. So the informers' handlers run inline, as the driver will
//     run them. Collections are matched by path ("/api/v1/pods", "/apis/apps/v1/replicasets",
//     or a namespace's); informers with a label or field selector are not supported.
//   - DrivenCluster: one EventQueue, and on its clock a real ObjectStore and ApiServer (the
//     namespaces "default" and "kube-system"), a RestClient over the in-process transport, a
//     SharedInformerFactory (never started) and the feed. RunUntil steps the queue, feeding
//     the informers before the first step and after each one.
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
#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "cluster/in_process_transport.h"
#include "common/event_queue.h"

namespace tidepool::controllers::testing {

class InformerFeed {
 public:
  // `store` and `factory` must outlive the feed. Events from the store's current revision on.
  InformerFeed(apiserver::ObjectStore& store, client::SharedInformerFactory& factory);

  // Hands every store event since the last call to the informers fed so far, then lists the
  // store for the factory's informers not fed yet.
  void Pump();

 private:
  apiserver::ObjectStore& store_;
  client::SharedInformerFactory& factory_;
  std::unique_ptr<apiserver::Watch> watch_;
  // The informers fed so far, and the revision of their first list.
  std::map<const client::Informer*, int64_t> fed_;
};

class DrivenCluster {
 public:
  DrivenCluster();
  DrivenCluster(const DrivenCluster&) = delete;
  DrivenCluster& operator=(const DrivenCluster&) = delete;

  // Feeds the informers, then runs every callback due at or before `until` (feeding after
  // each), then moves the clock to `until`. Returns the number of callbacks run.
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
  InformerFeed feed;
};

}  // namespace tidepool::controllers::testing
