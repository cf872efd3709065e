// File: timeline_feed.h
//
// TimelineFeed: what `tidepool simulate` shows of the cluster, read through informers of the
// API (pods, nodes, core/v1 events): each informer event
// is decoded once and handed to a sim::ChangeObserver (the TimelineRecorder) as the change the
// store used to report:
//   - pods: api::Pod (api/codec) with the container states the kubelet wrote
//     (kubelet::ContainerStatusesFromJson); added, modified, deleted;
//   - nodes: api::Node; added, modified, deleted;
//   - events: core/v1 Events as an sim::EventRecord (type, reason, message, count, source,
//     involved object, first/last timestamps); an update that raises count is "aggregated".
// An object that does not decode is skipped (counted in decode_errors()).
//
// Its informers come from the factory (shared with the actors: decoding informers, whose caches
// keep metadata only; driven in simulate, so handlers run on the event queue's thread in
// revision order). The first list is not reported (the recorder writes the initial state from
// Nodes() and Pods()); the feed keeps what it decoded for those two lists.
//
// Threads: the handlers' (one at a time per informer); Nodes()/Pods() from the same thread.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "client/informer.h"
#include "client/shared_informers.h"
#include "sim/cluster_changes.h"

namespace tidepool::runtime {

class TimelineFeed {
 public:
  // `informers` must outlive the feed, `observer` every informer event after Start of the
  // factory. Adds its handlers now: make it before the factory starts.
  TimelineFeed(client::SharedInformerFactory& informers, sim::ChangeObserver& observer,
               uint64_t seed);

  // The informers' caches, decoded: nodes by name, pods by namespace and name.
  std::vector<api::NodeConstSharedPtr> Nodes() const;
  std::vector<sim::PodRecord> Pods() const;

  uint64_t decode_errors() const { return decode_errors_; }

 private:
  static std::string KeyOf(const nlohmann::json& obj);
  // `initial`: an object of the first list (kept, not reported).
  void OnPod(const client::ObjectRef& obj, bool deleted, bool initial);
  void OnNode(const client::ObjectRef& obj, bool deleted, bool initial);
  void OnEvent(const client::ObjectRef& obj);

  sim::ChangeObserver& observer_;
  std::shared_ptr<client::Informer> pods_;
  std::shared_ptr<client::Informer> nodes_;
  std::shared_ptr<client::Informer> events_;
  std::map<std::string, api::NodeConstSharedPtr> nodes_by_name_;
  std::map<std::string, sim::PodRecord> pods_by_key_;
  uint64_t decode_errors_ = 0;
};

}  // namespace tidepool::runtime
