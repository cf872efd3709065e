// File: informer.h
//
// Informer: client-go's Reflector + Indexer + shared-informer handlers (v0.32) for one resource
// collection, e.g. "/api/v1/pods", "/api/v1/nodes", "/apis/policy/v1/poddisruptionbudgets",
// "/apis/apps/v1/replicasets" (all namespaces) or a namespaced collection path.
//
// Design (one thread per informer, started by Start()):
//   1. List: GET path?limit=500 (client-go's pager page size), following `continue` tokens; if a
//      continue token expires (410) the pager falls back to one full list, as client-go's
//      ListPager does. The cache is replaced by the listed objects (see "Relist" below) and the
//      informer has synced.
//   2. Watch from the list's resourceVersion with allowWatchBookmarks=true and timeoutSeconds
//      drawn uniformly in [min_watch_timeout, 2*min_watch_timeout) ([5 min, 10 min) as
//      client-go). Every event's metadata.resourceVersion (bookmarks included) becomes the last
//      seen resourceVersion.
//   3. A watch that ends normally (server timeout) is re-opened at once from the last seen
//      resourceVersion.
//   4. "410 Gone"/"Expired" (an HTTP 410 on opening, or an ERROR event with code 410) means the
//      resourceVersion is too old: relist (step 1).
//   5. Any other error (connection refused, 5xx, 429, a broken stream) backs off with client-go's
//      reflector backoff (800 ms doubling to 30 s, jitter factor 1.0, reset after 2 min
//      without backoff), honouring a larger Retry-After; then, as client-go's ListAndWatch: a
//      transport failure (connection refused, reset, DNS) or a 429 on the watch retries the
//      watch from the last resourceVersion; anything else (5xx, an ERROR event, a watch that
//      closed within a second with nothing in it) restarts with a list.
// Relist semantics (client-go's DeltaFIFO Replace): objects in the new list that are not in the
// cache are added (OnAdd), those whose resourceVersion changed are updated (OnUpdate), those
// gone are deleted (OnDelete with final_state_unknown = true: the deletion was not observed,
// client-go's DeletedFinalStateUnknown). Unchanged objects produce no callback (client-go
// calls OnUpdate with equal objects on relist; handlers ignore those anyway).
//
// Handlers run one at a time, in event order, after the cache is updated (so List()/Get()
// inside a handler see the change, or a later state). With one set of handlers they run on the
// informer's thread. With several (an informer shared by several consumers,
// shared_informers.h) each set runs on a thread of its own fed by an unbounded queue of
// notifications, as client-go's sharedIndexInformer hands each listener its notifications
// (processorListener): a consumer that is slow, or waits for its own lock, delays only itself,
// never the watch or the other consumers. HasSynced() is true once every set handled the first
// list. Handlers must not call Stop().
//
// Objects are stored as immutable shared JSON (one copy per object; snapshots share it). An
// optional transform (e.g. StripManagedFields) runs on every object before it is stored and
// handed to handlers. With cache_metadata_only the cache keeps only each object's
// metadata.name, namespace and resourceVersion (what relists compare) - for consumers that
// decode what they need in their handlers and keep that instead: a pod's JSON tree is ~13 KB
// without managedFields. Those three strings are packed in one allocation per object
// ("<ns>/<name>" followed by the resourceVersion) in an ordered set keyed by a view of the key
// (about 0.11 KB an object; a JSON tree of the same three fields cost 0.75-0.9 KB). Handlers
// still get whole objects for adds, updates and observed deletions; the old object of an
// update, the object of an inferred deletion and List()/Get() are stubs then, built on demand
// from the packed entry: {"metadata": {"name", "namespace", "resourceVersion"}} holding those
// of the three fields the object had as strings (a cluster-scoped object has no namespace).
//
// Time: the backoff's reset rule reads the injected Clock; waits are condition-variable waits
// that Stop() interrupts; the watch's HTTP stream notices Stop() within ~100 ms.
//
// Driven mode (`tidepool simulate`, where every actor runs on one deterministic EventQueue): an
// informer given an InformerDriver (SetDriver, before Start) has no thread, no list, no watch
// and no listeners. Start() asks the driver to feed it (InformerDriver::Started); the driver
// then calls FeedList once (the first list: the informer has synced when it returns) and
// FeedEvent for every later change, on the driver's thread, and every set of handlers runs
// inline, in the order the sets were added. Stop() makes further feeds do nothing.
//
// Thread-safe: List/Get/HasSynced/stats from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "client/rest_client.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/random.h"
#include "common/status.h"

