#include "scheduler/queue/scheduling_queue.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "testing/builders.h"

namespace tidepool::scheduler {
namespace {

using std::chrono::seconds;
using testing::MakeNode;
using testing::MakePod;
using Change = SchedulingQueue::Change;

// A TimerService the test advances by hand.
class ManualTimers final : public TimerService {
 public:
  TimerId ScheduleAt(TimePoint at, Callback fn) override {
    timers_.emplace(std::make_pair(at, next_), std::move(fn));
    return next_++;
  }
  void Cancel(TimerId id) override {
    for (auto it = timers_.begin(); it != timers_.end(); ++it) {
      if (it->first.second == id) {
        timers_.erase(it);
        return;
      }
    }
  }
  const Clock& clock() const override { return clock_; }
  void RunFor(Duration d) {
    const TimePoint end = clock_.Now() + d;
    while (!timers_.empty() && timers_.begin()->first.first <= end) {
      auto it = timers_.begin();
      if (it->first.first > clock_.Now()) clock_.AdvanceTo(it->first.first);
      Callback fn = std::move(it->second);
      timers_.erase(it);
      fn();
    }
    clock_.AdvanceTo(end);
  }

 private:
  SimulatedClock clock_;
  std::map<std::pair<TimePoint, TimerId>, Callback> timers_;
  TimerId next_ = 1;
};

// Records every action; a binding is delivered back as the pod's update, as a store would.
class RecordingActions final : public SchedulingActions {
 public:
  SchedulingQueue* queue = nullptr;
  std::vector<std::string> log;
  bool fail_binds = false;
  bool hold_binds = false;  // the binding cycle waits (for volumes) until Finish()
  std::map<std::string, std::pair<api::Pod, BindDone>> held;

