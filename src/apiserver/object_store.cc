#include "apiserver/object_store.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <optional>

#include "apiserver/json_io.h"
#include "apiserver/json_members.h"
#include "apiserver/stored_view.h"

namespace tidepool::apiserver {

using nlohmann::json;

std::string_view EventTypeName(EventType t) {
  switch (t) {
    case EventType::kAdded:
      return "ADDED";
    case EventType::kModified:
      return "MODIFIED";
    case EventType::kDeleted:
      return "DELETED";
  }
  return "ERROR";
}

size_t WatchEvent::bytes() const { return object != nullptr ? object->memory : 0; }

// ---------------------------------------------------------------------------------------------
// Watch

struct Watch::State {
  static constexpr uint64_t kNone = ~uint64_t{0};

  std::mutex mu;
  std::condition_variable cv;
  std::deque<EventPtr> queue;
  // How many of the queue's first events are the ones the watch started with (synthetic or
  // replayed from the history): they do not count towards max_backlog (kube delivers them
  // outside the watcher's buffer too).
  size_t initial = 0;
  bool closed = false;
  std::string error;
  // The stream offset of the queue's first event (kNone when empty): read by commits without
  // `mu` to find the watchers that fell too far behind.
  std::atomic<uint64_t> oldest{kNone};
  // Immutable after creation.
  const Resource* resource = nullptr;
  std::string ns;
  // The stream offset when the watch opened: the events it started with (replayed from the
  // history, or synthetic) are as far behind as if written then.
  uint64_t opened_at = 0;
  bool bounded = true;
  size_t max_backlog = 0;
  uint64_t max_lag = 0;
  std::function<void()> on_ready;

  bool Wants(const WatchEvent& e) const {
    if (resource != nullptr && e.resource != resource &&
        (e.resource->resource != resource->resource || e.resource->group != resource->group)) {
      return false;
    }
    if (!ns.empty()) {
      const json* meta = e.object->view.is_object() ? &e.object->view["metadata"] : nullptr;
      if (meta == nullptr || !meta->is_object()) return false;
      auto it = meta->find("namespace");
      if (it == meta->end() || !it->is_string() || it->get_ref<const std::string&>() != ns) {
        return false;
      }
    }
    return true;
  }
  // Requires mu. The stream offset the watcher's lag counts from.
  uint64_t OldestOffset() const {
    return queue.empty() ? kNone : std::max(queue.front()->stream_offset, opened_at);
  }
  // Requires mu.
  void NoteOldest() { oldest.store(OldestOffset(), std::memory_order_relaxed); }
  // Requires mu. Takes the queue's first event.
  EventPtr PopFront() {
    EventPtr e = std::move(queue.front());
    queue.pop_front();
    if (initial > 0) --initial;
    return e;
  }
  // Requires mu. Closes the watch and drops its queue; returns the log line.
  std::string Overflow(uint64_t stream_end) {
    const uint64_t behind = queue.empty() ? 0 : stream_end - oldest.load(std::memory_order_relaxed);
    const size_t waiting = queue.size() - initial;
    closed = true;
    error = "the watcher fell too far behind and was closed";
    std::string line = "Forcing " + (resource != nullptr ? resource->resource : "all") +
                       " watcher close due to unresponsiveness: key: \"/" +
                       (resource != nullptr ? resource->resource + "/" : "") + ns + "\". " +
                       std::to_string(waiting) + " events waiting (limit " +
                       std::to_string(max_backlog) + "), " + std::to_string(behind) +
                       " bytes of writes behind (limit " + std::to_string(max_lag) + ")";
    std::deque<EventPtr>().swap(queue);  // frees the deque's blocks too
    initial = 0;
    NoteOldest();
    return line;
  }
  // Requires mu. Reads the noted offset, not the queue's first event: for every watcher on
  // every write, that would be a cache miss under the store's lock.
  bool TooFarBehind(uint64_t stream_end) const {
    if (!bounded || queue.empty()) return false;
    return queue.size() - initial >= max_backlog ||
           stream_end - oldest.load(std::memory_order_relaxed) > max_lag;
  }
  // Queues `e` under the watcher's lock, or closes the watcher when it fell too far behind
  // (`log` gets the line). Returns true when the watcher must be woken: its queue went from
  // empty to non-empty, or it was closed. The caller wakes it (Wake) after releasing the
  // store's mutex, so a woken watcher never blocks on the store's lock and a watcher already
  // awake is not signalled again for every event.
  bool Push(const EventPtr& e, uint64_t stream_end, std::vector<std::string>* log) {
    std::lock_guard<std::mutex> lock(mu);
    if (closed) return false;
    if (TooFarBehind(stream_end)) {
      log->push_back(Overflow(stream_end));
      return true;
    }
    queue.push_back(e);
    if (queue.size() == 1) {
      NoteOldest();
      return true;
    }
    return false;
  }
  // For a watcher the event is not for: closes it when its oldest queued event is now too far
  // behind. Cheap when it is not (one atomic load).
  bool CheckLag(uint64_t stream_end, std::vector<std::string>* log) {
    if (!bounded) return false;
    const uint64_t o = oldest.load(std::memory_order_relaxed);
    if (o == kNone || stream_end - o <= max_lag) return false;
    std::lock_guard<std::mutex> lock(mu);
    if (closed || !TooFarBehind(stream_end)) return false;
    log->push_back(Overflow(stream_end));
    return true;
  }
  // Wakes a watcher blocked in Next/NextBatch, and calls on_ready. No lock needed: the waiter
  // re-checks its predicate under `mu`, and Push changed the state under `mu` before this
  // call; on_ready is immutable once the watch is open.
  void Wake() {
    cv.notify_one();
    if (on_ready) on_ready();
  }
};

Watch::Watch(std::shared_ptr<State> state) : state_(std::move(state)) {}
Watch::~Watch() { Stop(); }

Watch::Result Watch::Next(Duration timeout, WatchEvent* out) {
  std::unique_lock<std::mutex> lock(state_->mu);
  // Waiting is measured by the condition variable's own steady clock: a watch's timeout is a
  // transport matter, not emulated time.
  state_->cv.wait_for(lock, timeout,
                      [&] { return !state_->queue.empty() || state_->closed; });
  if (!state_->queue.empty()) {
    *out = *state_->PopFront();
    state_->NoteOldest();
    return Result::kEvent;
  }
  return state_->closed ? Result::kClosed : Result::kTimeout;
}

Watch::Result Watch::NextBatch(Duration timeout, size_t max_bytes, std::vector<EventPtr>* out) {
  std::unique_lock<std::mutex> lock(state_->mu);
  state_->cv.wait_for(lock, timeout,
                      [&] { return !state_->queue.empty() || state_->closed; });
  if (state_->queue.empty()) return state_->closed ? Result::kClosed : Result::kTimeout;
  size_t bytes = 0;
  do {
    EventPtr e = state_->PopFront();
    bytes += e->object != nullptr ? e->object->text.size() : 0;
    out->push_back(std::move(e));
  } while (!state_->queue.empty() && bytes < max_bytes);
  state_->NoteOldest();
  return Result::kEvent;
}

bool Watch::Drain(std::vector<EventPtr>* out) {
  std::lock_guard<std::mutex> lock(state_->mu);
  while (!state_->queue.empty()) out->push_back(state_->PopFront());
  state_->NoteOldest();
  return !state_->closed;
}

std::string Watch::error() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->error;
}

