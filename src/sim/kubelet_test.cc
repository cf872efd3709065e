#include "sim/kubelet.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "common/duration.h"
#include "common/event_queue.h"
#include "sim/timeline.h"
#include "testing/builders.h"

namespace tidepool::sim {
namespace {

using std::chrono::hours;
using std::chrono::seconds;
using testing::MakeNode;
using testing::MakePod;

// Routes pod changes to one kubelet (the world's job) and records what kubectl would show.
class Harness final : public StoreObserver {
 public:
  Harness() : store(queue.clock()), kubelet("n1", store, queue) {
    store.AddObserver(this);
    EXPECT_TRUE(store.UpsertNode(MakeNode("n1").Ready().Obj()).ok());
  }
  ~Harness() override { store.RemoveObserver(this); }

  void OnPodChange(const PodChange& c) override {
    if (c.pod.pod->spec.node_name == "n1") {
      kubelet.OnPodChange(c);
    }
    const std::string status = c.type == ChangeType::kDeleted ? "deleted" : KubectlPodStatus(c.pod);
    std::string& last = last_status[c.pod.pod->meta.name];
    if (last != status) {
      last = status;
      statuses.emplace_back(FormatElapsed(queue.Now() - t0), status);
    }
  }
  void OnEvent(const EventChange& c) override {
    events.push_back(FormatElapsed(queue.Now() - t0) + " " + c.event.reason + " " +
                     c.event.source.component + ": " + c.event.message);
  }

  void Run(api::Pod pod) {
    ASSERT_TRUE(store.CreatePod(std::move(pod)).ok());
    ASSERT_TRUE(store.BindPod("default/" + last_name(), "n1").ok());
  }
  std::string last_name() const { return store.ListPods().back().pod->meta.name; }

