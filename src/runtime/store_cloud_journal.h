// File: store_cloud_journal.h
//
// StoreCloudJournal: cloud::CloudJournal over the API server's ObjectStore, for `tidepool up
// --data-dir` (issue 14, item 5). A record of kind K named N is the object N of the internal
// resource K of group apiserver::kInternalCloudGroup (apiserver/resources.h: stored, never
// served), whole as
//   {"apiVersion": "cloud.internal.tidepool/v1", "kind": "<Kind>Record",
//    "metadata": {"name": N, ...}, "state": <the record's JSON>}
// written through ObjectStore::Update/Delete: the store's revision counter and its storage
// backend (SQLite under --data-dir), so a record is durable when Put returns and is ordered
// with every Kubernetes write around it (one transaction order; what a crash keeps is a prefix
// of it). The writes carry origin "cloud" on the store's watch events (the bridge ignores
// them). A Put that changes nothing is no write.
//
// This is the shape the single-store design of issue 15 keeps: the cloud's state is objects
// of the one store, beside the cluster's.
//
// Thread-safe (the ObjectStore is).
#pragma once

#include "apiserver/object_store.h"
#include "cloud/cloud_journal.h"

namespace tidepool::runtime {

class StoreCloudJournal final : public cloud::CloudJournal {
 public:
  // `store` must outlive the journal.
  explicit StoreCloudJournal(apiserver::ObjectStore& store) : store_(store) {}

  // InvalidArgument for a kind that is not an internal resource.
  Status Put(std::string_view kind, std::string_view name, std::string_view json) override;
  Status Delete(std::string_view kind, std::string_view name) override;
  StatusOr<std::vector<cloud::CloudRecord>> List(std::string_view kind) const override;

 private:
  apiserver::ObjectStore& store_;
};

}  // namespace tidepool::runtime