void Watch::Stop() {
  if (!state_) return;
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->closed = true;
  state_->cv.notify_all();
}

// ---------------------------------------------------------------------------------------------
// ObjectStore

struct ObjectStore::Shard {
  // "<ns>/<name>" (cluster-scoped: "/<name>") -> object. Ordered: a namespace is a key range.
  std::map<std::string, ObjectPtr, std::less<>> objects;
  // The watch history of this resource: its latest events, oldest first (StoreOptions'
  // history_events and history_bytes), and their bytes().
  std::deque<EventPtr> history;
  size_t history_bytes = 0;
  // The revision of the newest event dropped from the history; 0 while none was.
  int64_t dropped_through = 0;
  // Events (core/v1's shard, which events.k8s.io/v1's share): deleted event_ttl after their
  // last write.
  bool has_ttl = false;
};

namespace {

std::string LocalKey(std::string_view ns, std::string_view name) {
  std::string k(ns);
  k += '/';
  k += name;
  return k;
}

// The registry's ShouldDeleteDuringUpdate: an object being deleted (deletionTimestamp set,
// deletionGracePeriodSeconds 0 or absent) whose update leaves it no finalizers is removed.
bool EmptiesFinalizers(const json& cur_meta, const json& new_meta) {
  const json* ts = Member(cur_meta, "deletionTimestamp");
  if (ts == nullptr || ts->is_null()) return false;
  const json* grace = Member(cur_meta, "deletionGracePeriodSeconds");
  if (grace != nullptr && grace->is_number_integer() && grace->get<int64_t>() != 0) return false;
  const json* f = Member(new_meta, "finalizers");
  return f == nullptr || !f->is_array() || f->empty();
}

// The kinds whose strategy sets metadata.generation 1 on create and bumps it when the spec
// changes (core/v1 ReplicationControllers too, as pkg/registry/core/replicationcontroller).
// So do CustomResourceDefinitions and custom resources (apiextensions' strategies).
bool HasGeneration(const Resource& r) {
  return r.group == "apps" || r.group == "batch" || r.group == "policy" ||
         (r.group.empty() && r.resource == "replicationcontrollers") || r.custom != nullptr ||
         r.group == "apiextensions.k8s.io";
}

bool HasStatusSubresource(const Resource& r) {
  for (const Subresource& s : r.subresources) {
    if (s.name == "status") return true;
  }
  return false;
}

// Whether an update changes what the generation counts: the spec; for a custom resource,
// everything but metadata (and status, when it has a status subresource), as apiextensions'
// customresource strategy compares them.
bool GenerationChanges(const Resource& r, const json& cur, const json& next) {
  if (r.custom == nullptr) {
    const json* old_spec = Member(cur, "spec");
    const json* new_spec = Member(next, "spec");
    return (old_spec == nullptr) != (new_spec == nullptr) ||
           (old_spec != nullptr && *old_spec != *new_spec);
  }
  const bool skip_status = HasStatusSubresource(r);
  auto differs = [&](const json& a, const json& b) {
    if (!a.is_object() || !b.is_object()) return a != b;
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (it.key() == "metadata" || (skip_status && it.key() == "status")) continue;
      const json* other = Member(b, it.key());
      if (other == nullptr || *other != it.value()) return true;
    }
    return false;
  };
  return differs(cur, next) || differs(next, cur);
}

std::string Dump(const json& value) { return json_io::Dump(value); }

// An object serialized with an empty metadata.resourceVersion; With(rv) gives its text with
// `rv` spliced in, at the exact size: the object is dumped once, whatever revision it gets.
struct RvText {
  std::string text;  // with ""
  size_t rv_at = std::string::npos;
  std::string With(const std::string& rv) const {
    if (rv_at == std::string::npos) {  // not expected: the text is ours
      json copy = json::parse(text, nullptr, /*allow_exceptions=*/false);
      copy["metadata"]["resourceVersion"] = rv;
      return Dump(copy);
    }
    std::string out;
    out.reserve(text.size() + rv.size());
    out.append(text, 0, rv_at + 1);
    out += rv;
    out.append(text, rv_at + 1);
    return out;
  }
};

