// File: podgc_controller.h
//
// PodGcController: kube-controller-manager 1.32's pod garbage collector (pkg/controller/podgc),
// an actor like the others (informers of pods and nodes in, API writes out). Every `period`
// (kcm's gcCheckPeriod, 20 s) it:
//   - gcTerminated: when more than `terminated_threshold` pods (--terminated-pod-gc-threshold,
//     12500) are Succeeded or Failed, deletes the oldest of them (evicted ones first) down to
//     the threshold;
//   - gcOrphaned: a node that pods are bound to but the node informer does not have is
//     quarantined for `quarantine` (40 s); if a GET of it then says NotFound, every pod bound to
//     it is marked - phase Failed (unless already terminal) and the condition DisruptionTarget
//     True, reason DeletionByPodGC, "PodGC: node no longer exists" - and force-deleted (grace
//     period 0), with kcm's log line "Found orphaned Pod assigned to the Node, deleting";
//   - gcUnscheduledTerminating: a pod being deleted that no node was ever assigned is marked
//     Failed and force-deleted.
// The status mark is a strategic-merge PATCH of pods/<name>/status; the deletion a DELETE with
// gracePeriodSeconds 0 and the pod's uid as precondition.
//
// Durations are emulated time (`tidepool up --speed N` divides them). What it keeps per pod is
// the few fields it reads, not the object.
//
// Threads: without an executor, Start() starts the informers and the queue's worker thread
// (controllers/work_queue.h), which runs the collections. With one (`tidepool simulate`), the
// controller creates no thread: collections run as callbacks of `executor`, Start() does not
// start the informers (a driver feeds them; their handlers run inline on the executor's thread
// and only record facts), and Start()/Stop() never wait.
//
// Thread-safe: Start/Stop from one thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "client/informer.h"
#include "client/rest_client.h"
#include "client/shared_informers.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/speed.h"
#include "common/timer_service.h"
#include "controllers/work_queue.h"

namespace tidepool::controllers::podgc {

struct PodGcControllerOptions {
  Duration period = std::chrono::seconds(20);      // gcCheckPeriod
  Duration quarantine = std::chrono::seconds(40);  // quarantineTime
  int terminated_threshold = 12500;                // --terminated-pod-gc-threshold (0: off)
  uint64_t seed = 1;

  // Every Duration member, once (common/speed.h).
  template <typename F>
  void ForEachDuration(F&& f) {
    f("period", period, TimeBase::kEmulated);
    f("quarantine", quarantine, TimeBase::kEmulated);
  }
};

class PodGcController {
 public:
  // `client` and `clock` (and `executor` when given) must outlive the controller; `logger`,
  // `informers` and `executor` may be null. With an executor, `clock` is its clock.
  PodGcController(const client::RestClient& client, const Clock& clock,
                  PodGcControllerOptions options, log::Logger* logger = nullptr,
                  client::SharedInformerFactory* informers = nullptr,
                  TimerService* executor = nullptr);
  ~PodGcController();
  PodGcController(const PodGcController&) = delete;
  PodGcController& operator=(const PodGcController&) = delete;

  void Start();
  void Stop();
  bool HasSynced() const;
  // Pods deleted so far.
  uint64_t deleted() const;

 private:
  struct PodFacts {
    std::string namespace_, name, uid, node;
    bool terminal = false;
    bool terminating = false;
    bool evicted = false;  // status.reason Evicted
    TimePoint created;
  };
  // One collection; returns when to run the next.
  std::optional<TimePoint> Gc();
  void GcTerminated(std::vector<PodFacts> terminated);
  void GcOrphaned(const std::map<std::string, std::vector<PodFacts>>& missing, TimePoint now);
  void GcUnscheduledTerminating(const std::vector<PodFacts>& pods);
  // markFailedAndDeletePodWithCondition; `with_condition` adds DisruptionTarget.
  void MarkFailedAndDelete(const PodFacts& pod, bool with_condition);
  // Under mu_: `key`'s facts `pod` entered into, or taken out of, the indexes below.
  void IndexLocked(const std::string& key, const PodFacts& pod);
  void UnindexLocked(const std::string& key, const PodFacts& pod);
  void OnNode(const std::string& name, bool deleted);

  const client::RestClient& client_;
  const Clock& clock_;
  const PodGcControllerOptions options_;
  log::Logger* log_;
  TimerService* const executor_;
  std::shared_ptr<client::Informer> pods_;
  std::shared_ptr<client::Informer> nodes_;
  mutable std::mutex mu_;
  // What the handlers keep, and its indexes, so that a collection (every 20 s of emulated
  // time: 30 times a second under --speed 600) looks only at the pods it may act on, not at
  // every pod:
  std::map<std::string, PodFacts> facts_;  // by "<ns>/<name>"
  std::set<std::string> terminal_;         // Succeeded or Failed pods
  std::set<std::string> unscheduled_terminating_;
  std::map<std::string, std::set<std::string>> by_node_;  // bound pods by node name
  std::set<std::string> nodes_known_;                     // the node informer's names
  std::set<std::string> missing_;  // nodes in by_node_ but not in nodes_known_
  // The worker's: nodes missing from the informer, and since when.
  std::map<std::string, TimePoint> quarantined_;
  uint64_t deleted_ = 0;
  WorkQueue queue_;
};

}  // namespace tidepool::controllers::podgc
