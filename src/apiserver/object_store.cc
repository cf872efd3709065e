#include "apiserver/object_store.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "apiserver/json_io.h"
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

// ---------------------------------------------------------------------------------------------
// Watch

struct Watch::State {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<WatchEvent> queue;
  bool closed = false;
  std::string error;
  // Immutable after creation.
  const Resource* resource = nullptr;
  std::string ns;
  size_t max_backlog = 0;

  bool Wants(const WatchEvent& e) const {
    if (resource != nullptr && e.resource != resource) return false;
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
  // Queues `e` under the watcher's lock. Returns true when the watcher must be woken: its
  // queue went from empty to non-empty, or it was closed. The caller wakes it (Wake) after
  // releasing the store's mutex, so a woken watcher never blocks on the store's lock and a
  // watcher already awake is not signalled again for every event.
  bool Push(const WatchEvent& e) {
    std::lock_guard<std::mutex> lock(mu);
    if (closed) return false;
    if (queue.size() >= max_backlog) {
      closed = true;
      error = "the watcher fell too far behind and was closed";
      queue.clear();
      return true;
    }
    queue.push_back(e);
    return queue.size() == 1;
  }
  // Wakes a watcher blocked in Next/NextBatch. No lock needed: the waiter re-checks its
  // predicate under `mu`, and Push changed the state under `mu` before this call.
  void Wake() { cv.notify_one(); }
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
    *out = std::move(state_->queue.front());
    state_->queue.pop_front();
    return Result::kEvent;
  }
  return state_->closed ? Result::kClosed : Result::kTimeout;
}

Watch::Result Watch::NextBatch(Duration timeout, size_t max_bytes, std::vector<WatchEvent>* out) {
  std::unique_lock<std::mutex> lock(state_->mu);
  state_->cv.wait_for(lock, timeout,
                      [&] { return !state_->queue.empty() || state_->closed; });
  if (state_->queue.empty()) return state_->closed ? Result::kClosed : Result::kTimeout;
  size_t bytes = 0;
  do {
    WatchEvent& e = state_->queue.front();
    bytes += e.object != nullptr ? e.object->text.size() : 0;
    out->push_back(std::move(e));
    state_->queue.pop_front();
  } while (!state_->queue.empty() && bytes < max_bytes);
  return Result::kEvent;
}

bool Watch::Drain(std::vector<WatchEvent>* out) {
  std::lock_guard<std::mutex> lock(state_->mu);
  while (!state_->queue.empty()) {
    out->push_back(std::move(state_->queue.front()));
    state_->queue.pop_front();
  }
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
};