// `fields_v1_text`, when not empty, is written as metadata.managedFields[0].fieldsV1.
// ObjectMeta's empty lists and maps are dropped first: kube-apiserver decodes every object
// into its Go type, whose labels, annotations, finalizers, ownerReferences and managedFields
// are omitempty, so it stores `"finalizers": []` (a released or orphaned object's) as absent.
RvText DumpWithEmptyRv(json& object, std::string_view fields_v1_text = {}) {
  json& meta = object["metadata"];
  for (const char* k :
       {"labels", "annotations", "finalizers", "ownerReferences", "managedFields"}) {
    auto it = meta.find(k);
    if (it != meta.end() && (it->is_array() || it->is_object()) && it->empty()) meta.erase(it);
  }
  json& rv = meta["resourceVersion"];
  rv = "";
  json_io::RawNode raw;
  if (!fields_v1_text.empty()) {
    auto mf = meta.find("managedFields");
    if (mf != meta.end() && mf->is_array() && !mf->empty() && (*mf)[0].is_object()) {
      if (auto f = (*mf)[0].find("fieldsV1"); f != (*mf)[0].end()) raw = {&*f, fields_v1_text};
    }
  }
  RvText t;
  json_io::Dump(object, &t.text, &rv, &t.rv_at, raw);
  return t;
}

// Approximate heap bytes under a tree (nlohmann's std::map objects, std::vector arrays,
// std::string strings; malloc's rounding left out).
size_t TreeBytes(const json& j) {
  auto string_bytes = [](const std::string& s) {
    return s.capacity() > 15 ? s.capacity() + 1 : size_t{0};
  };
  switch (j.type()) {
    case json::value_t::object: {
      size_t n = sizeof(json::object_t);
      for (const auto& [k, v] : j.get_ref<const json::object_t&>()) {
        n += 32 + sizeof(std::pair<const std::string, json>) + string_bytes(k) + TreeBytes(v);
      }
      return n;
    }
    case json::value_t::array: {
      const auto& a = j.get_ref<const json::array_t&>();
      size_t n = sizeof(json::array_t) + a.capacity() * sizeof(json);
      for (const json& v : a) n += TreeBytes(v);
      return n;
    }
    case json::value_t::string:
      return sizeof(std::string) + string_bytes(j.get_ref<const std::string&>());
    default:
      return 0;
  }
}

// What a stored object costs: its text and its view.
size_t MemoryOf(const StoredObject& o, size_t view_bytes) {
  return sizeof(StoredObject) + o.text.capacity() + view_bytes;
}

// `object` has metadata.resourceVersion == "" and `t` is its RvText.
ObjectPtr MakeStored(const Resource& r, const json& object, const RvText& t, int64_t rv) {
  auto o = std::make_shared<StoredObject>();
  const std::string rvs = std::to_string(rv);
  o->text = t.With(rvs);
  o->view = StoredView(r, object);
  if (o->view.is_object() && o->view["metadata"].is_object()) {
    o->view["metadata"]["resourceVersion"] = rvs;
  }
  o->resource_version = rv;
  o->memory = MemoryOf(*o, TreeBytes(o->view));
  return o;
}

bool HasFloat(const json& j) {
  switch (j.type()) {
    case json::value_t::number_float:
      return true;
    case json::value_t::object:
    case json::value_t::array:
      for (const json& x : j) {
        if (HasFloat(x)) return true;
      }
      return false;
    default:
      return false;
  }
}

}  // namespace

ObjectStore::ObjectStore(const Clock& clock, std::unique_ptr<storage::Backend> backend,
                         StoreOptions options)
    : clock_(clock),
      backend_(backend ? std::move(backend) : storage::NewMemoryBackend()),
      options_(options),
      random_(options.seed),
      name_random_(options.seed ^ 0x6e616d6573ull) {}

ObjectStore::~ObjectStore() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& w : watchers_) {
    if (auto s = w.lock()) {
      std::lock_guard<std::mutex> l(s->mu);
      s->closed = true;
      s->cv.notify_all();
    }
  }
  (void)backend_->Close();
}

std::string ObjectStore::Key(const Resource& r, std::string_view ns, std::string_view name) {
  std::string k = r.group.empty() ? "core" : r.group;
  k += '/';
  k += r.resource;
  k += '/';
  k += ns;
  k += '/';
  k += name;
  return k;
}

Status ObjectStore::CheckResourceVersion(const Resource& r, std::string_view name, const json& meta,
                                         int64_t current) {
  const json* want = meta.is_object() ? Member(meta, "resourceVersion") : nullptr;
  if (want == nullptr) return Status::Ok();
  // "" and "0" parse to 0 (Versioner.ObjectResourceVersion): an unconditional update.
  const auto unconditional = [](const std::string& rv) { return rv.empty() || rv == "0"; };
  if (!want->is_string() || (!unconditional(want->get_ref<const std::string&>()) &&
                             want->get_ref<const std::string&>() != std::to_string(current))) {
    return Status(StatusCode::kAborted,
                  "Operation cannot be fulfilled on " + Qualified(r, name) +
                      ": the object has been modified; please apply your changes to the "
                      "latest version and try again");
  }
  return Status::Ok();
}

std::string ObjectStore::Qualified(const Resource& r, std::string_view name) {
  std::string s = r.resource;
  if (!r.group.empty()) s += "." + r.group;
  s += " \"";
  s += name;
  s += "\"";
  return s;
}

ObjectStore::Shard& ObjectStore::ShardFor(const Resource& r) const {
  if (auto it = shard_of_.find(&r); it != shard_of_.end()) return *it->second;
  auto& s = shards_[r.group + "/" + r.resource];
  if (!s) {
    s = std::make_unique<Shard>();
    s->has_ttl = r.group.empty() && r.resource == "events";  // events.k8s.io's are core's
  }
  shard_of_[&r] = s.get();
  return *s;
}

