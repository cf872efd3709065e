// File: backend.h
//
// Persistence for the API server (what etcd is to kube-apiserver): `tidepool up --data-dir DIR`
// hands every write of its ObjectStore to a Backend, and acknowledges the write only after the
// backend made it durable, so that `kill -9` loses nothing that was acknowledged and a restart
// resumes the same cluster with the same resourceVersions. Without --data-dir the store uses
// NewMemoryBackend(), which keeps nothing.
//
// Protocol (one ObjectStore per Backend):
//   - Load() first, before any write: every stored object, sorted by key, and the cluster
//     revision (the highest revision ever written, deletes included).
//   - Put / Delete are called under the store's lock, once per write, with strictly
//     increasing revisions. They only queue the write (no I/O) and return a ticket.
//   - Wait(ticket), called outside the store's lock (by the HTTP handler, before it replies),
//     blocks until that write is durable. Writes become durable in the order they were queued,
//     so a successful Wait(t) also covers every ticket below t.
//   - Close() makes everything queued durable and stops the backend; the destructor calls it.
//
// The SQLite backend (OpenSqlite) keeps its data in DIR/tidepool.db (with SQLite's
// tidepool.db-wal and tidepool.db-shm beside it while open or after a crash), in two tables:
//   objects(key TEXT PRIMARY KEY, resource_version INTEGER, value TEXT)  -- value: JSON text
//   meta(id = 0, revision INTEGER)  -- the highest revision of a delete
// The cluster revision is the highest of meta.revision and every resource_version: a put's
// revision stays in its row until a later, higher write replaces or deletes it, so only
// deletes have to be recorded apart (and put-only commits write one page less). The schema
// version is in `PRAGMA user_version` (a database written by a newer schema version is
// refused, never silently misread) and tidepool's mark in `PRAGMA application_id` (another
// program's SQLite file is refused too).
//
// Group commit: one writer thread takes everything queued since its last commit, writes it in
// ONE transaction (prepared statements; Put is an UPSERT), commits, and wakes exactly the
// waiters whose writes that commit decided. A commit costs about the same for 1 write or 100,
// so throughput grows with the number of concurrent writers, while a lone write still commits
// at once (no timer, no batching delay).
//
// Durability: the database is in WAL mode with synchronous=NORMAL. A commit appends the
// transaction's pages and a commit frame to tidepool.db-wal with write(2) before COMMIT
// returns; the data is then in the kernel's page cache, which survives the death of the process
// (kill -9, a crash, an abort): the kernel writes it out anyway, and the next open replays the
// WAL up to the last commit frame. A transaction whose commit frame was not written when the
// process died is discarded whole, and it was never acknowledged. What NORMAL gives up, compared
// to FULL (an fsync per commit), is only durability across an OS crash or power loss, which can
// lose the last transactions but never corrupts the database (the WAL is fsynced before a
// checkpoint copies it into the database file, and the database file after). tidepool is an
// emulator: a machine crash losing its last writes is acceptable, an fsync per commit is not.
//
// Checkpoints (copying the WAL into tidepool.db) would run inside COMMIT, fsyncs included, and
// stall the writer: they run on a checkpointer thread with its own connection instead, every
// 1000 new WAL pages. When the WAL reaches 64 MiB anyway (a burst of writes keeps a concurrent
// checkpoint from ever catching up), the writer restarts it between two commits, which costs
// little since most of it is already copied. So the WAL stays under about 64 MiB.
//
// Locking: OpenSqlite holds an flock(2) on DIR/tidepool.lock until Close(), so a second
// tidepool on the same data directory fails at open ("database is locked") instead of
// interleaving its revisions with the first one's. The kernel releases it when the process
// dies, however it dies.
//
// Errors: OpenSqlite fails with FailedPrecondition naming the path, e.g.
// "open /x/tidepool.db: unable to open database file", "open /x/tidepool.db: file is not a
// database", "create data directory /x: Not a directory". A failed commit (disk full, I/O
// error) is Internal, "commit to /x/tidepool.db: database or disk is full", and is sticky: the
// failed write and every later one are never made durable and their Waits (and Close) return
// that error, since the store's memory and the disk no longer agree. Writes acknowledged before
// the failure stay durable.
//
// Thread-safety: Put, Delete and Wait may be called from any thread (Put/Delete are serialized
// by the caller's lock anyway). Load and Close are not concurrent with anything else.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status_or.h"

namespace tidepool::apiserver::storage {

struct Record {
  std::string key;  // e.g. "/pods/default/gpu-pod"; never empty
  int64_t resource_version = 0;
  std::string value;  // the object as JSON text

  friend bool operator==(const Record&, const Record&) = default;
};

struct Snapshot {
  // The highest revision ever written (deletes included), 0 for a new database. The store's
  // next revision must be above it.
  int64_t revision = 0;
  std::vector<Record> records;  // sorted by key (byte order)
};

class Backend {
 public:
  virtual ~Backend() = default;

  // A write at cluster revision `revision` (strictly increasing across calls, and above
  // Load()'s revision). Put creates or replaces `key`; Delete removes it (a missing key is not
  // an error) and still records `revision`, so that the revision after a restart is >= it.
  // Both only queue the write and return its ticket (> 0, increasing). `value` is copied by a
  // backend that keeps it (the memory backend keeps nothing, so in-memory writes copy nothing).
  virtual uint64_t Put(std::string key, int64_t revision, std::string_view value) = 0;
  virtual uint64_t Delete(std::string key, int64_t revision) = 0;

  // Blocks until the write with `ticket` (and so every earlier one) is durable. Returns the
  // commit's error if it failed; then every later Wait fails too. Ticket 0 is OK at once; a
  // ticket never returned by Put/Delete is InvalidArgument. After Close(), a write queued
  // after it is FailedPrecondition ("storage is closed").
  virtual Status Wait(uint64_t ticket) = 0;

  // Everything stored. Call once, before any write (FailedPrecondition otherwise).
  virtual StatusOr<Snapshot> Load() = 0;

  // Makes every queued write durable, stops the writer and closes the database. Returns the
  // sticky commit error, if any. Idempotent.
  virtual Status Close() = 0;
};

// The SQLite backend under `dir` (created if missing, like mkdir -p), file "tidepool.db".
StatusOr<std::unique_ptr<Backend>> OpenSqlite(const std::string& dir);

// A backend that stores nothing (the default without --data-dir): Put/Delete return increasing
// tickets, Wait is OK at once, Load is an empty snapshot, Close is OK. Thread-safe.
std::unique_ptr<Backend> NewMemoryBackend();

}  // namespace tidepool::apiserver::storage
