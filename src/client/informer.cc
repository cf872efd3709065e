#include "client/informer.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>

#include "common/set_replace.h"

namespace tidepool::client {
namespace {

using nlohmann::json;

std::string ResourceVersionOf(const json& obj) {
  if (!obj.is_object()) return "";
  auto md = obj.find("metadata");
  if (md == obj.end() || !md->is_object()) return "";
  auto rv = md->find("resourceVersion");
  if (rv == md->end() || !rv->is_string()) return "";
  return rv->get<std::string>();
}

// The string at metadata[field] of `obj`, or null when absent or not a string.
const std::string* MetaString(const json& obj, const char* field) {
  if (!obj.is_object()) return nullptr;
  auto md = obj.find("metadata");
  if (md == obj.end() || !md->is_object()) return nullptr;
  auto f = md->find(field);
  if (f == md->end() || !f->is_string()) return nullptr;
  return &f->get_ref<const std::string&>();
}

// Requests of the informer carry a timeout so that a hung server cannot keep Stop() waiting
// forever (watches are cancelled through the stop flag instead).
constexpr Duration kListTimeout = std::chrono::seconds(60);

// client-go reflector: a watch that closes within a second without delivering anything is an
// error ("very short watch"), so that a misbehaving server does not make us spin.
constexpr Duration kShortWatch = std::chrono::seconds(1);

}  // namespace

class Informer::Listener {
 public:
  explicit Listener(ResourceEventHandlers handlers) : handlers_(std::move(handlers)) {}
  ~Listener() { Stop(); }
  void Start() {
    thread_ = std::thread([this] { Run(); });
  }
  void Push(std::function<void(const ResourceEventHandlers&)> call) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
      queue_.push_back(std::move(call));
    }
    cv_.notify_one();
  }
  // Pending notifications are dropped; no handler runs once this returns.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      queue_.clear();
    }
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      std::function<void(const ResourceEventHandlers&)> call = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      call(handlers_);
      lock.lock();
    }
  }

  const ResourceEventHandlers handlers_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void(const ResourceEventHandlers&)>> queue_;
  bool stop_ = false;
};

json StripManagedFields(json&& obj) {
  if (obj.is_object()) {
    auto md = obj.find("metadata");
    if (md != obj.end() && md->is_object()) md->erase("managedFields");
  }
  return std::move(obj);
}

std::string Informer::KeyOf(const json& obj) {
  if (!obj.is_object() || !obj.contains("metadata") || !obj["metadata"].is_object()) return "";
  const json& md = obj["metadata"];
  const std::string name = md.value("name", "");
  const std::string ns = md.value("namespace", "");
  return ns.empty() ? name : ns + "/" + name;
}

Informer::Informer(const RestClient& client, const Clock& clock, InformerOptions options, log::Logger* logger)
    : client_(client),
      clock_(clock),
      options_(std::move(options)),
      logger_(logger),
      name_(options_.name.empty() ? options_.path : options_.name),
      random_(options_.seed),
      backoff_current_(options_.backoff.initial) {}

Informer::~Informer() { Stop(); }

void Informer::AddEventHandlers(ResourceEventHandlers handlers) {
  bool started = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    started = started_;
  }
  if (started) {
    // A programming error (see the header); said where it cannot be missed.
    const std::string msg =
        "informer " + name_ + ": event handlers added after it started are ignored";
    if (logger_ != nullptr) {
      Logf(log::Level::kError, msg);
    } else {
      std::fprintf(stderr, "%s\n", msg.c_str());
    }
    return;
  }
  if (handlers.on_update) wants_old_ = true;
  handlers_.push_back(std::move(handlers));
}

void Informer::SetDriver(InformerDriver* driver) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!started_) driver_ = driver;
}