const Resource* ObjectStore::RestoredResource(const std::string& group,
                                              const std::string& resource) {
  for (const auto& r : restored_resources_) {
    if (r->group == group && r->resource == resource) return r.get();
  }
  auto r = std::make_unique<Resource>();
  r->group = group;
  r->version = "v1";
  r->resource = resource;
  r->singular = resource;
  restored_resources_.push_back(std::move(r));
  return restored_resources_.back().get();
}

StatusOr<size_t> ObjectStore::Load() {
  TIDEPOOL_ASSIGN_OR_RETURN(storage::Snapshot snap, backend_->Load());
  std::unique_lock<std::mutex> lock(mu_);
  size_t n = 0;
  std::vector<std::string> dropped;  // keys of records no shard keeps any more
  for (storage::Record& rec : snap.records) {
    // key: group/resource/ns/name
    std::vector<std::string> parts;
    size_t start = 0;
    for (int i = 0; i < 3; ++i) {
      size_t slash = rec.key.find('/', start);
      if (slash == std::string::npos) break;
      parts.push_back(rec.key.substr(start, slash - start));
      start = slash + 1;
    }
    if (parts.size() != 3) {
      return Status(StatusCode::kDataLoss, "stored key " + rec.key + " is malformed");
    }
    const std::string group = parts[0] == "core" ? "" : parts[0];
    const Resource* r = FindStoredResource(group, "v1", parts[1]);
    if (r != nullptr && r->storage_group.has_value()) {
      // Kept by an earlier tidepool in a group that is now another group's form (events.k8s.io
      // Events, now core's): Events expire within the hour, so they are dropped, not converted.
      dropped.push_back(rec.key);
      continue;
    }
    if (r != nullptr) r = &StorageOf(*r);  // the shard every version reads
    if (r == nullptr && group.find('.') != std::string::npos &&
        FindInternalResource(group, parts[1]) == nullptr) {
      // A custom resource (its group has a dot, as a CustomResourceDefinition's must): kept
      // in its shard until its definition is read and served again.
      r = RestoredResource(group, parts[1]);
    }
    if (r == nullptr) {
      return Status(StatusCode::kDataLoss, "stored key " + rec.key + " names no known resource");
    }
    StatusOr<json> parsed = json_io::Parse(rec.value);
    if (!parsed.ok()) {
      return Status(StatusCode::kDataLoss, "stored object " + rec.key + " is not valid JSON");
    }
    json value = std::move(*parsed);
    auto o = std::make_shared<StoredObject>();
    o->view = StoredView(*r, value);
    o->text = std::move(rec.value);
    o->memory = MemoryOf(*o, TreeBytes(o->view));
    o->resource_version = rec.resource_version;
    const std::string local = LocalKey(parts[2], rec.key.substr(start));
    TrackTtl(*r, local, EventType::kAdded, o->resource_version);
    ShardFor(*r).objects[local] = std::move(o);
    ++n;
  }
  revision_ = std::max(revision_, snap.revision);
  uint64_t ticket = 0;
  for (std::string& key : dropped) ticket = backend_->Delete(std::move(key), ++revision_);
  loaded_revision_ = revision_;
  // uids must not repeat across restarts: mix the restored revision into the generator.
  random_ = Random(options_.seed ^ (static_cast<uint64_t>(revision_) * 0x9e3779b97f4a7c15ull));
  lock.unlock();  // waits, as every write does, outside the lock
  TIDEPOOL_RETURN_IF_ERROR(backend_->Wait(ticket));
  return n;
}

int64_t ObjectStore::resource_version() const {
  std::lock_guard<std::mutex> lock(mu_);
  return revision_;
}

std::string ObjectStore::GenerateUid() {
  std::lock_guard<std::mutex> lock(mu_);
  return NewUid();
}

namespace {

// names.SimpleNameGenerator: `prefix` (at most 58 characters of it) and five characters of its
// alphabet.
std::string RandomName(std::string prefix, Random& random) {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  constexpr size_t kMaxPrefix = 63 - 5;  // maxGeneratedNameLength: the base is cut to fit
  if (prefix.size() > kMaxPrefix) prefix.resize(kMaxPrefix);
  for (int i = 0; i < 5; ++i) prefix += kAlphabet[random.Uniform(sizeof(kAlphabet) - 1)];
  return prefix;
}

}  // namespace

std::string ObjectStore::GenerateName(std::string_view prefix) {
  std::lock_guard<std::mutex> lock(mu_);
  return RandomName(std::string(prefix), name_random_);
}

std::string ObjectStore::NewUid() {
  uint64_t a = random_.Next(), b = random_.Next();
  a = (a & 0xffffffffffff0fffull) | 0x0000000000004000ull;  // version 4
  b = (b & 0x3fffffffffffffffull) | 0x8000000000000000ull;  // variant 10
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64
                "-%012" PRIx64,
                static_cast<uint64_t>(a >> 32), static_cast<uint64_t>((a >> 16) & 0xffff), static_cast<uint64_t>(a & 0xffff), static_cast<uint64_t>(b >> 48), static_cast<uint64_t>(b & 0xffffffffffffull));
  return buf;
}

StatusOr<ObjectPtr> ObjectStore::Get(const Resource& r_in, std::string_view ns,
                                     std::string_view name) const {
  const Resource& r = StorageOf(r_in);  // one object for every served version
  std::lock_guard<std::mutex> lock(mu_);
  Shard& s = ShardFor(r);
  auto it = s.objects.find(LocalKey(r.namespaced ? ns : "", name));
  if (it == s.objects.end()) {
    return Status(StatusCode::kNotFound, Qualified(r_in, name) + " not found");
  }
  return it->second;
}

