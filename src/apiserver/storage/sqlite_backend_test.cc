#include "apiserver/storage/backend.h"

#include <signal.h>
#include <sqlite3.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/clock.h"
#include "common/random.h"
#include "testing/temp_dir.h"

namespace tidepool::apiserver::storage {
namespace {

using ::testing::HasSubstr;

class SqliteBackendTest : public ::testing::Test {
 protected:
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(tidepool::testing::TestTempDir(), ec);
  }

  // A data directory that does not exist yet (OpenSqlite creates it).
  static std::string DataDir() { return tidepool::testing::TestTempDir() + "/data"; }

  static std::unique_ptr<Backend> MustOpen(const std::string& dir) {
    auto backend = OpenSqlite(dir);
    EXPECT_TRUE(backend.ok()) << backend.status().ToString();
    if (!backend.ok()) return nullptr;
    return std::move(backend).value();
  }

  static Snapshot MustLoad(const std::string& dir) {
    std::unique_ptr<Backend> backend = MustOpen(dir);
    if (backend == nullptr) return {};
    auto snapshot = backend->Load();
    EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    EXPECT_TRUE(backend->Close().ok());
    return snapshot.ok() ? std::move(snapshot).value() : Snapshot{};
  }
};

// A write as the store makes it: Put when `value` is set, else Delete.
struct Write {
  std::string key;
  int64_t revision;
  std::optional<std::string> value;
};

uint64_t Apply(Backend& backend, const Write& w) {
  return w.value ? backend.Put(w.key, w.revision, *w.value) : backend.Delete(w.key, w.revision);
}

TEST_F(SqliteBackendTest, RoundTrip) {
  const std::string big(200 * 1024, 'x');  // several overflow pages
  struct Case {
    std::string name;
    std::vector<Write> writes;
    int64_t want_revision;
    std::vector<Record> want;
  };
  const std::vector<Case> cases = {
      {"empty", {}, 0, {}},
      {"put",
       {{"/pods/default/a", 1, R"({"kind":"Pod"})"}},
       1,
       {{"/pods/default/a", 1, R"({"kind":"Pod"})"}}},
      {"replace",
       {{"/pods/default/a", 1, "{\"v\":1}"}, {"/pods/default/a", 2, "{\"v\":2}"}},
       2,
       {{"/pods/default/a", 2, "{\"v\":2}"}}},
      {"delete",
       {{"/pods/default/a", 1, "{}"}, {"/pods/default/b", 2, "{}"}, {"/pods/default/a", 3, {}}},
       3,
       {{"/pods/default/b", 2, "{}"}}},
      {"delete everything keeps the revision",
       {{"/nodes/n1", 4, "{}"}, {"/nodes/n1", 9, {}}},
       9,
       {}},
      {"delete of a missing key", {{"/nodes/ghost", 5, {}}}, 5, {}},
      {"a put after a delete",
       {{"/nodes/a", 1, "{}"}, {"/nodes/a", 2, {}}, {"/nodes/b", 3, "{}"}},
       3,
       {{"/nodes/b", 3, "{}"}}},
      {"a delete after a put",
       {{"/nodes/a", 1, "{}"}, {"/nodes/b", 2, "{}"}, {"/nodes/b", 3, {}}},
       3,
       {{"/nodes/a", 1, "{}"}}},
      {"recreate after delete",
       {{"/nodes/n1", 1, "{\"a\":1}"}, {"/nodes/n1", 2, {}}, {"/nodes/n1", 3, "{\"a\":3}"}},
       3,
       {{"/nodes/n1", 3, "{\"a\":3}"}}},
      {"sorted by key, byte order",
       {{"/pods/default/b", 1, "1"},
        {"/nodes/z", 2, "2"},
        {"/pods/default/B", 3, "3"},
        {"/apps/deployments/default/d", 4, "4"},
        {"/pods/default/a-1", 5, "5"}},
       5,
       {{"/apps/deployments/default/d", 4, "4"},
        {"/nodes/z", 2, "2"},
        {"/pods/default/B", 3, "3"},
        {"/pods/default/a-1", 5, "5"},
        {"/pods/default/b", 1, "1"}}},
      {"text is kept byte for byte",
       {{"/configmaps/default/\xc3\xa9t\xc3\xa9", 7, "{\"s\":\"\\u0000 \xe2\x9c\x93 '\\\"\"}"},
        {"/configmaps/default/big", 8, big},
        {"/configmaps/default/empty", 9, ""}},
       9,
       {{"/configmaps/default/big", 8, big},
        {"/configmaps/default/empty", 9, ""},
        {"/configmaps/default/\xc3\xa9t\xc3\xa9", 7, "{\"s\":\"\\u0000 \xe2\x9c\x93 '\\\"\"}"}}},
  };
  // wait_each: Wait after every write (as the store does); else only Close() flushes.
  for (bool wait_each : {true, false}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(c.name + (wait_each ? " (wait each)" : " (close flushes)"));
      const std::string dir =
          DataDir() + "/" + std::to_string(&c - cases.data()) + (wait_each ? "w" : "c");
      std::unique_ptr<Backend> backend = MustOpen(dir);
      ASSERT_NE(backend, nullptr);
      auto loaded = backend->Load();
      ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
      EXPECT_EQ(loaded->revision, 0);
      EXPECT_TRUE(loaded->records.empty());
      for (const Write& w : c.writes) {
        uint64_t ticket = Apply(*backend, w);
        if (wait_each) {
          Status s = backend->Wait(ticket);
          EXPECT_TRUE(s.ok()) << s.ToString();
        }
      }
      EXPECT_TRUE(backend->Close().ok());
      backend.reset();

      Snapshot got = MustLoad(dir);
      EXPECT_EQ(got.revision, c.want_revision);
      EXPECT_EQ(got.records, c.want);
      EXPECT_TRUE(std::filesystem::exists(dir + "/tidepool.db"));
    }
  }
}