void Informer::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (started_) return;
    started_ = true;
  }
  if (driver_ != nullptr) {
    driver_->Started(shared_from_this());
    return;
  }
  if (handlers_.size() > 1) {
    for (const ResourceEventHandlers& h : handlers_) {
      listeners_.push_back(std::make_unique<Listener>(h));
      listeners_.back()->Start();
    }
  }
  thread_ = std::thread([this] { Run(); });
}

void Informer::Deliver(Kind kind, const ObjectRef& old_obj, const ObjectRef& obj, bool flag) {
  auto call = [kind, old_obj, obj, flag](const ResourceEventHandlers& h) {
    switch (kind) {
      case Kind::kAdd:
        if (h.on_add) h.on_add(obj, flag);
        break;
      case Kind::kUpdate:
        if (h.on_update) h.on_update(old_obj, obj);
        break;
      case Kind::kDelete:
        if (h.on_delete) h.on_delete(obj, flag);
        break;
    }
  };
  if (listeners_.empty()) {
    for (const ResourceEventHandlers& h : handlers_) call(h);
    return;
  }
  for (const auto& l : listeners_) l->Push(call);
}

void Informer::MarkSynced() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    synced_ = true;
  }
  cv_.notify_all();
}

void Informer::RequestStop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true);
  }
  cv_.notify_all();
}

void Informer::Stop() {
  RequestStop();
  // Owners of a shared informer may stop it from several threads at once.
  std::lock_guard<std::mutex> lock(join_mu_);
  if (thread_.joinable()) thread_.join();
  for (const auto& l : listeners_) l->Stop();
}

void StopAll(const std::vector<Informer*>& informers) {
  for (Informer* i : informers) {
    if (i != nullptr) i->RequestStop();
  }
  for (Informer* i : informers) {
    if (i != nullptr) i->Stop();
  }
}

void StopAll(std::initializer_list<Informer*> informers) {
  StopAll(std::vector<Informer*>(informers));
}

bool Informer::HasSynced() const {
  std::lock_guard<std::mutex> lock(mu_);
  return synced_;
}

bool Informer::WaitForSync(Duration timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, timeout, [this] { return synced_ || stop_.load(); });
  return synced_;
}

std::vector<ObjectRef> Informer::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ObjectRef> out;
  if (options_.cache_metadata_only) {
    out.reserve(packed_.size());
    for (const PackedMeta& m : packed_) out.push_back(m.Stub());
    return out;
  }
  out.reserve(items_.size());
  for (const auto& [key, obj] : items_) out.push_back(obj);
  return out;
}

ObjectRef Informer::Get(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (options_.cache_metadata_only) {
    auto it = packed_.find(std::string_view(key));
    return it == packed_.end() ? nullptr : it->Stub();
  }
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : it->second;
}

size_t Informer::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return options_.cache_metadata_only ? packed_.size() : items_.size();
}

InformerStats Informer::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void Informer::Logf(log::Level level, const std::string& msg) {
  if (logger_ == nullptr) return;
  logger_->Log(level, msg, {}, std::source_location::current());
}

bool Informer::SleepUnlessStopped(Duration d) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, d, [this] { return stop_.load(); });
  return !stop_.load();
}

Duration Informer::NextBackoff(std::optional<Duration> retry_after) {
  // wait.ExponentialBackoffManager: reset to the initial duration when the last backoff
  // started more than reset_after ago; the returned wait is jittered, the next one doubled
  // and capped.
  const BackoffOptions& b = options_.backoff;
  const TimePoint now = clock_.Now();
  if (!last_backoff_start_ || now - *last_backoff_start_ > b.reset_after) backoff_current_ = b.initial;
  last_backoff_start_ = now;
  Duration d = backoff_current_;
  const auto next = std::chrono::duration_cast<Duration>(backoff_current_ * b.factor);
  backoff_current_ = std::min<Duration>(next, b.max);
  if (b.jitter > 0) {
    d += std::chrono::duration_cast<Duration>(d * (random_.UniformDouble() * b.jitter));
  }
  if (retry_after && *retry_after > d) d = *retry_after;
  return d;
}

