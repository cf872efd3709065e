#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>

#include "apiserver/conversion.h"
#include "apiserver/handlers/handler.h"
#include "apiserver/list_paging.h"
#include "apiserver/negotiation.h"
#include "apiserver/protobuf/encode.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

// The list's metadata: resourceVersion, then a page's continue and remainingItemCount (Go's
// field order).
std::string ListMetaJson(int64_t resource_version, const PageMeta& page) {
  std::string meta = "{\"resourceVersion\":\"" + std::to_string(resource_version) + "\"";
  if (!page.continue_token.empty()) {
    meta += ",\"continue\":\"" + page.continue_token + "\"";  // RawURL base64: nothing to escape
    if (page.remaining_items)
      meta += ",\"remainingItemCount\":" + std::to_string(*page.remaining_items);
  }
  return meta + "}";
}

// A LIST answer in protobuf, or nullopt when an item does not encode (JSON then).
std::optional<std::string> ProtobufList(const Resource& res, const ObjectStore::ListResult& list,
                                        const PageMeta& page) {
  auto e = protobuf::ListEncoder::Start(res.GroupVersion(), res.kind,
                                        json::parse(ListMetaJson(list.resource_version, page)));
  if (!e.ok()) return std::nullopt;
  for (const ObjectPtr& o : list.items) {
    const json obj =
        conversion::FromStorage(res, json::parse(o->text, nullptr, /*allow_exceptions=*/false));
    if (!obj.is_object() || !e->Add(obj).ok()) return std::nullopt;
  }
  return e->Finish();
}