TEST_F(SqliteBackendTest, RevisionPersistsAcrossReopensIncludingDeletes) {
  const std::string dir = DataDir();
  // Each generation: open, check what the previous ones left, write on from that revision.
  struct Generation {
    std::vector<Write> writes;  // revisions relative to the loaded revision
    int64_t want_revision;      // after the writes, on the next open
    size_t want_records;
  };
  const std::vector<Generation> generations = {
      {{{"/nodes/n1", 1, "{}"}, {"/nodes/n2", 2, "{}"}}, 2, 2},
      {{{"/nodes/n1", 1, {}}, {"/nodes/n2", 2, {}}}, 4, 0},
      {{}, 4, 0},
      {{{"/pods/default/p", 1, "{}"}, {"/pods/default/p", 2, {}}, {"/pods/default/q", 3, "{}"}},
       7,
       1},
      {{{"/pods/default/q", 10, {}}}, 17, 0},
  };
  int64_t revision = 0;
  for (size_t g = 0; g < generations.size(); ++g) {
    SCOPED_TRACE("generation " + std::to_string(g));
    std::unique_ptr<Backend> backend = MustOpen(dir);
    ASSERT_NE(backend, nullptr);
    auto loaded = backend->Load();
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    EXPECT_EQ(loaded->revision, revision);
    for (const Write& w : generations[g].writes) {
      Write absolute = w;
      absolute.revision += loaded->revision;
      EXPECT_TRUE(backend->Wait(Apply(*backend, absolute)).ok());
    }
    EXPECT_TRUE(backend->Close().ok());
    backend.reset();
    Snapshot after = MustLoad(dir);
    EXPECT_EQ(after.revision, generations[g].want_revision);
    EXPECT_EQ(after.records.size(), generations[g].want_records);
    revision = after.revision;
  }
}

// The store's side of the protocol: revisions assigned and Put under one lock, Wait outside.
struct FakeStore {
  Backend* backend;
  std::mutex mu;
  int64_t revision = 0;

  // Returns the revision and the ticket.
  std::pair<int64_t, uint64_t> Put(const std::string& key, const std::string& value) {
    std::lock_guard lock(mu);
    ++revision;
    return {revision, backend->Put(key, revision, value)};
  }
  std::pair<int64_t, uint64_t> Delete(const std::string& key) {
    std::lock_guard lock(mu);
    ++revision;
    return {revision, backend->Delete(key, revision)};
  }
};