namespace tidepool::client {

using ObjectRef = std::shared_ptr<const nlohmann::json>;

struct ResourceEventHandlers {
  // `initial_list` is true for objects of the first list (client-go's isInInitialList).
  std::function<void(const ObjectRef& obj, bool initial_list)> on_add;
  std::function<void(const ObjectRef& old_obj, const ObjectRef& new_obj)> on_update;
  // `obj` is the last state seen; `final_state_unknown` when the deletion was inferred from a
  // relist instead of observed.
  std::function<void(const ObjectRef& obj, bool final_state_unknown)> on_delete;
};

// Reflector backoff (client-go reflector.go: NewExponentialBackoffManager(800ms, 30s, 2min,
// 2.0, 1.0)).
struct BackoffOptions {
  Duration initial = std::chrono::milliseconds(800);
  Duration max = std::chrono::seconds(30);
  Duration reset_after = std::chrono::minutes(2);
  double factor = 2.0;
  double jitter = 1.0;  // a wait is d + rand[0,1) * jitter * d
};

struct InformerOptions {
  // The collection path (see the file comment).
  std::string path;
  std::string label_selector;
  std::string field_selector;
  // List page size (client-go's pager default); 0: no pagination.
  int64_t page_size = 500;
  // Watches time out server-side after a random duration in [min, 2*min).
  Duration min_watch_timeout = std::chrono::minutes(5);
  BackoffOptions backoff;
  // Seed of the jitter and watch-timeout draws.
  uint64_t seed = 1;
  // Applied to every object before it is stored (may be empty).
  std::function<nlohmann::json(nlohmann::json&&)> transform;
  // Names `transform`, so that informers with the same one can be shared
  // (shared_informers.h); empty: a transform that is not shared.
  std::string transform_name;
  // Name for logs ("pods"); the path when empty.
  std::string name;
  // Keep only a metadata stub per object (see the file comment).
  bool cache_metadata_only = false;
  // The consumers never read metadata.managedFields: watch events are decoded without them
  // (WatchOptions::drop_managed_fields; a driver may do the same), before `transform` runs.
  // Lists are decoded whole; `transform` must still drop them if they must not be kept.
  bool drop_managed_fields = false;
};

class Informer;

// What feeds driven informers (see the file comment); cluster/store_informer_driver.h is the
// one over the API's object store.
class InformerDriver {
 public:
  virtual ~InformerDriver() = default;
  // `informer` was started and waits for its first list (FeedList). Called from the thread
  // that started it; the informer outlives its registration with the driver while it is not
  // stopped (the driver keeps a shared reference to it: see SharedInformerFactory).
  virtual void Started(std::shared_ptr<Informer> informer) = 0;
};

struct InformerStats {
  uint64_t lists = 0;            // complete lists (the first one included)
  uint64_t relists_on_expired = 0;  // lists caused by 410 Gone/Expired
  uint64_t watches = 0;          // watch requests opened
  uint64_t watch_restarts = 0;   // watches re-opened after the previous one ended
  uint64_t errors = 0;           // failed requests / broken streams (each followed by a backoff)
  uint64_t events = 0;           // watch events applied (bookmarks excluded)
  uint64_t bookmarks = 0;
  std::string last_resource_version;
  std::string last_error;
};

class Informer : public std::enable_shared_from_this<Informer> {
 public:
  // `client` and `clock` must outlive the informer; `logger` may be null.
  Informer(const RestClient& client, const Clock& clock, InformerOptions options,
           log::Logger* logger = nullptr);
  // Stops (and joins) when running.
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // REQUIRES: before Start() (a handler added later would miss what was listed: the
  // informer's cache may hold only stubs). Violations are logged and the handlers dropped.
  void AddEventHandlers(ResourceEventHandlers handlers);