// A LIST answer in JSON: the stored texts as they are, in one XList.
std::string ListJson(const Resource& res, const ObjectStore::ListResult& list,
                     const PageMeta& page) {
  std::string body = "{\"kind\":\"" + res.list_kind + "\",\"apiVersion\":\"" + res.GroupVersion() +
                     "\",\"metadata\":" + ListMetaJson(list.resource_version, page) +
                     ",\"items\":[";
  size_t total = body.size() + 2;
  for (const ObjectPtr& o : list.items) total += o->text.size() + 1;
  body.reserve(total);
  const bool convert = conversion::Converts(res);
  for (size_t i = 0; i < list.items.size(); ++i) {
    if (i > 0) body += ',';
    body += convert ? conversion::FromStorageText(res, list.items[i]->text) : list.items[i]->text;
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
    // Stored in another version: sent in the watch's.
    if (conversion::Converts(c.res)) {
      left_text = conversion::FromStorageText(c.res, seen.left ? left_text : seen.object->text);
    }
    const std::string& text =
        seen.left || conversion::Converts(c.res) ? left_text : seen.object->text;
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
      chunk += TableText(c.res, {{&seen.object->view, text}}, std::to_string(e.resource_version),
                         now, IncludeObjectParam(c.req), !headers_sent);
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

namespace {

// kube's texts for lists at revisions the store no longer has (etcd3's interpretListError).
constexpr char kListExpired[] = "The resourceVersion for the provided list is too old.";
constexpr char kInconsistentContinue[] =
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this "
    "response to retrieve the remainder of the results. Continuing with the provided token "
    "results in an inconsistent list - objects that were created, modified, or deleted between "
    "the time the first chunk was returned and now may show up in the list.";

// What a list asks for: where it starts and at which revision (list_paging.h), or the error
// already sent.
struct ListRequest {
  int64_t limit = 0;          // 0: everything
  std::optional<int64_t> at;  // a revision to read at (Exact, or a continued list)
  std::string start_key;      // a continued list's first key
  bool continued = false;
};

std::optional<ListRequest> ReadListRequest(Context& c) {
  const http::HttpRequest& req = c.req;
  ListRequest lr;
  lr.limit = std::max<int64_t>(0, std::atoll(req.Query("limit").c_str()));
  const std::string rv = req.Query("resourceVersion");
  const std::string match = req.Query("resourceVersionMatch");
  if (const std::string cont = req.Query("continue"); !cont.empty()) {
    if (!rv.empty() && rv != "0") {
      SendError(c.w, {400, "BadRequest",
                      "specifying resource version is not allowed when using continue", json()});
      return std::nullopt;
    }
    StatusOr<ContinueToken> token = DecodeContinue(cont);
    if (!token.ok()) {
      SendError(c.w, {400, "BadRequest",
                      "invalid continue token: " + std::string(token.status().message()), json()});
      return std::nullopt;
    }
    if (token->resource_version > 0) lr.at = token->resource_version;
    lr.start_key = std::move(token->start_key);
    lr.continued = true;
    return lr;
  }
  // The watch cache serves resourceVersion "0" whole, limit or not (kube 1.32's
  // shouldDelegateList); a limit with another resourceVersion, and Exact, read etcd at it.
  if (rv == "0") {
    lr.limit = 0;
  } else if (!rv.empty() && (match == "Exact" || (lr.limit > 0 && match.empty()))) {
    lr.at = std::atoll(rv.c_str());
    if (*lr.at <= 0) lr.at.reset();
  }
  return lr;
}

}  // namespace

void HandleList(Context& c) {
  const http::HttpRequest& req = c.req;
  const Resource& res = c.res;
  auto filter = ParseFilter(req, res);
  if (!filter.ok()) return c.Fail(filter.status());
  std::optional<ListRequest> lr = ReadListRequest(c);
  if (!lr) return;
  const std::string_view ns = res.namespaced ? std::string_view(c.r.ns) : std::string_view();
  ObjectStore::ListResult list;
  PageMeta page;
  if (!lr->at && lr->limit == 0 && lr->start_key.empty()) {
    list = ListMatching(c.store, res, ns, *filter);  // the whole list, filtered outside the lock
  } else {
    auto matches = filter->Empty() ? std::function<bool(const json&)>()
                                   : [&f = *filter](const json& o) { return f.Matches(o); };
    auto read = c.store.ListPage(res, ns, lr->at.value_or(0), matches,
                                 StoreKeyOf(res, lr->start_key), static_cast<size_t>(lr->limit));
    if (!read.ok() && read.status().code() == StatusCode::kOutOfRange) {
      if (!lr->continued) return SendError(c.w, {410, "Expired", kListExpired, json()});
      json status = StatusJson({410, "Expired", kInconsistentContinue, json()});
      status["metadata"]["continue"] = EncodeContinue({-1, lr->start_key});
      return SendJson(c.w, 410, status);
    }
    if (!read.ok()) {
      return SendError(c.w,
                       {504, "Timeout", "Timeout: " + std::string(read.status().message()),
                        json{{"causes", json::array({{{"reason", "ResourceVersionTooLarge"},
                                                      {"message", "Too large resource version"}}})},
                             {"retryAfterSeconds", 1}}});
    }
    list.items = std::move(read->items);
    list.resource_version = read->resource_version;
    if (read->more && !list.items.empty()) {
      page.continue_token = ContinueAfter(res, list.resource_version, *list.items.back());
      if (filter->Empty()) page.remaining_items = read->remaining;
    }
  }
  if (WantsTable(req)) {
    std::vector<printers::TableObject> objs;
    objs.reserve(list.items.size());
    // Rows' objects (includeObject=Object) in the request's version.
    std::vector<std::string> served;
    if (conversion::Converts(res)) {
      served.reserve(list.items.size());
      for (const ObjectPtr& o : list.items) {
        served.push_back(conversion::FromStorageText(res, o->text));
      }
    }
    for (size_t i = 0; i < list.items.size(); ++i) {
      const ObjectPtr& o = list.items[i];
      objs.push_back({&o->view, served.empty() ? std::string_view(o->text) : served[i]});
    }
    c.w.Send(200, kJson,
             TableText(res, objs, std::to_string(list.resource_version), c.clock.Now(),
                       IncludeObjectParam(req), true, page.continue_token, page.remaining_items));
    return;
  }
  if (c.protobuf_out) {
    if (std::optional<std::string> pb = ProtobufList(res, list, page)) {
      return c.w.Send(200, kProtobufContentType, std::move(*pb));
    }
  }
  c.w.Send(200, kJson, ListJson(res, list, page));
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
