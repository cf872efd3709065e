#include "runtime/timeline_feed.h"

#include <utility>

#include "api/codec/json_codec.h"
#include "api/codec/json_fields.h"
#include "client/decoded.h"
#include "kubelet/status_json.h"

namespace tidepool::runtime {
namespace {

using nlohmann::json;

using api::codec::JsonAt;
using api::codec::JsonStr;

// core/v1 Event -> what the timeline shows of it.
sim::EventRecord EventOf(const json& e) {
  sim::EventRecord r;
  r.name = JsonStr(JsonAt(e, "metadata"), "name");
  const json& o = JsonAt(e, "involvedObject");
  r.involved_object.kind = JsonStr(o, "kind");
  r.involved_object.namespace_ = JsonStr(o, "namespace");
  r.involved_object.name = JsonStr(o, "name");
  r.involved_object.uid = JsonStr(o, "uid");
  r.type = JsonStr(e, "type");
  r.reason = JsonStr(e, "reason");
  r.message = JsonStr(e, "message");
  r.source.component = JsonStr(JsonAt(e, "source"), "component");
  r.source.host = JsonStr(JsonAt(e, "source"), "host");
  r.first_timestamp = api::codec::JsonTime(e, "firstTimestamp").value_or(TimePoint());
  r.last_timestamp = api::codec::JsonTime(e, "lastTimestamp").value_or(TimePoint());
  const json& count = JsonAt(e, "count");
  r.count = count.is_number_integer() ? count.get<int32_t>() : 1;
  return r;
}

}  // namespace

TimelineFeed::TimelineFeed(client::SharedInformerFactory& informers, sim::ChangeObserver& observer,
                           uint64_t seed)
    : observer_(observer) {
  auto handlers = [](auto on) -> client::ResourceEventHandlers {
    return {[on](const client::ObjectRef& obj, bool initial) { on(obj, false, initial); },
            [on](const client::ObjectRef&, const client::ObjectRef& obj) { on(obj, false, false); },
            [on](const client::ObjectRef& obj, bool) { on(obj, true, false); }};
  };
  pods_ = informers.InformerFor(client::DecodingInformerOptions("pods", "/api/v1/pods", seed));
  pods_->AddEventHandlers(handlers([this](const client::ObjectRef& o, bool deleted, bool initial) {
    OnPod(o, deleted, initial);
  }));
  nodes_ = informers.InformerFor(client::DecodingInformerOptions("nodes", "/api/v1/nodes", seed));
  nodes_->AddEventHandlers(handlers([this](const client::ObjectRef& o, bool deleted, bool initial) {
    OnNode(o, deleted, initial);
  }));
  events_ =
      informers.InformerFor(client::DecodingInformerOptions("events", "/api/v1/events", seed));
  events_->AddEventHandlers(
      handlers([this](const client::ObjectRef& o, bool deleted, bool initial) {
        if (!deleted && !initial) OnEvent(o);
      }));
}

std::string TimelineFeed::KeyOf(const json& obj) {
  const json& md = JsonAt(obj, "metadata");
  const std::string ns = JsonStr(md, "namespace");
  return ns.empty() ? JsonStr(md, "name") : ns + "/" + JsonStr(md, "name");
}

void TimelineFeed::OnPod(const client::ObjectRef& obj, bool deleted, bool initial) {
  const std::string key = KeyOf(*obj);
  auto known = pods_by_key_.find(key);
  sim::PodChange change;
  if (deleted) {
    if (known == pods_by_key_.end()) return;
    change.type = sim::ChangeType::kDeleted;
    change.old_pod = known->second;
    change.pod = std::move(known->second);
    pods_by_key_.erase(known);
    observer_.OnPodChange(change);
    return;
  }
  StatusOr<api::PodConstSharedPtr> pod = client::DecodedPod(obj);
  if (!pod.ok()) {
    ++decode_errors_;
    return;
  }
  sim::PodRecord rec{*std::move(pod), kubelet::ContainerStatusesFromJson(*obj)};
  change.type = known == pods_by_key_.end() ? sim::ChangeType::kAdded : sim::ChangeType::kModified;
  if (known != pods_by_key_.end()) change.old_pod = known->second;
  change.pod = rec;
  pods_by_key_[key] = std::move(rec);
  if (!initial) observer_.OnPodChange(change);
}

void TimelineFeed::OnNode(const client::ObjectRef& obj, bool deleted, bool initial) {
  const std::string key = KeyOf(*obj);
  auto known = nodes_by_name_.find(key);
  sim::NodeChange change;
  if (deleted) {
    if (known == nodes_by_name_.end()) return;
    change.type = sim::ChangeType::kDeleted;
    change.old_node = known->second;
    change.node = known->second;
    nodes_by_name_.erase(known);
    observer_.OnNodeChange(change);
    return;
  }
  StatusOr<api::NodeConstSharedPtr> node = client::DecodedNode(obj);
  if (!node.ok()) {
    ++decode_errors_;
    return;
  }
  change.type =
      known == nodes_by_name_.end() ? sim::ChangeType::kAdded : sim::ChangeType::kModified;
  if (known != nodes_by_name_.end()) change.old_node = known->second;
  change.node = *std::move(node);
  nodes_by_name_[key] = change.node;
  if (!initial) observer_.OnNodeChange(change);
}

void TimelineFeed::OnEvent(const client::ObjectRef& obj) {
  sim::EventChange change;
  change.event = EventOf(*obj);
  change.aggregated = change.event.count > 1;
  observer_.OnEvent(change);
}

std::vector<api::NodeConstSharedPtr> TimelineFeed::Nodes() const {
  std::vector<api::NodeConstSharedPtr> out;
  out.reserve(nodes_by_name_.size());
  for (const auto& [name, node] : nodes_by_name_) out.push_back(node);
  return out;
}

std::vector<sim::PodRecord> TimelineFeed::Pods() const {
  std::vector<sim::PodRecord> out;
  out.reserve(pods_by_key_.size());
  for (const auto& [key, pod] : pods_by_key_) out.push_back(pod);
  return out;
}

}  // namespace tidepool::runtime