  // Starts the informer's thread (driven: hands it to its driver); a second call does nothing.
  // Driven informers must be owned by a shared_ptr.
  void Start();

  // Driven mode (see the file comment). REQUIRES: before Start(); `driver` outlives the
  // informer's feeds.
  void SetDriver(InformerDriver* driver);
  bool driven() const { return driver_ != nullptr; }
  const InformerOptions& options() const { return options_; }
  // A complete list of the collection at `resource_version` (the first marks the informer
  // synced), and one watch event of `type` (ADDED, MODIFIED, DELETED). The transform runs
  // first; handlers run on the caller's thread. No effect once stopped.
  void FeedList(std::vector<nlohmann::json>&& items, const std::string& resource_version);
  void FeedEvent(const std::string& type, nlohmann::json&& obj);
  // Stops the thread promptly (an open watch is cancelled) and joins it. Idempotent and safe
  // from several threads at once; handlers are not called after it returns.
  void Stop();
  // Asks the thread to stop without waiting for it (Stop() then joins at once): an owner of
  // several informers asks them all first, so that their watches wind down together.
  void RequestStop();

  // True once the first list was applied and its OnAdd handlers ran.
  bool HasSynced() const;
  // Blocks until synced, stopped or `timeout` (real time) passed; returns HasSynced().
  bool WaitForSync(Duration timeout) const;

  // A snapshot of the cache, sorted by key.
  std::vector<ObjectRef> List() const;
  // The object with key "<namespace>/<name>" (or "<name>" for cluster-scoped kinds), or null.
  ObjectRef Get(const std::string& key) const;
  size_t Size() const;

  InformerStats stats() const;

  // "<ns>/<name>" or "<name>" (client-go's MetaNamespaceKeyFunc).
  static std::string KeyOf(const nlohmann::json& obj);

  // Test seams (tests and bench/autoscale_cache_bench.cc), without an API server: what a
  // complete list with `items` at `resource_version` does to the cache and the handlers
  // (initial_list true until the first one), and what a watch event of `type` (ADDED,
  // MODIFIED, DELETED) does. Both apply the transform first and run the handlers on the
  // caller's thread. REQUIRES: the informer was not started.
  void ReplaceForTest(std::vector<nlohmann::json>&& items, const std::string& resource_version);
  void ApplyForTest(const std::string& type, nlohmann::json&& obj);

 private:
  // What cache_metadata_only keeps of an object: "<ns>/<name>" (or "<name>") followed by its
  // resourceVersion, in one allocation; which of name, namespace and resourceVersion the object
  // had (as strings) is kept in `fields`.
  class PackedMeta {
   public:
    static constexpr uint8_t kName = 1, kNamespace = 2, kResourceVersion = 4;
    PackedMeta(std::string_view ns, std::string_view name, std::string_view rv, uint8_t fields);
    // "<ns>/<name>" or "<name>": the store's key, KeyOf's answer for the object.
    std::string_view key() const { return {data_.get(), key_len_}; }
    std::string_view resource_version() const { return {data_.get() + key_len_, rv_len_}; }
    // {"metadata": {...}} with the fields the object had.
    ObjectRef Stub() const;

