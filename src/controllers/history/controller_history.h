// File: controller_history.h
//
// ControllerRevisions (apps/v1) as kube-controller-manager 1.32 keeps them for DaemonSets and
// StatefulSets (pkg/controller/history, controller_utils.go's ComputeHash, and the two
// controllers' getPatch): the history `kubectl rollout history` lists and `kubectl rollout undo`
// patches back.
//
//   - A revision's data is its parent's getPatch: {"spec":{"template":{<the pod template>,
//     "$patch":"replace"}}}, a strategic merge patch that puts the template back. Its JSON text
//     is what Go's json.Marshal writes for that map (keys sorted, HTML-safe escapes:
//     json_io::GoMarshal).
//   - HashRevision is HashControllerRevision: FNV-32 (FNV-1, not 1a) over that text, then the
//     collision count in decimal, written with rand.SafeEncodeString's alphabet. A StatefulSet's
//     revision is named "<set>-<hash>" (the prefix cut to 223 bytes) and labelled
//     controller.kubernetes.io/hash; a DaemonSet's is named "<ds>-<ComputeHash>" and labelled
//     controller-revision-hash (daemonset_controller.cc).
//   - ComputeHash is controller.ComputeHash (Deployments' pod-template-hash, DaemonSets'
//     revision hash): FNV-32a over the template, then the collision count's 8 little-endian
//     bytes (a uint32 in the first 4). kcm hashes the Go struct's spew dump; here the template's
//     compact JSON - a hash of the same form, not the same value.
//   - History is realHistory over one informer of controllerrevisions:
//     Controlled() is ListRevisions + ClaimControllerRevisions (owned revisions; orphans of the
//     namespace matching the selector are adopted by a controller ownerReference, once the
//     parent is read live and is neither another object nor being deleted; owned ones that stop
//     matching are released, or ignored while the parent is being deleted); Create() retries with
//     the collision count raised while a revision of that name holds other data, and returns the
//     existing one when it holds the same; UpdateRevision() and Delete() as realHistory's.
//
// An actor's part: reads through the informer, writes through the client. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/selector.h"
#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/status_or.h"

namespace tidepool::controllers::history {

inline constexpr char kHashLabel[] = "controller.kubernetes.io/hash";

// rand.SafeEncodeString(fmt.Sprint(sum)).
std::string SafeEncode(uint32_t sum);
// controller.ComputeHash (see the file comment).
std::string ComputeHash(const nlohmann::json& pod_template, std::optional<int32_t> collision_count);
// getPatch: {"spec":{"template":{...,"$patch":"replace"}}} of `parent`.
nlohmann::json TemplatePatch(const nlohmann::json& parent);
// HashControllerRevision of the data `data` (hashed as json_io::GoMarshal writes it).
std::string HashRevision(const nlohmann::json& data, std::optional<int32_t> probe);
// ControllerRevisionName.
std::string RevisionName(std::string_view prefix, std::string_view hash);
// NewControllerRevision: labels = `template_labels` + kHashLabel, a controller ownerReference
// `controller_ref`, the parent's namespace, `data`, `revision`; named for the hash.
nlohmann::json NewRevision(const nlohmann::json& parent, const nlohmann::json& controller_ref,
                           const nlohmann::json& template_labels, nlohmann::json data,
                           int64_t revision, std::optional<int32_t> collision_count);
// The revision number (0 when absent).
int64_t RevisionOf(const nlohmann::json& cr);
// history.SortControllerRevisions: by revision, then creationTimestamp, then name.
void SortByRevision(std::vector<client::ObjectRef>* revisions);
// history.EqualRevision: both hash labels (when numbers) equal, and the data equal.
bool EqualRevision(const nlohmann::json& a, const nlohmann::json& b);
// The pod template a revision puts back (data.spec.template without "$patch"); null if none.
nlohmann::json TemplateOf(const nlohmann::json& cr);

class History {
 public:
  using Handler = std::function<void(const nlohmann::json& cr)>;

  // Reads /apis/apps/v1/controllerrevisions through an informer from `informers` (a private
  // one when null), not started: its owner starts and stops it with its others (informer()).
  // `on_change` (may be empty) runs on its handler thread for every add, update and delete.
  // `client` and `clock` must outlive the History; `informers` and `logger` may be null.
  History(const client::RestClient& client, const Clock& clock,
          client::SharedInformerFactory* informers, uint64_t seed, log::Logger* logger,
          Handler on_change);

  client::Informer& informer() const { return *revisions_; }
  History(const History&) = delete;
  History& operator=(const History&) = delete;

  // The revisions `parent` controls, after claiming (see the file comment), unsorted.
  // `can_adopt` (kcm's RecheckDeletionTimestamp of the parent; may be empty) runs once before
  // the first adoption, and its error ends the claim. A failed adoption or release is the
  // error (after the others are tried), as ClaimObject's: the caller syncs again.
  StatusOr<std::vector<client::ObjectRef>> Controlled(
      const nlohmann::json& parent, const api::LabelSelector& selector,
      const nlohmann::json& controller_ref, const std::function<Status()>& can_adopt) const;
  // CreateControllerRevision of `revision` for `parent`: the created (or the equal existing)
  // revision; *collision_count is raised on each name collision.
  // One attempt: `revision` created, or the revision of its name when that holds the same data;
  // the create's AlreadyExists when the name holds other data (a hash collision).
  StatusOr<nlohmann::json> CreateOrFindEqual(const nlohmann::json& revision) const;
  StatusOr<nlohmann::json> Create(const nlohmann::json& parent, const nlohmann::json& revision,
                                  int32_t* collision_count) const;
  // UpdateControllerRevision: `cr` with its revision number set (retried on conflicts).
  StatusOr<nlohmann::json> UpdateRevision(const nlohmann::json& cr, int64_t revision) const;
  Status Delete(const nlohmann::json& cr) const;

 private:
  void Index(const client::ObjectRef& cr);
  void Unindex(const std::string& key);
  void UnindexLocked(const std::string& key);  // REQUIRES: mu_ held

  const client::RestClient& client_;
  std::shared_ptr<client::Informer> revisions_;
  mutable std::mutex mu_;
  std::map<std::string, std::string> owner_of_;            // key -> controller uid ("" orphan)
  std::map<std::string, std::set<std::string>> by_owner_;  // controller uid -> keys
  std::map<std::string, std::set<std::string>> orphans_;   // namespace -> keys
};

}  // namespace tidepool::controllers::history
