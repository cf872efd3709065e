#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>

#include "apiserver/handlers/handler.h"
#include "apiserver/negotiation.h"
#include "apiserver/protobuf/encode.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

// A LIST answer in protobuf, or nullopt when an item does not encode (JSON then).
std::optional<std::string> ProtobufList(const Resource& res, const std::vector<ObjectPtr>& items,
                                        int64_t resource_version) {
  auto e = protobuf::ListEncoder::Start(res.GroupVersion(), res.kind,
                                        {{"resourceVersion", std::to_string(resource_version)}});
  if (!e.ok()) return std::nullopt;
  for (const ObjectPtr& o : items) {
    const json obj = json::parse(o->text, nullptr, /*allow_exceptions=*/false);
    if (!obj.is_object() || !e->Add(obj).ok()) return std::nullopt;
  }
  return e->Finish();
}

// A LIST answer in JSON: the stored texts as they are, in one XList.
std::string ListJson(const Resource& res, const ObjectStore::ListResult& list) {
  std::string body = "{\"kind\":\"" + res.list_kind + "\",\"apiVersion\":\"" + res.GroupVersion() +
                     "\",\"metadata\":{\"resourceVersion\":\"" +
                     std::to_string(list.resource_version) + "\"},\"items\":[";
  size_t total = body.size() + 2;
  for (const ObjectPtr& o : list.items) total += o->text.size() + 1;
  body.reserve(total);
  for (size_t i = 0; i < list.items.size(); ++i) {
    if (i > 0) body += ',';
    body += list.items[i]->text;
  }
  body += "]}";
  return body;
}

// Every event queued when the watcher wakes goes out in one chunk of at most about
// kMaxWatchChunk bytes (one event may pass it): one write per wake-up, not per event,
// and memory per watcher bounded however far behind it is.
constexpr size_t kMaxWatchChunk = 256 << 10;

// A protobuf event (encode.h, EncodeWatchEvent); an object that does not encode gives an ERROR
// event instead, which ends the stream, as the JSON framing cannot follow protobuf frames.
std::string ProtobufEvent(std::string_view type, const json& object) {
  auto frame = protobuf::EncodeWatchEvent(type, object);
  if (frame.ok()) return std::move(frame).value();
  const ApiError e{500, "InternalError",
                   "Internal error occurred: " + std::string(frame.status().message()), json()};
  return protobuf::EncodeWatchEvent("ERROR", StatusJson(e)).value();
}

// One watch's stream after its headers: events as JSON lines (Tables when asked) or protobuf
// frames, and bookmarks.
struct WatchStream {
  Context& c;
  const Filter& filter;
  const bool table;
  int64_t last_rv;            // the newest revision the watch has seen
  bool headers_sent = false;  // a Table's column definitions go in the first event only
  std::string chunk;

  // Appends one event to the chunk; false when a protobuf event does not encode (its ERROR
  // event is appended instead, and the stream ends).
  bool Append(const ObjectFilter::Seen& seen, const WatchEvent& e, TimePoint now) {
    const std::string_view type = seen.type;
    // An object that left the selection is sent as it was, at the event's revision.
    std::string left_text;
    if (seen.left) left_text = AtRevision(*seen.object, e.resource_version).dump();
    const std::string& text = seen.left ? left_text : seen.object->text;
    if (c.protobuf_out) {
      json obj = json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (obj.is_object()) {
        if (!obj.contains("apiVersion")) obj["apiVersion"] = c.res.GroupVersion();
        if (!obj.contains("kind")) obj["kind"] = c.res.kind;
      }
      auto frame = protobuf::EncodeWatchEvent(type, obj);
      if (!frame.ok()) {
        chunk += ProtobufEvent(type, obj);  // the ERROR event
        return false;
      }
      chunk += *frame;
      return true;
    }
    chunk += "{\"type\":\"";
    chunk += type;
    chunk += "\",\"object\":";
    if (table) {
      chunk += printers::BuildTableText(c.res.group, c.res.resource, {{&seen.object->view, text}},
                                        std::to_string(e.resource_version), now,
                                        IncludeObjectParam(c.req), !headers_sent);
      headers_sent = true;
    } else {
      chunk += text;
    }
    chunk += "}\n";
    return true;
  }

  // Writes the events of one wake-up; false when the stream ends (the peer is gone, or a
  // protobuf event did not encode).
  bool WriteBatch(const std::vector<EventPtr>& batch, TimePoint now) {
    chunk.clear();
    bool failed = false;
    for (const EventPtr& ep : batch) {
      const WatchEvent& e = *ep;
      last_rv = std::max(last_rv, e.resource_version);
      const std::optional<ObjectFilter::Seen> seen = filter.Select(e);
      if (!seen) continue;
      if (!Append(*seen, e, now)) {
        failed = true;
        break;
      }
      if (chunk.size() >= kMaxWatchChunk) {
        if (!c.w.WriteChunk(chunk)) return false;
        chunk.clear();
      }
    }
    if (!chunk.empty() && !c.w.WriteChunk(chunk)) return false;
    return !failed;
  }

