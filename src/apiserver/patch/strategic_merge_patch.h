// File: strategic_merge_patch.h
//
// Strategic merge patch (application/strategic-merge-patch+json) as kube-apiserver applies it
// (k8s.io/apimachinery/pkg/util/strategicpatch StrategicMergeMapPatch, with its options
// MergeParallelList and IgnoreUnmatchedNulls), driven by the field metadata of
// patch_schema.h for `api_version`/`kind`. Pure function; nothing throws.
//
// Maps (JSON objects) are merged key by key, in sorted key order:
//   - a null value deletes the key (a null for a key the target lacks is dropped);
//   - an object merges into an object recursively; a list merges into a list by the field's
//     strategy (below); any other value, or a value of a different JSON type, replaces;
//   - "$patch": "replace" makes the map the patch's content (directives processed, nulls
//     dropped); "$patch": "delete" makes it {}; any other value is an error
//     ("unknown patch type: merge in map: map[$patch:merge a:1]");
//   - "$retainKeys": [k...] first removes every target key not listed, and fails with
//     "patch content doesn't match retainKeys list" when a non-null patch key is not listed
//     (a non-list value: "invalid patch format of retainKeys");
//   - "$deleteFromPrimitiveList/<field>": [v...] removes those values from the target list
//     <field> (all occurrences);
//   - "$setElementOrder/<field>": [...] reorders list <field> after merging it, as kube does:
//     items named in the directive come in its order, the target's other items keep their
//     relative order and are interleaved by their target positions. The patch list must be a
//     subsequence of the directive ("The order in patch list: ... doesn't match
//     $setElementOrder list: ...").
// Lists: a field whose patchStrategy includes "merge" is merged, every other list is replaced
// whole (tolerations, node spec.taints, command, args, ...):
//   - with a patchMergeKey (containers by "name", ports by "containerPort", conditions by
//     "type", ownerReferences by "uid", ...): a patch item whose key matches a target item is
//     merged into it as a map, other patch items are added; {"$patch":"delete", key: v}
//     removes the matching items; {"$patch":"replace"} makes the list the patch's other items;
//     {"$patch":"merge"} is "merging lists cannot yet be specified in the patch"; a patch item
//     without the key is "map: map[image:x] does not contain declared merge key: name";
//   - without one (finalizers, node spec.podCIDRs): the union of both lists, deduplicated;
//   - result order as kube computes it: the patch's items in patch order, interleaved with the
//     target-only items in target order, a target-only item going first only when it precedes
//     the next patch item in the target. So an item new to the target comes before the target
//     items not yet placed: adding container c to [a, b] gives [c, a, b] (kubectl sends
//     $setElementOrder to get [a, b, c]); changing b in [a, b, c] keeps [a, b, c].
// Errors are InvalidArgument with strategicpatch's texts (kube answers 400 for the "invalid
// patch format ..." ones, 422 for "patch content doesn't match retainKeys list" and "lists of
// lists are not supported", 500 for the rest). A patch that is not an object is Go's decoding
// error ("json: cannot unmarshal array into Go value of type map[string]interface {}"); a null
// patch changes nothing; a target that is not an object is "invalid JSON document".
//
// Deliberate simplifications versus kube-apiserver:
//   - values the target lacks (a new key, a new list item, a replaced mismatched type) are
//     added "cleaned", i.e. merged into an empty value: their nulls are dropped and their
//     directives applied, where kube copies them verbatim and lets decoding choke on them;
//   - "$deleteFromPrimitiveList/<f>" for a missing <f> does nothing (kube adds the deletion
//     list as the value) and removes values even from lists without the merge strategy
//     (kube would replace that list by the deletion list);
//   - kube's Go-map iteration order is random; keys are processed here in sorted order.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "common/status_or.h"

namespace tidepool::apiserver::patch {

StatusOr<nlohmann::json> StrategicMergePatch(const nlohmann::json& target,
                                             const nlohmann::json& patch,
                                             std::string_view api_version, std::string_view kind);

}  // namespace tidepool::apiserver::patch
