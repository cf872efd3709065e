// File: stored_view.h
//
// What the object store keeps parsed for every stored object: a "view", the subset of the
// object that table printers (printers/), field and label selectors (selectors/) and the
// store's own watch filtering read, so that lists, Tables and selector matching need no parse of
// the stored text. Everything else (update paths, admission)
// parses the object from its compact text on demand (StoredObject::Parse).
//
// The view is the object with
//   - metadata.managedFields removed, and the annotation
//     kubectl.kubernetes.io/last-applied-configuration removed (the annotations object itself
//     is removed when nothing else is left in it): together the larger half of an applied
//     object's parsed size, and read by no printer or selector;
//   - for core/v1 pods, spec reduced to what printPod and the pod field selectors read:
//     nodeName, restartPolicy, schedulerName, serviceAccountName, hostNetwork, readinessGates,
//     `containers` as one empty object per container (printPod only counts them) and
//     `initContainers` with only each container's name and restartPolicy (sidecar detection).
// Printers and selectors give the same result on the view as on the whole object
// (stored_view_test.cc checks every printer fixture's cells and every pod field selector).
// Pure; nothing throws.
#pragma once

#include <nlohmann/json.hpp>

#include "apiserver/resources.h"

namespace tidepool::apiserver {

nlohmann::json StoredView(const Resource& r, const nlohmann::json& object);
// The same view, taking the object apart instead of copying it (`object` is left unspecified).
nlohmann::json StoredView(const Resource& r, nlohmann::json&& object);

}  // namespace tidepool::apiserver
