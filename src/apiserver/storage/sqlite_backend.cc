// The SQLite Backend: a writer thread that group-commits the queue on its own connection, and a
// checkpointer thread with another one. See backend.h for the file format, the durability
// argument and the locking.
#include "apiserver/storage/backend.h"

#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "common/check.h"

namespace tidepool::apiserver::storage {
namespace {

// PRAGMA user_version of the schema below. Bump it (and migrate older files in Open) when the
// schema changes; a file with a higher version is refused.
constexpr int kSchemaVersion = 1;
// PRAGMA application_id: "TPOL", marks the file as tidepool's.
constexpr int kApplicationId = 0x54504f4c;

// The checkpointer thread copies the WAL into the database file whenever this many frames
// (pages) were appended since it last started (SQLite's own default interval).
constexpr int kCheckpointFrames = 1000;
// When the WAL reaches this many frames (64 MiB of 4 KiB pages), the writer restarts it.
constexpr int kWalLimitFrames = 16384;
// A WAL file longer than this is truncated to it when the WAL restarts.
constexpr const char* kJournalSizeLimit = "PRAGMA journal_size_limit = 67108864";

constexpr const char* kCreateSchema = R"sql(
CREATE TABLE objects (
  key TEXT PRIMARY KEY NOT NULL CHECK (key <> ''),
  resource_version INTEGER NOT NULL,
  value TEXT NOT NULL
);
CREATE TABLE meta (
  id INTEGER PRIMARY KEY CHECK (id = 0),
  revision INTEGER NOT NULL
);
INSERT INTO meta (id, revision) VALUES (0, 0);
)sql";

constexpr const char* kPutSql =
    "INSERT INTO objects (key, resource_version, value) VALUES (?1, ?2, ?3) "
    "ON CONFLICT (key) DO UPDATE SET resource_version = excluded.resource_version, "
    "value = excluded.value";
constexpr const char* kDeleteSql = "DELETE FROM objects WHERE key = ?1";
constexpr const char* kRevisionSql = "UPDATE meta SET revision = max(revision, ?1) WHERE id = 0";
constexpr const char* kReadRevisionSql = "SELECT revision FROM meta WHERE id = 0";
constexpr const char* kReadObjectsSql =
    "SELECT key, resource_version, value FROM objects ORDER BY key";

struct StmtDeleter {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

struct DbDeleter {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
using Db = std::unique_ptr<sqlite3, DbDeleter>;

std::string ErrorText(sqlite3* db, int rc) {
  return db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
}

Status OpenError(const std::string& path, sqlite3* db, int rc) {
  return FailedPreconditionError("open " + path + ": " + ErrorText(db, rc));
}

// Runs `sql` (one or more statements, rows ignored).
int Exec(sqlite3* db, const char* sql) { return sqlite3_exec(db, sql, nullptr, nullptr, nullptr); }

int Prepare(sqlite3* db, const char* sql, Stmt* out) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &raw, nullptr);
  out->reset(raw);
  return rc;
}

// The first column of the first row of `sql`, as an integer or a string.
int QueryInt(sqlite3* db, const char* sql, int64_t* out) {
  Stmt stmt;
  int rc = Prepare(db, sql, &stmt);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_step(stmt.get());
  if (rc != SQLITE_ROW) return rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
  *out = sqlite3_column_int64(stmt.get(), 0);
  return SQLITE_OK;
}
int QueryText(sqlite3* db, const char* sql, std::string* out) {
  Stmt stmt;
  int rc = Prepare(db, sql, &stmt);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_step(stmt.get());
  if (rc != SQLITE_ROW) return rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
  const unsigned char* text = sqlite3_column_text(stmt.get(), 0);
  out->assign(text != nullptr ? reinterpret_cast<const char*>(text) : "");
  return SQLITE_OK;
}

std::string_view ColumnText(sqlite3_stmt* stmt, int column) {
  const unsigned char* text = sqlite3_column_text(stmt, column);
  if (text == nullptr) return {};
  return {reinterpret_cast<const char*>(text),
          static_cast<size_t>(sqlite3_column_bytes(stmt, column))};
}

// An flock(2)ed file that keeps a second tidepool off the data directory. The kernel drops the
// lock when the process dies, however it dies.
class LockFile {
 public:
  LockFile() = default;
  explicit LockFile(int fd) : fd_(fd) {}
  LockFile(LockFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  LockFile& operator=(LockFile&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~LockFile() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  int fd_ = -1;
};

StatusOr<LockFile> LockDataDir(const std::string& dir, const std::string& db_path) {
  const std::string path = (std::filesystem::path(dir) / "tidepool.lock").string();
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return FailedPreconditionError("open " + path + ": " + std::strerror(errno));
  LockFile lock(fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      return FailedPreconditionError("open " + db_path +
                                     ": database is locked (is another tidepool using this data "
                                     "directory?)");
    }
    return FailedPreconditionError("lock " + path + ": " + std::strerror(errno));
  }
  return lock;
}

// Opens `path` in WAL mode with synchronous=NORMAL (see backend.h).
Status OpenConnection(const std::string& path, Db* db) {
  sqlite3* raw = nullptr;
  int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  db->reset(raw);
  if (rc != SQLITE_OK) return OpenError(path, raw, rc);
  // The checkpointer holds SQLite's locks for moments only; wait rather than fail a commit.
  sqlite3_busy_timeout(raw, 10000);
  std::string journal_mode;
  if ((rc = QueryText(raw, "PRAGMA journal_mode = WAL", &journal_mode)) != SQLITE_OK ||
      (rc = Exec(raw, "PRAGMA synchronous = NORMAL")) != SQLITE_OK ||
      (rc = Exec(raw, kJournalSizeLimit)) != SQLITE_OK) {
    return OpenError(path, raw, rc);
  }
  if (journal_mode != "wal") {
    return FailedPreconditionError("open " + path + ": cannot use WAL mode (journal mode is " +
                                   journal_mode + ")");
  }
  return OkStatus();
}

// Checks the schema version and creates the schema in a new file, in one transaction (a crash
// in the middle leaves an empty file, which is new again).
Status InitSchema(const std::string& path, sqlite3* db) {
  int rc = Exec(db, "BEGIN IMMEDIATE");
  if (rc != SQLITE_OK) return OpenError(path, db, rc);
  int64_t version = 0;
  int64_t app_id = 0;
  if ((rc = QueryInt(db, "PRAGMA user_version", &version)) != SQLITE_OK ||
      (rc = QueryInt(db, "PRAGMA application_id", &app_id)) != SQLITE_OK) {
    return OpenError(path, db, rc);
  }
  if (app_id != 0 && app_id != kApplicationId) {
    return FailedPreconditionError("open " + path + ": not a tidepool database (application_id " +
                                   std::to_string(app_id) + ")");
  }
  if (version > kSchemaVersion) {
    return FailedPreconditionError(
        "open " + path + ": written by a newer tidepool (schema version " +
        std::to_string(version) + ", this one supports up to " + std::to_string(kSchemaVersion) +
        "); use a newer tidepool or another data directory");
  }
  if (version == 0) {
    int64_t tables = 0;
    if ((rc = QueryInt(db, "SELECT count(*) FROM sqlite_schema", &tables)) != SQLITE_OK) {
      return OpenError(path, db, rc);
    }
    if (tables != 0) {
      return FailedPreconditionError("open " + path +
                                     ": not a tidepool database (it has other tables)");
    }
    std::string set_versions = "PRAGMA user_version = " + std::to_string(kSchemaVersion) +
                               "; PRAGMA application_id = " + std::to_string(kApplicationId);
    if ((rc = Exec(db, kCreateSchema)) != SQLITE_OK ||
        (rc = Exec(db, set_versions.c_str())) != SQLITE_OK) {
      return OpenError(path, db, rc);
    }
  }
  if ((rc = Exec(db, "COMMIT")) != SQLITE_OK) return OpenError(path, db, rc);
  return OkStatus();
}

class SqliteBackend final : public Backend {
 public:
  struct Statements {
    Stmt begin, commit, rollback, put, del, revision;
  };

