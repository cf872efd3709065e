// The pod printer against printers.go printPod's behaviour (kube-apiserver 1.32).

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apiserver/printers/printers.h"
#include "testing/pod_json.h"

namespace tidepool::apiserver::printers {
namespace {

using ::nlohmann::json;

constexpr int64_t k2026 = 1767225600;  // 2026-01-01T00:00:00Z, every pod's creationTimestamp
const TimePoint kNow = TimePoint(std::chrono::seconds(k2026 + 300));  // 00:05:00, age "5m"

json Pod(std::string_view spec, std::string_view status, std::string_view extra_metadata = "") {
  std::string meta = R"("name":"p","namespace":"default","creationTimestamp":"2026-01-01T00:00:00Z")";
  if (!extra_metadata.empty()) {
    meta += ",";
    meta += extra_metadata;
  }
  return ::tidepool::testing::PodJson(meta, spec, status);
}

constexpr std::string_view kOneContainer = R"({"containers":[{"name":"app","image":"img"}]})";
constexpr std::string_view kTwoContainers =
    R"({"containers":[{"name":"a","image":"i"},{"name":"b","image":"i"}]})";
constexpr std::string_view kInitAndApp =
    R"({"initContainers":[{"name":"init","image":"i"}],"containers":[{"name":"app","image":"i"}]})";
constexpr std::string_view kSidecarAndApp =
    R"({"initContainers":[{"name":"proxy","image":"i","restartPolicy":"Always"}],)"
    R"("containers":[{"name":"app","image":"i"}]})";

struct PodCase {
  std::string name;
  json pod;
  std::string ready;
  std::string status;
  std::string restarts;
};

TEST(PodPrinterTest, ReadyStatusRestarts) {
  const std::vector<PodCase> cases = {
      {"pending pod without statuses", Pod(kOneContainer, R"({"phase":"Pending"})"), "0/1",
       "Pending", "0"},
      {"waiting container shows its reason",
       Pod(kOneContainer,
           R"({"phase":"Pending","containerStatuses":[{"name":"app","ready":false,)"
           R"("restartCount":0,"state":{"waiting":{"reason":"ContainerCreating"}}}]})"),
       "0/1", "ContainerCreating", "0"},
      {"running ready container",
       Pod(kOneContainer,
           R"({"phase":"Running","containerStatuses":[{"name":"app","ready":true,)"
           R"("restartCount":0,"state":{"running":{"startedAt":"2026-01-01T00:00:05Z"}}}]})"),
       "1/1", "Running", "0"},
      {"running but not ready container",
       Pod(kOneContainer, R"({"phase":"Running","containerStatuses":[{"name":"app","ready":false,)"
                          R"("restartCount":0,"state":{"running":{}}}]})"),
       "0/1", "Running", "0"},
      {"succeeded pod shows the terminated reason",
       Pod(kOneContainer,
           R"({"phase":"Succeeded","containerStatuses":[{"name":"app","ready":false,)"
           R"("restartCount":0,"state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]})"),
       "0/1", "Completed", "0"},
      {"terminated with reason Error",
       Pod(kOneContainer, R"({"phase":"Failed","containerStatuses":[{"name":"app","state":)"
                          R"({"terminated":{"exitCode":1,"reason":"Error"}}}]})"),
       "0/1", "Error", "0"},
      {"terminated without reason shows the exit code",
       Pod(kOneContainer, R"({"phase":"Running","containerStatuses":[{"name":"app","state":)"
                          R"({"terminated":{"exitCode":3}}}]})"),
       "0/1", "ExitCode:3", "0"},
      {"terminated by a signal without reason",
       Pod(kOneContainer, R"({"phase":"Running","containerStatuses":[{"name":"app","state":)"
                          R"({"terminated":{"exitCode":137,"signal":9}}}]})"),
       "0/1", "Signal:9", "0"},
      {"crash loop with restarts and the last termination age",
       Pod(kOneContainer, R"({"phase":"Running","containerStatuses":[{"name":"app","ready":false,)"
                          R"("restartCount":4,"state":{"waiting":{"reason":"CrashLoopBackOff"}},)"
                          R"("lastState":{"terminated":{"exitCode":1,"reason":"Error",)"
                          R"("finishedAt":"2026-01-01T00:03:30Z"}}}]})"),
       "0/1", "CrashLoopBackOff", "4 (90s ago)"},
      {"restarts of a running pod, ago from lastState.terminated.finishedAt",
       Pod(kOneContainer,
           R"({"phase":"Running","containerStatuses":[{"name":"app","ready":true,)"
           R"("restartCount":2,"state":{"running":{}},)"
           R"("lastState":{"terminated":{"exitCode":1,"finishedAt":"2026-01-01T00:00:00Z"}}}]})"),
       "1/1", "Running", "2 (5m ago)"},
      {"restarts without a last termination time print only the count",
       Pod(kOneContainer, R"({"phase":"Running","containerStatuses":[{"name":"app","ready":true,)"
                          R"("restartCount":7,"state":{"running":{}}}]})"),
       "1/1", "Running", "7"},
      {"restarts add up over containers, latest finishedAt wins",
       Pod(kTwoContainers,
           R"({"phase":"Running","containerStatuses":[)"
           R"({"name":"a","ready":true,"restartCount":1,"state":{"running":{}},)"
           R"("lastState":{"terminated":{"finishedAt":"2026-01-01T00:01:00Z"}}},)"
           R"({"name":"b","ready":true,"restartCount":2,"state":{"running":{}},)"
           R"("lastState":{"terminated":{"finishedAt":"2026-01-01T00:04:00Z"}}}]})"),
       "2/2", "Running", "3 (60s ago)"},
      {"completed container with another running and Ready condition is Running",
       Pod(kTwoContainers, R"({"phase":"Running","conditions":[{"type":"Ready","status":"True"}],)"
                           R"("containerStatuses":[)"
                           R"({"name":"a","ready":true,"state":{"running":{}}},)"
                           R"({"name":"b","ready":false,)"
                           R"("state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]})"),
       "1/2", "Running", "0"},
      {"completed container with another running and no Ready condition is NotReady",
       Pod(kTwoContainers, R"({"phase":"Running","conditions":[{"type":"Ready","status":"False"}],)"
                           R"("containerStatuses":[)"
                           R"({"name":"a","ready":true,"state":{"running":{}}},)"
                           R"({"name":"b","ready":false,)"
                           R"("state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]})"),
       "1/2", "NotReady", "0"},
      {"the first-listed container's reason wins",
       Pod(kTwoContainers, R"({"phase":"Pending","containerStatuses":[)"
                           R"({"name":"a","state":{"waiting":{"reason":"ImagePullBackOff"}}},)"
                           R"({"name":"b","state":{"waiting":{"reason":"ContainerCreating"}}}]})"),
       "0/2", "ImagePullBackOff", "0"},
      {"deletionTimestamp makes a running pod Terminating",
       Pod(kOneContainer,
           R"({"phase":"Running","containerStatuses":[{"name":"app","ready":true,)"
           R"("state":{"running":{}}}]})",
           R"("deletionTimestamp":"2026-01-01T00:04:00Z")"),
       "1/1", "Terminating", "0"},
      {"deletionTimestamp on a pending pod",
       Pod(kOneContainer, R"({"phase":"Pending"})",
           R"("deletionTimestamp":"2026-01-01T00:04:00Z")"),
       "0/1", "Terminating", "0"},
      {"deletionTimestamp on a terminal pod keeps its status",
       Pod(kOneContainer,
           R"({"phase":"Succeeded","containerStatuses":[{"name":"app","state":)"
           R"({"terminated":{"exitCode":0,"reason":"Completed"}}}]})",
           R"("deletionTimestamp":"2026-01-01T00:04:00Z")"),
       "0/1", "Completed", "0"},
      {"deletionTimestamp with reason NodeLost is Unknown",
       Pod(kOneContainer, R"({"phase":"Running","reason":"NodeLost"})",
           R"("deletionTimestamp":"2026-01-01T00:04:00Z")"),
       "0/1", "Unknown", "0"},
      {"status.reason replaces the phase",
       Pod(kOneContainer, R"({"phase":"Failed","reason":"Evicted"})"), "0/1", "Evicted", "0"},
      {"scheduling gates",
       Pod(kOneContainer,
           R"({"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",)"
           R"("reason":"SchedulingGated"}]})"),
       "0/1", "SchedulingGated", "0"},
      {"unschedulable pod stays Pending",
       Pod(kOneContainer,
           R"({"phase":"Pending","conditions":[{"type":"PodScheduled","status":"False",)"
           R"("reason":"Unschedulable"}]})"),
       "0/1", "Pending", "0"},
      {"running init container",
       Pod(kInitAndApp,
           R"({"phase":"Pending","initContainerStatuses":[{"name":"init","ready":false,)"
           R"("state":{"running":{}}}],"containerStatuses":[{"name":"app",)"
           R"("state":{"waiting":{"reason":"PodInitializing"}}}]})"),
       "0/1", "Init:0/1", "0"},
      {"init container waiting on PodInitializing counts as Init:i/n",
       Pod(kInitAndApp, R"({"phase":"Pending","initContainerStatuses":[{"name":"init",)"
                        R"("state":{"waiting":{"reason":"PodInitializing"}}}]})"),
       "0/1", "Init:0/1", "0"},
      {"init container in a crash loop, its restarts count",
       Pod(kInitAndApp,
           R"({"phase":"Pending","initContainerStatuses":[{"name":"init","restartCount":3,)"
           R"("state":{"waiting":{"reason":"CrashLoopBackOff"}},)"
           R"("lastState":{"terminated":{"exitCode":1,"finishedAt":"2026-01-01T00:04:50Z"}}}],)"
           R"("containerStatuses":[{"name":"app",)"
           R"("state":{"waiting":{"reason":"PodInitializing"}}}]})"),
       "0/1", "Init:CrashLoopBackOff", "3 (10s ago)"},
      {"failed init container with a reason",
       Pod(kInitAndApp, R"({"phase":"Failed","initContainerStatuses":[{"name":"init",)"
                        R"("state":{"terminated":{"exitCode":1,"reason":"Error"}}}]})"),
       "0/1", "Init:Error", "0"},
      {"failed init container without a reason",
       Pod(kInitAndApp, R"({"phase":"Pending","initContainerStatuses":[{"name":"init",)"
                        R"("state":{"terminated":{"exitCode":2}}}]})"),
       "0/1", "Init:ExitCode:2", "0"},
      {"init container killed by a signal",
       Pod(kInitAndApp, R"({"phase":"Pending","initContainerStatuses":[{"name":"init",)"
                        R"("state":{"terminated":{"exitCode":137,"signal":9}}}]})"),
       "0/1", "Init:Signal:9", "0"},
      {"completed init container, app running",
       Pod(kInitAndApp,
           R"({"phase":"Running","initContainerStatuses":[{"name":"init","restartCount":1,)"
           R"("state":{"terminated":{"exitCode":0,"reason":"Completed"}}}],)"
           R"("containerStatuses":[{"name":"app","ready":true,"state":{"running":{}}}]})"),
       "1/1", "Running", "0"},
      {"second of two init containers",
       Pod(R"({"initContainers":[{"name":"i1"},{"name":"i2"}],"containers":[{"name":"app"}]})",
           R"({"phase":"Pending","initContainerStatuses":[)"
           R"({"name":"i1","state":{"terminated":{"exitCode":0,"reason":"Completed"}}},)"
           R"({"name":"i2","state":{"running":{}}}]})"),
       "0/1", "Init:1/2", "0"},
      {"started ready sidecar counts as ready and in the total",
       Pod(kSidecarAndApp,
           R"({"phase":"Running","initContainerStatuses":[{"name":"proxy","ready":true,)"
           R"("started":true,"state":{"running":{}}}],)"
           R"("containerStatuses":[{"name":"app","ready":true,"state":{"running":{}}}]})"),
       "2/2", "Running", "0"},
      {"sidecar not yet started blocks initialization",
       Pod(kSidecarAndApp,
           R"({"phase":"Pending","initContainerStatuses":[{"name":"proxy","ready":false,)"
           R"("started":false,"state":{"running":{}}}],)"
           R"("containerStatuses":[{"name":"app",)"
           R"("state":{"waiting":{"reason":"PodInitializing"}}}]})"),
       "0/2", "Init:0/1", "0"},
      {"sidecar restarts count once the pod is initialized",
       Pod(kSidecarAndApp,
           R"({"phase":"Running","initContainerStatuses":[{"name":"proxy","ready":true,)"
           R"("started":true,"restartCount":2,"state":{"running":{}},)"
           R"("lastState":{"terminated":{"exitCode":1,"finishedAt":"2026-01-01T00:02:00Z"}}}],)"
           R"("containerStatuses":[{"name":"app","ready":true,"restartCount":1,)"
           R"("state":{"running":{}}}]})"),
       "2/2", "Running", "3 (3m ago)"},
      {"Initialized condition True walks containers even while an init container is pending",
       Pod(kInitAndApp,
           R"({"phase":"Running","conditions":[{"type":"Initialized","status":"True"}],)"
           R"("initContainerStatuses":[{"name":"init","state":{"running":{}}}],)"
           R"("containerStatuses":[{"name":"app","ready":true,"state":{"running":{}}}]})"),
       "1/1", "Init:0/1", "0"},
  };
  for (const PodCase& tc : cases) {
    SCOPED_TRACE(tc.name);
    json cells = Cells("", "pods", tc.pod, kNow);
    ASSERT_EQ(cells.size(), 9u) << cells.dump();
    EXPECT_EQ(cells[0], "p");
    EXPECT_EQ(cells[1], tc.ready);
    EXPECT_EQ(cells[2], tc.status);
    EXPECT_EQ(cells[3], tc.restarts);
    EXPECT_EQ(cells[4], "5m");
  }
}