ObjectStore::ListResult ObjectStore::List(const Resource& r_in, std::string_view ns,
                                          const std::function<bool(const json&)>& filter) const {
  const Resource& r = StorageOf(r_in);  // one object for every served version
  ListResult out;
  std::vector<ObjectPtr> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    out.resource_version = revision_;
    Shard& s = ShardFor(r);
    if (ns.empty() || !r.namespaced) {
      all.reserve(s.objects.size());
      for (const auto& [k, o] : s.objects) all.push_back(o);
    } else {
      const std::string prefix = std::string(ns) + "/";
      for (auto it = s.objects.lower_bound(prefix);
           it != s.objects.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
        all.push_back(it->second);
      }
    }
  }
  // Filtering (selectors) outside the lock: objects are immutable.
  if (filter) {
    out.items.reserve(all.size());
    for (ObjectPtr& o : all) {
      if (filter(o->view)) out.items.push_back(std::move(o));
    }
  } else {
    out.items = std::move(all);
  }
  return out;
}

json StoredObject::Parse() const {
  StatusOr<json> j = json_io::Parse(text);
  return j.ok() ? std::move(*j) : json::object();
}

json ObjectStore::Prepare(const Resource& r, json object, std::string_view ns) {
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  if (r.namespaced) {
    meta["namespace"] = std::string(ns);
  } else {
    meta.erase("namespace");
  }
  object["apiVersion"] = r.GroupVersion();
  object["kind"] = r.kind;
  return object;
}

uint64_t ObjectStore::Commit(const Resource& r, const std::string& local_key, ObjectPtr object,
                             ObjectPtr old, EventType type, const std::string& origin,
                             WakeList* wake) {
  Shard& s = ShardFor(r);
  const std::string slash_name = local_key;
  const size_t cut = local_key.find('/');
  const std::string storage_key =
      Key(r, local_key.substr(0, cut), local_key.substr(cut + 1));
  uint64_t ticket;
  if (type == EventType::kDeleted) {
    s.objects.erase(local_key);
    ticket = backend_->Delete(storage_key, revision_);
  } else {
    s.objects[local_key] = object;
    ticket = backend_->Put(storage_key, revision_, object->text);
  }
  auto e = std::make_shared<WatchEvent>();
  e->type = type;
  e->resource = &r;
  e->object = std::move(object);
  e->old_object = std::move(old);
  e->resource_version = revision_;
  e->origin = origin;
  e->stream_offset = stream_bytes_;
  stream_bytes_ += e->bytes();
  const EventPtr shared = std::move(e);
  // Queue the event for live watchers (closing those that fell too far behind), dropping the
  // ones that went away; the ones to wake are woken by the caller once the store's mutex is
  // released (WakeWatchers).
  size_t live = 0;
  for (size_t i = 0; i < watchers_.size(); ++i) {
    if (auto st = watchers_[i].lock()) {
      const bool wake_it = st->Wants(*shared) ? st->Push(shared, stream_bytes_, &wake->log)
                                              : st->CheckLag(stream_bytes_, &wake->log);
      if (wake_it) wake->watchers.push_back(std::move(st));
      watchers_[live++] = watchers_[i];
    }
  }
  watchers_.resize(live);
  TrackTtl(r, local_key, type, revision_);
  Remember(s, shared);
  return ticket;
}

void ObjectStore::Remember(Shard& s, EventPtr e) {
  s.history_bytes += e->bytes();
  s.history.push_back(std::move(e));
  while (s.history.size() > 1 && (s.history.size() > options_.history_events ||
                                  s.history_bytes > options_.history_bytes)) {
    s.history_bytes -= s.history.front()->bytes();
    s.dropped_through = s.history.front()->resource_version;
    s.history.pop_front();
  }
}

void ObjectStore::TrackTtl(const Resource& r, const std::string& local_key, EventType type,
                           int64_t rv) {
  if (!ShardFor(r).has_ttl || options_.event_ttl <= Duration::zero()) return;
  TtlKey key{&r, local_key};
  if (auto it = ttl_index_.find(key); it != ttl_index_.end()) {
    ttl_queue_.erase(it->second);
    ttl_index_.erase(it);
  }
  if (type == EventType::kDeleted) return;
  auto [pos, inserted] = ttl_queue_.insert({clock_.Now() + options_.event_ttl, key, rv});
  (void)inserted;  // keys are unique in the queue: the old entry was erased above
  ttl_index_.emplace(std::move(key), pos);
}

size_t ObjectStore::ExpireEvents() {
  struct Due {
    const Resource* resource;
    std::string ns, name;
    int64_t rv;
  };
  std::vector<Due> due;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ttl_queue_.empty()) return 0;
    const TimePoint now = clock_.Now();
    for (auto it = ttl_queue_.begin(); it != ttl_queue_.end() && it->deadline <= now; ++it) {
      const std::string& k = it->key.local_key;
      const size_t cut = k.find('/');
      due.push_back({it->key.resource, k.substr(0, cut), k.substr(cut + 1),
                     it->resource_version});
    }
  }
  // Each as its own delete, conditional on the revision the deadline was set for: an Event
  // written again meanwhile has a later deadline and stays (Conflict, ignored).
  size_t n = 0;
  for (const Due& d : due) {
    if (Delete(*d.resource, d.ns, d.name, {"event-ttl", false}, std::nullopt,
               std::to_string(d.rv))
            .ok()) {
      ++n;
    }
  }
  return n;
}