  SqliteBackend(std::string path, LockFile lock, Db db, Statements stmts, Db checkpoint_db,
                int64_t revision)
      : path_(std::move(path)),
        lock_(std::move(lock)),
        db_(std::move(db)),
        stmts_(std::move(stmts)),
        checkpoint_db_(std::move(checkpoint_db)),
        last_revision_(revision) {
    // Replaces SQLite's automatic checkpoints (which would run inside COMMIT, fsyncs included).
    sqlite3_wal_hook(db_.get(), &SqliteBackend::OnWalCommit, this);
    checkpointer_ = std::thread([this] { CheckpointLoop(); });
    writer_ = std::thread([this] { WriterLoop(); });
  }

  ~SqliteBackend() override { (void)Close(); }

  uint64_t Put(std::string key, int64_t revision, std::string_view value) override {
    return Enqueue(Op{true, std::move(key), revision, std::string(value)});
  }
  uint64_t Delete(std::string key, int64_t revision) override {
    return Enqueue(Op{false, std::move(key), revision, {}});
  }

  Status Wait(uint64_t ticket) override {
    if (ticket == 0) return OkStatus();
    std::shared_ptr<Waiter> waiter;
    {
      std::lock_guard lock(mu_);
      if (ticket > last_ticket_) {
        return InvalidArgumentError("storage: unknown ticket " + std::to_string(ticket));
      }
      if (ticket <= committed_) return OkStatus();
      if (ticket <= done_ || ticket > last_queued_ticket_) {
        // Failed, or never queued (issued after a failed commit or after Close).
        if (!error_.ok()) return error_;
        return FailedPreconditionError("storage is closed");
      }
      waiter = std::make_shared<Waiter>();
      waiter->ticket = ticket;
      waiters_.push_back(waiter);
    }
    // Woken by the writer alone, and only once this ticket's commit is over.
    waiter->done.wait(0, std::memory_order_acquire);
    return std::move(waiter->status);
  }

