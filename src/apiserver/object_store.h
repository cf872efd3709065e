// File: object_store.h
//
// ObjectStore: the API server's storage (what etcd and the apiserver's registry are to a real
// cluster). Every object is kept whole, as JSON, exactly as written after defaulting: fields that
// nothing in tidepool models come back unchanged. Every write gets the next cluster-wide
// resourceVersion (etcd's revision), and lists report the revision they were taken at.
//
// Objects are immutable once stored (StoredObject, shared by pointer): a reader holding one sees
// a consistent object while writers replace it. Each carries its compact JSON text, serialized
// once at write time, so lists and watches only concatenate, and a small parsed "view"
// (stored_view.h: what printers and selectors read); no parsed tree of the whole object is
// kept (a pod's tree is ~6x its text): readers that need the whole object parse the text.
//
// What the store does for every write, as kube-apiserver's generic registry does:
//   - create: namespace filled (namespaced kinds), uid (RFC 4122 v4 from the seeded Random),
//     creationTimestamp (RFC 3339, seconds), generation 1 for kinds with a spec that the
//     apiserver generates for (apps/*, batch/*, policy/*), resourceVersion; a name from
//     metadata.generateName + 5 random characters when the name is empty;
//   - update: metadata.resourceVersion in the new object, when set, must equal the stored one
//     (optimistic concurrency: Aborted "Operation cannot be fulfilled on pods \"x\": the object
//     has been modified; please apply your changes to the latest version and try again");
//     uid and creationTimestamp are kept; generation goes up by one when spec changed (for
//     kinds that have one); an update that changes nothing is not a write (no new
//     resourceVersion, no event), as in Kubernetes; the first write of a deletionTimestamp
//     bumps the generation too (rest.BeforeDelete, markAsDeleting);
//   - an update of an object being deleted (deletionTimestamp set, deletionGracePeriodSeconds
//     0 or absent) that leaves it no metadata.finalizers removes it (the registry's
//     ShouldDeleteDuringUpdate): UpdateResult::deleted, a DELETED event whose object is the
//     stored state;
//   - delete: removes the object; the returned object is the last state.
// Deletion with its options (grace periods, finalizers, propagation) is deletion.h's: an
// update setting deletionTimestamp first, the removal later or at once.
//
// Versions: a resource served in several versions (resources.h, storage_version) is kept once,
// in its storage version: every call with any of its versions reads and writes the same
// objects, in the storage version's form (conversion.h converts at the API's edge).
//
// Durability: with a persistent storage::Backend (--data-dir) every write is handed to it under
// the store's lock (so revisions reach it in order) and the write call returns only after the
// backend made it durable: acknowledged means persisted. Load() restores objects and the
// revision after a restart (records of a shard no resource keeps any more - events.k8s.io
// Events of an earlier tidepool, now kept with core's - are dropped and deleted).
//
// Watching: OpenWatch() returns a stream of WatchEvents for one resource (optionally one
// namespace) with revision > from_rv, in revision order, then live ones. A watch from revision 0
// (or none) starts with a synthetic ADDED for every current object. An event is made once and
// shared (EventPtr) by the history and by every watcher that queues it: a watcher's queue costs
// a pointer per event, whatever the objects' size.
//
// Watch history, as kube-apiserver's watch cache: each resource keeps a window of its latest
// events, at most `history_events` (102,400, kube's defaultUpperBoundCapacity) and at most
// `history_bytes` (64 MiB of memory: each event counts its object's StoredObject::memory, text
// and view; its old object is the key's previous event's object). The newest event is always
// kept. kube sizes its window to 75 s of events; 64 MiB held the last 73 s of pod events
// (83 s of Events) in `up --speed 600` under 20 pod creates and deletes a second
// (bench/README.md, soak). A watch from a revision the window no longer
// covers is Expired (410) with kube's text: "too old resource version: 5 (113)", where 113 is
// the revision before the oldest event kept (the revision the store was loaded at when nothing
// was dropped yet). A watch from revision 1 on a busy store is 410, and a client re-lists.
//
// Slow watchers, as kube-apiserver's cacher closes a watcher whose buffer stays full (its
// channels hold 10 to 1,000 events and it waits at most 100 ms): a bounded watcher is closed
// when the oldest event waiting for it is more than `max_watch_lag_bytes` (64 MiB of memory,
// as history_bytes counts it) of the store's writes behind the newest, or when
// `max_watch_backlog` (65,536) live events wait for it; the events a watch starts with
// (synthetic or replayed) are not counted and their lag counts from the open, as kube sends
// them outside the buffer. Every watcher is checked on every write, so a never-reading
// watcher of a quiet namespace is closed too. Its queue is dropped at once; Next/NextBatch
// return kClosed, error() says why, and StoreOptions::log gets kube's line ("Forcing pods
// watcher close due to unresponsiveness: ..."). A client resumes from the last revision it saw
// (the history holds it when the watcher was closed for lag) or re-lists. So whatever the
// number of watchers that never read, the events they keep alive are among the last 64 MiB
// of writes, plus 16 bytes per queued event (at most 1 MiB per watcher); the history adds at
// most 64 MiB per resource. More patient than kube's 100 ms: a watcher thread here writes
// while the writes go on (bench/apiserver_bench's 1,000 watchers of 10,000 pod creates get
// their last event 30-40 s after the last write, and none is closed). An unbounded watch (the
// in-process bridge, which must see every event and drains it every tick) is never closed.
//
// Events expire: core/v1 and events.k8s.io/v1 Events are deleted `event_ttl` after their last
// write (kube-apiserver's --event-ttl, 1 h; an etcd lease there), measured on the store's
// clock, by ExpireEvents() (the caller's tick; a queue ordered by deadline, no scan of the
// objects). A restart gives every restored Event a full TTL again, as etcd refreshes its
// leases when a leader is elected. Thread-safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/resources.h"
#include "apiserver/storage/backend.h"
#include "common/clock.h"
#include "common/random.h"
#include "common/speed.h"
#include "common/status_or.h"