TEST_F(SqliteBackendTest, ConcurrentWritersAreAllDurableInOrder) {
  const std::string dir = DataDir();
  constexpr int kThreads = 8;
  constexpr int kPerThread = 1500;
  std::unique_ptr<Backend> backend = MustOpen(dir);
  ASSERT_NE(backend, nullptr);
  ASSERT_TRUE(backend->Load().ok());
  FakeStore store{backend.get()};

  // Each thread writes its own keys (every 10th one deleted again right away) and one shared
  // key, whose final value must be the last write's.
  std::vector<std::map<std::string, int64_t>> want(kThreads);
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        std::string key = "/pods/ns-" + std::to_string(t) + "/p-" + std::to_string(i);
        auto [rev, ticket] = store.Put(key, "{\"t\":" + std::to_string(t) + "}");
        if (!backend->Wait(ticket).ok()) ++failures[t];
        want[t][key] = rev;
        if (i % 10 == 0) {
          auto [del_rev, del_ticket] = store.Delete(key);
          if (!backend->Wait(del_ticket).ok()) ++failures[t];
          want[t].erase(key);
        }
        // The shared key, written without waiting: a later Wait covers it.
        std::lock_guard lock(store.mu);
        ++store.revision;
        backend->Put("/shared", store.revision, std::to_string(store.revision));
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  const int64_t last_revision = store.revision;
  EXPECT_TRUE(backend->Close().ok());
  backend.reset();

  Snapshot got = MustLoad(dir);
  EXPECT_EQ(got.revision, last_revision);
  std::map<std::string, int64_t> want_all;
  for (const auto& m : want) want_all.insert(m.begin(), m.end());
  ASSERT_EQ(got.records.size(), want_all.size() + 1);
  EXPECT_TRUE(std::is_sorted(got.records.begin(), got.records.end(),
                             [](const Record& a, const Record& b) { return a.key < b.key; }));
  for (const Record& r : got.records) {
    if (r.key == "/shared") {
      EXPECT_EQ(r.value, std::to_string(last_revision));
      EXPECT_EQ(r.resource_version, last_revision);
      continue;
    }
    auto it = want_all.find(r.key);
    ASSERT_NE(it, want_all.end()) << r.key;
    EXPECT_EQ(r.resource_version, it->second) << r.key;
  }
}

TEST_F(SqliteBackendTest, ProtocolMisuse) {
  std::unique_ptr<Backend> backend = MustOpen(DataDir());
  ASSERT_NE(backend, nullptr);
  EXPECT_TRUE(backend->Wait(0).ok());
  EXPECT_EQ(backend->Wait(1).code(), StatusCode::kInvalidArgument);
  uint64_t ticket = backend->Put("/nodes/n1", 1, "{}");
  EXPECT_TRUE(backend->Wait(ticket).ok());
  EXPECT_TRUE(backend->Wait(ticket).ok());  // again
  EXPECT_EQ(backend->Load().status().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(backend->Close().ok());
  EXPECT_TRUE(backend->Close().ok());       // idempotent
  EXPECT_TRUE(backend->Wait(ticket).ok());  // still durable
  uint64_t late = backend->Put("/nodes/n2", 2, "{}");
  Status s = backend->Wait(late);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "storage is closed");
}

TEST_F(SqliteBackendTest, FailedCommitIsStickyAndKeepsEarlierWrites) {
  const std::string dir = DataDir();
  std::unique_ptr<Backend> backend = MustOpen(dir);
  ASSERT_NE(backend, nullptr);
  EXPECT_TRUE(backend->Wait(backend->Put("/nodes/ok", 1, "{}")).ok());
  // An empty key violates the table's CHECK: the commit fails like a full disk would.
  Status failed = backend->Wait(backend->Put("", 2, "{}"));
  EXPECT_EQ(failed.code(), StatusCode::kInternal);
  EXPECT_THAT(std::string(failed.message()),
              HasSubstr("commit to " + dir + "/tidepool.db: CHECK constraint failed"));
  EXPECT_EQ(backend->Wait(backend->Put("/nodes/later", 3, "{}")), failed);
  EXPECT_EQ(backend->Wait(backend->Delete("/nodes/ok", 4)), failed);
  EXPECT_EQ(backend->Close(), failed);
  backend.reset();

  Snapshot got = MustLoad(dir);
  EXPECT_EQ(got.revision, 1);
  EXPECT_EQ(got.records, (std::vector<Record>{{"/nodes/ok", 1, "{}"}}));
}