  StatusOr<Snapshot> Load() override {
    {
      std::lock_guard lock(mu_);
      if (last_ticket_ != 0 || closing_) {
        return FailedPreconditionError("storage: Load must come before any write");
      }
    }
    // The writer thread is idle until the first write: the connection is ours.
    Snapshot snapshot;
    int rc = QueryInt(db_.get(), kReadRevisionSql, &snapshot.revision);
    if (rc != SQLITE_OK) return ReadError(rc);
    Stmt stmt;
    if ((rc = Prepare(db_.get(), kReadObjectsSql, &stmt)) != SQLITE_OK) return ReadError(rc);
    while ((rc = sqlite3_step(stmt.get())) == SQLITE_ROW) {
      Record& r = snapshot.records.emplace_back();
      r.key = ColumnText(stmt.get(), 0);
      r.resource_version = sqlite3_column_int64(stmt.get(), 1);
      r.value = ColumnText(stmt.get(), 2);
      snapshot.revision = std::max(snapshot.revision, r.resource_version);
    }
    if (rc != SQLITE_DONE) return ReadError(rc);
    std::lock_guard lock(mu_);
    last_revision_ = std::max(last_revision_, snapshot.revision);
    return snapshot;
  }

  Status Close() override {
    {
      std::lock_guard lock(mu_);
      if (closed_) return close_status_;
      closing_ = true;
    }
    work_cv_.notify_one();
    writer_.join();
    {
      std::lock_guard lock(checkpoint_mu_);
      checkpoint_stop_ = true;
    }
    checkpoint_cv_.notify_all();
    checkpointer_.join();
    checkpoint_db_.reset();
    stmts_ = Statements{};
    // The last connection: checkpoints the whole WAL into the database file and removes it.
    int rc = sqlite3_close(db_.get());
    std::string close_error = rc == SQLITE_OK ? "" : ErrorText(db_.get(), rc);
    if (rc == SQLITE_OK) {
      (void)db_.release();
      lock_ = LockFile();  // the data directory is free for the next OpenSqlite
    }
    std::lock_guard lock(mu_);
    closed_ = true;
    if (!error_.ok()) {
      close_status_ = error_;
    } else if (rc != SQLITE_OK) {
      close_status_ = InternalError("close " + path_ + ": " + close_error);
    }
    return close_status_;
  }