ObjectRef Informer::Prepare(json&& obj) {
  if (options_.transform) obj = options_.transform(std::move(obj));
  return std::make_shared<const json>(std::move(obj));
}

Informer::PackedMeta::PackedMeta(std::string_view ns, std::string_view name, std::string_view rv,
                                 uint8_t fields)
    : key_len_(static_cast<uint32_t>(ns.empty() ? name.size() : ns.size() + 1 + name.size())),
      ns_len_(static_cast<uint32_t>(ns.size())),
      rv_len_(static_cast<uint32_t>(rv.size())),
      fields_(fields) {
  data_ = std::make_unique_for_overwrite<char[]>(key_len_ + rv_len_);
  char* p = data_.get();
  if (!ns.empty()) {
    p = std::copy(ns.begin(), ns.end(), p);
    *p++ = '/';
  }
  p = std::copy(name.begin(), name.end(), p);
  std::copy(rv.begin(), rv.end(), p);
}

ObjectRef Informer::PackedMeta::Stub() const {
  json md = json::object();
  const std::string_view k = key();
  if (fields_ & kName) md["name"] = std::string(ns_len_ == 0 ? k : k.substr(ns_len_ + 1));
  if (fields_ & kNamespace) md["namespace"] = std::string(k.substr(0, ns_len_));
  if (fields_ & kResourceVersion) md["resourceVersion"] = std::string(resource_version());
  json stub = json::object();
  stub["metadata"] = std::move(md);
  return std::make_shared<const json>(std::move(stub));
}

Informer::PackedMeta Informer::Pack(const json& obj) {
  // The key as KeyOf builds it; a field that is absent or not a string counts as empty.
  const std::string* name = MetaString(obj, "name");
  const std::string* ns = MetaString(obj, "namespace");
  const std::string* rv = MetaString(obj, "resourceVersion");
  const uint8_t fields = (name ? PackedMeta::kName : 0) | (ns ? PackedMeta::kNamespace : 0) |
                         (rv ? PackedMeta::kResourceVersion : 0);
  return PackedMeta(ns ? std::string_view(*ns) : std::string_view(),
                    name ? std::string_view(*name) : std::string_view(),
                    rv ? std::string_view(*rv) : std::string_view(), fields);
}

void Informer::Put(PackedSet& set, PackedMeta&& m) {
  const std::string_view key = m.key();  // into m's buffer, which moves with it
  InsertOrReplace(set, key, std::move(m));
}

void Informer::FeedList(std::vector<json>&& items, const std::string& resource_version) {
  if (stop_.load()) return;
  ReplaceForTest(std::move(items), resource_version);
}

void Informer::FeedEvent(const std::string& type, json&& obj) {
  if (stop_.load()) return;
  const std::string rv = ResourceVersionOf(obj);
  Apply(type, Prepare(std::move(obj)));
  if (rv.empty()) return;
  last_rv_ = rv;
  std::lock_guard<std::mutex> lock(mu_);
  stats_.last_resource_version = rv;
}

void Informer::ReplaceForTest(std::vector<json>&& items, const std::string& resource_version) {
  std::vector<ObjectRef> listed;
  listed.reserve(items.size());
  for (json& item : items) listed.push_back(Prepare(std::move(item)));
  items.clear();
  last_rv_ = resource_version;
  Replace(std::move(listed), resource_version, !HasSynced());
}

void Informer::ApplyForTest(const std::string& type, json&& obj) { Apply(type, Prepare(std::move(obj))); }

