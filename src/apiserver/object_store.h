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
//     resourceVersion, no event), as in Kubernetes;
//   - delete: removes the object; the returned object is the last state.
// Graceful pod deletion (deletionTimestamp first, removal later) is the caller's business: it is
// an update followed, later, by a delete.
//
// Durability: with a persistent storage::Backend (--data-dir) every write is handed to it under
// the store's lock (so revisions reach it in order) and the write call returns only after the
// backend made it durable: acknowledged means persisted. Load() restores objects and the
// revision after a restart.
//
// Watching: Watch() returns a stream of WatchEvents for one resource (optionally one namespace)
// with revision > from_rv, in revision order, then live ones. Events are kept in a window of the
// last `event_window` writes; asking for an older revision is Expired (410: "too old resource
// version: 5 (113)"). A watch from revision 0 (or none) starts with a synthetic ADDED for every
// current object. A watcher that falls more than `max_watch_backlog` events behind is closed
// with an error, as kube-apiserver closes slow watchers. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "apiserver/resources.h"
#include "apiserver/storage/backend.h"
#include "common/clock.h"
#include "common/random.h"
#include "common/status_or.h"

namespace tidepool::apiserver {

struct StoredObject {
  std::string text;     // the object as stored, compact JSON (nlohmann's dump(), keys sorted)
  nlohmann::json view;  // StoredView(resource, object): for printers, selectors, watch filters
  int64_t resource_version = 0;
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
};

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
  Result NextBatch(Duration timeout, size_t max_bytes, std::vector<WatchEvent>* out);
  // Takes every event available now (no blocking); false once the watch is closed and empty.
  bool Drain(std::vector<WatchEvent>* out);
  // Why the watch was closed by the store (an overflowing backlog); empty when not closed.
  std::string error() const;
  // Closes this watch (from any thread); wakes a blocked Next().
  void Stop();

 private:
  friend class ObjectStore;
  struct State;
  explicit Watch(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

struct StoreOptions {
  uint64_t seed = 1;
  size_t event_window = 200000;
  size_t max_watch_backlog = 200000;
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

  struct WriteOptions {
    std::string origin;      // recorded on the WatchEvent (e.g. "api", "world")
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
  // for the current objects (matching `filter`, if any: filtering of live events is the
  // caller's, as selectors need old and new objects). Expired (410) when too old.
  StatusOr<std::unique_ptr<Watch>> OpenWatch(const Resource* r, std::string_view ns, int64_t from_rv);

  // "<group>/<resource>/<ns>/<name>" storage keys.
  static std::string Key(const Resource& r, std::string_view ns, std::string_view name);
  // `pods "x"` / `deployments.apps "x"`, the prefix of kube's NotFound/AlreadyExists texts.
  static std::string Qualified(const Resource& r, std::string_view name);

 private:
  struct Shard;  // one per resource
  Shard& ShardFor(const Resource& r) const;
  // The watchers to wake once the store's mutex is released.
  using WakeList = std::vector<std::shared_ptr<Watch::State>>;
  // Under mu_: assigns the revision, stores, logs, queues the event for watchers (adding to
  // `wake` those to wake), persists. Returns the backend ticket to wait for.
  uint64_t Commit(const Resource& r, const std::string& key, ObjectPtr object, ObjectPtr old,
                  EventType type, const std::string& origin, WakeList* wake);
  // Not under mu_.
  static void WakeWatchers(const WakeList& wake);
  Status WaitDurable(uint64_t ticket);
  std::string NewUid();
  nlohmann::json Prepare(const Resource& r, nlohmann::json object, std::string_view ns);

  const Clock& clock_;
  std::unique_ptr<storage::Backend> backend_;
  StoreOptions options_;
  mutable std::mutex mu_;
  int64_t revision_ = 0;
  Random random_;
  mutable std::map<const Resource*, std::unique_ptr<Shard>> shards_;
  std::deque<WatchEvent> log_;  // the last event_window writes
  std::vector<std::weak_ptr<Watch::State>> watchers_;
};

}  // namespace tidepool::apiserver