namespace tidepool::apiserver {

struct StoredObject {
  std::string text;     // the object as stored, compact JSON (nlohmann's dump(), keys sorted)
  nlohmann::json view;  // StoredView(resource, object): for printers, selectors, watch filters
  int64_t resource_version = 0;
  // About what it takes in memory: its text and its view (heap bytes, estimated by a walk of
  // the view when it is stored). What the history's and the watchers' bounds count.
  size_t memory = 0;
  // The whole object, parsed from `text` (a fresh tree on every call).
  nlohmann::json Parse() const;
};
using ObjectPtr = std::shared_ptr<const StoredObject>;

enum class EventType { kAdded, kModified, kDeleted };
std::string_view EventTypeName(EventType t);  // "ADDED", "MODIFIED", "DELETED"

struct WatchEvent {
  EventType type = EventType::kAdded;
  const Resource* resource = nullptr;
  ObjectPtr object;      // for kDeleted: the last state
  ObjectPtr old_object;  // for kModified/kDeleted; null for kAdded and synthetic events
  int64_t resource_version = 0;
  std::string origin;  // who wrote it (ObjectStore::WriteOptions::origin)
  // The bytes of the store's writes before this event (a synthetic event: when its watch was
  // opened): how far behind a watcher is.
  uint64_t stream_offset = 0;

  // What the event keeps alive, for the history's and the watchers' bounds: its object's
  // memory. Its old object is not counted: it is the object of the key's previous event.
  size_t bytes() const;
};
using EventPtr = std::shared_ptr<const WatchEvent>;

// One watcher's stream. Next() blocks up to `timeout` for the next event.
class Watch {
 public:
  ~Watch();
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;

