// File: job_pods.h
//
// What kube-controller-manager 1.32's Job controller (pkg/controller/job) reads of a Job's pods
// and the pure rules it applies to them, apart from the controller's threads and API calls:
//   - JobPod: the facts of one pod (phase, readiness, deletion, the job-tracking finalizer,
//     completion index, exit codes, restarts, when it finished), decoded from its JSON;
//   - Indexes: status.completedIndexes as kcm writes it ("1,3-5,7": ordered intervals);
//   - MatchPodFailurePolicy: a failed pod against spec.podFailurePolicy's rules (FailJob,
//     Ignore, Count, FailIndex on onExitCodes or onPodConditions) with kcm's message;
//   - MatchSuccessPolicy: an Indexed Job's succeeded indexes against spec.successPolicy;
//   - BackoffRecord: the pod-failure back-off (failures since the last success, the last
//     failure's time; 10 s doubling to the cap before replacement pods are created);
//   - ActivePodsLess: kcm's controller.ActivePods order (which pods go first when too many run).
// No state, no I/O; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/selector.h"
#include "common/clock.h"

namespace tidepool::controllers::job {

inline constexpr char kJobTrackingFinalizer[] = "batch.kubernetes.io/job-tracking";
inline constexpr char kJobCompletionIndexAnnotation[] = "batch.kubernetes.io/job-completion-index";
inline constexpr char kJobCompletionIndexEnv[] = "JOB_COMPLETION_INDEX";

struct JobPod {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string phase;  // "Pending", "Running", "Succeeded", "Failed", "Unknown"
  api::Labels labels;
  std::string node_name;
  TimePoint created;
  // metadata.deletionTimestamp and deletionGracePeriodSeconds.
  std::optional<TimePoint> deletion_timestamp;
  int64_t deletion_grace_seconds = 0;
  bool has_tracking_finalizer = false;
  // The controller ownerReference's uid, kind and name ("" without one).
  std::string controller_uid;
  std::string controller_kind;
  std::string controller_name;
  std::string controller_api_version;
  std::string resource_version;
  // The completion index annotation; -1 when absent or not a non-negative integer.
  int64_t completion_index = -1;
  bool ready = false;
  // Ready condition False: its lastTransitionTime.
  std::optional<TimePoint> ready_false_since;
  // Restarts of containers and init containers.
  int32_t restarts = 0;
  // The latest finishedAt when every container is terminated.
  std::optional<TimePoint> containers_finished;
  struct Exit {
    std::string container;
    int32_t exit_code = 0;
  };
  // Terminated containers then terminated init containers, in status order.
  std::vector<Exit> exits;
  // status.conditions (type, status).
  std::vector<std::pair<std::string, std::string>> conditions;

  bool Terminal() const { return phase == "Succeeded" || phase == "Failed"; }
  // controller.FilterActivePods: not terminal, not being deleted.
  bool Active() const { return !Terminal() && !deletion_timestamp.has_value(); }
  // controller.CountTerminatingPods: being deleted, not terminal.
  bool Terminating() const { return !Terminal() && deletion_timestamp.has_value(); }
  // getFinishedTime: containers' latest finishedAt, else Ready=False's transition, else the
  // deletion timestamp less the grace period, else the creation time.
  TimePoint FinishedTime() const;
};

// Decodes a pod's JSON (unknown or malformed fields read as absent).
JobPod JobPodFromJson(const nlohmann::json& pod);

// kcm's orderedIntervals: ascending, disjoint, non-adjacent [first, last] intervals.
class Indexes {
 public:
  Indexes() = default;
  // Parses "1,3-5,7" keeping indexes below `completions` (parseIndexesFromString: malformed
  // parts are skipped).
  static Indexes Parse(const std::string& text, int64_t completions);
  // This set plus `more` (ascending).
  Indexes With(const std::vector<int64_t>& more) const;
  bool Has(int64_t ix) const;
  int64_t Total() const;
  // "1,3-5,7" (a two-index interval is "3-4"); "" when empty.
  std::string String() const;
  const std::vector<std::pair<int64_t, int64_t>>& intervals() const { return intervals_; }

 private:
  std::vector<std::pair<int64_t, int64_t>> intervals_;
};

// matchPodFailurePolicy's answer for one failed pod.
struct PolicyMatch {
  // Set when a FailJob rule matched: "Container main for pod default/p failed with exit code 42
  // matching FailJob rule at index 0" / "Pod default/p has condition DisruptionTarget matching
  // FailJob rule at index 1".
  std::optional<std::string> fail_job_message;
  // False when an Ignore rule matched: the failure does not count towards backoffLimit.
  bool count_failed = true;
  // The matched rule's action, "" when none matched.
  std::string action;
};
// `policy` is spec.podFailurePolicy (null or absent: no rules).
PolicyMatch MatchPodFailurePolicy(const nlohmann::json& policy, const JobPod& pod);

// matchSuccessPolicy: "Matched rules at index <i>" for the first rule the succeeded indexes
// meet (succeededIndexes all succeeded, or at least succeededCount of them; or only
// succeededCount indexes in all), nullopt otherwise. `policy` is spec.successPolicy.
std::optional<std::string> MatchSuccessPolicy(const nlohmann::json& policy, int64_t completions,
                                              const Indexes& succeeded);

// The Job's pod-failure back-off state (backoff_utils.go's backoffRecord).
struct BackoffRecord {
  int32_t failures_after_last_success = 0;
  std::optional<TimePoint> last_failure_time;

  // The record after newly counted succeeded and failed pods.
  BackoffRecord Next(std::vector<const JobPod*> new_succeeded,
                     std::vector<const JobPod*> new_failed) const;
  // How long replacement pods still wait at `now`: initial * 2^(failures-1), capped at `max`,
  // less the time since the last failure; zero without failures.
  Duration RemainingTime(TimePoint now, Duration initial, Duration max) const;
};

// controller.ActivePods' Less: unassigned < assigned; Pending < Unknown < Running; not ready
// < ready; more restarts first; newer first (kcm also puts pods ready for less time first:
// not kept here). The pods kcm deletes first when too many run.
bool ActivePodsLess(const JobPod& a, const JobPod& b);

}  // namespace tidepool::controllers::job