  void Bind(const api::Pod& pod, const std::string& node, const Reservation&,
            BindDone done) override {
    log.push_back("bind " + pod.meta.name + " " + node);
    if (hold_binds) {
      api::Pod bound = pod;
      bound.spec.node_name = node;
      held[pod.meta.name] = {bound, std::move(done)};
      return;
    }
    if (fail_binds) {
      done(Status(StatusCode::kAborted, "running Bind plugin \"DefaultBinder\": the pod changed"));
      return;
    }
    api::Pod bound = pod;
    bound.spec.node_name = node;
    queue->OnPod(Change::kModified, std::make_shared<const api::Pod>(bound));
    done(Status::Ok());
  }
  // Ends a held binding cycle: bound (delivered as the pod's update first), or `error`.
  void Finish(const std::string& name, const Status& error = Status::Ok()) {
    auto it = held.find(name);
    ASSERT_NE(it, held.end());
    auto [bound, done] = std::move(it->second);
    held.erase(it);
    if (error.ok()) queue->OnPod(Change::kModified, std::make_shared<const api::Pod>(bound));
    done(error);
  }
  void Event(const PodRef& pod, std::string_view type, std::string_view reason,
             std::string message) override {
    log.push_back("event " + pod.name + " " + std::string(type) + " " + std::string(reason) +
                  ": " + message);
  }
  void SetUnschedulable(const api::Pod& pod, const api::PodCondition& c,
                        const std::optional<std::string>& nominated) override {
    log.push_back("unschedulable " + pod.meta.name + " " + c.reason +
                  (nominated ? " nominated " + *nominated : ""));
  }
  void DeleteVictim(const PodRef& victim) override { log.push_back("delete " + victim.name); }
};

api::PodConstSharedPtr Pending(const std::string& name, const std::string& gpus,
                               int32_t priority = 0) {
  api::Pod p = MakePod(name).Req("cpu", "100m").Req("nvidia.com/gpu", gpus).Priority(priority).Obj();
  p.spec.scheduler_name = "default-scheduler";
  p.meta.uid = "uid-" + name;
  return std::make_shared<const api::Pod>(p);
}

api::NodeConstSharedPtr GpuNode(const std::string& name, const std::string& gpus) {
  return MakeNode(name).Capacity({{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", gpus}}).Ready().Ptr();
}

class SchedulingQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Scheduler::Create();
    ASSERT_TRUE(s.ok());
    scheduler_ = std::move(s).value();
    queue_ = std::make_unique<SchedulingQueue>(timers_, *scheduler_, actions_);
    actions_.queue = queue_.get();
  }
  ManualTimers timers_;
  RecordingActions actions_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<SchedulingQueue> queue_;
};

TEST_F(SchedulingQueueTest, APodThatFitsIsBoundAndAssumedOnItsNode) {
  queue_->OnNode(Change::kAdded, GpuNode("n1", "1"));
  queue_->OnPod(Change::kAdded, Pending("p", "1"));
  timers_.RunFor(seconds(0));
  EXPECT_EQ(actions_.log, std::vector<std::string>(
                              {"bind p n1", "event p Normal Scheduled: Successfully assigned default/p to n1"}));
  EXPECT_EQ(queue_->NumPending(), 0u);
  // The node is full now: the next pod does not fit.
  actions_.log.clear();
  queue_->OnPod(Change::kAdded, Pending("q", "1"));
  timers_.RunFor(seconds(0));
  ASSERT_EQ(actions_.log.size(), 2u);
  EXPECT_EQ(actions_.log[0],
            "event q Warning FailedScheduling: 0/1 nodes are available: 1 Insufficient "
            "nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No preemption victims found "
            "for incoming pod.");
  EXPECT_EQ(actions_.log[1], "unschedulable q Unschedulable");
}

TEST_F(SchedulingQueueTest, AnUnschedulablePodIsRetriedAfterANodeArrivesAndItsBackoff) {
  queue_->OnPod(Change::kAdded, Pending("p", "1"));
  timers_.RunFor(seconds(0));
  ASSERT_EQ(actions_.log.size(), 2u);
  EXPECT_EQ(actions_.log[0], "event p Warning FailedScheduling: no nodes available to schedule pods");
  actions_.log.clear();
  timers_.RunFor(seconds(60));
  EXPECT_TRUE(actions_.log.empty());  // nothing changed: waits (up to 5 minutes)
  queue_->OnNode(Change::kAdded, GpuNode("n1", "1"));
  timers_.RunFor(seconds(0));
  EXPECT_EQ(actions_.log.front(), "bind p n1");
}

// Where each pod waits decides when it is tried again: an unschedulable pod after
// podMaxInUnschedulablePodsDuration (5 minutes) with no event, a pod in backoff when its backoff
// ends; a pod deleted, or bound by someone else, while it waits is never tried again.
TEST_F(SchedulingQueueTest, EachWaitingPodIsTriedWhenItsWaitEndsAndOnlyWhileItIsPending) {
  queue_->OnPod(Change::kAdded, Pending("a", "1"));
  queue_->OnPod(Change::kAdded, Pending("b", "1"));
  queue_->OnPod(Change::kAdded, Pending("c", "1"));
  timers_.RunFor(seconds(0));
  EXPECT_EQ(queue_->attempts(), 3u);
  timers_.RunFor(seconds(299));
  EXPECT_EQ(queue_->attempts(), 3u);  // unschedulable, no event: waits
  // An event moves them to backoff (attempt 1: 1 s, already over) -> tried at once; b is gone
  // and c is bound elsewhere before the cycle runs.
  queue_->OnPod(Change::kDeleted, Pending("b", "1"));
  api::Pod bound = *Pending("c", "1");
  bound.spec.node_name = "elsewhere";
  queue_->OnPod(Change::kModified, std::make_shared<const api::Pod>(bound));
  queue_->OnNode(Change::kAdded, MakeNode("cpu-only").Capacity({{"cpu", "4"}}).Ready().Ptr());
  timers_.RunFor(seconds(0));
  EXPECT_EQ(queue_->attempts(), 4u);  // a only
  EXPECT_EQ(queue_->NumPending(), 1u);
  // a's second failure: unschedulable again; after 5 more minutes it is flushed and retried.
  timers_.RunFor(seconds(299));
  EXPECT_EQ(queue_->attempts(), 4u);
  timers_.RunFor(seconds(1));
  EXPECT_EQ(queue_->attempts(), 5u);
}

// kube-scheduler 1.32's queueing hints: a node change retries an unschedulable pod only when a
// plugin that rejected it says the change may help - the taint it did not tolerate went
// (TaintToleration), an uncordon (NodeUnschedulable), more of what it requests
// (NodeResourcesFit), a label its selector wants (NodeAffinity). A heartbeat, a condition, a
// cordon or an unrelated change retries nobody.
TEST_F(SchedulingQueueTest, ANodeChangeRetriesAPodOnlyWhenAPluginThatRejectedItSaysSo) {
  enum Rejector { kTaint, kFit, kCordon, kSelector };
  struct Case {
    std::string name;
    Rejector rejector;
    void (*mutate)(api::Node&);
    bool retried;
  };
  const std::vector<Case> cases = {
      {"a heartbeat", kTaint,
       [](api::Node& n) {
         for (auto& c : n.status.conditions) c.last_heartbeat_time = TimePoint(seconds(99));
       },
       false},
      {"Ready turns False", kTaint,
       [](api::Node& n) {
         for (auto& c : n.status.conditions) c.status = api::ConditionStatus::kFalse;
       },
       false},
      {"the untolerated taint removed", kTaint, [](api::Node& n) { n.spec.taints.clear(); }, true},
      {"another taint added, the first kept", kTaint,
       [](api::Node& n) {
         n.spec.taints.push_back(api::Taint{"other", "x", api::TaintEffect::kNoSchedule, {}});
       },
       false},
      {"a new label, still tainted", kTaint, [](api::Node& n) { n.meta.labels["x"] = "y"; }, false},
      {"more cpu, still tainted", kTaint,
       [](api::Node& n) { n.status.allocatable["cpu"] = api::Quantity::Parse("8").value(); },
       false},
      {"GPUs appear", kFit,
       [](api::Node& n) {
         n.status.allocatable["nvidia.com/gpu"] = api::Quantity::Parse("1").value();
       },
       true},
      {"more cpu, still no GPU", kFit,
       [](api::Node& n) { n.status.allocatable["cpu"] = api::Quantity::Parse("8").value(); },
       false},
      {"a taint removed where resources rejected it", kFit,
       [](api::Node& n) { n.spec.taints.clear(); }, false},
      {"a cordon", kTaint, [](api::Node& n) { n.spec.unschedulable = true; }, false},
      {"a label on a cordoned node", kCordon, [](api::Node& n) { n.meta.labels["x"] = "y"; },
       false},
      {"an uncordon", kCordon, [](api::Node& n) { n.spec.unschedulable = false; }, true},
      {"the label the selector wants", kSelector,
       [](api::Node& n) { n.meta.labels["pool"] = "gpu"; }, true},
      {"another label", kSelector, [](api::Node& n) { n.meta.labels["pool"] = "cpu"; }, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    SetUp();
    actions_.log.clear();
    // The pod asks for a GPU: a node of 4 CPUs and `gpus` GPUs, with what rejects it.
    api::Node node = *MakeNode("n1")
                          .Capacity({{"cpu", "4"},
                                     {"memory", "16Gi"},
                                     {"nvidia.com/gpu", c.rejector == kFit ? "0" : "1"}})
                          .Ready()
                          .Ptr();
    if (c.rejector == kTaint || c.rejector == kFit) {
      node.spec.taints.push_back(api::Taint{"dedicated", "x", api::TaintEffect::kNoSchedule, {}});
    }
    api::Pod pod = *Pending("p", "1");
    if (c.rejector == kFit) {
      pod.spec.tolerations.push_back(
          api::Toleration{"dedicated", api::TolerationOperator::kExists, "", {}, {}});
    }
    if (c.rejector == kCordon) node.spec.unschedulable = true;
    if (c.rejector == kSelector) pod.spec.node_selector["pool"] = "gpu";
    queue_->OnNode(Change::kAdded, std::make_shared<const api::Node>(node));
    queue_->OnPod(Change::kAdded, std::make_shared<const api::Pod>(pod));
    timers_.RunFor(seconds(0));
    const size_t before = actions_.log.size();
    ASSERT_EQ(before, 2u);
    timers_.RunFor(seconds(30));  // past any backoff
    api::Node changed = node;
    c.mutate(changed);
    queue_->OnNode(Change::kModified, std::make_shared<const api::Node>(changed));
    timers_.RunFor(seconds(30));
    EXPECT_EQ(actions_.log.size() > before, c.retried) << ::testing::PrintToString(actions_.log);
  }
}

// NodeResourcesFit's hints for a node that is added (it must fit the pod's request) and for a
// pod bound to a node that goes or finishes (always: its resources are free); a deleted node
// retries nobody.
TEST_F(SchedulingQueueTest, NodesAddedAndBoundPodsGoneRetryThePodsTheyMayHelp) {
  queue_->OnNode(Change::kAdded, GpuNode("n1", "1"));
  api::Pod bound = *Pending("holder", "1");
  bound.spec.node_name = "n1";
  queue_->OnPod(Change::kAdded, std::make_shared<const api::Pod>(bound));
  queue_->OnPod(Change::kAdded, Pending("p", "1"));
  timers_.RunFor(seconds(0));
  EXPECT_EQ(queue_->attempts(), 1u);
  timers_.RunFor(seconds(30));
  queue_->OnNode(Change::kAdded, MakeNode("cpu-only").Capacity({{"cpu", "4"}}).Ready().Ptr());
  queue_->OnNode(Change::kDeleted, MakeNode("cpu-only").Capacity({{"cpu", "4"}}).Ready().Ptr());
  timers_.RunFor(seconds(30));
  EXPECT_EQ(queue_->attempts(), 1u);  // a node without GPUs, then a node gone: no retry
  queue_->OnNode(Change::kAdded, GpuNode("n2", "0"));
  timers_.RunFor(seconds(30));
  EXPECT_EQ(queue_->attempts(), 1u);
  bound.status.phase = api::PodPhase::kSucceeded;  // finished: its GPU is free
  queue_->OnPod(Change::kModified, std::make_shared<const api::Pod>(bound));
  timers_.RunFor(seconds(0));
  EXPECT_EQ(queue_->attempts(), 2u);
  EXPECT_EQ(actions_.log.back(), "event p Normal Scheduled: Successfully assigned default/p to n1");
}

// A waiting pod given a toleration is tried again at once (its backoff permitting); another
// update of it (a label) is not.
TEST_F(SchedulingQueueTest, AWaitingPodGivenATolerationIsRetried) {
  api::Node node = *GpuNode("n1", "1");
  node.spec.taints.push_back(api::Taint{"dedicated", "x", api::TaintEffect::kNoSchedule, {}});
  queue_->OnNode(Change::kAdded, std::make_shared<const api::Node>(node));
  api::Pod pod = *Pending("p", "1");
  queue_->OnPod(Change::kAdded, std::make_shared<const api::Pod>(pod));
  timers_.RunFor(seconds(30));
  EXPECT_EQ(queue_->attempts(), 1u);
  pod.meta.labels["x"] = "y";
  queue_->OnPod(Change::kModified, std::make_shared<const api::Pod>(pod));
  timers_.RunFor(seconds(30));
  EXPECT_EQ(queue_->attempts(), 1u);
  pod.spec.tolerations.push_back(
      api::Toleration{"dedicated", api::TolerationOperator::kExists, "", {}, {}});
  queue_->OnPod(Change::kModified, std::make_shared<const api::Pod>(pod));
  timers_.RunFor(seconds(0));
  EXPECT_EQ(queue_->attempts(), 2u);
  EXPECT_EQ(actions_.log.back(), "event p Normal Scheduled: Successfully assigned default/p to n1");
}

// UpdatePodToleration is asked of the plugins that rejected the pod: a pod refused for its
// GPU only is not retried for a new toleration.
TEST_F(SchedulingQueueTest, ATolerationDoesNotRetryAPodRefusedForItsResources) {
  queue_->OnNode(Change::kAdded, GpuNode("n1", "0"));
  api::Pod pod = *Pending("p", "1");
  queue_->OnPod(Change::kAdded, std::make_shared<const api::Pod>(pod));
  timers_.RunFor(seconds(30));
  ASSERT_EQ(queue_->attempts(), 1u);
  pod.spec.tolerations.push_back(
      api::Toleration{"dedicated", api::TolerationOperator::kExists, "", {}, {}});
  queue_->OnPod(Change::kModified, std::make_shared<const api::Pod>(pod));
  timers_.RunFor(seconds(30));
  EXPECT_EQ(queue_->attempts(), 1u);
}

// A pod pinned to one node by name (required affinity on metadata.name) is rejected by
// NodeAffinity, whose PreFilter narrowed the nodes: a change elsewhere does not retry it; the
// node it names arriving does.
TEST_F(SchedulingQueueTest, APodPinnedToAMissingNodeWaitsForThatNode) {
  queue_->OnNode(Change::kAdded, GpuNode("n1", "1"));
  api::NodeSelectorTerm term;
  term.match_fields.push_back(
      api::SelectorRequirement{"metadata.name", api::SelectorOperator::kIn, {"n9"}});
  api::Pod pod = MakePod("p").Req("nvidia.com/gpu", "1").RequiredAffinity(term).Obj();
  pod.spec.scheduler_name = "default-scheduler";
  pod.meta.uid = "uid-p";
  queue_->OnPod(Change::kAdded, std::make_shared<const api::Pod>(pod));
  timers_.RunFor(seconds(30));
  ASSERT_EQ(queue_->attempts(), 1u);
  api::Node n1 = *GpuNode("n1", "2");  // more GPUs on n1: not the pod's node
  queue_->OnNode(Change::kModified, std::make_shared<const api::Node>(n1));
  timers_.RunFor(seconds(30));
  EXPECT_EQ(queue_->attempts(), 1u);
  queue_->OnNode(Change::kAdded, GpuNode("n9", "1"));
  timers_.RunFor(seconds(0));
  EXPECT_EQ(queue_->attempts(), 2u);
  EXPECT_EQ(actions_.log.back(), "event p Normal Scheduled: Successfully assigned default/p to n9");
}

TEST_F(SchedulingQueueTest, HigherPriorityFirstThenArrival) {
  queue_->OnNode(Change::kAdded, GpuNode("n1", "2"));
  queue_->OnPod(Change::kAdded, Pending("a", "1"));
  queue_->OnPod(Change::kAdded, Pending("b", "1", 100));
  queue_->OnPod(Change::kAdded, Pending("c", "1"));
  timers_.RunFor(seconds(0));
  std::vector<std::string> binds;
  for (const std::string& l : actions_.log) {
    if (l.rfind("bind", 0) == 0) binds.push_back(l);
  }
  EXPECT_EQ(binds, std::vector<std::string>({"bind b n1", "bind a n1"}));
  EXPECT_EQ(queue_->NumPending(), 1u);  // c
}

// handleBindingCycleError: the assumption is forgotten, the error is the FailedScheduling
// event's and the condition's (reason SchedulerError), and the pod is tried again after its
// backoff (1 s after a first attempt).
TEST_F(SchedulingQueueTest, AFailedBindingForgetsTheAssumptionAndRetriesAfterTheBackoff) {
  queue_->OnNode(Change::kAdded, GpuNode("n1", "1"));
  actions_.fail_binds = true;
  queue_->OnPod(Change::kAdded, Pending("p", "1"));
  timers_.RunFor(seconds(0));
  EXPECT_EQ(actions_.log,
            std::vector<std::string>(
                {"bind p n1",
                 "event p Warning FailedScheduling: running Bind plugin \"DefaultBinder\": the "
                 "pod changed",
                 "unschedulable p SchedulerError nominated "}));
  const NodeInfo* n1 = queue_->snapshot().GetNodeInfo("n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_TRUE(n1->pods().empty());
  EXPECT_EQ(queue_->NumPending(), 1u);
  actions_.log.clear();
  actions_.fail_binds = false;
  timers_.RunFor(std::chrono::milliseconds(999));
  EXPECT_TRUE(actions_.log.empty());
  timers_.RunFor(std::chrono::milliseconds(1));
  EXPECT_EQ(actions_.log,
            std::vector<std::string>({"bind p n1",
                                      "event p Normal Scheduled: Successfully assigned "
                                      "default/p to n1"}));
}

// A binding cycle that waits (VolumeBinding's PreBind): the pod stays assumed on its node, so
// another pod does not take its place; its updates meanwhile do not queue it again; Scheduled
// is recorded when the cycle ends.
TEST_F(SchedulingQueueTest, APodWaitingInItsBindingCycleStaysAssumed) {
  queue_->OnNode(Change::kAdded, GpuNode("n1", "1"));
  actions_.hold_binds = true;
  queue_->OnPod(Change::kAdded, Pending("p", "1"));
  timers_.RunFor(seconds(0));
  EXPECT_EQ(actions_.log, std::vector<std::string>({"bind p n1"}));
  api::Pod labelled = *Pending("p", "1");
  labelled.meta.labels["touched"] = "yes";
  queue_->OnPod(Change::kModified, std::make_shared<const api::Pod>(labelled));
  queue_->OnPod(Change::kAdded, Pending("q", "1"));
  timers_.RunFor(seconds(30));
  ASSERT_EQ(actions_.log.size(), 3u);
  EXPECT_EQ(actions_.log[1].rfind("event q Warning FailedScheduling: 0/1 nodes are available: 1 "
                                  "Insufficient nvidia.com/gpu.",
                                  0),
            0u)
      << actions_.log[1];
  EXPECT_EQ(actions_.log[2], "unschedulable q Unschedulable");
  actions_.log.clear();
  actions_.Finish("p");
  EXPECT_EQ(actions_.log, std::vector<std::string>(
                              {"event p Normal Scheduled: Successfully assigned default/p to n1"}));
  EXPECT_EQ(queue_->snapshot().GetNodeInfo("n1")->pods().size(), 1u);
}

// A binding cycle that fails after a wait frees the node for the others (AssignedPodDelete)
// and queues the pod again; one whose pod was deleted meanwhile changes nothing.
TEST_F(SchedulingQueueTest, AWaitingBindingThatFailsFreesTheNode) {
  queue_->OnNode(Change::kAdded, GpuNode("n1", "1"));
  actions_.hold_binds = true;
  queue_->OnPod(Change::kAdded, Pending("p", "1"));
  timers_.RunFor(seconds(0));
  queue_->OnPod(Change::kAdded, Pending("q", "1"));
  timers_.RunFor(seconds(5));
  actions_.log.clear();
  const Status timeout(StatusCode::kDeadlineExceeded,
                       "running PreBind plugin \"VolumeBinding\": binding volumes: context "
                       "deadline exceeded");
  actions_.Finish("p", timeout);
  ASSERT_GE(actions_.log.size(), 2u);
  EXPECT_EQ(actions_.log[0],
            "event p Warning FailedScheduling: running PreBind plugin \"VolumeBinding\": "
            "binding volumes: context deadline exceeded");
  EXPECT_EQ(actions_.log[1], "unschedulable p SchedulerError nominated ");
  // q, rejected for lack of the GPU p held, goes first (its backoff ended, p's has not).
  timers_.RunFor(seconds(0));
  EXPECT_EQ(actions_.log.back(), "bind q n1");
  actions_.log.clear();
  queue_->OnPod(Change::kDeleted, Pending("q", "1"));
  actions_.Finish("q", timeout);
  EXPECT_TRUE(actions_.log.empty());
}

// A pod deleted and created again under its name while the old one waits in its binding
// cycle (a relist shows it as an update with a new uid): the old one's place is freed, the new
// one is queued and scheduled, and the old cycle's end changes nothing. A pod whose deletion
// starts while it waits frees its place at once too.
TEST_F(SchedulingQueueTest, APodReplacedOrDeletedDuringItsBindingCycleIsForgotten) {
  queue_->OnNode(Change::kAdded, GpuNode("n1", "1"));
  actions_.hold_binds = true;
  queue_->OnPod(Change::kAdded, Pending("p", "1"));
  timers_.RunFor(seconds(0));
  api::Pod again = *Pending("p", "1");
  again.meta.uid = "uid-p-2";
  const auto held = std::move(actions_.held.at("p"));
  actions_.held.clear();
  queue_->OnPod(Change::kModified, std::make_shared<const api::Pod>(again));
  timers_.RunFor(seconds(0));
  ASSERT_EQ(actions_.log, std::vector<std::string>({"bind p n1", "bind p n1"}));
  EXPECT_EQ(queue_->snapshot().GetNodeInfo("n1")->pods().size(), 1u);
  actions_.log.clear();
  held.second(Status(StatusCode::kNotFound, "the old pod is gone"));
  EXPECT_TRUE(actions_.log.empty());
  EXPECT_EQ(queue_->NumPending(), 0u);
  // The new one's deletion starts (a finalizer keeps it): its GPU is free for q at once.
  api::Pod deleting = again;
  deleting.meta.deletion_timestamp = TimePoint(seconds(5));
  queue_->OnPod(Change::kModified, std::make_shared<const api::Pod>(deleting));
  EXPECT_TRUE(queue_->snapshot().GetNodeInfo("n1")->pods().empty());
  queue_->OnPod(Change::kAdded, Pending("q", "1"));
  timers_.RunFor(seconds(0));
  EXPECT_EQ(actions_.log, std::vector<std::string>({"bind q n1"}));
  actions_.log.clear();
  actions_.Finish("p", Status(StatusCode::kInvalidArgument, "being deleted"));
  EXPECT_TRUE(actions_.log.empty());
}

// After a successful cycle the pod stays assumed until its binding is seen: an older update
// seen meanwhile does not queue it again.
TEST_F(SchedulingQueueTest, ABoundPodStaysAssumedUntilItsBindingIsSeen) {
  queue_->OnNode(Change::kAdded, GpuNode("n1", "1"));
  actions_.hold_binds = true;
  queue_->OnPod(Change::kAdded, Pending("p", "1"));
  timers_.RunFor(seconds(0));
  auto [bound, done] = std::move(actions_.held.at("p"));
  actions_.held.clear();
  done(Status::Ok());
  api::Pod older = *Pending("p", "1");
  older.meta.labels["written"] = "before the binding";
  queue_->OnPod(Change::kModified, std::make_shared<const api::Pod>(older));
  timers_.RunFor(seconds(10));
  EXPECT_EQ(actions_.log,
            std::vector<std::string>({"bind p n1",
                                      "event p Normal Scheduled: Successfully assigned "
                                      "default/p to n1"}));
  queue_->OnPod(Change::kModified, std::make_shared<const api::Pod>(bound));
  EXPECT_EQ(queue_->snapshot().GetNodeInfo("n1")->pods().size(), 1u);
  EXPECT_EQ(queue_->NumPending(), 0u);
}

TEST_F(SchedulingQueueTest, APodBoundBeforeItsNodeIsSeenCountsOnceTheNodeArrives) {
  api::Pod bound = *Pending("early", "1");
  bound.spec.node_name = "n1";
  queue_->OnPod(Change::kAdded, std::make_shared<const api::Pod>(bound));
  queue_->OnNode(Change::kAdded, GpuNode("n1", "1"));
  const NodeInfo* n1 = queue_->snapshot().GetNodeInfo("n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_EQ(n1->pods().size(), 1u);
  // Its deletion frees the node; a waiting pod then fits.
  queue_->OnPod(Change::kAdded, Pending("p", "1"));
  timers_.RunFor(seconds(0));
  actions_.log.clear();
  queue_->OnPod(Change::kDeleted, std::make_shared<const api::Pod>(bound));
  timers_.RunFor(seconds(10));
  ASSERT_FALSE(actions_.log.empty());
  EXPECT_EQ(actions_.log.front(), "bind p n1");
}

TEST_F(SchedulingQueueTest, PodsThatAreNotPendingNeverEnterTheQueue) {
  struct Case {
    const char* name;
    void (*mutate)(api::Pod&);
  };
  const Case cases[] = {
      {"other-scheduler", [](api::Pod& p) { p.spec.scheduler_name = "my-scheduler"; }},
      {"terminating", [](api::Pod& p) { p.meta.deletion_timestamp = SimulatedClock::kDefaultStart; }},
      {"succeeded", [](api::Pod& p) { p.status.phase = api::PodPhase::kSucceeded; }},
      {"failed", [](api::Pod& p) { p.status.phase = api::PodPhase::kFailed; }},
  };
  for (const Case& c : cases) {
    api::Pod p = *Pending(c.name, "1");
    c.mutate(p);
    queue_->OnPod(Change::kAdded, std::make_shared<const api::Pod>(p));
    EXPECT_EQ(queue_->NumPending(), 0u) << c.name;
  }
}

}  // namespace
}  // namespace tidepool::scheduler
