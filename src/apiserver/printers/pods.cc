// The pod printer: printers.go printPod (kube-apiserver 1.32).
//
// READY is "<ready>/<total>", where total counts spec.containers plus restartable init containers
// (sidecars, restartPolicy: Always) and ready counts started+ready sidecars and running+ready
// containers. STATUS starts from status.phase, replaced by status.reason when set and by
// "SchedulingGated" when the PodScheduled condition says so. Init container statuses are then
// walked in order: completed ones (exit 0) and started sidecars are skipped, and the first other
// one gives "Init:<reason>", "Init:Signal:N", "Init:ExitCode:N" or "Init:i/n". If no init
// container is pending (or the Initialized condition is True), container statuses are walked
// from last to first, and the first-listed one with a waiting reason or a terminated state wins
// ("ContainerCreating", "CrashLoopBackOff", "Completed", "Signal:N", "ExitCode:N"). "Completed"
// with a running ready container left becomes "Running" (Ready condition True) or "NotReady". A
// deletionTimestamp makes a non-terminal pod "Terminating", or "Unknown" when status.reason is
// NodeLost. RESTARTS is the restart count, with " (<age> ago)" of the latest
// lastState.terminated.finishedAt when there is one.

#include <optional>
#include <string>
#include <unordered_map>

#include "apiserver/printers/internal.h"
#include "apiserver/printers/resource_printers.h"