 private:
  struct Op {
    bool put;  // else delete
    std::string key;
    int64_t revision;
    std::string value;
  };

  // A Wait() in progress. Shared with the writer, which may still call notify after the waiter
  // saw `done` and returned.
  struct Waiter {
    uint64_t ticket = 0;
    std::atomic<int> done{0};
    Status status;  // written before `done`
  };

  uint64_t Enqueue(Op op) {
    std::unique_lock lock(mu_);
    TIDEPOOL_DCHECK(op.revision > last_revision_);
    last_revision_ = op.revision;
    uint64_t ticket = ++last_ticket_;
    // After a failed commit nothing more is written; after Close nothing is accepted. Either
    // way Wait(ticket) fails at once.
    if (closing_ || !error_.ok()) return ticket;
    queue_.push_back(std::move(op));
    last_queued_ticket_ = ticket;
    bool wake = writer_idle_;
    writer_idle_ = false;
    lock.unlock();
    if (wake) work_cv_.notify_one();
    return ticket;
  }

  void WriterLoop() {
    pthread_setname_np(pthread_self(), "tidepool-store");
    std::vector<Op> batch;
    std::vector<std::shared_ptr<Waiter>> ready;
    std::unique_lock lock(mu_);
    while (true) {
      writer_idle_ = true;
      work_cv_.wait(lock, [&] { return !queue_.empty() || closing_; });
      writer_idle_ = false;
      if (queue_.empty()) break;  // closing, and everything is written
      batch.swap(queue_);
      const uint64_t last = last_queued_ticket_;
      lock.unlock();
      Status status = CommitBatch(batch);
      batch.clear();
      lock.lock();
      if (status.ok()) {
        committed_ = last;
        done_ = last;
      } else {
        // What was queued meanwhile fails too; nothing more is queued from now on.
        error_ = std::move(status);
        queue_.clear();
        done_ = last_queued_ticket_;
      }
      // Wake exactly the waiters whose tickets are decided, outside the lock.
      for (size_t i = 0; i < waiters_.size();) {
        if (waiters_[i]->ticket <= done_) {
          waiters_[i]->status = waiters_[i]->ticket <= committed_ ? OkStatus() : error_;
          ready.push_back(std::move(waiters_[i]));
          waiters_[i] = std::move(waiters_.back());
          waiters_.pop_back();
        } else {
          ++i;
        }
      }
      lock.unlock();
      for (const std::shared_ptr<Waiter>& w : ready) {
        w->done.store(1, std::memory_order_release);
        w->done.notify_one();
      }
      ready.clear();
      LimitWal();
      lock.lock();
    }
    TIDEPOOL_CHECK(waiters_.empty());
  }

  // Checkpoints. SQLite's automatic ones would run inside COMMIT and stall the writer for a
  // checkpoint's fsyncs; here a checkpointer thread with its own connection runs PASSIVE
  // checkpoints beside the commits instead (every kCheckpointFrames new frames). A PASSIVE
  // checkpoint cannot restart the WAL while writes keep coming, so when the WAL reaches
  // kWalLimitFrames the writer itself runs a RESTART checkpoint between two commits: most
  // frames are already copied by then, and the next commit writes the WAL from its beginning.
  // A failed checkpoint loses nothing: the frames stay in the WAL for the next one (at the
  // latest the one sqlite3_close runs in Close).