StatusOr<ObjectStore::PageResult> ObjectStore::ListPage(
    const Resource& r_in, std::string_view ns, int64_t rv,
    const std::function<bool(const json&)>& filter, std::string_view start_key,
    size_t limit) const {
  const Resource& r = StorageOf(r_in);  // one object for every served version
  const std::string prefix = ns.empty() || !r.namespaced ? "" : std::string(ns) + "/";
  std::string from = std::max(std::string(start_key), prefix);
  auto in_range = [&](std::string_view key) {
    return key.compare(0, prefix.size(), prefix) == 0 && key >= from;
  };
  PageResult out;
  std::lock_guard<std::mutex> lock(mu_);
  if (rv > revision_) {
    return Status(StatusCode::kFailedPrecondition,
                  "Too large resource version: " + std::to_string(rv) +
                      ", current: " + std::to_string(revision_));
  }
  const Shard& s = ShardFor(r);
  if (rv <= 0) rv = revision_;
  if (Status covered = HistoryCovers(s, rv); !covered.ok()) return covered;
  out.resource_version = rv;
  // The keys written after rv, with their state at rv (null: absent then). Newest first, so
  // a key's state is finally the one before its first write after rv.
  std::map<std::string, ObjectPtr, std::less<>> undone;
  for (auto e = s.history.rbegin(); e != s.history.rend() && (*e)->resource_version > rv; ++e) {
    const json& meta = (*e)->object->view.value("metadata", json::object());
    std::string key =
        LocalKey(meta.value("namespace", std::string()), meta.value("name", std::string()));
    if (!in_range(key)) continue;
    if ((*e)->type == EventType::kAdded) {
      undone.insert_or_assign(std::move(key), nullptr);
    } else if ((*e)->old_object != nullptr) {
      undone.insert_or_assign(std::move(key), (*e)->old_object);
    }
  }
  // Both in key order; an undone key's state at rv replaces the current one.
  auto cur = s.objects.lower_bound(from);
  auto und = undone.begin();
  auto next = [&]() -> std::optional<ObjectPtr> {  // nullopt: the end; null: absent at rv
    const bool cur_ok = cur != s.objects.end() && cur->first.compare(0, prefix.size(), prefix) == 0;
    if (!cur_ok && und == undone.end()) return std::nullopt;
    if (!cur_ok || (und != undone.end() && und->first <= cur->first)) {
      if (cur_ok && und->first == cur->first) ++cur;
      return (und++)->second;
    }
    return (cur++)->second;
  };
  while (std::optional<ObjectPtr> o = next()) {
    if (*o == nullptr) continue;
    if (limit > 0 && out.items.size() == limit) {
      out.more = true;
      out.remaining = 1;
      break;
    }
    if (!filter || filter((*o)->view)) out.items.push_back(std::move(*o));
  }
  if (out.more) {
    while (std::optional<ObjectPtr> o = next()) out.remaining += *o != nullptr ? 1 : 0;
  }
  return out;
}

int64_t ObjectStore::HistoryFloor(const Shard& s) const {
  if (s.dropped_through == 0) return loaded_revision_;
  // kube's "oldest - 1": the revision before the oldest event kept.
  return s.history.empty() ? s.dropped_through : s.history.front()->resource_version - 1;
}

Status ObjectStore::HistoryCovers(const Shard& s, int64_t rv) const {
  const int64_t floor = HistoryFloor(s);
  if (rv < floor && rv < revision_) {
    return Status(StatusCode::kOutOfRange, "too old resource version: " + std::to_string(rv) +
                                               " (" + std::to_string(floor) + ")");
  }
  return OkStatus();
}

Status ObjectStore::CheckHistory(const Resource& r_in, int64_t rv) const {
  const Resource& r = StorageOf(r_in);  // one object for every served version
  std::lock_guard<std::mutex> lock(mu_);
  return HistoryCovers(ShardFor(r), rv);
}

void ObjectStore::WakeWatchers(const WakeList& wake) const {
  for (const auto& st : wake.watchers) st->Wake();
  if (options_.log) {
    for (const std::string& line : wake.log) options_.log(line);
  }
}

Status ObjectStore::WaitDurable(uint64_t ticket) { return backend_->Wait(ticket); }

StatusOr<ObjectPtr> ObjectStore::Create(const Resource& r_in, json object,
                                        const WriteOptions& opts) {
  const Resource& r = StorageOf(r_in);  // one object for every served version
  std::string ns = r.namespaced ? Str(object, "metadata", "namespace") : "";
  if (r.namespaced && ns.empty()) ns = "default";
  object = Prepare(r, std::move(object), ns);
  json& meta = object["metadata"];
  std::string name = Str(object, "metadata", "name");
  std::string local;
  {
    // Names and uids come from the store's seeded generator.
    std::lock_guard<std::mutex> lock(mu_);
    if (name.empty()) {
      name = RandomName(Str(object, "metadata", "generateName"), random_);
      meta["name"] = name;
    }
    local = LocalKey(ns, name);
    if (ShardFor(r).objects.count(local) != 0) {
      return Status(StatusCode::kAlreadyExists, Qualified(r_in, name) + " already exists");
    }
    if (!meta.contains("uid") || !meta["uid"].is_string() ||
        meta["uid"].get<std::string>().empty()) {
      meta["uid"] = NewUid();
    }
  }
  if (!meta.contains("creationTimestamp") || !meta["creationTimestamp"].is_string()) {
    meta["creationTimestamp"] = FormatRfc3339(clock_.Now());
  }
  if (HasGeneration(r)) meta["generation"] = 1;
  // Serialized (and the view built) outside the store's lock, with an empty resourceVersion
  // that the commit fills in: holding the lock costs a splice, not a dump of the whole object.
  auto o = std::make_shared<StoredObject>();
  const RvText t = DumpWithEmptyRv(object, opts.fields_v1_text);
  o->view = StoredView(r, std::move(object));  // `object` is not used below
  const size_t view_bytes = TreeBytes(o->view);
  auto set_revision = [&](int64_t rv) {
    const std::string text = std::to_string(rv);
    o->text = t.With(text);
    if (o->view.is_object() && o->view["metadata"].is_object()) {
      o->view["metadata"]["resourceVersion"] = text;
    }
    o->resource_version = rv;
    o->memory = MemoryOf(*o, view_bytes);
  };
  uint64_t ticket = 0;
  WakeList wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Checked again: another create of the same name may have committed meanwhile.
    if (ShardFor(r).objects.count(local) != 0) {
      return Status(StatusCode::kAlreadyExists, Qualified(r_in, name) + " already exists");
    }
    if (opts.dry_run) {
      set_revision(revision_ + 1);
      return ObjectPtr(std::move(o));
    }
    ++revision_;
    set_revision(revision_);
    ticket = Commit(r, local, o, nullptr, EventType::kAdded, opts.origin, &wake);
  }
  WakeWatchers(wake);
  TIDEPOOL_RETURN_IF_ERROR(WaitDurable(ticket));
  return ObjectPtr(std::move(o));
}

