// File: store_informer_driver.h
//
// StoreInformerDriver: the client::InformerDriver of `tidepool simulate`, where every actor
// (kube-scheduler, the kubelets, kube-controller-manager's controllers, the autoscaler) runs on
// one deterministic TimerService (common/event_queue.h) against the API's ObjectStore. It feeds
// driven informers (client/informer.h) straight from the store, as an API server's list and
// watch would, without threads, sockets or waits:
//
//   - an informer that starts (Informer::Start -> Started) gets its first list as a callback
//     on the executor at now: the store's objects of its collection that pass its selectors,
//     at the store's revision then (FeedList; the informer has synced when that returns);
//   - from then on, every write the store commits reaches the informers as FeedEvent calls, in
//     revision order across all resources, in a callback on the executor at the writer's now:
//     the store's one unbounded watch tells the driver that events wait (on_ready) and the
//     driver schedules one delivery for everything committed until it runs;
//   - an informer's path names its collection as the API does ("/api/v1/pods",
//     "/api/v1/namespaces/NS/configmaps", "/apis/apps/v1/replicasets", ...); its label and
//     field selectors filter as the API's watch does: an object that leaves the selection is
//     DELETED for the informer, one that enters it ADDED;
//   - a served version kept in another resource's storage (resources.h's StorageOf: an
//     events.k8s.io/v1 Event is a core/v1 Event; an autoscaling/v1 HPA is a v2 one) is fed
//     every write to that storage, converted to the informer's version (conversion.h);
//   - objects are the stored JSON (what a JSON list or watch answer carries), parsed once per
//     event and copied for each further informer of the same resource; without managedFields
//     when none of those informers reads them (InformerOptions::drop_managed_fields).
// An informer whose path the store does not serve is logged and never synced.
//
// Determinism: deliveries follow the store's revisions; informers of one resource are fed in
// the order they started. Nothing here reads a clock.
//
// Threads: none. Start, Started, the deliveries and Stop all run on the executor's thread
// (writes to the store may come from it only). Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "apiserver/object_store.h"
#include "client/informer.h"
#include "common/log.h"
#include "common/timer_service.h"

namespace tidepool::cluster {

class StoreInformerDriver final : public client::InformerDriver {
 public:
  // `store` and `executor` must outlive the driver; `logger` may be null.
  StoreInformerDriver(apiserver::ObjectStore& store, TimerService& executor,
                      log::Logger* logger = nullptr);
  ~StoreInformerDriver() override;
  StoreInformerDriver(const StoreInformerDriver&) = delete;
  StoreInformerDriver& operator=(const StoreInformerDriver&) = delete;

  // client::InformerDriver: lists `informer` in a callback at now, then feeds it.
  void Started(std::shared_ptr<client::Informer> informer) override;

  // Delivers now what the store committed since the last delivery (the executor's callbacks
  // call this; tests may too).
  void Deliver();
  // Stops feeding; informers keep their caches.
  void Stop();

  // Informers fed, and watch events delivered so far (each counted once, whatever the number
  // of informers it reached).
  size_t informers() const { return fed_.size(); }
  uint64_t events() const { return events_; }

 private:
  struct Fed;  // one informer and its collection
  void List(const std::shared_ptr<Fed>& fed);
  void EnsureWatch();
  void ScheduleDelivery();
  // The event object's tree for `feds` (see the file comment).
  static nlohmann::json ParseFor(const std::vector<std::shared_ptr<Fed>>& feds,
                                 const apiserver::StoredObject& object);
  void DeliverTo(Fed& fed, const apiserver::WatchEvent& e, nlohmann::json* parsed, bool last);

  apiserver::ObjectStore& store_;
  TimerService& executor_;
  log::Logger* logger_;
  std::unique_ptr<apiserver::Watch> watch_;
  bool delivery_pending_ = false;
  bool stopped_ = false;
  uint64_t events_ = 0;
  // Listed informers by resource, in the order they started.
  // Keyed by storage resource (StorageOf), as the store's watch events name it.
  std::map<const apiserver::Resource*, std::vector<std::shared_ptr<Fed>>> by_resource_;
  std::vector<std::shared_ptr<Fed>> fed_;
};

}  // namespace tidepool::cluster