namespace tidepool::apiserver::printers::internal {
namespace {

using nlohmann::json;

// A metav1.Time that may be zero (nullopt); Before() as metav1.Time.Before.
using MaybeTime = std::optional<TimePoint>;

bool Before(const MaybeTime& a, const MaybeTime& b) {
  if (!b.has_value()) {
    return false;  // nothing is before the zero time (0001-01-01)
  }
  return !a.has_value() || *a < *b;
}

// container.LastTerminationState.Terminated != nil -> lastState.terminated.finishedAt.
void NoteLastTermination(const json& status, MaybeTime* latest) {
  const json* terminated = Path(status, "lastState", "terminated");
  if (terminated == nullptr || !terminated->is_object()) {
    return;
  }
  MaybeTime finished = TimeField(Field(terminated, "finishedAt"));
  if (Before(*latest, finished)) {
    *latest = finished;
  }
}

bool IsObject(const json* j) { return j != nullptr && j->is_object(); }

std::string TerminatedReason(const json* terminated, const char* prefix) {
  std::string reason = Str(Field(terminated, "reason"));
  if (!reason.empty()) {
    return std::string(prefix) + reason;
  }
  const int64_t signal = Int(Field(terminated, "signal"));
  if (signal != 0) {
    return std::string(prefix) + "Signal:" + std::to_string(signal);
  }
  return std::string(prefix) + "ExitCode:" + std::to_string(Int(Field(terminated, "exitCode")));
}

bool ConditionIs(const json& status, std::string_view type, bool first_only) {
  if (first_only) {
    const json* c = FirstOfType(Field(status, "conditions"), type);
    return c != nullptr && Str(Field(c, "status")) == "True";
  }
  bool result = false;
  ForEach(Field(status, "conditions"), [&](const json& c) {
    if (Str(Field(c, "type")) == type && Str(Field(c, "status")) == "True") {
      result = true;
    }
  });
  return result;
}

json PodCells(const json& pod, TimePoint now) {
  static const json kEmpty = json::object();
  const json& spec = Field(pod, "spec") != nullptr ? *Field(pod, "spec") : kEmpty;
  const json& status = Field(pod, "status") != nullptr ? *Field(pod, "status") : kEmpty;

  int64_t restarts = 0;
  int64_t restartable_init_restarts = 0;
  int64_t total_containers = 0;
  ForEach(Field(spec, "containers"), [&](const json&) { ++total_containers; });
  int64_t ready_containers = 0;
  MaybeTime last_restart;
  MaybeTime last_restartable_init_restart;

  const std::string phase = Str(Field(status, "phase"));
  std::string reason = phase;
  if (std::string r = Str(Field(status, "reason")); !r.empty()) {
    reason = r;
  }
  ForEach(Field(status, "conditions"), [&](const json& c) {
    if (Str(Field(c, "type")) == "PodScheduled" && Str(Field(c, "reason")) == "SchedulingGated") {
      reason = "SchedulingGated";
    }
  });

  // Restartable ("sidecar") init containers, by name.
  std::unordered_map<std::string, bool> restartable;
  int64_t init_container_count = 0;
  ForEach(Field(spec, "initContainers"), [&](const json& c) {
    ++init_container_count;
    const bool is_restartable = Str(Field(c, "restartPolicy")) == "Always";
    restartable[Str(Field(c, "name"))] = is_restartable;
    if (is_restartable) {
      ++total_containers;
    }
  });
  auto is_restartable = [&](const json& container_status) {
    auto it = restartable.find(Str(Field(container_status, "name")));
    return it != restartable.end() && it->second;
  };

  bool initializing = false;
  if (const json* init_statuses = Field(status, "initContainerStatuses");
      init_statuses != nullptr && init_statuses->is_array()) {
    for (size_t i = 0; i < init_statuses->size(); ++i) {
      const json& c = (*init_statuses)[i];
      restarts += Int32(Field(c, "restartCount"));
      NoteLastTermination(c, &last_restart);
      const bool sidecar = is_restartable(c);
      if (sidecar) {
        restartable_init_restarts += Int32(Field(c, "restartCount"));
        NoteLastTermination(c, &last_restartable_init_restart);
      }
      const json* terminated = Path(c, "state", "terminated");
      const json* waiting = Path(c, "state", "waiting");
      if (IsObject(terminated) && Int(Field(terminated, "exitCode")) == 0) {
        continue;
      }
      if (sidecar && Bool(Field(c, "started"))) {
        if (Bool(Field(c, "ready"))) {
          ++ready_containers;
        }
        continue;
      }
      if (IsObject(terminated)) {
        reason = TerminatedReason(terminated, "Init:");
      } else if (IsObject(waiting) && !Str(Field(waiting, "reason")).empty() &&
                 Str(Field(waiting, "reason")) != "PodInitializing") {
        reason = "Init:" + Str(Field(waiting, "reason"));
      } else {
        reason = "Init:" + std::to_string(i) + "/" + std::to_string(init_container_count);
      }
      initializing = true;
      break;
    }
  }

  if (!initializing || ConditionIs(status, "Initialized", /*first_only=*/true)) {
    restarts = restartable_init_restarts;
    last_restart = last_restartable_init_restart;
    bool has_running = false;
    if (const json* statuses = Field(status, "containerStatuses");
        statuses != nullptr && statuses->is_array()) {
      for (size_t k = statuses->size(); k-- > 0;) {
        const json& c = (*statuses)[k];
        restarts += Int32(Field(c, "restartCount"));
        NoteLastTermination(c, &last_restart);
        const json* waiting = Path(c, "state", "waiting");
        const json* terminated = Path(c, "state", "terminated");
        const json* running = Path(c, "state", "running");
        if (IsObject(waiting) && !Str(Field(waiting, "reason")).empty()) {
          reason = Str(Field(waiting, "reason"));
        } else if (IsObject(terminated)) {
          reason = TerminatedReason(terminated, "");
        } else if (Bool(Field(c, "ready")) && IsObject(running)) {
          has_running = true;
          ++ready_containers;
        }
      }
    }
    // A pod whose last container completed but another still runs is shown as running.
    if (reason == "Completed" && has_running) {
      reason = ConditionIs(status, "Ready", /*first_only=*/false) ? "Running" : "NotReady";
    }
  }

  const json* deletion = Path(pod, "metadata", "deletionTimestamp");
  const bool deleting = deletion != nullptr && !deletion->is_null();
  if (deleting && Str(Field(status, "reason")) == "NodeLost") {
    reason = "Unknown";
  } else if (deleting && phase != "Failed" && phase != "Succeeded") {
    reason = "Terminating";
  }

  std::string restarts_str = std::to_string(restarts);
  if (restarts != 0 && last_restart.has_value()) {
    restarts_str += " (" + HumanDuration(Elapsed(*last_restart, now)) + " ago)";
  }

  // Wide columns. status.podIP wins over status.podIPs, as in the v1 -> internal conversion.
  std::string pod_ip = Str(Field(status, "podIP"));
  if (pod_ip.empty()) {
    if (const json* ips = Field(status, "podIPs"); NonEmptyArray(ips)) {
      pod_ip = Str(Field((*ips)[0], "ip"));
    }
  }
  std::string node_name = Str(Field(spec, "nodeName"));
  std::string nominated = Str(Field(status, "nominatedNodeName"));
  std::string readiness_gates = "<none>";
  if (const json* gates = Field(spec, "readinessGates"); NonEmptyArray(gates)) {
    int64_t true_conditions = 0;
    for (const json& gate : *gates) {
      if (ConditionIs(status, Str(Field(gate, "conditionType")), /*first_only=*/true)) {
        ++true_conditions;
      }
    }
    readiness_gates = std::to_string(true_conditions) + "/" + std::to_string(gates->size());
  }

  return json::array({
      Name(pod),
      std::to_string(ready_containers) + "/" + std::to_string(total_containers),
      reason,
      restarts_str,
      Age(pod, now),
      pod_ip.empty() ? "<none>" : pod_ip,
      node_name.empty() ? "<none>" : node_name,
      nominated.empty() ? "<none>" : nominated,
      readiness_gates,
  });
}

json PodConditions(const json& pod) {
  const std::string phase = Str(Path(pod, "status", "phase"));
  if (phase == "Succeeded") {
    return json::array({{{"type", "Completed"},
                         {"status", "True"},
                         {"reason", "Succeeded"},
                         {"message", "The pod has completed successfully."}}});
  }
  if (phase == "Failed") {
    return json::array({{{"type", "Completed"},
                         {"status", "True"},
                         {"reason", "Failed"},
                         {"message", "The pod failed."}}});
  }
  return nullptr;
}

}  // namespace

Printer MakePodPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.",
       0},
      {"Status", "string", "", "The aggregate status of the containers in this pod.", 0},
      {"Restarts", "string", "",
       "The number of times the containers in this pod have been restarted and when the last "
       "container in this pod has restarted.",
       0},
      AgeColumn(),
      {"IP", "string", "",
       "podIP address allocated to the pod. Routable at least within the cluster. Empty if not "
       "yet allocated.",
       1},
      {"Node", "string", "",
       "NodeName indicates in which node this pod is scheduled. If empty, this pod is a "
       "candidate for scheduling by the scheduler defined in schedulerName.",
       1},
      {"Nominated Node", "string", "",
       "nominatedNodeName is set only when this pod preempts other pods on the node, but it "
       "cannot be scheduled right away as preemption victims receive their graceful termination "
       "periods.",
       1},
      {"Readiness Gates", "string", "",
       "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready "
       "when all its containers are ready AND all conditions specified in the readiness gates "
       "have status equal to \"True\".",
       1},
  };
  p.cells = &PodCells;
  p.conditions = &PodConditions;
  return p;
}

}  // namespace tidepool::apiserver::printers::internal