  EventQueue queue;
  TimePoint t0 = queue.Now();
  Store store;
  Kubelet kubelet;
  std::vector<std::pair<std::string, std::string>> statuses;  // (time, kubectl status)
  std::map<std::string, std::string> last_status;             // per pod
  std::vector<std::string> events;
};

api::Pod SeedPod() {
  api::Pod p = MakePod("gpu-test-pod").Limit("nvidia.com/gpu", "1").Obj();
  p.spec.restart_policy = "Never";
  p.spec.containers[0].name = "cuda-container";
  p.spec.containers[0].image = "nvidia/cuda:11.4.2-base-ubuntu20.04";
  p.spec.containers[0].command = {"/bin/bash", "-c", "sleep 3600"};
  return p;
}

TEST(KubeletTest, RunsTheSeedPodToCompletion) {
  Harness h;
  h.Run(SeedPod());
  h.queue.RunUntil(h.t0 + hours(2));
  EXPECT_EQ(h.statuses, (std::vector<std::pair<std::string, std::string>>{
                            {"00:00:00", "Pending"},
                            {"00:00:00", "ContainerCreating"},
                            {"00:00:05", "Running"},
                            {"01:00:05", "Completed"},
                        }));
  const api::Pod& p = *h.store.GetPod("default/gpu-test-pod")->pod;
  EXPECT_EQ(p.status.phase, api::PodPhase::kSucceeded);
  EXPECT_EQ(p.status.start_time, h.t0);
  ASSERT_EQ(h.events.size(), 4u);
  EXPECT_EQ(h.events[0],
            "00:00:00 Pulling kubelet: Pulling image \"nvidia/cuda:11.4.2-base-ubuntu20.04\"");
  const std::string pulled =
      "00:00:04 Pulled kubelet: Successfully pulled image "
      "\"nvidia/cuda:11.4.2-base-ubuntu20.04\" in 4s (4s including waiting). Image size: ";
  EXPECT_EQ(h.events[1].substr(0, pulled.size()), pulled);
  EXPECT_EQ(h.events[2], "00:00:05 Created kubelet: Created container: cuda-container");
  EXPECT_EQ(h.events[3], "00:00:05 Started kubelet: Started container cuda-container");
  EXPECT_EQ(h.kubelet.NumPods(), 1u);  // a completed pod stays until deleted
}

TEST(KubeletTest, RestartPolicyAlwaysKeepsRunning) {
  Harness h;
  api::Pod p = SeedPod();
  p.spec.restart_policy = "Always";
  h.Run(p);
  h.queue.RunUntil(h.t0 + hours(3));
  EXPECT_EQ(h.statuses.back().second, "Running");
  const PodRecord* rec = h.store.GetPod("default/gpu-test-pod");
  EXPECT_EQ(rec->pod->status.phase, api::PodPhase::kRunning);
  // `sleep 3600` ended twice (01:00:05, 02:00:05) and was restarted at once each time: a run
  // of an hour is more than twice the back-off cap, which forgets earlier exits.
  ASSERT_EQ(rec->containers.size(), 1u);
  EXPECT_EQ(rec->containers[0].restart_count, 2);
  ASSERT_TRUE(rec->containers[0].last_terminated.has_value());
  EXPECT_EQ(rec->containers[0].last_terminated->exit_code, 0);
  EXPECT_EQ(rec->containers[0].last_terminated->reason, "Completed");
  EXPECT_EQ(rec->containers[0].last_terminated->finished_at, h.t0 + hours(2) + seconds(5));
}

// A pod that runs `run` and exits with `code` under `policy`.
api::Pod ExitingPod(const std::string& policy, const std::string& run, const std::string& code) {
  api::Pod p = SeedPod();
  p.spec.restart_policy = policy;
  p.meta.uid = "u1";
  p.meta.annotations[std::string(kDurationAnnotation)] = run;
  p.meta.annotations[std::string(kExitCodeAnnotation)] = code;
  return p;
}

TEST(KubeletTest, ANonZeroExitCodeFailsThePodUnderRestartPolicyNever) {
  Harness h;
  h.Run(ExitingPod("Never", "30s", "3"));
  h.queue.RunUntil(h.t0 + hours(1));
  EXPECT_EQ(h.statuses, (std::vector<std::pair<std::string, std::string>>{
                            {"00:00:00", "Pending"},
                            {"00:00:00", "ContainerCreating"},
                            {"00:00:05", "Running"},
                            {"00:00:35", "Error"},
                        }));
  const PodRecord* rec = h.store.GetPod("default/gpu-test-pod");
  EXPECT_EQ(rec->pod->status.phase, api::PodPhase::kFailed);
  ASSERT_EQ(rec->containers.size(), 1u);
  EXPECT_EQ(rec->containers[0].state, ContainerStatus::State::kTerminated);
  EXPECT_EQ(rec->containers[0].reason, "Error");
  EXPECT_EQ(rec->containers[0].exit_code, 3);
  EXPECT_EQ(rec->containers[0].restart_count, 0);
  EXPECT_EQ(rec->containers[0].finished_at, h.t0 + seconds(35));
}

TEST(KubeletTest, OnFailureRestartsWithTheKubeletsCrashBackOff) {
  Harness h;
  h.Run(ExitingPod("OnFailure", "10s", "1"));
  // Exits at 15 s (restarted at once), 25 s (back-off 10 s), 45 s (20 s), 75 s (40 s), ...
  h.queue.RunUntil(h.t0 + seconds(30));
  const PodRecord* rec = h.store.GetPod("default/gpu-test-pod");
  ASSERT_EQ(rec->containers.size(), 1u);
  EXPECT_EQ(rec->pod->status.phase, api::PodPhase::kRunning);
  EXPECT_EQ(rec->containers[0].state, ContainerStatus::State::kWaiting);
  EXPECT_EQ(rec->containers[0].reason, "CrashLoopBackOff");
  EXPECT_EQ(rec->containers[0].message,
            "back-off 10s restarting failed container=cuda-container "
            "pod=gpu-test-pod_default(u1)");
  EXPECT_EQ(rec->containers[0].restart_count, 1);
  ASSERT_TRUE(rec->containers[0].last_terminated.has_value());
  EXPECT_EQ(rec->containers[0].last_terminated->exit_code, 1);
  EXPECT_EQ(rec->containers[0].last_terminated->reason, "Error");
  EXPECT_EQ(rec->containers[0].last_terminated->started_at, h.t0 + seconds(15));
  EXPECT_EQ(rec->containers[0].last_terminated->finished_at, h.t0 + seconds(25));
  EXPECT_EQ(h.statuses.back(), (std::pair<std::string, std::string>{"00:00:25", "CrashLoopBackOff"}));
  EXPECT_EQ(h.events.back(),
            "00:00:25 BackOff kubelet: Back-off restarting failed container cuda-container in "
            "pod gpu-test-pod_default(u1)");
  h.queue.RunUntil(h.t0 + seconds(36));
  rec = h.store.GetPod("default/gpu-test-pod");
  EXPECT_EQ(rec->containers[0].state, ContainerStatus::State::kRunning);
  EXPECT_EQ(rec->containers[0].restart_count, 2);
  EXPECT_EQ(rec->containers[0].started_at, h.t0 + seconds(35));
  // Back-offs double up to the 5-min cap: 10, 20, 40, 80, 160, 300, 300 s.
  h.queue.RunUntil(h.t0 + hours(1));
  std::vector<std::string> backoffs;
  for (const auto& [at, status] : h.statuses) {
    if (status == "CrashLoopBackOff") backoffs.push_back(at);
  }
  ASSERT_GE(backoffs.size(), 7u);
  EXPECT_EQ(std::vector<std::string>(backoffs.begin(), backoffs.begin() + 7),
            (std::vector<std::string>{"00:00:25", "00:00:45", "00:01:15", "00:02:05", "00:03:35",
                                      "00:06:25", "00:11:35"}));
}

TEST(KubeletTest, OnFailureWithExitZeroSucceedsAndAlwaysRestartsIt) {
  {
    Harness h;
    h.Run(ExitingPod("OnFailure", "10s", "0"));
    h.queue.RunUntil(h.t0 + hours(1));
    EXPECT_EQ(h.store.GetPod("default/gpu-test-pod")->pod->status.phase,
              api::PodPhase::kSucceeded);
    EXPECT_EQ(h.statuses.back().second, "Completed");
  }
  Harness h;
  h.Run(ExitingPod("Always", "10s", "0"));
  h.queue.RunUntil(h.t0 + seconds(30));
  const PodRecord* rec = h.store.GetPod("default/gpu-test-pod");
  EXPECT_EQ(rec->pod->status.phase, api::PodPhase::kRunning);
  EXPECT_EQ(rec->containers[0].reason, "CrashLoopBackOff");
  EXPECT_EQ(rec->containers[0].last_terminated->reason, "Completed");
}

TEST(KubeletTest, ExitCodesFromTheAnnotationOrTheCommand) {
  struct Case {
    std::string name;
    std::vector<std::string> command;
    std::string annotation;  // empty: none
    std::string want;
  };
  const std::vector<Case> cases = {
      {"no exit: 0", {"sleep", "10"}, "", "0"},
      {"a shell's exit", {"sh", "-c", "sleep 60; exit 3"}, "", "3"},
      {"the first exit", {"sh", "-c", "exit 2; exit 4"}, "", "2"},
      {"the annotation wins", {"sh", "-c", "exit 2"}, "137", "137"},
      {"a bad annotation", {}, "boom",
       "error: metadata.annotations[tidepool.dev/exit-code]: not an integer: \"boom\""},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    api::Pod p = MakePod("p").Container({}).Obj();
    p.spec.containers[0].command = tc.command;
    if (!tc.annotation.empty()) {
      p.meta.annotations[std::string(kExitCodeAnnotation)] = tc.annotation;
    }
    StatusOr<int32_t> code = ContainerExitCode(p, p.spec.containers[0]);
    EXPECT_EQ(code.ok() ? std::to_string(*code) : "error: " + std::string(code.status().message()),
              tc.want);
  }
}

TEST(KubeletTest, TheDurationAnnotationWinsAndImagesAreCached) {
  Harness h;
  api::Pod a = SeedPod();
  a.meta.annotations[std::string(kDurationAnnotation)] = "90s";
  h.Run(a);
  h.queue.RunUntil(h.t0 + seconds(60));
  api::Pod b = SeedPod();
  b.meta.name = "second";
  b.spec.containers[0].command = {"sleep", "2m"};
  h.Run(b);
  h.queue.RunUntil(h.t0 + hours(1));
  EXPECT_EQ(h.store.GetPod("default/gpu-test-pod")->pod->status.phase, api::PodPhase::kSucceeded);
  // The second pod found the image on the node: no pull, Running after 1 s, done 2 min later.
  EXPECT_NE(std::find(h.events.begin(), h.events.end(),
                      "00:01:00 Pulled kubelet: Container image "
                      "\"nvidia/cuda:11.4.2-base-ubuntu20.04\" already present on machine"),
            h.events.end());
  EXPECT_NE(std::find(h.statuses.begin(), h.statuses.end(),
                      std::pair<std::string, std::string>{"00:01:35", "Completed"}),
            h.statuses.end());
  EXPECT_NE(std::find(h.statuses.begin(), h.statuses.end(),
                      std::pair<std::string, std::string>{"00:03:01", "Completed"}),
            h.statuses.end())
      << ::testing::PrintToString(h.statuses);
}

TEST(KubeletTest, DeletionStopsTheContainersAndRemovesThePod) {
  Harness h;
  h.Run(SeedPod());
  h.queue.RunUntil(h.t0 + seconds(600));
  ASSERT_TRUE(h.store.DeletePod("default", "gpu-test-pod").ok());
  EXPECT_EQ(h.statuses.back(), (std::pair<std::string, std::string>{"00:10:00", "Terminating"}));
  EXPECT_EQ(h.events.back(), "00:10:00 Killing kubelet: Stopping container cuda-container");
  h.queue.RunUntil(h.t0 + seconds(601));
  EXPECT_NE(h.store.GetPod("default/gpu-test-pod"), nullptr);
  h.queue.RunUntil(h.t0 + seconds(602));
  EXPECT_EQ(h.store.GetPod("default/gpu-test-pod"), nullptr);
  EXPECT_EQ(h.statuses.back(), (std::pair<std::string, std::string>{"00:10:02", "deleted"}));
  EXPECT_EQ(h.kubelet.NumPods(), 0u);
  h.queue.RunUntil(h.t0 + hours(2));  // no completion fires for the deleted pod
  EXPECT_EQ(h.statuses.back().second, "deleted");
}

TEST(KubeletTest, AShortGracePeriodCapsTheTermination) {
  Harness h;
  api::Pod p = SeedPod();
  p.spec.termination_grace_period_seconds = 0;
  h.Run(p);
  h.queue.RunUntil(h.t0 + seconds(10));
  ASSERT_TRUE(h.store.DeletePod("default", "gpu-test-pod").ok());
  h.queue.RunUntil(h.t0 + seconds(10));
  EXPECT_EQ(h.store.GetPod("default/gpu-test-pod"), nullptr);
}

TEST(KubeletTest, RunTimeFromCommandsAndAnnotations) {
  auto run = [](std::vector<std::string> command, std::vector<std::string> args = {},
                std::string annotation = "") -> std::string {
    api::Pod p = MakePod("p").Container({}).Obj();
    p.spec.containers[0].command = std::move(command);
    p.spec.containers[0].args = std::move(args);
    if (!annotation.empty()) {
      p.meta.annotations[std::string(kDurationAnnotation)] = annotation;
    }
    auto d = ContainerRunTime(p, p.spec.containers[0]);
    if (!d.ok()) {
      return "error: " + std::string(d.status().message());
    }
    return d->has_value() ? FormatGoDuration(**d) : "forever";
  };
  EXPECT_EQ(run({"/bin/bash", "-c", "sleep 3600"}), "1h0m0s");
  EXPECT_EQ(run({"sleep"}, {"30"}), "30s");
  EXPECT_EQ(run({"sh", "-c", "echo hi; sleep 1.5m && sleep 30"}), "2m0s");
  EXPECT_EQ(run({"sleep", "infinity"}), "forever");
  EXPECT_EQ(run({"python", "train.py"}), "forever");
  EXPECT_EQ(run({"sleep", "10"}, {}, "45m"), "45m0s");
  EXPECT_EQ(run({}, {}, "soon"),
            "error: metadata.annotations[tidepool.dev/duration]: time: invalid duration \"soon\"");
}

}  // namespace
}  // namespace tidepool::sim