StatusOr<ObjectStore::UpdateResult> ObjectStore::Update(const Resource& r_in, std::string_view ns,
                                                        std::string_view name,
                                                        const Mutator& mutate,
                                                        const WriteOptions& opts,
                                                        bool allow_create) {
  const Resource& r = StorageOf(r_in);  // one object for every served version
  uint64_t ticket = 0;
  UpdateResult result;
  WakeList wake;
  bool delete_instead = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string nsv = r.namespaced ? std::string(ns) : "";
    const std::string local = LocalKey(nsv, name);
    Shard& s = ShardFor(r);
    auto it = s.objects.find(local);
    ObjectPtr current = it == s.objects.end() ? nullptr : it->second;
    if (current == nullptr && !allow_create) {
      return Status(StatusCode::kNotFound, Qualified(r_in, name) + " not found");
    }
    TIDEPOOL_ASSIGN_OR_RETURN(json next, mutate(current.get()));
    next = Prepare(r, std::move(next), nsv);
    json& meta = next["metadata"];
    meta["name"] = std::string(name);
    if (current == nullptr) {
      // Upsert (server-side apply, PUT of a missing object where allowed).
      if (!meta.contains("uid") || !meta["uid"].is_string() ||
          meta["uid"].get<std::string>().empty()) {
        meta["uid"] = NewUid();
      }
      if (!meta.contains("creationTimestamp") || !meta["creationTimestamp"].is_string()) {
        meta["creationTimestamp"] = FormatRfc3339(clock_.Now());
      }
      meta.erase("resourceVersion");
      if (HasGeneration(r)) meta["generation"] = 1;
      result.created = true;
    } else {
      // The view keeps every metadata field read here, and the whole spec of every kind with
      // a generation (only pods' spec is reduced).
      static const json kEmpty = json::object();
      const json& cur = current->view;
      const json* cur_meta_p = Member(cur, "metadata");
      const json& cur_meta = cur_meta_p != nullptr ? *cur_meta_p : kEmpty;
      TIDEPOOL_RETURN_IF_ERROR(CheckResourceVersion(r_in, name, meta, current->resource_version));
      // Server-owned metadata survives every update.
      for (const char* k : {"uid", "creationTimestamp", "deletionTimestamp",
                            "deletionGracePeriodSeconds"}) {
        if (const json* v = Member(cur_meta, k)) {
          if (std::string_view(k) == "deletionTimestamp" ||
              std::string_view(k) == "deletionGracePeriodSeconds") {
            if (!meta.contains(k)) meta[k] = *v;  // only the store's caller may set them
          } else {
            meta[k] = *v;
          }
        }
      }
      if (HasGeneration(r)) {
        int64_t gen = 1;
        if (const json* g = Member(cur_meta, "generation"); g && g->is_number_integer()) {
          gen = g->get<int64_t>();
        }
        const bool spec_changed = GenerationChanges(r, cur, next);
        meta["generation"] = spec_changed ? gen + 1 : gen;
        // rest.BeforeDelete / markAsDeleting: a deletion's first write bumps it too.
        const json* ts = Member(meta, "deletionTimestamp");
        const json* cur_ts = Member(cur_meta, "deletionTimestamp");
        if (ts != nullptr && !ts->is_null() && (cur_ts == nullptr || cur_ts->is_null())) {
          meta["generation"] = meta["generation"].get<int64_t>() + 1;
        }
      }
      delete_instead = EmptiesFinalizers(cur_meta, meta);
      // A namespace also waits for its spec.finalizers (the namespace controller's
      // "kubernetes"), as the namespace registry's finalize does.
      if (delete_instead && r.group.empty() && r.resource == "namespaces") {
        const json* spec = Member(next, "spec");
        const json* f = spec != nullptr ? Member(*spec, "finalizers") : nullptr;
        delete_instead = f == nullptr || !f->is_array() || f->empty();
      }
    }
    if (delete_instead) {
      // The registry's deleteWithoutFinalizers: the object goes. The caller gets the updated
      // object; watchers get a DELETED event with the stored one (what etcd deletes).
      result.deleted = true;
      result.changed = true;
      const RvText t = DumpWithEmptyRv(next);
      if (opts.dry_run) {
        result.object = MakeStored(r, next, t, current->resource_version);
        return result;
      }
      ++revision_;
      result.object = MakeStored(r, next, t, revision_);
      json last = current->Parse();
      const RvText lt = DumpWithEmptyRv(last);
      ticket = Commit(r, local, MakeStored(r, last, lt, revision_), current, EventType::kDeleted,
                      opts.origin, &wake);
    } else {
    const RvText t = DumpWithEmptyRv(next);
    if (current != nullptr) {
      // A no-op update is not a write. Equal texts are equal objects; different texts are
      // different objects unless numbers differ only in type (1.0 == 1 for nlohmann::json, as
      // the whole-tree comparison this replaces said), which only a float can cause.
      const std::string same_rv = t.With(std::to_string(current->resource_version));
      bool unchanged = same_rv == current->text;
      if (!unchanged && HasFloat(next)) {
        json cur_full = current->Parse();
        json with_rv = next;
        with_rv["metadata"]["resourceVersion"] = std::to_string(current->resource_version);
        unchanged = with_rv == cur_full;
      }
      if (unchanged) {
        result.object = current;
        return result;
      }
    }
    if (opts.dry_run) {
      result.object = MakeStored(r, next, t, revision_ + 1);
      result.changed = true;
      return result;
    }
    ++revision_;
    result.object = MakeStored(r, next, t, revision_);
    result.changed = true;
    ticket = Commit(r, local, result.object, current,
                    current == nullptr ? EventType::kAdded : EventType::kModified, opts.origin,
                    &wake);
    }
  }
  WakeWatchers(wake);
  TIDEPOOL_RETURN_IF_ERROR(WaitDurable(ticket));
  return result;
}