  // SQLite calls this on the writer thread after each commit, with the WAL's length in frames.
  static int OnWalCommit(void* self, sqlite3* db, const char* name, int frames) {
    static_cast<SqliteBackend*>(self)->AfterWalCommit(frames);
    return SQLITE_OK;
  }

  void AfterWalCommit(int frames) {
    wal_frames_ = frames;
    std::unique_lock lock(checkpoint_mu_);
    if (frames < checkpoint_base_) checkpoint_base_ = 0;  // the WAL restarted from its beginning
    if (checkpoint_wanted_ || frames - checkpoint_base_ < kCheckpointFrames) return;
    checkpoint_wanted_ = true;
    checkpoint_base_ = frames;
    lock.unlock();
    checkpoint_cv_.notify_all();
  }

  // Writer thread, between commits.
  void LimitWal() {
    if (wal_frames_ < kWalLimitFrames) return;
    std::unique_lock lock(checkpoint_mu_);
    restart_pending_ = true;  // keeps the checkpointer from starting another run
    checkpoint_cv_.wait(lock, [&] { return !checkpoint_running_; });
    lock.unlock();
    sqlite3_wal_checkpoint_v2(db_.get(), nullptr, SQLITE_CHECKPOINT_RESTART, nullptr, nullptr);
    lock.lock();
    restart_pending_ = false;
    checkpoint_wanted_ = false;
    checkpoint_base_ = 0;
    wal_frames_ = 0;
  }

  void CheckpointLoop() {
    pthread_setname_np(pthread_self(), "tidepool-ckpt");
    std::unique_lock lock(checkpoint_mu_);
    while (true) {
      checkpoint_cv_.wait(
          lock, [&] { return (checkpoint_wanted_ && !restart_pending_) || checkpoint_stop_; });
      if (checkpoint_stop_) break;
      checkpoint_running_ = true;
      lock.unlock();
      sqlite3_wal_checkpoint_v2(checkpoint_db_.get(), nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr,
                                nullptr);
      lock.lock();
      checkpoint_running_ = false;
      checkpoint_wanted_ = false;
      checkpoint_cv_.notify_all();  // a LimitWal() may be waiting
    }
  }

  // One transaction for the whole batch.
  Status CommitBatch(const std::vector<Op>& batch) {
    int rc = Step(stmts_.begin.get());
    if (rc != SQLITE_DONE) return CommitError();
    int64_t max_delete_revision = 0;
    for (const Op& op : batch) {
      sqlite3_stmt* s = op.put ? stmts_.put.get() : stmts_.del.get();
      sqlite3_bind_text64(s, 1, op.key.data(), op.key.size(), SQLITE_STATIC, SQLITE_UTF8);
      if (op.put) {
        sqlite3_bind_int64(s, 2, op.revision);
        sqlite3_bind_text64(s, 3, op.value.data(), op.value.size(), SQLITE_STATIC, SQLITE_UTF8);
      }
      rc = Step(s);
      if (rc != SQLITE_DONE) return RollbackWith();
      if (!op.put) max_delete_revision = std::max(max_delete_revision, op.revision);
    }
    // A put's revision stays in its row's resource_version until a later (higher) write
    // replaces or deletes the row, so only deletes need the meta row: put-only batches write
    // one page less.
    if (max_delete_revision > 0) {
      sqlite3_bind_int64(stmts_.revision.get(), 1, max_delete_revision);
      if ((rc = Step(stmts_.revision.get())) != SQLITE_DONE) return RollbackWith();
    }
    if ((rc = Step(stmts_.commit.get())) != SQLITE_DONE) return RollbackWith();
    return OkStatus();
  }

  // sqlite3_step + reset, keeping the step's result; bindings are cleared (they point into the
  // batch, which is about to go away).
  int Step(sqlite3_stmt* s) {
    int rc = sqlite3_step(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) last_error_ = ErrorText(db_.get(), rc);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc;
  }

  Status RollbackWith() {
    Status status = CommitError();
    if (sqlite3_get_autocommit(db_.get()) == 0) {
      sqlite3_step(stmts_.rollback.get());
      sqlite3_reset(stmts_.rollback.get());
    }
    return status;
  }

