// File: store_informer_feed_for_test.h
//
// Test support, not for production code (the real driver of `tidepool simulate` lives in
// cluster/): StoreInformerFeed drives informers that were not started from an ObjectStore in the
// same process, on the caller's thread, the way actors on an executor see them in simulate:
//   - Start(): opens an unbounded watch of every resource at the store's revision, then feeds
//     each bound informer a complete list of its resource (Informer::ReplaceForTest: the
//     informer has synced once this returns);
//   - Pump(): drains the watch and hands each event to the informers bound to its resource
//     (Informer::ApplyForTest), in revision order;
//   - RunUntil(queue, until): pumps, then runs the EventQueue one callback at a time, pumping
//     after each, until nothing is due at or before `until`; the clock ends at `until`.
// Handlers run inline, on the caller's thread. Only cluster-wide collection paths without
// selectors are understood ("/api/v1/pods", "/apis/apps/v1/replicasets").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apiserver/object_store.h"
#include "apiserver/resources.h"
#include "client/informer.h"
#include "common/check.h"
#include "common/event_queue.h"

namespace tidepool::runtime::testing {

class StoreInformerFeed {
 public:
  explicit StoreInformerFeed(apiserver::ObjectStore& store) : store_(store) {}

  // Feeds `informer` (not started) with the objects of the collection at `path`.
  void Bind(std::string_view path, std::shared_ptr<client::Informer> informer) {
    const apiserver::Resource* r = ResourceOf(path);
    TIDEPOOL_CHECK(r != nullptr);
    bound_.push_back({r, std::move(informer)});
  }

  // The informers' first lists.
  void Start() {
    const int64_t rv = store_.resource_version();
    auto w = store_.OpenWatch(nullptr, "", rv, apiserver::ObjectStore::Backlog::kUnbounded);
    TIDEPOOL_CHECK(w.ok());
    watch_ = std::move(w).value();
    for (const Bound& b : bound_) {
      apiserver::ObjectStore::ListResult list = store_.List(*b.resource, "");
      std::vector<nlohmann::json> items;
      for (const apiserver::ObjectPtr& o : list.items) items.push_back(o->Parse());
      b.informer->ReplaceForTest(std::move(items), std::to_string(list.resource_version));
    }
  }

  // Hands the store's events since the last call to the informers. Returns how many events.
  size_t Pump() {
    if (!watch_) return 0;
    std::vector<apiserver::EventPtr> events;
    watch_->Drain(&events);
    for (const apiserver::EventPtr& e : events) {
      for (const Bound& b : bound_) {
        if (b.resource != e->resource) continue;
        b.informer->ApplyForTest(std::string(apiserver::EventTypeName(e->type)),
                                 e->object->Parse());
      }
    }
    return events.size();
  }

  // Returns how many callbacks of `queue` ran.
  size_t RunUntil(EventQueue& queue, TimePoint until) {
    size_t n = 0;
    Pump();
    while (queue.NextEventTime().has_value() && *queue.NextEventTime() <= until) {
      queue.Step();
      ++n;
      Pump();
    }
    queue.RunUntil(until);
    return n;
  }

 private:
  struct Bound {
    const apiserver::Resource* resource;
    std::shared_ptr<client::Informer> informer;
  };
  // "/api/<version>/<resource>" or "/apis/<group>/<version>/<resource>".
  static const apiserver::Resource* ResourceOf(std::string_view path) {
    std::vector<std::string_view> parts;
    while (!path.empty()) {
      path.remove_prefix(1);
      const size_t slash = path.find('/');
      parts.push_back(path.substr(0, slash));
      path = slash == std::string_view::npos ? std::string_view() : path.substr(slash);
    }
    if (parts.size() == 3 && parts[0] == "api")
      return apiserver::FindResource("", parts[1], parts[2]);
    if (parts.size() == 4 && parts[0] == "apis") {
      return apiserver::FindResource(parts[1], parts[2], parts[3]);
    }
    return nullptr;
  }

  apiserver::ObjectStore& store_;
  std::vector<Bound> bound_;
  std::unique_ptr<apiserver::Watch> watch_;
};

}  // namespace tidepool::runtime::testing