RestResult Informer::ListAndReplace(bool initial) {
  ListOptions o;
  o.label_selector = options_.label_selector;
  o.field_selector = options_.field_selector;
  o.limit = options_.page_size;
  std::vector<ObjectRef> listed;
  std::string rv;
  while (true) {
    RestRequest req;
    req.path = options_.path;
    if (!o.label_selector.empty()) req.query.emplace_back("labelSelector", o.label_selector);
    if (!o.field_selector.empty()) req.query.emplace_back("fieldSelector", o.field_selector);
    if (o.limit > 0) req.query.emplace_back("limit", std::to_string(o.limit));
    if (!o.continue_token.empty()) req.query.emplace_back("continue", o.continue_token);
    req.timeout = kListTimeout;
    req.cancel = &stop_;
    RestResult r = client_.Do(req);
    if (!r.ok()) {
      if (r.http_status == 410 && !o.continue_token.empty()) {
        // pager.go: the continue token expired; fall back to one full list.
        Logf(log::Level::kWarning, "reflector " + name_ + ": continue token expired, listing everything at once");
        o.continue_token.clear();
        o.limit = 0;
        listed.clear();
        continue;
      }
      return r;
    }
    if (!r.body.is_object()) {
      r.status = InternalError("list of " + name_ + ": the answer is not an object");
      return r;
    }
    if (r.body.contains("items") && r.body["items"].is_array()) {
      for (json& item : r.body["items"]) listed.push_back(Prepare(std::move(item)));
    }
    const json& md = r.body.contains("metadata") ? r.body["metadata"] : json();
    rv = md.is_object() ? md.value("resourceVersion", "") : "";
    const std::string cont = md.is_object() ? md.value("continue", "") : "";
    if (cont.empty() || o.limit == 0) break;
    o.continue_token = cont;
  }
  last_rv_ = rv;
  const size_t n = listed.size();
  Replace(std::move(listed), rv, initial);
  Logf(log::Level::kInfo, "Caches populated for " + name_ + " (" + std::to_string(n) +
                              " objects, resourceVersion " + rv + ")");
  RestResult ok;
  ok.http_status = 200;
  return ok;
}

void Informer::Replace(std::vector<ObjectRef>&& listed, const std::string& rv, bool initial) {
  // Replace the cache (DeltaFIFO.Replace): adds/updates in list order, then deletions in key
  // order.
  struct Change {
    enum Kind { kAdd, kUpdate, kDelete } kind;
    ObjectRef old_obj, new_obj;
  };
  std::vector<Change> changes;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (options_.cache_metadata_only) {
      // The same comparisons on packed entries; stubs only for what changed. An unchanged
      // entry moves (its node, not a copy) from the old set to the new one, so whatever is
      // left in the old set at the end is what the list no longer has.
      PackedSet next;
      for (ObjectRef& obj : listed) {
        PackedMeta m = Pack(*obj);
        auto old = packed_.find(m.key());
        if (old == packed_.end()) {
          // A key listed twice (never from an API server): the second copy compares against
          // the first.
          auto dup = next.find(m.key());
          if (dup == next.end()) {
            changes.push_back({Change::kAdd, nullptr, std::move(obj)});
          } else if (dup->resource_version() != m.resource_version()) {
            changes.push_back({Change::kUpdate, dup->Stub(), std::move(obj)});
          }
          Put(next, std::move(m));
        } else if (old->resource_version() != m.resource_version()) {
          changes.push_back({Change::kUpdate, old->Stub(), std::move(obj)});
          packed_.erase(old);
          Put(next, std::move(m));
        } else {
          obj.reset();  // unchanged: no callback
          auto node = packed_.extract(old);
          next.insert(next.end(), std::move(node));
        }
      }
      for (const PackedMeta& gone : packed_) changes.push_back({Change::kDelete, gone.Stub(), nullptr});
      packed_ = std::move(next);
    } else {
      std::map<std::string, ObjectRef> next;
      for (ObjectRef& obj : listed) {
        const std::string key = KeyOf(*obj);
        auto old = items_.find(key);
        if (old == items_.end()) {
          changes.push_back({Change::kAdd, nullptr, obj});
          next[key] = obj;
        } else if (ResourceVersionOf(*old->second) != ResourceVersionOf(*obj)) {
          changes.push_back({Change::kUpdate, old->second, obj});
          next[key] = obj;
        } else {
          obj = old->second;  // unchanged: keep the stored copy
          next[key] = obj;
        }
      }
      for (const auto& [key, obj] : items_) {
        if (!next.count(key)) changes.push_back({Change::kDelete, obj, nullptr});
      }
      items_ = std::move(next);
    }
    ++stats_.lists;
    stats_.last_resource_version = rv;
  }
  listed.clear();
  for (const Change& c : changes) {
    if (stop_.load()) break;
    if (c.kind == Change::kAdd) Deliver(Kind::kAdd, nullptr, c.new_obj, initial);
    if (c.kind == Change::kUpdate) Deliver(Kind::kUpdate, c.old_obj, c.new_obj, false);
    if (c.kind == Change::kDelete) Deliver(Kind::kDelete, nullptr, c.old_obj, true);
  }
  listed_once_ = true;
  if (!initial) return;
  if (listeners_.empty()) {
    MarkSynced();
    return;
  }
  // Synced once every listener has handled the first list.
  listeners_pending_sync_.store(listeners_.size());
  for (const auto& l : listeners_) {
    l->Push([this](const ResourceEventHandlers&) {
      if (listeners_pending_sync_.fetch_sub(1) == 1) MarkSynced();
    });
  }
}