  // A BOOKMARK event at the newest revision the watch has seen or the store has.
  std::string Bookmark() const {
    json bm = {
        {"type", "BOOKMARK"},
        {"object",
         {{"kind", c.res.kind},
          {"apiVersion", c.res.GroupVersion()},
          {"metadata",
           {{"resourceVersion", std::to_string(std::max(last_rv, c.store.resource_version()))},
            {"creationTimestamp", nullptr}}}}}};
    return c.protobuf_out ? ProtobufEvent("BOOKMARK", bm["object"])
                          : bm.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  }
};

}  // namespace

void HandleGet(Context& c) {
  auto o = c.store.Get(c.res, c.r.ns, c.r.name);
  if (!o.ok()) return c.Fail(o.status());
  return c.SendObject(200, *o);
}

void HandleList(Context& c) {
  const http::HttpRequest& req = c.req;
  const Resource& res = c.res;
  auto filter = ParseFilter(req, res);
  if (!filter.ok()) return c.Fail(filter.status());
  // A list at an exact resourceVersion (resourceVersionMatch=Exact, or a limit with a
  // resourceVersion: kube's legacy exact reads) the history no longer covers is 410, as
  // kube-apiserver answers a revision etcd compacted.
  if (const std::string rv = req.Query("resourceVersion");
      !rv.empty() && rv != "0" &&
      (req.Query("resourceVersionMatch") == "Exact" ||
       (!req.Query("limit").empty() && req.Query("resourceVersionMatch").empty()))) {
    const int64_t at = std::atoll(rv.c_str());
    if (at > 0 && !c.store.CheckHistory(res, at).ok()) {
      return SendError(
          c.w, {410, "Expired", "The resourceVersion for the provided list is too old.", json()});
    }
  }
  auto list = ListMatching(c.store, res, res.namespaced ? c.r.ns : "", *filter);
  if (WantsTable(req)) {
    std::vector<printers::TableObject> objs;
    objs.reserve(list.items.size());
    for (const ObjectPtr& o : list.items) objs.push_back({&o->view, o->text});
    c.w.Send(200, kJson,
             printers::BuildTableText(res.group, res.resource, objs,
                                      std::to_string(list.resource_version), c.clock.Now(),
                                      IncludeObjectParam(req), true));
    return;
  }
  if (c.protobuf_out) {
    if (std::optional<std::string> pb = ProtobufList(res, list.items, list.resource_version)) {
      return c.w.Send(200, kProtobufContentType, std::move(*pb));
    }
  }
  c.w.Send(200, kJson, ListJson(res, list));
}

void HandleWatch(Context& c) {
  const http::HttpRequest& req = c.req;
  auto filter = ParseFilter(req, c.res);
  if (!filter.ok()) return c.Fail(filter.status());
  int64_t from = 0;
  const std::string rv = req.Query("resourceVersion");
  if (!rv.empty()) {
    try {
      from = std::stoll(rv);
    } catch (...) {
      return SendError(c.w, {400, "BadRequest", "invalid resource version: " + rv, json()});
    }
  }
  auto watch_or = c.store.OpenWatch(&c.res, c.res.namespaced ? c.r.ns : "", from);
  const bool table = WantsTable(req);
  if (!c.w.StartStream(200, c.protobuf_out ? kProtobufWatchContentType : kJson)) return;
  if (!watch_or.ok()) {
    const ApiError e = FromStatus(watch_or.status(), &c.res, "");
    c.w.WriteChunk(c.protobuf_out ? ProtobufEvent("ERROR", StatusJson(e))
                                  : json{{"type", "ERROR"}, {"object", StatusJson(e)}}.dump(
                                        -1, ' ', false, json::error_handler_t::replace) +
                                        "\n");
    c.w.EndStream();
    return;
  }
  std::unique_ptr<Watch> watch_stream = std::move(watch_or).value();
  std::optional<TimePoint> deadline;
  if (req.HasQuery("timeoutSeconds")) {
    deadline =
        c.clock.Now() + std::chrono::seconds(std::atoll(req.Query("timeoutSeconds").c_str()));
  }
  const bool bookmarks = QueryBool(req, "allowWatchBookmarks");
  TimePoint next_bookmark = c.clock.Now() + c.options.bookmark_interval;
  WatchStream stream{c, *filter, table, from};
  std::vector<EventPtr> batch;
  while (true) {
    batch.clear();
    const auto result = watch_stream->NextBatch(std::chrono::seconds(1), kMaxWatchChunk, &batch);
    if (result == Watch::Result::kClosed) break;
    const TimePoint now = c.clock.Now();
    if (result == Watch::Result::kEvent) {
      if (!stream.WriteBatch(batch, now)) break;
      continue;
    }
    if (c.w.Closed()) break;
    if (deadline && now >= *deadline) break;
    if (bookmarks && now >= next_bookmark) {
      next_bookmark = now + c.options.bookmark_interval;
      if (!c.w.WriteChunk(stream.Bookmark())) break;
    }
  }
  // A watcher the store closed for falling too far behind (watch_stream->error()) ends
  // as kube's cacher ends an unresponsive watcher: the stream just ends, and the client
  // watches again from the last revision it saw.
  c.w.EndStream();
}

}  // namespace tidepool::apiserver::handlers
