// File: object_filter.h
//
// ObjectFilter: a list's or watch's ?labelSelector= and ?fieldSelector= on one resource, parsed
// and checked as kube-apiserver does (a field selector's terms against the resource's field
// label conversions, selectors/fields.h), matched against stored objects' views. The one
// implementation for the API server's handlers and for the informers `tidepool simulate` feeds
// from the store (cluster/store_informer_driver.h).
//
// Select is how a watch through the filter sees one store event, as kube-apiserver's cacher
// does it (cache_watcher.go, convertToWatchEvent): an object that enters the selection is
// ADDED, one that leaves it DELETED - with its previous state, shown at the event's
// resourceVersion -, and events of objects outside the selection are not seen.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "apiserver/object_store.h"
#include "apiserver/resources.h"
#include "apiserver/selectors/fields.h"
#include "apiserver/selectors/labels.h"
#include "common/status_or.h"

namespace tidepool::apiserver {

class ObjectFilter {
 public:
  // Empty selectors select everything. InvalidArgument with kube-apiserver's texts (a bad
  // selector; a field the resource does not support). `r` must outlive the filter.
  static StatusOr<ObjectFilter> Parse(const Resource& r, std::string_view label_selector,
                                      std::string_view field_selector);

  bool Empty() const { return !labels_ && !fields_; }
  // `view`: a stored object's view (StoredObject::view).
  bool Matches(const nlohmann::json& view) const;

  // What a watch through the filter sends for `e`, or nullopt when it sends nothing.
  struct Seen {
    std::string_view type;  // "ADDED", "MODIFIED", "DELETED"
    // The object to send: e.object, or e.old_object when it left the selection (then send it
    // at e.resource_version: AtRevision).
    const StoredObject* object = nullptr;
    bool left = false;
  };
  std::optional<Seen> Select(const WatchEvent& e) const;

 private:
  const Resource* resource_ = nullptr;
  std::optional<selectors::LabelSelector> labels_;
  std::optional<selectors::FieldSelector> fields_;
};

// `object` (its whole JSON) with metadata.resourceVersion set to `resource_version`.
nlohmann::json AtRevision(const StoredObject& object, int64_t resource_version);

}  // namespace tidepool::apiserver