void Informer::Apply(const std::string& type, ObjectRef obj) {
  ObjectRef old;
  bool existed = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (options_.cache_metadata_only) {
      PackedMeta m = Pack(*obj);
      auto it = packed_.find(m.key());
      if (type == "DELETED") {
        if (it != packed_.end()) packed_.erase(it);
      } else if (it == packed_.end()) {
        packed_.insert(std::move(m));
      } else {
        // An update: its old state is a stub, built only for OnUpdate handlers.
        existed = true;
        if (wants_old_) old = it->Stub();
        ReplaceAt(packed_, it, std::move(m));
      }
    } else {
      const std::string key = KeyOf(*obj);
      auto it = items_.find(key);
      if (it != items_.end()) {
        old = it->second;
        existed = true;
      }
      if (type == "DELETED") {
        if (it != items_.end()) items_.erase(it);
      } else {
        items_[key] = obj;
      }
    }
    ++stats_.events;
  }
  if (type == "DELETED") {
    // client-go hands OnDelete the DELETED event's object (the final state).
    Deliver(Kind::kDelete, nullptr, obj, false);
  } else if (existed) {
    Deliver(Kind::kUpdate, old, obj, false);
  } else {
    Deliver(Kind::kAdd, nullptr, obj, false);
  }
}

RestResult Informer::WatchOnce(bool* expired) {
  *expired = false;
  WatchOptions wo;
  wo.label_selector = options_.label_selector;
  wo.field_selector = options_.field_selector;
  wo.resource_version = last_rv_;
  wo.allow_bookmarks = true;
  wo.drop_managed_fields = options_.drop_managed_fields;
  const double secs = std::chrono::duration<double>(options_.min_watch_timeout).count();
  wo.timeout_seconds = std::max<int64_t>(1, static_cast<int64_t>(secs * (random_.UniformDouble() + 1.0)));
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.watches;
  }
  const TimePoint started = clock_.Now();
  uint64_t received = 0;
  Status event_error;
  RestResult r = client_.Watch(
      options_.path, wo,
      [&](WatchEvent&& ev) {
        if (stop_.load()) return false;
        ++received;
        if (ev.type == "ERROR") {
          const int code = ev.object.is_object() ? ev.object.value("code", 0) : 0;
          const std::string msg = ev.object.is_object() ? ev.object.value("message", "") : "";
          const std::string reason = ev.object.is_object() ? ev.object.value("reason", "") : "";
          if (code == 410 || reason == "Expired" || reason == "Gone") {
            *expired = true;
            Logf(log::Level::kWarning, "watch of " + name_ + " ended with: " + msg);
          } else {
            event_error = Status(StatusCodeForHttp(code == 0 ? 500 : code, reason), msg);
          }
          return false;
        }
        const std::string rv = ResourceVersionOf(ev.object);
        if (ev.type == "BOOKMARK") {
          if (!rv.empty()) last_rv_ = rv;
          std::lock_guard<std::mutex> lock(mu_);
          ++stats_.bookmarks;
          stats_.last_resource_version = last_rv_;
          return true;
        }
        if (ev.type != "ADDED" && ev.type != "MODIFIED" && ev.type != "DELETED") {
          event_error = InternalError("unexpected watch event type " + ev.type);
          return false;
        }
        const std::string type = ev.type;
        Apply(type, Prepare(std::move(ev.object)));
        if (!rv.empty()) {
          last_rv_ = rv;
          std::lock_guard<std::mutex> lock(mu_);
          stats_.last_resource_version = rv;
        }
        return true;
      },
      &stop_);
  if (stop_.load()) return r;
  if (r.http_status == 410 || r.status.code() == StatusCode::kOutOfRange) *expired = true;
  if (*expired) return r;
  if (!event_error.ok()) {
    r.status = event_error;
    return r;
  }
  if (r.ok() && received == 0 && clock_.Now() - started < kShortWatch) {
    r.status = UnavailableError("very short watch: " + name_ +
                                ": Unexpected watch close - watch lasted less than a second and no items received");
  }
  return r;
}

