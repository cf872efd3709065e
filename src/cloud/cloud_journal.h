// File: cloud_journal.h
//
// CloudJournal: where an emulated cloud keeps its own state durably, as a real cloud keeps its
// control plane's state in a database: node pools, VMs and their lifecycle step in flight,
// GKE's operations. `tidepool up --data-dir` implements it over the API server's object store
// (runtime/store_cloud_journal.h): every record is an object of an internal resource (never
// served over HTTP), written with the same revision counter and the same storage backend
// (SQLite, one transaction order) as the Kubernetes objects. So what survives a crash is one
// prefix of one sequence of writes: a VM's record is durable before the Node it registers, and a
// restart finds the cloud and the cluster as they were at that point. `tidepool simulate` has no
// journal (nothing persists).
//
// Records are JSON text, grouped by kind ("nodepools", "instances", "operations", ...; each
// writer owns its kinds) and named within the kind. The journal does not interpret them.
//
// Threading: implementations are thread-safe (the emulated cloud writes from its own
// thread, the GKE API from its HTTP threads).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status_or.h"

namespace tidepool::cloud {

struct CloudRecord {
  std::string name;
  std::string json;  // as Put wrote it (formatting may differ; the JSON value is the same)
};

class CloudJournal {
 public:
  virtual ~CloudJournal() = default;
  // Creates or replaces the record. Returns once it is durable (or failed: the storage's error).
  [[nodiscard]] virtual Status Put(std::string_view kind, std::string_view name,
                                   std::string_view json) = 0;
  // Removes the record; a missing one is not an error.
  [[nodiscard]] virtual Status Delete(std::string_view kind, std::string_view name) = 0;
  // Every record of `kind`, sorted by name.
  [[nodiscard]] virtual StatusOr<std::vector<CloudRecord>> List(std::string_view kind) const = 0;
};

}  // namespace tidepool::cloud
