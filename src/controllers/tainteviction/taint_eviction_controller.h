// File: taint_eviction_controller.h
//
// TaintEvictionController: kube-controller-manager 1.32's taint-eviction-controller
// (pkg/controller/tainteviction; SeparateTaintEvictionController is on by default since 1.29),
// an actor like the others (informers of pods and nodes in, API writes out). It deletes the
// pods bound to a node with NoExecute taints they do not tolerate:
//   - a node's NoExecute taints changed (or it was added or deleted): every pod bound to it is
//     looked at (handleNodeUpdate); a pod's tolerations or node changed: that pod
//     (handlePodUpdate). Node changes are handled before pod changes due at the same time.
//   - a pod that does not tolerate every NoExecute taint of its node is deleted at once; one
//     that tolerates them all, with the tolerations that match (the first for each taint)
//     naming tolerationSeconds, is deleted once the smallest of them has passed since the
//     controller first saw it so (a toleration of 0 or less: at once; none names a time:
//     never, and a scheduled deletion is cancelled). A deletion already scheduled is kept
//     when a later change would schedule it later (processPodOnNode).
//   - a deletion: the event Normal TaintManagerEviction "Marking for deletion Pod <ns>/<name>",
//     kcm's log line "Deleting pod", a GET of the pod, the condition DisruptionTarget True
//     (reason DeletionByTaintManager, "Taint manager: deleting due to NoExecute taint") by a
//     strategic-merge PATCH of pods/<name>/status unless the pod has it, then a DELETE with the
//     pod's own grace period; up to 5 attempts (kcm sleeps 10 ms between them; here they follow
//     each other). A done deletion is remembered until the pod goes or its node's taints are
//     all gone (the timed worker queue's nil worker), so the same change does not delete twice.
//   - a scheduled deletion that is cancelled (the taints went, the pod now tolerates them for
//     ever, or it is gone): Normal TaintManagerEviction "Cancelling deletion of Pod <ns>/<name>".
// Events are the recorder's (source "taint-eviction-controller" in `tidepool up`).
//
// Time: the injected Clock only. A pod's tolerationSeconds is object time (as a Job's
// activeDeadlineSeconds: `tidepool up --speed N` does not divide it); the controller has no
// duration of its own.
//
// Kept per pod bound to a node: its node and its tolerations (one decoded list shared by the pods
// that have the same); per node: its NoExecute taints.
//
// Threads: without an executor, Start() starts the informers and the queue's worker thread
// (controllers/work_queue.h). With one (`tidepool simulate`), the controller creates no thread:
// work runs as callbacks of `executor`, Start() does not start the informers (a driver feeds
// them; their handlers run inline and only record facts and queue keys), and Start()/Stop()
// never wait.
//
// Thread-safe: Start/Stop from one thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/taint.h"
#include "autoscaler/events.h"
#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/timer_service.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::tainteviction {

struct TaintEvictionControllerOptions {
  uint64_t seed = 1;
};

class TaintEvictionController {
 public:
  // `client` and `clock` (and `executor` when given) must outlive the controller; `recorder`,
  // `logger`, `informers` and `executor` may be null. With an executor, `clock` is its clock.
  TaintEvictionController(const client::RestClient& client, const Clock& clock,
                          TaintEvictionControllerOptions options,
                          autoscaler::EventRecorder* recorder = nullptr,
                          log::Logger* logger = nullptr,
                          client::SharedInformerFactory* informers = nullptr,
                          TimerService* executor = nullptr);
  ~TaintEvictionController();
  TaintEvictionController(const TaintEvictionController&) = delete;
  TaintEvictionController& operator=(const TaintEvictionController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;

  // Pods deleted so far (successful deletions).
  uint64_t deleted() const;

 private:
  // A pod's tolerations, shared by every pod with the same list (pods of one template).
  using Tolerations = std::shared_ptr<const std::vector<api::Toleration>>;
  struct PodFacts {
    std::string node;
    Tolerations tolerations;
  };
  // A pod's entry of kcm's TimedWorkerQueue: a deletion due at `fire`, or (no `fire`) one that
  // ran or runs now - the queue's nil worker.
  struct Work {
    TimePoint created;
    std::optional<TimePoint> fire;
  };

  // Informer handlers: record, and queue a key when what the controller reads changed.
  void OnPod(const nlohmann::json& pod, bool deleted);
  // Under mu_: the shared, decoded form of a spec.tolerations list.
  Tolerations InternLocked(const nlohmann::json& tolerations);
  void OnNode(const nlohmann::json& node, bool deleted);
  // Under mu_: the informer's node has NoExecute taints.
  bool HasTaintsLocked(const std::string& node) const;
  std::optional<TimePoint> Sync(const std::string& key);
  void HandleNode(const std::string& name, TimePoint now);
  void HandlePod(const std::string& key, TimePoint now);
  // Under mu_: processPodOnNode. REQUIRES: `taints` not empty.
  void ProcessPodLocked(const std::string& key, const std::vector<api::Toleration>& tolerations,
                        const std::vector<api::Taint>& taints, TimePoint now);
  // Under mu_: AddWork (nothing when the pod has an entry) and CancelWork with its event.
  void AddWorkLocked(const std::string& key, TimePoint created, TimePoint fire, TimePoint now);
  void CancelLocked(const std::string& key);
  // The deletion of `key`'s pod (deletePodHandler); true when it succeeded.
  bool Evict(const std::string& key);
  Status AddConditionAndDelete(const std::string& ns, const std::string& name);
  void PodEvent(const std::string& key, std::string message);

  const client::RestClient& client_;
  const Clock& clock_;
  const TaintEvictionControllerOptions options_;
  autoscaler::EventRecorder* recorder_;
  log::Logger* log_;
  TimerService* const executor_;
  std::shared_ptr<client::Informer> pods_;
  std::shared_ptr<client::Informer> nodes_;

  mutable std::mutex mu_;
  // What the informers delivered: bound pods by "<ns>/<name>" and by node, and each node's
  // NoExecute taints (an empty list for a node without any).
  std::map<std::string, PodFacts> facts_;
  std::map<std::string, std::weak_ptr<const std::vector<api::Toleration>>> interned_;  // by JSON
  size_t interned_since_sweep_ = 0;
  std::map<std::string, std::set<std::string>> by_node_;
  std::map<std::string, std::vector<api::Taint>> node_taints_;
  // taintedNodes: the NoExecute taints of each node as last handled.
  std::map<std::string, std::vector<api::Taint>> tainted_;
  std::map<std::string, Work> work_;  // by pod key
  std::set<std::string> due_;         // deletions to run at their key's next sync
  // Events of cancelled deletions, posted by the sync that cancelled them (outside mu_).
  std::vector<std::pair<std::string, std::string>> pending_events_;  // (pod key, message)
  uint64_t deleted_ = 0;
  WorkQueue queue_;
};

}  // namespace tidepool::controllers::tainteviction