StatusOr<ObjectPtr> ObjectStore::Delete(const Resource& r_in, std::string_view ns,
                                        std::string_view name, const WriteOptions& opts,
                                        std::optional<std::string> precondition_uid,
                                        std::optional<std::string> precondition_rv) {
  const Resource& r = StorageOf(r_in);  // one object for every served version
  uint64_t ticket = 0;
  ObjectPtr last;
  WakeList wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string local = LocalKey(r.namespaced ? ns : "", name);
    Shard& s = ShardFor(r);
    auto it = s.objects.find(local);
    if (it == s.objects.end()) {
      return Status(StatusCode::kNotFound, Qualified(r_in, name) + " not found");
    }
    ObjectPtr current = it->second;
    if (precondition_uid && Str(current->view, "metadata", "uid") != *precondition_uid) {
      return Status(StatusCode::kAborted,
                    "Operation cannot be fulfilled on " + Qualified(r_in, name) +
                        ": Precondition failed: UID in precondition: " + *precondition_uid +
                        ", UID in object meta: " + Str(current->view, "metadata", "uid"));
    }
    if (precondition_rv && std::to_string(current->resource_version) != *precondition_rv) {
      return Status(
          StatusCode::kAborted,
          "Operation cannot be fulfilled on " + Qualified(r_in, name) +
              ": Precondition failed: ResourceVersion in precondition: " + *precondition_rv +
              ", ResourceVersion in object meta: " + std::to_string(current->resource_version));
    }
    if (opts.dry_run) return current;
    ++revision_;
    json value = current->Parse();
    const RvText t = DumpWithEmptyRv(value);
    last = MakeStored(r, value, t, revision_);
    ticket = Commit(r, local, last, current, EventType::kDeleted, opts.origin, &wake);
  }
  WakeWatchers(wake);
  TIDEPOOL_RETURN_IF_ERROR(WaitDurable(ticket));
  return last;
}

StatusOr<std::unique_ptr<Watch>> ObjectStore::OpenWatch(const Resource* r_in, std::string_view ns,
                                                        int64_t from_rv, Backlog backlog,
                                                        std::function<void()> on_ready) {
  const Resource* r = r_in != nullptr ? &StorageOf(*r_in) : nullptr;
  auto state = std::make_shared<Watch::State>();
  state->on_ready = std::move(on_ready);
  state->resource = r;
  state->ns = std::string(ns);
  state->bounded = backlog == Backlog::kBounded;
  state->max_backlog = options_.max_watch_backlog;
  state->max_lag = options_.max_watch_lag_bytes;
  std::lock_guard<std::mutex> lock(mu_);
  if (from_rv > revision_) {
    // kube-apiserver waits for a future revision; tidepool's revisions are all local, so a
    // client can only know one from a restarted store that lost nothing: treat as "now".
    from_rv = revision_;
  }
  std::vector<const Resource*> resources;
  if (r != nullptr) {
    resources.push_back(r);
  } else {
    for (const Resource& x : Resources()) resources.push_back(&x);
  }
  // The events a watch starts with count as written when it opened (for its lag).
  state->opened_at = stream_bytes_;
  std::vector<EventPtr> initial;
  if (from_rv == 0) {
    for (const Resource* res : resources) {
      for (const auto& [k, o] : ShardFor(*res).objects) {
        auto e = std::make_shared<WatchEvent>();
        e->type = EventType::kAdded;
        e->resource = res;
        e->object = o;
        e->resource_version = o->resource_version;
        e->stream_offset = stream_bytes_;
        if (state->Wants(*e)) initial.push_back(std::move(e));
      }
    }
  } else if (from_rv < revision_) {
    for (const Resource* res : resources) {
      const Shard& s = ShardFor(*res);
      if (Status covered = HistoryCovers(s, from_rv); !covered.ok()) return covered;
      auto it = std::upper_bound(
          s.history.begin(), s.history.end(), from_rv,
          [](int64_t rv, const EventPtr& e) { return rv < e->resource_version; });
      for (; it != s.history.end(); ++it) {
        if (state->Wants(**it)) initial.push_back(*it);
      }
    }
    if (resources.size() > 1) {
      std::stable_sort(initial.begin(), initial.end(), [](const EventPtr& a, const EventPtr& b) {
        return a->resource_version < b->resource_version;
      });
    }
  }
  state->queue.assign(initial.begin(), initial.end());
  state->initial = state->queue.size();
  state->NoteOldest();
  watchers_.push_back(state);
  return std::unique_ptr<class Watch>(new class Watch(state));
}

}  // namespace tidepool::apiserver