   private:
    std::unique_ptr<char[]> data_;
    uint32_t key_len_ = 0;
    uint32_t ns_len_ = 0;  // 0 for a cluster-scoped object (then the key is the name)
    uint32_t rv_len_ = 0;
    uint8_t fields_ = 0;
  };
  // Orders PackedMeta by key, and finds one by a key alone.
  struct PackedMetaLess {
    using is_transparent = void;
    bool operator()(const PackedMeta& a, const PackedMeta& b) const { return a.key() < b.key(); }
    bool operator()(const PackedMeta& a, std::string_view b) const { return a.key() < b; }
    bool operator()(std::string_view a, const PackedMeta& b) const { return a < b.key(); }
  };
  using PackedSet = std::set<PackedMeta, PackedMetaLess>;
  static PackedMeta Pack(const nlohmann::json& obj);
  // Inserts `m`, or replaces the entry of the same key.
  static void Put(PackedSet& set, PackedMeta&& m);

  // A set of handlers with a thread of its own (several consumers; see the file comment).
  class Listener;
  // Hands one change to every set of handlers: directly, or to their listeners' queues.
  enum class Kind { kAdd, kUpdate, kDelete };
  void Deliver(Kind kind, const ObjectRef& old_obj, const ObjectRef& obj, bool flag);
  // The first list was handled by every listener.
  void MarkSynced();

  void Run();
  // One list (with pagination); replaces the cache. Returns the RestResult of the failing call.
  RestResult ListAndReplace(bool initial);
  // Replaces the cache by `listed` (DeltaFIFO.Replace), runs the handlers, marks synced.
  void Replace(std::vector<ObjectRef>&& listed, const std::string& rv, bool initial);
  // One watch until it ends; `expired` set on a 410.
  RestResult WatchOnce(bool* expired);
  // Waits `d` unless stopped; false when stopped.
  bool SleepUnlessStopped(Duration d);
  Duration NextBackoff(std::optional<Duration> retry_after);
  ObjectRef Prepare(nlohmann::json&& obj);
  void Apply(const std::string& type, ObjectRef obj);
  void Logf(log::Level level, const std::string& msg);

  // Constant after construction (driver_: after SetDriver, before Start).
  InformerDriver* driver_ = nullptr;
  const RestClient& client_;
  const Clock& clock_;
  const InformerOptions options_;
  log::Logger* const logger_;
  std::string name_;

  // Set before Start().
  std::vector<ResourceEventHandlers> handlers_;
  bool wants_old_ = false;  // some handler has on_update

  // Only the informer thread touches these.
  Random random_;
  std::string last_rv_;
  Duration backoff_current_;
  std::optional<TimePoint> last_backoff_start_;

  std::thread thread_;
  std::mutex join_mu_;  // serializes Stop()'s join
  // Made by Start() when there are several sets of handlers; empty otherwise.
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::atomic<size_t> listeners_pending_sync_{0};
  bool listed_once_ = false;  // the informer thread's: the first list was applied
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  // State below is protected by mu_.
  // The cache: whole objects by key, or (cache_metadata_only) packed metadata only.
  std::map<std::string, ObjectRef> items_;
  PackedSet packed_;
  bool synced_ = false;
  bool started_ = false;
  InformerStats stats_;
};
using InformerPtr = std::unique_ptr<Informer>;

// A transform that drops metadata.managedFields (what CA and most controllers never read;
// client-go's TransformStripManagedFields).
nlohmann::json StripManagedFields(nlohmann::json&& obj);
// The transform_name of StripManagedFields.
inline constexpr char kStripManagedFieldsName[] = "strip-managed-fields";

// Stops every informer of the list together: each notices within its watch's poll, so one by
// one would take that long each.
void StopAll(std::initializer_list<Informer*> informers);
void StopAll(const std::vector<Informer*>& informers);

// The options of an informer whose handlers decode what they keep (the scheduler's, the
// kubelets', the autoscaler's, the controllers'): managedFields stripped (transform_name
// "strip-managed-fields", and dropped while decoding), only metadata stubs cached (see the file
// comment), a field selector when given. Informers of these options on the same path share
// (shared_informers.h).
InformerOptions DecodingInformerOptions(std::string name, std::string path, uint64_t seed,
                                        std::string field_selector = "");

}  // namespace tidepool::client