TEST_F(SqliteBackendTest, OpenErrors) {
  auto write_file = [](const std::string& path, const std::string& content) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << content;
  };
  // Runs `sql` on a new tidepool database under `dir`, outside the backend.
  auto tamper = [](const std::string& dir, const std::string& sql) {
    auto backend = OpenSqlite(dir);
    ASSERT_TRUE(backend.ok());
    ASSERT_TRUE((*backend)->Close().ok());
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir + "/tidepool.db").c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  };
  struct Case {
    std::string name;
    std::function<void(const std::string& dir)> setup;
    StatusCode want_code;
    std::string want_message;  // "$DIR" is replaced by the data directory
  };
  const std::vector<Case> cases = {
      {"data dir is a file", [&](const std::string& dir) { write_file(dir, "x"); },
       StatusCode::kFailedPrecondition, "create data directory $DIR: "},
      {"database is a directory",
       [](const std::string& dir) { std::filesystem::create_directories(dir + "/tidepool.db"); },
       StatusCode::kFailedPrecondition, "open $DIR/tidepool.db: unable to open database file"},
      {"not a database",
       [&](const std::string& dir) { write_file(dir + "/tidepool.db", std::string(8192, 'j')); },
       StatusCode::kFailedPrecondition, "open $DIR/tidepool.db: file is not a database"},
      {"newer schema", [&](const std::string& dir) { tamper(dir, "PRAGMA user_version = 2"); },
       StatusCode::kFailedPrecondition,
       "open $DIR/tidepool.db: written by a newer tidepool (schema version 2, this one supports "
       "up to 1); use a newer tidepool or another data directory"},
      {"another program's database",
       [&](const std::string& dir) { tamper(dir, "PRAGMA application_id = 42"); },
       StatusCode::kFailedPrecondition,
       "open $DIR/tidepool.db: not a tidepool database (application_id 42)"},
      {"foreign tables",
       [](const std::string& dir) {
         std::filesystem::create_directories(dir);
         sqlite3* db = nullptr;
         ASSERT_EQ(sqlite3_open((dir + "/tidepool.db").c_str(), &db), SQLITE_OK);
         EXPECT_EQ(sqlite3_exec(db, "CREATE TABLE t (x)", nullptr, nullptr, nullptr), SQLITE_OK);
         sqlite3_close(db);
       },
       StatusCode::kFailedPrecondition,
       "open $DIR/tidepool.db: not a tidepool database (it has other tables)"},
      {"empty path", nullptr, StatusCode::kInvalidArgument, "storage: empty data directory"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string dir = c.setup ? DataDir() + "/" + std::to_string(&c - cases.data()) : "";
    if (c.setup) c.setup(dir);
    auto backend = OpenSqlite(dir);
    ASSERT_FALSE(backend.ok());
    EXPECT_EQ(backend.status().code(), c.want_code);
    std::string want = c.want_message;
    if (auto pos = want.find("$DIR"); pos != std::string::npos) want.replace(pos, 4, dir);
    if (auto pos = want.find("$DIR"); pos != std::string::npos) want.replace(pos, 4, dir);
    EXPECT_THAT(std::string(backend.status().message()), HasSubstr(want));
  }
}

TEST_F(SqliteBackendTest, SecondOpenOfTheSameDirectoryIsRefusedWhileTheFirstIsOpen) {
  const std::string dir = DataDir();
  std::unique_ptr<Backend> first = MustOpen(dir);
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(first->Wait(first->Put("/nodes/n1", 1, "{}")).ok());
  auto second = OpenSqlite(dir);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(),
            "open " + dir +
                "/tidepool.db: database is locked (is another tidepool using this data "
                "directory?)");
  EXPECT_TRUE(first->Close().ok());
  EXPECT_EQ(MustLoad(dir).records.size(), 1u);
}

// Checkpoints run beside the writer, and a burst of writes must not grow the WAL without bound
// (the writer restarts it at 64 MiB). 1000 writes of 128 KiB to 50 keys: about 125 MiB of WAL.
TEST_F(SqliteBackendTest, WalStaysBoundedUnderABurstAndNothingIsLost) {
  const std::string dir = DataDir();
  constexpr int kWrites = 1000;
  constexpr int kKeys = 50;
  std::unique_ptr<Backend> backend = MustOpen(dir);
  ASSERT_NE(backend, nullptr);
  uintmax_t max_wal = 0;
  uint64_t ticket = 0;
  for (int i = 0; i < kWrites; ++i) {
    std::string value(128 * 1024, static_cast<char>('a' + i % 26));
    value += std::to_string(i);
    ticket = backend->Put("/configmaps/default/c-" + std::to_string(i % kKeys), i + 1, value);
    if (i % 8 == 7) {  // a few writes per commit
      ASSERT_TRUE(backend->Wait(ticket).ok());
      std::error_code ec;
      max_wal = std::max(max_wal, std::filesystem::file_size(dir + "/tidepool.db-wal", ec));
    }
  }
  ASSERT_TRUE(backend->Wait(ticket).ok());
  EXPECT_GT(max_wal, 0u);
  EXPECT_LT(max_wal, 80u << 20);
  EXPECT_TRUE(backend->Close().ok());
  backend.reset();

  Snapshot got = MustLoad(dir);
  EXPECT_EQ(got.revision, kWrites);
  ASSERT_EQ(got.records.size(), static_cast<size_t>(kKeys));
  for (const Record& r : got.records) {
    int key = std::stoi(r.key.substr(r.key.rfind('-') + 1));
    int last = kWrites - kKeys + key;  // the last write to that key
    EXPECT_EQ(r.resource_version, last + 1) << r.key;
    EXPECT_EQ(r.value.size(), 128 * 1024 + std::to_string(last).size()) << r.key;
    EXPECT_EQ(r.value.substr(128 * 1024), std::to_string(last)) << r.key;
    EXPECT_EQ(r.value[0], static_cast<char>('a' + last % 26)) << r.key;
  }
}