TEST(PodPrinterTest, WideColumns) {
  struct Case {
    std::string name;
    json pod;
    std::vector<std::string> wide;  // IP, Node, Nominated Node, Readiness Gates
  };
  const std::vector<Case> cases = {
      {"nothing assigned yet",
       Pod(kOneContainer, R"({"phase":"Pending"})"),
       {"<none>", "<none>", "<none>", "<none>"}},
      {"scheduled and running",
       Pod(R"({"nodeName":"node-1","containers":[{"name":"app"}]})",
           R"({"phase":"Running","podIP":"10.244.0.11","podIPs":[{"ip":"10.244.0.11"}]})"),
       {"10.244.0.11", "node-1", "<none>", "<none>"}},
      {"podIPs only",
       Pod(kOneContainer, R"({"phase":"Running","podIPs":[{"ip":"fd00::1"},{"ip":"10.0.0.1"}]})"),
       {"fd00::1", "<none>", "<none>", "<none>"}},
      {"nominated node",
       Pod(kOneContainer, R"({"phase":"Pending","nominatedNodeName":"n2"})"),
       {"<none>", "<none>", "n2", "<none>"}},
      {"readiness gates, one of two true",
       Pod(R"({"containers":[{"name":"app"}],"readinessGates":[{"conditionType":"a/x"},)"
           R"({"conditionType":"b/y"}]})",
           R"({"phase":"Running","conditions":[{"type":"a/x","status":"True"},)"
           R"({"type":"b/y","status":"False"}]})"),
       {"<none>", "<none>", "<none>", "1/2"}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    json cells = Cells("", "pods", tc.pod, kNow);
    ASSERT_EQ(cells.size(), 9u);
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(cells[5 + i], tc.wide[i]) << "column " << 5 + i;
    }
  }
}