  enum class Result { kEvent, kTimeout, kClosed };
  Result Next(Duration timeout, WatchEvent* out);
  // Like Next, but takes every queued event (in order) up to about `max_bytes` of objects'
  // text (at least one event), appended to `out`: a watcher that fell behind catches up in a
  // few large writes instead of one per event, with a bounded amount of memory per batch.
  Result NextBatch(Duration timeout, size_t max_bytes, std::vector<EventPtr>* out);
  // Takes every event available now (no blocking); false once the watch is closed and empty.
  bool Drain(std::vector<EventPtr>* out);
  // Why the store closed the watch (it fell too far behind); empty otherwise.
  std::string error() const;
  // Closes this watch (from any thread); wakes a blocked Next().
  void Stop();

 private:
  friend class ObjectStore;
  struct State;
  explicit Watch(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

// The bounds and their reasons are in the file comment.
struct StoreOptions {
  uint64_t seed = 1;
  // Watch history, per resource.
  size_t history_events = 102400;
  size_t history_bytes = size_t{64} << 20;
  // A bounded watcher is closed past either.
  size_t max_watch_backlog = 65536;
  uint64_t max_watch_lag_bytes = uint64_t{64} << 20;
  // Events are deleted this long after their last write (by ExpireEvents); zero: never.
  Duration event_ttl = std::chrono::hours(1);
  // The store's log lines (a slow watcher closed); none when empty. Called without the
  // store's lock held.
  std::function<void(const std::string&)> log;

  // Every Duration member, once (common/speed.h). An Event's life is the emulated cluster's
  // time: `tidepool up --speed N` keeps Events 1/N as long.
  template <typename F>
  void ForEachDuration(F&& f) {
    f("eventTtl", event_ttl, TimeBase::kEmulated);
  }
};

class ObjectStore {
 public:
  // `clock` must outlive the store. `backend` is storage::NewMemoryBackend() by default.
  ObjectStore(const Clock& clock, std::unique_ptr<storage::Backend> backend,
              StoreOptions options = {});
  ~ObjectStore();
  ObjectStore(const ObjectStore&) = delete;
  ObjectStore& operator=(const ObjectStore&) = delete;

  // Restores what the backend holds. Call once, before anything else. Returns the number of
  // objects restored.
  StatusOr<size_t> Load();

  int64_t resource_version() const;
  // A new uid from the store's seeded generator, for a create that needs the object's uid
  // before the store writes it (a Job's generated selector). Thread-safe; do not call from a
  // Mutator (the store's lock is held then).
  std::string GenerateUid();
  // `prefix` and five characters of names.SimpleNameGenerator's alphabet, as a generateName
  // gets, for names an admission plugin makes (a pod's kube-api-access-xxxxx volume). From a
  // seeded generator of its own, so that those names do not move the store's uids and names.
  // Thread-safe; do not call from a Mutator.
  std::string GenerateName(std::string_view prefix);

  struct WriteOptions {
    std::string origin;      // recorded on the WatchEvent (e.g. "api", "system")
    bool dry_run = false;    // validate and return the result, store nothing
    // Create only: the JSON text of metadata.managedFields[0].fieldsV1, written in place of
    // that member (which the object holds as {}) - patch::UpdateManagedFields's
    // `fields_v1_text`. Must outlive the call.
    std::string_view fields_v1_text;
  };

  // NotFound: `pods "x" not found` (`deployments.apps "x" not found` for groups).
  StatusOr<ObjectPtr> Get(const Resource& r, std::string_view ns, std::string_view name) const;

  struct ListResult {
    std::vector<ObjectPtr> items;  // sorted by namespace, then name
    int64_t resource_version = 0;
  };
  // `ns` empty: every namespace. `filter` may be empty; it gets each object's `view`.
  ListResult List(const Resource& r, std::string_view ns,
                  const std::function<bool(const nlohmann::json&)>& filter = {}) const;

  // A page of the list as it was at revision `rv` (0: the latest): the objects now, with the
  // writes after `rv` undone from the resource's watch history (what etcd serves for a read
  // at a revision: kube's continued lists and resourceVersionMatch=Exact). The page starts at
  // the first key not before `start_key` (the store's "<ns>/<name>" or "/<name>" form) and
  // holds at most `limit` objects that pass `filter` (0: all of them); `more` says whether
  // any object (matching or not) follows the last one examined, and `remaining` how many do
  // (set only when `limit` cut the page). Costs the keys examined plus the writes undone, not
  // the whole collection. OutOfRange with CheckHistory's text when the history no longer
  // covers `rv` (kube: compacted); FailedPrecondition "Too large resource version: <rv>,
  // current: <revision>" when `rv` is beyond the store's revision.
  struct PageResult {
    std::vector<ObjectPtr> items;  // in key order
    int64_t resource_version = 0;  // `rv`, or the revision read
    bool more = false;
    int64_t remaining = 0;
  };
  StatusOr<PageResult> ListPage(const Resource& r, std::string_view ns, int64_t rv,
                                const std::function<bool(const nlohmann::json&)>& filter,
                                std::string_view start_key, size_t limit) const;

  // AlreadyExists: `pods "x" already exists`.
  StatusOr<ObjectPtr> Create(const Resource& r, nlohmann::json object, const WriteOptions& opts);

  // Read-modify-write under the store's lock: `mutate` gets the current object (null when
  // absent) and returns the new one, or an error that is returned as is. With `allow_create`,
  // a null current may be turned into a create (`created` set). `current->Parse()` gives the
  // whole current object. The new object's
  // metadata.resourceVersion, when set, is a precondition (see the file comment).
  using Mutator = std::function<StatusOr<nlohmann::json>(const StoredObject* current)>;
  struct UpdateResult {
    ObjectPtr object;
    bool created = false;
    bool changed = false;
    // The update emptied the finalizers of an object being deleted: it was removed (see the
    // file comment); `object` is the updated object.
    bool deleted = false;
  };
  StatusOr<UpdateResult> Update(const Resource& r, std::string_view ns, std::string_view name,
                                const Mutator& mutate, const WriteOptions& opts,
                                bool allow_create = false);

  // `precondition_uid` / `precondition_rv` when set must match (Conflict otherwise).
  StatusOr<ObjectPtr> Delete(const Resource& r, std::string_view ns, std::string_view name,
                             const WriteOptions& opts,
                             std::optional<std::string> precondition_uid = std::nullopt,
                             std::optional<std::string> precondition_rv = std::nullopt);

  // `r` null: every resource. `ns` empty: every namespace. `from_rv` 0: synthetic ADDED events
  // for the current objects (filtering of live events is the caller's, as selectors need old
  // and new objects). OutOfRange (410 Expired) when `from_rv` is older than the history.
  // kUnbounded: never closed for falling behind (in-process consumers that must see every
  // event and drain it promptly).
  // `on_ready`, when set, is called on the writing thread, without the store's lock, each time
  // the watch's queue goes from empty to non-empty (or the watch is closed): a consumer that
  // drains the watch on its own schedule (a driver of informers on an event queue) learns that
  // there is something to drain without blocking in Next().
  enum class Backlog { kBounded, kUnbounded };
  StatusOr<std::unique_ptr<Watch>> OpenWatch(const Resource* r, std::string_view ns,
                                             int64_t from_rv, Backlog backlog = Backlog::kBounded,
                                             std::function<void()> on_ready = {});

  // OutOfRange with kube's "too old resource version: X (Y)" when the history of `r` no longer
  // covers the writes after `rv` (a watch from it could not be served); OK otherwise.
  Status CheckHistory(const Resource& r, int64_t rv) const;

  // Deletes the Events whose TTL passed (StoreOptions::event_ttl after their last write), as
  // writes with origin "event-ttl". Returns how many. Cheap when none is due.
  size_t ExpireEvents();

  // "<group>/<resource>/<ns>/<name>" storage keys.
  static std::string Key(const Resource& r, std::string_view ns, std::string_view name);
  // `pods "x"` / `deployments.apps "x"`, the prefix of kube's NotFound/AlreadyExists texts.
  static std::string Qualified(const Resource& r, std::string_view name);
  // The optimistic-concurrency precondition of an update: OK unless `meta` (the new object's
  // metadata) names a resourceVersion other than `current`'s ("" and "0" name none: an
  // unconditional update, as kube's) - then kube's Conflict
  // (kAborted, "Operation cannot be fulfilled on ...: the object has been modified; ...").
  static Status CheckResourceVersion(const Resource& r, std::string_view name,
                                     const nlohmann::json& meta, int64_t current);

 private:
  struct Shard;  // one per resource
  Shard& ShardFor(const Resource& r) const;
  // Under mu_ (Load): a Resource for a stored custom resource's key.
  const Resource* RestoredResource(const std::string& group, const std::string& resource);
  // The watchers to wake, and the lines to log, once the store's mutex is released.
  struct WakeList {
    std::vector<std::shared_ptr<Watch::State>> watchers;
    std::vector<std::string> log;
  };
  // Under mu_: assigns the revision, stores, logs, queues the event for watchers (adding to
  // `wake` those to wake), persists. Returns the backend ticket to wait for.
  uint64_t Commit(const Resource& r, const std::string& key, ObjectPtr object, ObjectPtr old,
                  EventType type, const std::string& origin, WakeList* wake);
  // Under mu_: the history and the events' TTL queue after a write.
  void Remember(Shard& s, EventPtr e);
  void TrackTtl(const Resource& r, const std::string& local_key, EventType type, int64_t rv);
  // Under mu_: CheckHistory's answer for `s`.
  Status HistoryCovers(const Shard& s, int64_t rv) const;
  // Under mu_: the revision a watch of `s` must start after at least (see CheckHistory).
  int64_t HistoryFloor(const Shard& s) const;
  // Not under mu_.
  void WakeWatchers(const WakeList& wake) const;
  Status WaitDurable(uint64_t ticket);
  std::string NewUid();
  nlohmann::json Prepare(const Resource& r, nlohmann::json object, std::string_view ns);

  const Clock& clock_;
  std::unique_ptr<storage::Backend> backend_;
  StoreOptions options_;
  mutable std::mutex mu_;
  int64_t revision_ = 0;
  Random random_;
  Random name_random_;  // GenerateName's
  // One shard per stored resource, by its storage identity "<group>/<resource>": every
  // Resource value naming it (a CustomResourceDefinition's are made anew when it changes)
  // reads the same objects. `shard_of_` caches the lookup by the Resource's address.
  mutable std::map<std::string, std::unique_ptr<Shard>, std::less<>> shards_;
  mutable std::map<const Resource*, Shard*> shard_of_;
  // Resources the backend held objects of that no registry knew at Load (a custom resource
  // restored before its definition is read): their shards' events name these.
  std::vector<std::unique_ptr<Resource>> restored_resources_;
  // The revision Load() restored: nothing before it can be replayed.
  int64_t loaded_revision_ = 0;
  // Bytes of all events committed so far (WatchEvent::stream_offset).
  uint64_t stream_bytes_ = 0;
  std::vector<std::weak_ptr<Watch::State>> watchers_;
  // Events' deadlines (event_ttl after their last write): (deadline, resource, local key) in
  // deadline order, and each key's entry there.
  struct TtlKey {
    const Resource* resource;
    std::string local_key;
    bool operator<(const TtlKey& o) const {
      if (resource != o.resource) return std::less<const Resource*>()(resource, o.resource);
      return local_key < o.local_key;
    }
  };
  struct TtlEntry {
    TimePoint deadline;
    TtlKey key;
    int64_t resource_version;
    bool operator<(const TtlEntry& o) const {
      if (deadline != o.deadline) return deadline < o.deadline;
      return key < o.key;
    }
  };
  std::set<TtlEntry> ttl_queue_;
  std::map<TtlKey, std::set<TtlEntry>::iterator> ttl_index_;
};

}  // namespace tidepool::apiserver