namespace {

std::string LocalKey(std::string_view ns, std::string_view name) {
  std::string k(ns);
  k += '/';
  k += name;
  return k;
}

const json* Member(const json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::string StringAt(const json& j, std::string_view a, std::string_view b) {
  const json* x = Member(j, a);
  if (x == nullptr) return "";
  const json* y = Member(*x, b);
  return y != nullptr && y->is_string() ? y->get<std::string>() : "";
}

bool HasGeneration(const Resource& r) {
  return r.group == "apps" || r.group == "batch" || r.group == "policy";
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
RvText DumpWithEmptyRv(json& object, std::string_view fields_v1_text = {}) {
  json& meta = object["metadata"];
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
      random_(options.seed) {}

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

std::string ObjectStore::Qualified(const Resource& r, std::string_view name) {
  std::string s = r.resource;
  if (!r.group.empty()) s += "." + r.group;
  s += " \"";
  s += name;
  s += "\"";
  return s;
}

ObjectStore::Shard& ObjectStore::ShardFor(const Resource& r) const {
  auto& s = shards_[&r];
  if (!s) s = std::make_unique<Shard>();
  return *s;
}

StatusOr<size_t> ObjectStore::Load() {
  TIDEPOOL_ASSIGN_OR_RETURN(storage::Snapshot snap, backend_->Load());
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
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
    const Resource* r =
        FindStoredResource(parts[0] == "core" ? "" : parts[0], "v1", parts[1]);
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
    o->resource_version = rec.resource_version;
    ShardFor(*r).objects[LocalKey(parts[2], rec.key.substr(start))] = std::move(o);
    ++n;
  }
  revision_ = std::max(revision_, snap.revision);
  // uids must not repeat across restarts: mix the restored revision into the generator.
  random_ = Random(options_.seed ^ (static_cast<uint64_t>(revision_) * 0x9e3779b97f4a7c15ull));
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

StatusOr<ObjectPtr> ObjectStore::Get(const Resource& r, std::string_view ns,
                                     std::string_view name) const {
  std::lock_guard<std::mutex> lock(mu_);
  Shard& s = ShardFor(r);
  auto it = s.objects.find(LocalKey(r.namespaced ? ns : "", name));
  if (it == s.objects.end()) {
    return Status(StatusCode::kNotFound, Qualified(r, name) + " not found");
  }
  return it->second;
}

ObjectStore::ListResult ObjectStore::List(
    const Resource& r, std::string_view ns,
    const std::function<bool(const json&)>& filter) const {
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
  WatchEvent e;
  e.type = type;
  e.resource = &r;
  e.object = std::move(object);
  e.old_object = std::move(old);
  e.resource_version = revision_;
  e.origin = origin;
  // Queue the event for live watchers, dropping the ones that went away; the ones to wake
  // are woken by the caller once the store's mutex is released (WakeWatchers).
  size_t live = 0;
  for (size_t i = 0; i < watchers_.size(); ++i) {
    if (auto st = watchers_[i].lock()) {
      if (st->Wants(e) && st->Push(e)) wake->push_back(std::move(st));
      watchers_[live++] = watchers_[i];
    }
  }
  watchers_.resize(live);
  log_.push_back(std::move(e));
  while (log_.size() > options_.event_window) log_.pop_front();
  return ticket;
}

void ObjectStore::WakeWatchers(const WakeList& wake) {
  for (const auto& st : wake) st->Wake();
}

Status ObjectStore::WaitDurable(uint64_t ticket) { return backend_->Wait(ticket); }

StatusOr<ObjectPtr> ObjectStore::Create(const Resource& r, json object,
                                        const WriteOptions& opts) {
  std::string ns = r.namespaced ? StringAt(object, "metadata", "namespace") : "";
  if (r.namespaced && ns.empty()) ns = "default";
  object = Prepare(r, std::move(object), ns);
  json& meta = object["metadata"];
  std::string name = StringAt(object, "metadata", "name");
  std::string local;
  {
    // Names and uids come from the store's seeded generator.
    std::lock_guard<std::mutex> lock(mu_);
    if (name.empty()) {
      const std::string gen = StringAt(object, "metadata", "generateName");
      static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
      name = gen;
      for (int i = 0; i < 5; ++i) name += kAlphabet[random_.Uniform(sizeof(kAlphabet) - 1)];
      meta["name"] = name;
    }
    local = LocalKey(ns, name);
    if (ShardFor(r).objects.count(local) != 0) {
      return Status(StatusCode::kAlreadyExists, Qualified(r, name) + " already exists");
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
  auto set_revision = [&](int64_t rv) {
    const std::string text = std::to_string(rv);
    o->text = t.With(text);
    if (o->view.is_object() && o->view["metadata"].is_object()) {
      o->view["metadata"]["resourceVersion"] = text;
    }
    o->resource_version = rv;
  };
  uint64_t ticket = 0;
  WakeList wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Checked again: another create of the same name may have committed meanwhile.
    if (ShardFor(r).objects.count(local) != 0) {
      return Status(StatusCode::kAlreadyExists, Qualified(r, name) + " already exists");
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

StatusOr<ObjectStore::UpdateResult> ObjectStore::Update(const Resource& r, std::string_view ns,
                                                        std::string_view name,
                                                        const Mutator& mutate,
                                                        const WriteOptions& opts,
                                                        bool allow_create) {
  uint64_t ticket = 0;
  UpdateResult result;
  WakeList wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string nsv = r.namespaced ? std::string(ns) : "";
    const std::string local = LocalKey(nsv, name);
    Shard& s = ShardFor(r);
    auto it = s.objects.find(local);
    ObjectPtr current = it == s.objects.end() ? nullptr : it->second;
    if (current == nullptr && !allow_create) {
      return Status(StatusCode::kNotFound, Qualified(r, name) + " not found");
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
      if (meta.contains("resourceVersion")) {
        const json& want = meta["resourceVersion"];
        if (!want.is_string() ||
            (!want.get<std::string>().empty() &&
             want.get<std::string>() != std::to_string(current->resource_version))) {
          return Status(StatusCode::kAborted,
                        "Operation cannot be fulfilled on " + Qualified(r, name) +
                            ": the object has been modified; please apply your changes to the "
                            "latest version and try again");
        }
      }
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
        const json* old_spec = Member(cur, "spec");
        const json* new_spec = Member(next, "spec");
        const bool spec_changed = (old_spec == nullptr) != (new_spec == nullptr) ||
                                  (old_spec != nullptr && *old_spec != *new_spec);
        meta["generation"] = spec_changed ? gen + 1 : gen;
      }
    }
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
  WakeWatchers(wake);
  TIDEPOOL_RETURN_IF_ERROR(WaitDurable(ticket));
  return result;
}

StatusOr<ObjectPtr> ObjectStore::Delete(const Resource& r, std::string_view ns,
                                        std::string_view name, const WriteOptions& opts,
                                        std::optional<std::string> precondition_uid,
                                        std::optional<std::string> precondition_rv) {
  uint64_t ticket = 0;
  ObjectPtr last;
  WakeList wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string local = LocalKey(r.namespaced ? ns : "", name);
    Shard& s = ShardFor(r);
    auto it = s.objects.find(local);
    if (it == s.objects.end()) {
      return Status(StatusCode::kNotFound, Qualified(r, name) + " not found");
    }
    ObjectPtr current = it->second;
    if (precondition_uid && StringAt(current->view, "metadata", "uid") != *precondition_uid) {
      return Status(StatusCode::kAborted,
                    "Operation cannot be fulfilled on " + Qualified(r, name) +
                        ": Precondition failed: UID in precondition: " + *precondition_uid +
                        ", UID in object meta: " + StringAt(current->view, "metadata", "uid"));
    }
    if (precondition_rv && std::to_string(current->resource_version) != *precondition_rv) {
      return Status(StatusCode::kAborted,
                    "Operation cannot be fulfilled on " + Qualified(r, name) +
                        ": Precondition failed: ResourceVersion in precondition: " +
                        *precondition_rv + ", ResourceVersion in object meta: " +
                        std::to_string(current->resource_version));
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

StatusOr<std::unique_ptr<Watch>> ObjectStore::OpenWatch(const Resource* r, std::string_view ns,
                                                    int64_t from_rv) {
  auto state = std::make_shared<Watch::State>();
  state->resource = r;
  state->ns = std::string(ns);
  state->max_backlog = options_.max_watch_backlog;
  std::lock_guard<std::mutex> lock(mu_);
  if (from_rv > revision_) {
    // kube-apiserver waits for a future revision; tidepool's revisions are all local, so a
    // client can only know one from a restarted store that lost nothing: treat as "now".
    from_rv = revision_;
  }
  if (from_rv == 0) {
    const std::vector<const Resource*> resources = [&] {
      std::vector<const Resource*> v;
      if (r != nullptr) {
        v.push_back(r);
      } else {
        for (const Resource& x : Resources()) v.push_back(&x);
      }
      return v;
    }();
    for (const Resource* res : resources) {
      for (const auto& [k, o] : ShardFor(*res).objects) {
        WatchEvent e;
        e.type = EventType::kAdded;
        e.resource = res;
        e.object = o;
        e.resource_version = o->resource_version;
        if (state->Wants(e)) state->queue.push_back(std::move(e));
      }
    }
  } else if (from_rv < revision_) {
    const int64_t oldest = log_.empty() ? revision_ + 1 : log_.front().resource_version;
    if (from_rv + 1 < oldest) {
      return Status(StatusCode::kOutOfRange,
                    "too old resource version: " + std::to_string(from_rv) + " (" +
                        std::to_string(oldest - 1) + ")");
    }
    auto it = std::upper_bound(
        log_.begin(), log_.end(), from_rv,
        [](int64_t rv, const WatchEvent& e) { return rv < e.resource_version; });
    for (; it != log_.end(); ++it) {
      if (state->Wants(*it)) state->queue.push_back(*it);
    }
  }
  watchers_.push_back(state);
  return std::unique_ptr<class Watch>(new class Watch(state));
}

}  // namespace tidepool::apiserver