TEST(PodPrinterTest, MalformedObjectsPrintZeroValues) {
  const json expected = {"", "0/0", "", "0", "<unknown>", "<none>", "<none>", "<none>", "<none>"};
  for (const json& pod : {json(), json("a string"), json::object(), json::array({1, 2}),
                          json::parse(R"({"metadata":7,"spec":"x","status":[1]})"),
                          json::parse(R"({"spec":{"containers":{"a":1},"initContainers":3},)"
                                      R"("status":{"containerStatuses":[1,"x",null],)"
                                      R"("initContainerStatuses":{"x":1},"conditions":5}})")}) {
    SCOPED_TRACE(pod.dump());
    EXPECT_EQ(Cells("", "pods", pod, kNow), expected);
  }
}

TEST(PodPrinterTest, WrongTypesReadAsZero) {
  // restartCount as a string and a bad finishedAt: count 0, no "ago".
  json pod =
      Pod(kOneContainer, R"({"phase":"Running","containerStatuses":[{"name":"app","ready":"yes",)"
                         R"("restartCount":"4","state":{"running":{}},)"
                         R"("lastState":{"terminated":{"finishedAt":"yesterday"}}}]})");
  json cells = Cells("", "pods", pod, kNow);
  EXPECT_EQ(cells[1], "0/1");
  EXPECT_EQ(cells[2], "Running");
  EXPECT_EQ(cells[3], "0");
}

}  // namespace
}  // namespace tidepool::apiserver::printers