void Informer::Run() {
  bool need_list = true;
  bool first_watch = true;
  bool expired_list = false;
  while (!stop_.load()) {
    if (need_list) {
      Logf(log::Level::kInfo, "Listing and watching " + name_);
      const bool initial = !listed_once_;
      RestResult r = ListAndReplace(initial);
      if (stop_.load()) break;
      if (!r.ok()) {
        {
          std::lock_guard<std::mutex> lock(mu_);
          ++stats_.errors;
          stats_.last_error = r.status.ToString();
        }
        Logf(log::Level::kWarning, "failed to list " + name_ + ": " + std::string(r.status.message()));
        if (!SleepUnlessStopped(NextBackoff(r.retry_after))) break;
        continue;
      }
      if (expired_list) {
        std::lock_guard<std::mutex> lock(mu_);
        ++stats_.relists_on_expired;
      }
      expired_list = false;
      need_list = false;
      first_watch = true;
    }
    if (!first_watch) {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.watch_restarts;
    }
    first_watch = false;
    bool expired = false;
    RestResult r = WatchOnce(&expired);
    if (stop_.load()) break;
    if (expired) {
      // "too old resource version": relist at once (reflector's isExpiredError path).
      need_list = true;
      expired_list = true;
      continue;
    }
    if (r.ok()) continue;  // the server ended the watch: resume from the last resourceVersion
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.errors;
      stats_.last_error = r.status.ToString();
    }
    Logf(log::Level::kWarning, "watch of " + name_ + " failed: " + std::string(r.status.message()));
    if (!SleepUnlessStopped(NextBackoff(r.retry_after))) break;
    // reflector.ListAndWatch: a refused connection or a 429 retries the watch; anything else
    // goes back to listing.
    const bool transport = r.http_status == 0;
    if (!transport && r.http_status != 429) need_list = true;
  }
  cv_.notify_all();
}

InformerOptions DecodingInformerOptions(std::string name, std::string path, uint64_t seed,
                                        std::string field_selector) {
  InformerOptions o;
  o.name = std::move(name);
  o.path = std::move(path);
  o.seed = seed;
  o.field_selector = std::move(field_selector);
  o.transform = StripManagedFields;
  o.transform_name = kStripManagedFieldsName;
  o.drop_managed_fields = true;
  o.cache_metadata_only = true;
  return o;
}

}  // namespace tidepool::client
