// File: decoded.h
//
// The typed form of an informer's object, decoded once however many handlers read it. A shared
// informer hands every handler of an event the same ObjectRef; each of them (the scheduler's
// queue, the kubelets, the autoscaler's cache, the controllers) decoding it again was several
// PodFromJson / NodeFromJson per write. DecodedPod and DecodedNode remember what they decoded for
// as long as the object lives: a table keyed by the object's address, each entry holding a weak
// reference to its object (an entry whose object died is a miss, and is swept once the table has
// doubled since the last sweep), so the table, and the decoded objects it keeps, stay at most
// about twice the set of objects handlers still hold (plus 64). An ObjectRef is to a const json: a
// remembered result is never stale. Handlers of one event on different threads (`up`'s listeners)
// may both decode it once.
//
// Thread-safe.
#pragma once

#include "api/node.h"
#include "api/pod.h"
#include "client/informer.h"
#include "common/status_or.h"

namespace tidepool::client {

// api::codec::PodFromJson / NodeFromJson of `obj`, decoded once while `obj` lives (see above).
// REQUIRES: obj != nullptr.
StatusOr<api::PodConstSharedPtr> DecodedPod(const ObjectRef& obj);
StatusOr<api::NodeConstSharedPtr> DecodedNode(const ObjectRef& obj);

}  // namespace tidepool::client
