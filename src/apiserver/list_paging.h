// File: list_paging.h
//
// Lists in pages, as kube-apiserver 1.32 serves `limit` and `continue` (apiserver/pkg/storage:
// continue.go and etcd3's GetList):
//   - a page holds at most `limit` objects, in storage-key order ("<namespace>/<name>", or
//     "<name>" for cluster-scoped kinds), the ones matching the selectors;
//   - when more follow, the list's metadata.continue is kube's token: RawURL base64 of
//     {"v":"meta.k8s.io/v1","rv":<the list's revision>,"start":"<last key>\u0000"}, and
//     metadata.remainingItemCount is the number of objects after the page when the list has no
//     selector (kube counts keys only then);
//   - a continued list is served at the token's revision (ObjectStore::ListAt), so its pages
//     form one consistent list; a token of revision -1 (kube's answer to a compacted one)
//     continues at the latest revision.
// DecodeContinue's errors are kube's texts ("continue key is not valid: ..."), which the
// handler prefixes with "invalid continue token: " as kube-apiserver does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "apiserver/object_store.h"
#include "common/status_or.h"

namespace tidepool::apiserver {

struct ContinueToken {
  int64_t resource_version = 0;  // -1: the latest
  std::string start_key;         // the first storage key of the next page ("ns/name\0")
};

std::string EncodeContinue(const ContinueToken& token);
// InvalidArgument with kube's message for anything DecodeContinue in Go refuses.
StatusOr<ContinueToken> DecodeContinue(std::string_view text);

// kube's storage key of a stored object below its resource: "<ns>/<name>", or "<name>".
std::string StorageKey(const Resource& r, const StoredObject& o);

struct ListPage {
  std::string continue_token;              // empty on the last page
  std::optional<int64_t> remaining_items;  // set when a token is and `count_remaining`
};
// Keeps in list->items the page of at most `limit` objects (0: all) whose storage keys are not
// before `start_key`, and says what follows.
ListPage TakePage(const Resource& r, ObjectStore::ListResult* list, std::string_view start_key,
                  int64_t limit, bool count_remaining);

}  // namespace tidepool::apiserver
