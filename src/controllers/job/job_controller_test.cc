#include "controllers/job/job_controller.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <thread>

#include "client/test_api_server.h"
#include "cluster/in_process_transport.h"
#include "controllers/testing/driven_cluster.h"

namespace tidepool::controllers::job {
namespace {

using client::ResourcePath;
using nlohmann::json;
using std::chrono::seconds;

// The wall clock plus an offset the test moves forward (the controller's back-offs and
// deadlines without waiting for them).
class JumpClock final : public Clock {
 public:
  TimePoint Now() const override { return real_.Now() + Duration(offset_.load()); }
  void Jump(Duration d) { offset_ += d.count(); }

 private:
  RealClock real_;
  std::atomic<int64_t> offset_{0};
};

class RecordingEvents final : public autoscaler::EventRecorder {
 public:
  void Event(const autoscaler::ObjectRef& object, std::string_view type, std::string_view reason,
             std::string message) override {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(object.kind + "/" + object.name + " " + std::string(type) + " " +
                      std::string(reason) + ": " + message);
  }
  std::vector<std::string> events() const {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }
  size_t Count(const std::string& prefix) const {
    size_t n = 0;
    for (const std::string& e : events()) n += e.rfind(prefix, 0) == 0 ? 1 : 0;
    return n;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

// A Job named `name` in "default" of `spec_patch` merged over a one-container template
// (restartPolicy Never).
json JobObject(const json& spec_patch, const std::string& name) {
  json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec",
               {{"template",
                 {{"metadata", {{"labels", {{"app", "train"}}}}},
                  {"spec",
                   {{"restartPolicy", "Never"},
                    {"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})}}}}}}}};
  job["spec"].merge_patch(spec_patch);
  return job;
}

// The kubelet's status patch of a pod that ran and ended with `exit_code` (Succeeded when 0).
json FinishedStatus(int exit_code, TimePoint at) {
  const std::string now = FormatRfc3339(at);
  return {
      {"status",
       {{"phase", exit_code == 0 ? "Succeeded" : "Failed"},
        {"conditions",
         json::array({{{"type", "Ready"}, {"status", "False"}, {"lastTransitionTime", now}}})},
        {"containerStatuses", json::array({{{"name", "c"},
                                            {"ready", false},
                                            {"restartCount", 0},
                                            {"image", "busybox"},
                                            {"imageID", ""},
                                            {"state",
                                             {{"terminated",
                                               {{"exitCode", exit_code},
                                                {"reason", exit_code == 0 ? "Completed" : "Error"},
                                                {"finishedAt", now}}}}}}})}}}};
}

// "Type=Status/Reason" of the Job's conditions, in order.
std::vector<std::string> ConditionTypes(const json& job) {
  std::vector<std::string> out;
  const json status = job.is_object() ? job.value("status", json::object()) : json::object();
  for (const json& c : status.value("conditions", json::array())) {
    out.push_back(c.value("type", "") + "=" + c.value("status", "") + "/" + c.value("reason", ""));
  }
  return out;
}

// The controller against the real API server, over the in-process transport; the test plays
// the kubelet by writing pod statuses.
class JobControllerTest : public ::testing::Test {
 protected:
  JobControllerTest()
      : transport_([this](const apiserver::http::HttpRequest& req,
                          apiserver::http::ResponseWriter& w) {
          if (req.path == "/api/v1/pods" && !req.Query("watch", "").empty()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(pod_watch_delay_ms_.load()));
          }
          api_.api().Handle(req, w);
        }),
        client_(cluster::InProcessRestConfig(), api_.clock(),
                cluster::InProcessRestOptions(transport_)) {
    options_.sync_batch_period = std::chrono::milliseconds(10);
    options_.api_backoff = std::chrono::milliseconds(20);
  }
  ~JobControllerTest() override {
    if (controller_) controller_->Stop();
  }

  void StartController() {
    controller_ = std::make_unique<JobController>(client_, clock_, options_, &events_);
    controller_->Start();
  }

  // A Job "x" of `spec` (see JobObject).
  void CreateJob(const json& spec_patch, const std::string& name = "x") {
    auto r =
        client_.Create(ResourcePath("batch", "v1", "jobs", "default"), JobObject(spec_patch, name));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  json GetJob(const std::string& name = "x") {
    auto j = client_.Get(ResourcePath("batch", "v1", "jobs", "default", name));
    return j.ok() ? *j : json();
  }
  // The Job's status ({} before the first write).
  json JobStatus(const std::string& name = "x") {
    json j = GetJob(name);
    return j.is_object() && j.contains("status") && j["status"].is_object() ? j["status"]
                                                                             : json::object();
  }
  // The Job's pods, sorted by name.
  std::vector<json> Pods(const std::string& job = "x") {
    client::ListOptions o;
    o.label_selector = "batch.kubernetes.io/job-name=" + job;
    auto l = client_.List(ResourcePath("", "v1", "pods", "default"), o);
    std::vector<json> out;
    if (l.ok()) {
      for (const json& p : (*l)["items"]) out.push_back(p);
    }
    std::sort(out.begin(), out.end(), [](const json& a, const json& b) {
      return a["metadata"]["name"] < b["metadata"]["name"];
    });
    return out;
  }
  std::vector<json> ActivePods(const std::string& job = "x") {
    std::vector<json> out;
    for (const json& p : Pods(job)) {
      const std::string phase = p["status"].value("phase", "");
      if (phase != "Succeeded" && phase != "Failed" && !p["metadata"].contains("deletionTimestamp")) {
        out.push_back(p);
      }
    }
    return out;
  }
  // The kubelet's part: the pod ran and ended with `exit_code` (Succeeded when 0).
  void Finish(const json& pod, int exit_code) {
    const std::string name = pod["metadata"]["name"];
    auto r = client_.Patch(ResourcePath("", "v1", "pods", "default", name, "status"),
                           client::PatchType::kMerge, FinishedStatus(exit_code, clock_.Now()));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  void SetRunningReady(const json& pod) {
    json status = {{"status",
                    {{"phase", "Running"},
                     {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
    ASSERT_TRUE(client_
                    .Patch(ResourcePath("", "v1", "pods", "default",
                                        pod["metadata"]["name"].get<std::string>(), "status"),
                           client::PatchType::kMerge, status)
                    .ok());
  }
  // Polls (~10 s) until `pred` holds; returns whether it did.
  bool WaitFor(const std::function<bool()>& pred) {
    for (int i = 0; i < 1000; ++i) {
      if (pred()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
  }
  bool WaitForActive(size_t n, const std::string& job = "x") {
    return WaitFor([&] {
      return ActivePods(job).size() == n && JobStatus(job).value("active", 0) == static_cast<int>(n);
    });
  }
  bool WaitForCondition(const std::string& type, const std::string& name = "x") {
    return WaitFor([&] {
      for (const json& c : JobStatus(name).value("conditions", json::array())) {
        if (c.value("type", "") == type && c.value("status", "") == "True") return true;
      }
      return false;
    });
  }

  // Holds back every pod watch this long (a slow pod informer).
  std::atomic<int> pod_watch_delay_ms_{0};
  client::testing::TestApiServer api_;
  cluster::InProcessTransport transport_;
  client::RestClient client_;
  JumpClock clock_;
  JobControllerOptions options_;
  RecordingEvents events_;
  std::unique_ptr<JobController> controller_;
};

TEST_F(JobControllerTest, RunsCompletionsWithParallelismAndCompletes) {
  CreateJob({{"completions", 3}, {"parallelism", 2}});
  StartController();
  ASSERT_TRUE(WaitForActive(2));
  // No more than parallelism, even after several syncs.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::vector<json> pods = Pods();
  ASSERT_EQ(pods.size(), 2u);
  const json job = GetJob();
  const json& meta = pods[0]["metadata"];
  EXPECT_EQ(meta["generateName"], "x-");
  EXPECT_EQ(meta["labels"]["app"], "train");
  EXPECT_EQ(meta["labels"]["batch.kubernetes.io/controller-uid"], job["metadata"]["uid"]);
  EXPECT_EQ(meta["finalizers"], json::array({"batch.kubernetes.io/job-tracking"}));
  EXPECT_EQ(meta["ownerReferences"],
            json::array({{{"apiVersion", "batch/v1"},
                          {"kind", "Job"},
                          {"name", "x"},
                          {"uid", job["metadata"]["uid"]},
                          {"controller", true},
                          {"blockOwnerDeletion", true}}}));
  EXPECT_TRUE(job["status"].contains("startTime"));
  EXPECT_EQ(job["status"]["ready"], 0);
  EXPECT_EQ(job["status"]["terminating"], 0);

  SetRunningReady(pods[0]);
  ASSERT_TRUE(WaitFor([&] { return JobStatus().value("ready", -1) == 1; }));
  Finish(pods[0], 0);
  Finish(pods[1], 0);
  // Both counted (finalizers removed), and one more pod for the last completion.
  ASSERT_TRUE(WaitFor([&] { return JobStatus().value("succeeded", 0) == 2; }));
  ASSERT_TRUE(WaitForActive(1));
  for (const json& p : Pods()) {
    if (p["status"].value("phase", "") == "Succeeded") {
      EXPECT_EQ(p["metadata"].value("finalizers", json::array()), json::array()) << p["metadata"].dump();
    }
  }
  Finish(ActivePods()[0], 0);
  ASSERT_TRUE(WaitForCondition("Complete"));
  const json done = GetJob();
  EXPECT_EQ(ConditionTypes(done), (std::vector<std::string>{
                                      "SuccessCriteriaMet=True/CompletionsReached",
                                      "Complete=True/CompletionsReached"}));
  EXPECT_EQ(done["status"]["conditions"][1]["message"], "Reached expected number of succeeded pods");
  EXPECT_EQ(done["status"]["succeeded"], 3);
  EXPECT_FALSE(done["status"].contains("failed"));
  EXPECT_FALSE(done["status"].contains("active"));
  EXPECT_TRUE(done["status"].contains("completionTime"));
  EXPECT_EQ(done["status"]["uncountedTerminatedPods"], json::object());
  EXPECT_TRUE(WaitFor([&] { return events_.Count("Job/x Normal SuccessfulCreate: Created pod: x-") == 3u; })) << "Job/x Normal SuccessfulCreate: Created pod: x-";
  EXPECT_TRUE(WaitFor([&] { return events_.Count("Job/x Normal Completed: Job completed") == 1u; })) << "Job/x Normal Completed: Job completed";
  EXPECT_EQ(controller_->pods_created(), 3u);
}

TEST_F(JobControllerTest, ASlowPodInformerDoesNotDoubleCreate) {
  // The pod informer lists at once but sees nothing of the pods it creates for 1.5 s, while
  // the Job's own status writes make it sync again and again: the expectations hold it back.
  pod_watch_delay_ms_ = 1500;
  CreateJob({{"completions", 2}, {"parallelism", 2}});
  StartController();
  ASSERT_TRUE(WaitFor([&] { return JobStatus().value("active", 0) == 2; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  EXPECT_EQ(Pods().size(), 2u);
  ASSERT_TRUE(WaitForActive(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(Pods().size(), 2u);
  EXPECT_EQ(controller_->pods_created(), 2u);
}

TEST_F(JobControllerTest, IndexedJobsGiveEachPodItsIndex) {
  CreateJob({{"completions", 3}, {"parallelism", 3}, {"completionMode", "Indexed"}});
  StartController();
  ASSERT_TRUE(WaitForActive(3));
  std::map<std::string, json> by_index;
  for (const json& p : Pods()) {
    const std::string ix = p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"];
    EXPECT_EQ(p["metadata"]["labels"]["batch.kubernetes.io/job-completion-index"], ix);
    EXPECT_EQ(p["metadata"]["generateName"], "x-" + ix + "-");
    EXPECT_EQ(p["spec"]["hostname"], "x-" + ix);
    EXPECT_EQ(p["spec"]["containers"][0]["env"][0]["name"], "JOB_COMPLETION_INDEX");
    EXPECT_EQ(p["spec"]["containers"][0]["env"][0]["valueFrom"]["fieldRef"]["fieldPath"],
              "metadata.annotations['batch.kubernetes.io/job-completion-index']");
    by_index[ix] = p;
  }
  ASSERT_EQ(by_index.size(), 3u);
  Finish(by_index["0"], 0);
  Finish(by_index["2"], 0);
  ASSERT_TRUE(WaitFor([&] { return JobStatus().value("completedIndexes", "") == "0,2"; }));
  EXPECT_EQ(GetJob()["status"]["succeeded"], 2);
  // A failed index is retried by a new pod of the same index (after the back-off).
  Finish(by_index["1"], 1);
  ASSERT_TRUE(WaitFor([&] { return JobStatus().value("failed", 0) == 1; }));
  clock_.Jump(seconds(11));
  ASSERT_TRUE(WaitForActive(1));
  const json retry = ActivePods()[0];
  EXPECT_EQ(retry["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"], "1");
  Finish(retry, 0);
  ASSERT_TRUE(WaitForCondition("Complete"));
  EXPECT_EQ(GetJob()["status"]["completedIndexes"], "0-2");
}

TEST_F(JobControllerTest, ASuccessPolicyEndsAnIndexedJobEarly) {
  CreateJob({{"completions", 4},
             {"parallelism", 4},
             {"completionMode", "Indexed"},
             {"successPolicy", {{"rules", json::array({{{"succeededIndexes", "0"}}})}}}});
  StartController();
  ASSERT_TRUE(WaitForActive(4));
  for (const json& p : Pods()) {
    if (p["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] == "0") Finish(p, 0);
  }
  ASSERT_TRUE(WaitForCondition("Complete"));
  const json job = GetJob();
  EXPECT_EQ(ConditionTypes(job), (std::vector<std::string>{"SuccessCriteriaMet=True/SuccessPolicy",
                                                           "Complete=True/SuccessPolicy"}));
  EXPECT_EQ(job["status"]["conditions"][1]["message"], "Matched rules at index 0");
  EXPECT_EQ(job["status"]["completedIndexes"], "0");
  EXPECT_EQ(job["status"]["succeeded"], 1);
  EXPECT_FALSE(job["status"].contains("failed"));  // the others were stopped, not failed
  EXPECT_EQ(ActivePods().size(), 0u);
}

TEST_F(JobControllerTest, BackoffLimitExceededFailsTheJob) {
  CreateJob({{"backoffLimit", 1}});
  StartController();
  ASSERT_TRUE(WaitForActive(1));
  Finish(ActivePods()[0], 1);
  ASSERT_TRUE(WaitFor([&] { return JobStatus().value("failed", 0) == 1; }));
  // The replacement waits for the 10-s pod-failure back-off.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(ActivePods().size(), 0u);
  clock_.Jump(seconds(11));
  ASSERT_TRUE(WaitForActive(1));
  Finish(ActivePods()[0], 1);
  ASSERT_TRUE(WaitForCondition("Failed"));
  const json job = GetJob();
  EXPECT_EQ(ConditionTypes(job), (std::vector<std::string>{
                                     "FailureTarget=True/BackoffLimitExceeded",
                                     "Failed=True/BackoffLimitExceeded"}));
  EXPECT_EQ(job["status"]["conditions"][1]["message"], "Job has reached the specified backoff limit");
  EXPECT_EQ(job["status"]["failed"], 2);
  EXPECT_FALSE(job["status"].contains("completionTime"));
  EXPECT_TRUE(WaitFor([&] { return events_.Count("Job/x Warning BackoffLimitExceeded: Job has reached the specified backoff limit") == 1u; })) << "Job/x Warning BackoffLimitExceeded: Job has reached the specified backoff limit";
}

TEST_F(JobControllerTest, RestartsUnderOnFailureCountTowardsTheBackoffLimit) {
  CreateJob({{"backoffLimit", 2},
             {"template", {{"spec", {{"restartPolicy", "OnFailure"}}}}}});
  StartController();
  ASSERT_TRUE(WaitForActive(1));
  const json pod = ActivePods()[0];
  auto restarts = [&](int n) {
    json status = {{"status",
                    {{"phase", "Running"},
                     {"containerStatuses",
                      json::array({{{"name", "c"},
                                    {"ready", false},
                                    {"restartCount", n},
                                    {"image", "busybox"},
                                    {"imageID", ""},
                                    {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}}}})}}}};
    ASSERT_TRUE(client_
                    .Patch(ResourcePath("", "v1", "pods", "default",
                                        pod["metadata"]["name"].get<std::string>(), "status"),
                           client::PatchType::kMerge, status)
                    .ok());
  };
  restarts(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(ConditionTypes(GetJob()), std::vector<std::string>{});
  restarts(2);  // restarts >= backoffLimit
  ASSERT_TRUE(WaitForCondition("Failed"));
  const json job = GetJob();
  EXPECT_EQ(ConditionTypes(job), (std::vector<std::string>{
                                     "FailureTarget=True/BackoffLimitExceeded",
                                     "Failed=True/BackoffLimitExceeded"}));
  EXPECT_EQ(job["status"]["failed"], 1);  // the running pod, stopped
  EXPECT_EQ(ActivePods().size(), 0u);
}

TEST_F(JobControllerTest, ActiveDeadlineDeletesActivePodsAndFails) {
  CreateJob({{"parallelism", 2}, {"completions", 4}, {"activeDeadlineSeconds", 30}});
  StartController();
  ASSERT_TRUE(WaitForActive(2));
  clock_.Jump(seconds(31));
  ASSERT_TRUE(WaitForCondition("Failed"));
  const json job = GetJob();
  EXPECT_EQ(ConditionTypes(job), (std::vector<std::string>{"FailureTarget=True/DeadlineExceeded",
                                                           "Failed=True/DeadlineExceeded"}));
  EXPECT_EQ(job["status"]["conditions"][1]["message"], "Job was active longer than specified deadline");
  EXPECT_EQ(job["status"]["failed"], 2);  // the pods it stopped
  EXPECT_EQ(ActivePods().size(), 0u);
  EXPECT_TRUE(WaitFor([&] { return events_.Count("Job/x Normal SuccessfulDelete: Deleted pod: x-") == 2u; })) << "Job/x Normal SuccessfulDelete: Deleted pod: x-";
  EXPECT_TRUE(WaitFor([&] { return events_.Count("Job/x Warning DeadlineExceeded") == 1u; })) << "Job/x Warning DeadlineExceeded";
}

TEST_F(JobControllerTest, SuspendAndResume) {
  CreateJob({{"parallelism", 2}, {"completions", 2}, {"suspend", true}});
  StartController();
  ASSERT_TRUE(WaitForCondition("Suspended"));
  EXPECT_EQ(Pods().size(), 0u);
  EXPECT_FALSE(GetJob()["status"].contains("startTime"));
  EXPECT_EQ(ConditionTypes(GetJob()), (std::vector<std::string>{"Suspended=True/JobSuspended"}));
  ASSERT_TRUE(client_.Patch(ResourcePath("batch", "v1", "jobs", "default", "x"),
                            client::PatchType::kMerge, {{"spec", {{"suspend", false}}}}).ok());
  ASSERT_TRUE(WaitForActive(2));
  ASSERT_TRUE(WaitFor([&] { return ConditionTypes(GetJob()) == std::vector<std::string>{"Suspended=False/JobResumed"}; }));
  EXPECT_TRUE(GetJob()["status"].contains("startTime"));
  // Suspended again: its active pods go, and are not counted as failures.
  ASSERT_TRUE(client_.Patch(ResourcePath("batch", "v1", "jobs", "default", "x"),
                            client::PatchType::kMerge, {{"spec", {{"suspend", true}}}}).ok());
  ASSERT_TRUE(WaitForActive(0));
  ASSERT_TRUE(WaitForCondition("Suspended"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(GetJob()["status"].contains("failed"));
  EXPECT_TRUE(WaitFor([&] { return events_.Count("Job/x Normal Suspended: Job suspended") == 2u; })) << "Job/x Normal Suspended: Job suspended";
  EXPECT_TRUE(WaitFor([&] { return events_.Count("Job/x Normal Resumed: Job resumed") == 1u; })) << "Job/x Normal Resumed: Job resumed";
}

TEST_F(JobControllerTest, PodFailurePolicyFailJobIgnoreAndCount) {
  const json policy = json::parse(R"({"rules": [
      {"action": "FailJob", "onExitCodes": {"containerName": "c", "operator": "In", "values": [42]}},
      {"action": "Ignore", "onExitCodes": {"operator": "In", "values": [3]}},
      {"action": "Count", "onExitCodes": {"operator": "In", "values": [1]}}]})");
  CreateJob({{"backoffLimit", 3}, {"podFailurePolicy", policy}});
  StartController();
  ASSERT_TRUE(WaitForActive(1));
  // Ignore: not counted in failed; a new pod at once (no back-off for ignored failures is not
  // kcm's: its back-off counts every failure, so jump past it).
  Finish(ActivePods()[0], 3);
  clock_.Jump(seconds(11));
  ASSERT_TRUE(WaitForActive(1));
  EXPECT_FALSE(GetJob()["status"].contains("failed"));
  // Count: counted.
  Finish(ActivePods()[0], 1);
  ASSERT_TRUE(WaitFor([&] { return JobStatus().value("failed", 0) == 1; }));
  clock_.Jump(seconds(60));
  ASSERT_TRUE(WaitForActive(1));
  // FailJob: the Job fails at once.
  const std::string pod = ActivePods()[0]["metadata"]["name"];
  Finish(ActivePods()[0], 42);
  ASSERT_TRUE(WaitForCondition("Failed"));
  const json job = GetJob();
  EXPECT_EQ(ConditionTypes(job), (std::vector<std::string>{"FailureTarget=True/PodFailurePolicy",
                                                           "Failed=True/PodFailurePolicy"}));
  EXPECT_EQ(job["status"]["conditions"][1]["message"],
            "Container c for pod default/" + pod + " failed with exit code 42 matching FailJob rule at index 0");
  EXPECT_EQ(job["status"]["failed"], 2);
}

TEST_F(JobControllerTest, TtlAfterFinishedDeletesTheJob) {
  CreateJob({{"ttlSecondsAfterFinished", 100}});
  StartController();
  ASSERT_TRUE(WaitForActive(1));
  Finish(ActivePods()[0], 0);
  ASSERT_TRUE(WaitForCondition("Complete"));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(GetJob().is_null());
  clock_.Jump(seconds(101));
  // Deleted with propagationPolicy Foreground, as kcm's TTL-after-finished controller does:
  // without a garbage collector here the Job stays, being deleted, with the collector's
  // foregroundDeletion finalizer (the collector would delete its pods, then remove it).
  EXPECT_TRUE(WaitFor([&] {
    const json job = GetJob();
    return !job.is_null() && job["metadata"].contains("deletionTimestamp") &&
           job["metadata"].value("finalizers", json::array()) == json::array({"foregroundDeletion"});
  })) << GetJob().dump();
}

TEST_F(JobControllerTest, TheFinalizerLeavesThePodsOfADeletedJobAndOrphans) {
  CreateJob({{"parallelism", 2}, {"completions", 2}});
  // A pod with the finalizer and no controller at all.
  json orphan = {{"apiVersion", "v1"},
                 {"kind", "Pod"},
                 {"metadata",
                  {{"name", "orphan"},
                   {"namespace", "default"},
                   {"finalizers", json::array({"batch.kubernetes.io/job-tracking"})}}},
                 {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})}}}};
  ASSERT_TRUE(client_.Create(ResourcePath("", "v1", "pods", "default"), orphan).ok());
  StartController();
  ASSERT_TRUE(WaitForActive(2));
  auto finalizers = [&](const std::string& name) {
    auto p = client_.Get(ResourcePath("", "v1", "pods", "default", name));
    return p.ok() ? (*p)["metadata"].value("finalizers", json::array()) : json(nullptr);
  };
  EXPECT_TRUE(WaitFor([&] { return finalizers("orphan") == json::array(); }));
  const std::vector<json> pods = Pods();
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(finalizers(pods[0]["metadata"]["name"]), json::array({"batch.kubernetes.io/job-tracking"}));
  // The Job goes (its pods stay here: no garbage collector in this test).
  ASSERT_TRUE(client_.Delete(ResourcePath("batch", "v1", "jobs", "default", "x")).ok());
  for (const json& p : pods) {
    const std::string name = p["metadata"]["name"];
    EXPECT_TRUE(WaitFor([&] { return finalizers(name) == json::array(); })) << name;
  }
}

TEST_F(JobControllerTest, APodDeletedBeforeItWasCountedCountsAsFailed) {
  CreateJob({{"backoffLimit", 0}});
  StartController();
  ASSERT_TRUE(WaitForActive(1));
  const std::string name = ActivePods()[0]["metadata"]["name"];
  // Deleted by someone else (an unscheduled pod goes at once, finalizer or not).
  ASSERT_TRUE(client_.Delete(ResourcePath("", "v1", "pods", "default", name),
                             {{"gracePeriodSeconds", 0}}).ok());
  ASSERT_TRUE(WaitForCondition("Failed"));
  EXPECT_EQ(GetJob()["status"]["failed"], 1);
  EXPECT_EQ(ConditionTypes(GetJob()).back(), "Failed=True/BackoffLimitExceeded");
}

// ---- With an executor: on an EventQueue, informers fed by hand (no thread of its own) ------

const std::string kJobs = ResourcePath("batch", "v1", "jobs", "default");
const std::string kPods = ResourcePath("", "v1", "pods", "default");

// A Job of completions 2, parallelism 2 whose pods succeed; returns what it leaves (pods with
// their finalizers, the Job's status, the events, the store's revision) to compare two runs.
std::string CompleteAJobOnAnEventQueue() {
  testing::DrivenCluster c;
  RecordingEvents events;
  const int threads = testing::DrivenCluster::Threads();
  JobController controller(c.client, c.events.clock(), {}, &events, nullptr, &c.informers,
                           &c.events);
  controller.Start();
  c.Create(kJobs, JobObject({{"completions", 2}, {"parallelism", 2}}, "x"));
  c.RunFor(seconds(5));
  EXPECT_EQ(testing::DrivenCluster::Threads(), threads);  // none of its own
  std::vector<json> pods = c.List(kPods);
  EXPECT_EQ(pods.size(), 2u);
  for (const json& p : pods) {
    EXPECT_EQ(p["metadata"]["finalizers"], json::array({"batch.kubernetes.io/job-tracking"}));
  }
  json status = c.List(kJobs).at(0)["status"];
  EXPECT_EQ(status.value("active", 0), 2);
  EXPECT_TRUE(status.contains("startTime"));
  EXPECT_EQ(controller.pods_created(), 2u);

  // The kubelet's part: both pods ran and succeeded.
  for (const json& p : pods) {
    const std::string name = p["metadata"]["name"];
    EXPECT_TRUE(c.client
                    .Patch(ResourcePath("", "v1", "pods", "default", name, "status"),
                           client::PatchType::kMerge, FinishedStatus(0, c.events.Now()))
                    .ok());
  }
  c.RunFor(seconds(10));
  const json job = c.List(kJobs).at(0);
  status = job["status"];
  EXPECT_EQ(status.value("succeeded", 0), 2);
  EXPECT_EQ(status.value("active", 0), 0);
  EXPECT_TRUE(status.contains("completionTime"));
  EXPECT_EQ(ConditionTypes(job),
            (std::vector<std::string>{"SuccessCriteriaMet=True/CompletionsReached",
                                      "Complete=True/CompletionsReached"}));
  EXPECT_EQ(events.Count("Job/x Normal Completed"), 1u);
  std::string out;
  for (const json& p : c.List(kPods)) {
    out += p["metadata"]["name"].get<std::string>() + " " + p["status"].value("phase", "") + " " +
           p["metadata"].value("finalizers", json::array()).dump() + "\n";
    EXPECT_EQ(p["metadata"].value("finalizers", json::array()), json::array());
  }
  out += status.dump() + "\n";
  for (const std::string& e : events.events()) out += e + "\n";
  out += std::to_string(c.store.resource_version());
  controller.Stop();
  return out;
}

TEST(JobControllerExecutorTest, CompletesAJobOnAnEventQueue) {
  const std::string first = CompleteAJobOnAnEventQueue();
  // Deterministic: the same run again leaves the same pods, status, events and revision.
  EXPECT_EQ(first, CompleteAJobOnAnEventQueue());
}

}  // namespace
}  // namespace tidepool::controllers::job
