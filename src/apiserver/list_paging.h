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
//   - a continued list is served at the token's revision (ObjectStore::ListPage), so its pages
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
// The object store's key (ObjectStore::ListPage's start_key) of a storage key: the same for a
// namespaced kind, "/<name>" for a cluster-scoped one.
std::string StoreKeyOf(const Resource& r, std::string_view storage_key);
// What a page's ListMeta says beyond its resourceVersion.
struct PageMeta {
  std::string continue_token;              // empty on the last page
  std::optional<int64_t> remaining_items;  // with a token, when the list has no selector
};

// The token of the page after one that ended with `last`, read at revision `rv`.
std::string ContinueAfter(const Resource& r, int64_t rv, const StoredObject& last);

}  // namespace tidepool::apiserver