// A child process writes records 0, 1, 2, ... in chunks (Put each, Wait for the chunk's last
// ticket only) and reports how many are acknowledged after each chunk; the parent kill -9's it
// at a random point. Every acknowledged record must be there, and what is there must be a
// prefix of what was written (writes become durable in order).
TEST_F(SqliteBackendTest, KillNineLosesNothingAcknowledged) {
  constexpr uint32_t kRecords = 4000;
  Random random(20240601);
  for (int round = 0; round < 5; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string dir = DataDir() + "/" + std::to_string(round);
    const uint32_t kill_after = static_cast<uint32_t>(random.Uniform(kRecords));
    const uint64_t child_seed = random.Next();
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    std::fflush(nullptr);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      auto backend = OpenSqlite(dir);
      if (!backend.ok()) _exit(2);
      Random chunks(child_seed);
      uint32_t next = 0;
      while (next < kRecords) {
        uint32_t n = std::min<uint32_t>(kRecords - next, 1 + chunks.Uniform(8));
        uint64_t ticket = 0;
        for (uint32_t i = 0; i < n; ++i, ++next) {
          char key[48];
          std::snprintf(key, sizeof key, "/pods/default/p-%06u", next);
          ticket = (*backend)->Put(key, next + 1, "{\"i\":" + std::to_string(next) + "}");
        }
        if (!(*backend)->Wait(ticket).ok()) _exit(3);
        if (write(fds[1], &next, sizeof next) != sizeof next) _exit(4);
      }
      while (true) pause();  // all written: wait for the parent's kill
    }
    close(fds[1]);
    uint32_t acked = 0;
    uint32_t value = 0;
    bool killed = false;
    while (read(fds[0], &value, sizeof value) == sizeof value) {
      acked = value;
      if (!killed && acked >= kill_after) {
        kill(pid, SIGKILL);
        killed = true;  // keep reading: acks written before the kill count too
      }
    }
    close(fds[0]);
    int wstatus = 0;
    ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
    ASSERT_FALSE(WIFEXITED(wstatus)) << "child failed with exit code " << WEXITSTATUS(wstatus);
    ASSERT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL);

    Snapshot got = MustLoad(dir);
    ASSERT_GE(got.records.size(), acked) << "killed after " << kill_after;
    for (size_t i = 0; i < got.records.size(); ++i) {
      char key[48];
      std::snprintf(key, sizeof key, "/pods/default/p-%06zu", i);
      ASSERT_EQ(got.records[i].key, key);
      ASSERT_EQ(got.records[i].resource_version, static_cast<int64_t>(i) + 1);
      ASSERT_EQ(got.records[i].value, "{\"i\":" + std::to_string(i) + "}");
    }
    EXPECT_EQ(got.revision, static_cast<int64_t>(got.records.size()));
  }
}

// A pod and a node shaped like the API server's JSON, about the size of real ones.
std::string FakeObject(const std::string& kind, const std::string& name, int64_t rv) {
  std::string labels;
  for (int i = 0; i < 6; ++i) {
    labels += "\"label-" + std::to_string(i) + "\":\"value-" + name + "\",";
  }
  std::string pad(kind == "Node" ? 1500 : 800, 'z');
  return "{\"apiVersion\":\"v1\",\"kind\":\"" + kind + "\",\"metadata\":{\"name\":\"" + name +
         "\",\"namespace\":\"default\",\"uid\":\"6f1c2a3e-0000-4000-8000-" + name +
         "\",\"resourceVersion\":\"" + std::to_string(rv) + "\",\"labels\":{" + labels +
         "\"app\":\"x\"}},\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"busybox\","
         "\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}],\"pad\":\"" +
         pad + "\"},\"status\":{\"phase\":\"Pending\"}}";
}

}  // namespace
}  // namespace tidepool::apiserver::storage