  Status CommitError() const { return InternalError("commit to " + path_ + ": " + last_error_); }
  Status ReadError(int rc) const {
    return InternalError("read " + path_ + ": " + ErrorText(db_.get(), rc));
  }

  const std::string path_;
  LockFile lock_;  // released last
  Db db_;
  Statements stmts_;  // declared after db_: finalized first
  Db checkpoint_db_;
  std::string last_error_;  // writer thread only

  std::mutex mu_;
  std::condition_variable work_cv_;  // the writer waits for work
  std::vector<Op> queue_;
  std::vector<std::shared_ptr<Waiter>> waiters_;  // tickets not decided yet
  int64_t last_revision_;                         // DCHECK only
  uint64_t last_ticket_ = 0;                      // the last ticket handed out
  uint64_t last_queued_ticket_ = 0;               // the last ticket of a write given to the writer
  uint64_t done_ = 0;                             // tickets <= done_ are committed or failed
  uint64_t committed_ = 0;                        // tickets <= committed_ are durable
  Status error_;                                  // sticky commit error
  bool writer_idle_ = false;
  bool closing_ = false;
  bool closed_ = false;
  Status close_status_;

  std::mutex checkpoint_mu_;
  std::condition_variable checkpoint_cv_;
  int checkpoint_base_ = 0;  // the WAL's length when the last checkpoint was asked for
  bool checkpoint_wanted_ = false;
  bool checkpoint_running_ = false;
  bool restart_pending_ = false;
  bool checkpoint_stop_ = false;
  int wal_frames_ = 0;  // writer thread only

  std::thread checkpointer_;
  std::thread writer_;
};

}  // namespace

StatusOr<std::unique_ptr<Backend>> OpenSqlite(const std::string& dir) {
  if (dir.empty()) return InvalidArgumentError("storage: empty data directory");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return FailedPreconditionError("create data directory " + dir + ": " + ec.message());
  }
  const std::string path = (std::filesystem::path(dir) / "tidepool.db").string();

  TIDEPOOL_ASSIGN_OR_RETURN(LockFile lock, LockDataDir(dir, path));
  Db db;
  TIDEPOOL_RETURN_IF_ERROR(OpenConnection(path, &db));
  int rc = Exec(db.get(), "PRAGMA cache_size = -32768");
  if (rc != SQLITE_OK) return OpenError(path, db.get(), rc);
  TIDEPOOL_RETURN_IF_ERROR(InitSchema(path, db.get()));

  SqliteBackend::Statements stmts;
  int64_t revision = 0;
  if ((rc = Prepare(db.get(), "BEGIN", &stmts.begin)) != SQLITE_OK ||
      (rc = Prepare(db.get(), "COMMIT", &stmts.commit)) != SQLITE_OK ||
      (rc = Prepare(db.get(), "ROLLBACK", &stmts.rollback)) != SQLITE_OK ||
      (rc = Prepare(db.get(), kPutSql, &stmts.put)) != SQLITE_OK ||
      (rc = Prepare(db.get(), kDeleteSql, &stmts.del)) != SQLITE_OK ||
      (rc = Prepare(db.get(), kRevisionSql, &stmts.revision)) != SQLITE_OK ||
      (rc = QueryInt(db.get(), kReadRevisionSql, &revision)) != SQLITE_OK) {
    return OpenError(path, db.get(), rc);
  }
  // The checkpointer's own connection, so that checkpoints (and their fsyncs) run beside
  // commits instead of inside them.
  Db checkpoint_db;
  TIDEPOOL_RETURN_IF_ERROR(OpenConnection(path, &checkpoint_db));
  return std::unique_ptr<Backend>(std::make_unique<SqliteBackend>(
      path, std::move(lock), std::move(db), std::move(stmts), std::move(checkpoint_db), revision));
}

}  // namespace tidepool::apiserver::storage
