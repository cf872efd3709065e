#include "runtime/simulate_command.h"

#include <gtest/gtest.h>

#include "testing/temp_dir.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace tidepool::runtime {
namespace {

const std::string kExample = std::string(TIDEPOOL_SOURCE_DIR) + "/examples/seed-walkthrough.yaml";

// A scenario without the autoscaler: the GPU node comes from a manual resize.
std::string WriteScenario(const std::string& name, const std::string& text) {
  const std::string path = tidepool::testing::TestTempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

constexpr char kManual[] = R"(
seed: 3
autoscaler: false
nodePools:
- {name: default-pool, machineType: e2-standard-4, initialNodeCount: 3}
- {name: gpu-pool, machineType: n1-standard-4, accelerator: {type: nvidia-tesla-t4, count: 1},
   minNodes: 0, maxNodes: 5, taints: ["nvidia.com/gpu=present:NoSchedule"]}
timeline:
- at: 0s
  as: gpu-test-pod.yaml
  apply:
    apiVersion: v1
    kind: Pod
    metadata: {name: gpu-test-pod}
    spec:
      restartPolicy: Never
      containers:
      - {name: cuda-container, image: "nvidia/cuda:11.4.2-base-ubuntu20.04",
         command: ["/bin/bash", "-c", "sleep 3600"], resources: {limits: {nvidia.com/gpu: 1}}}
      tolerations: [{key: nvidia.com/gpu, operator: Equal, value: present, effect: NoSchedule}]
- at: 1m
  resize: {nodePool: gpu-pool, nodeCount: 1}
runFor: 10m
)";

TEST(SimulateCommandTest, PrintsTheTimeline) {
  std::ostringstream out, err;
  SimulateOptions o;
  o.scenario = WriteScenario("manual.yaml", kManual);
  ASSERT_EQ(RunSimulate(o, out, err), 0) << err.str();
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("# tidepool simulate " + o.scenario + ": seed 3, 10m0s of virtual time", 0),
            0u)
      << text;
  for (const std::string& line : {
           std::string("[00:00:00] $ kubectl apply -f gpu-test-pod.yaml\n"),
           std::string("[00:00:00] event   Warning  FailedScheduling  pod/gpu-test-pod  "
                       "default-scheduler  0/3 nodes are available: 3 Insufficient "
                       "nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption "
                       "victims found for incoming pod.\n"),
           std::string("[00:01:00] pool    gpu-pool  0 -> 1\n"),
           std::string("  NotReady  <none>  0s\n"),
           std::string("  Ready     <none>  2m30s  nvidia.com/gpu: 1\n"),
           std::string("[00:04:25] pod     gpu-test-pod    1/1  Running"),
           std::string("[00:10:00] summary end of run: 10m0s simulated, seed 3\n"),
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing: " << line << "\n" << text;
  }
  EXPECT_EQ(err.str(), "");
}

TEST(SimulateCommandTest, JsonIsTheSameEntries) {
  std::ostringstream text, json, err;
  SimulateOptions o;
  o.scenario = WriteScenario("manual.yaml", kManual);
  ASSERT_EQ(RunSimulate(o, text, err), 0) << err.str();
  o.output = "json";
  ASSERT_EQ(RunSimulate(o, json, err), 0) << err.str();
  auto j = nlohmann::json::parse(json.str(), nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(j.is_array());
  // One entry per text line after the header.
  size_t lines = 0;
  for (char c : text.str()) {
    lines += c == '\n' ? 1 : 0;
  }
  EXPECT_EQ(j.size(), lines - 1);
  bool failed_scheduling = false;
  for (const auto& e : j) {
    ASSERT_TRUE(e.contains("time") && e.contains("seconds") && e.contains("kind") &&
                e.contains("text"));
    if (e.value("reason", "") == "FailedScheduling" && !failed_scheduling) {
      failed_scheduling = true;
      EXPECT_EQ(e["time"], "00:00:00");
      EXPECT_EQ(e["object"], "pod/gpu-test-pod");
      EXPECT_EQ(e["source"], "default-scheduler");
      EXPECT_EQ(e["timestamp"], "2026-01-01T00:00:00Z");
    }
  }
  EXPECT_TRUE(failed_scheduling);
}

TEST(SimulateCommandTest, SeedAndUntilOverrideTheScenario) {
  std::ostringstream a, b, err;
  SimulateOptions o;
  o.scenario = WriteScenario("manual.yaml", kManual);
  o.until = "2m";
  ASSERT_EQ(RunSimulate(o, a, err), 0) << err.str();
  EXPECT_NE(a.str().find("seed 3, 2m0s of virtual time"), std::string::npos);
  EXPECT_NE(a.str().find("[00:02:00] summary end of run: 2m0s simulated"), std::string::npos);
  o.seed = 4;
  ASSERT_EQ(RunSimulate(o, b, err), 0) << err.str();
  EXPECT_NE(b.str().find("seed 4, 2m0s"), std::string::npos);
  EXPECT_NE(a.str(), b.str());
}

TEST(SimulateCommandTest, SameInputsSameBytes) {
  std::ostringstream a, b, err;
  SimulateOptions o;
  o.scenario = kExample;
  ASSERT_EQ(RunSimulate(o, a, err), 0) << err.str();
  ASSERT_EQ(RunSimulate(o, b, err), 0) << err.str();
  EXPECT_EQ(a.str(), b.str());
}

TEST(SimulateCommandTest, TheSeedWalkthroughScalesUpFromZero) {
  std::ostringstream out, err;
  SimulateOptions o;
  o.scenario = kExample;
  ASSERT_EQ(RunSimulate(o, out, err), 0) << err.str();
  const std::string text = out.str();
  EXPECT_NE(text.find("TriggeredScaleUp  pod/gpu-test-pod  cluster-autoscaler  pod triggered "
                      "scale-up: [{gpu-pool 0->1 (max: 5)}]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("pool    gpu-pool  1 -> 0"), std::string::npos) << text;
}

TEST(SimulateCommandTest, Errors) {
  struct Case {
    std::string name;
    SimulateOptions options;
    int rc;
    std::string err;
  };
  const std::string bad = WriteScenario("bad.yaml", "runFor: 1m\nnodePools: []\nfoo: 1\n");
  const std::string pool = WriteScenario(
      "pool.yaml", "runFor: 1m\nnodePools: [{name: p, machineType: n1-standard-999}]\n");
  const std::string late = WriteScenario(
      "late.yaml",
      "runFor: 10m\nnodePools: [{name: default-pool, machineType: e2-standard-4}]\n"
      "timeline:\n- {at: 1m, delete: pod/a}\n- {at: 40m, delete: pod/b}\n");
  const std::vector<Case> cases = {
      {"an action after runFor would never run",
       {late},
       1,
       "error: " + late +
           ": timeline[1].at: 40m0s is after runFor (10m0s): the action would never run (move "
           "it earlier or raise runFor)\n"},
      {"missing file",
       {"/nonexistent.yaml"},
       1,
       "error: open /nonexistent.yaml: no such file or directory\n"},
      {"invalid scenario", {bad}, 1, "error: " + bad + ": foo: unknown field"},
      {"a pool the cloud refuses", {pool}, 1, "error: " + pool + ": node pool \"p\": "},
      {"bad output", {kExample, "yaml"}, 2, "error: --output must be text, json or csv, got \"yaml\"\n"},
      {"bad until",
       {kExample, "text", std::nullopt, "forever"},
       2,
       "error: --until: time: invalid duration \"forever\"\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::ostringstream out, err;
    EXPECT_EQ(RunSimulate(c.options, out, err), c.rc);
    EXPECT_EQ(err.str().substr(0, c.err.size()), c.err);
    EXPECT_EQ(out.str(), "");
  }
}

TEST(SimulateCommandTest, AFileThatIsNoManifestIsNamedNotEchoed) {
  // `apply: ../secret` reads a file outside the scenario's folder, as kubectl -f may; what is
  // wrong with it is said, its content never shown.
  const std::string dir = tidepool::testing::TestTempDir();
  std::filesystem::create_directories(dir + "/scenarios");
  std::ofstream(dir + "/secret") << "root:x:0:0:root:/root:/bin/bash\ntoken-6f1d2c3b\n";
  std::ofstream(dir + "/scenarios/s.yaml")
      << "runFor: 1m\nnodePools: [{name: default-pool, machineType: e2-standard-4}]\n"
         "timeline:\n- {at: 0s, apply: ../secret}\n";
  std::ofstream(dir + "/broken") << "a: b\ntoken-6f1d2c3b\n";
  std::ofstream(dir + "/scenarios/b.yaml")
      << "runFor: 1m\nnodePools: [{name: default-pool, machineType: e2-standard-4}]\n"
         "timeline:\n- {at: 0s, apply: ../broken}\n";
  struct Case {
    std::string scenario, err;
  };
  for (const Case& c :
       {Case{dir + "/scenarios/s.yaml",
             "timeline[0].apply: error validating \"../secret\": error validating data: invalid "
             "object to validate\n"},
        Case{dir + "/scenarios/b.yaml",
             "timeline[0].apply: error parsing ../broken: error converting YAML to JSON: yaml: "}}) {
    SCOPED_TRACE(c.scenario);
    std::ostringstream out, err;
    SimulateOptions o;
    o.scenario = c.scenario;
    EXPECT_EQ(RunSimulate(o, out, err), 1);
    EXPECT_NE(err.str().find(c.err), std::string::npos) << err.str();
    EXPECT_EQ(err.str().find("token-6f1d2c3b"), std::string::npos) << err.str();
    EXPECT_EQ(err.str().find("root:x"), std::string::npos) << err.str();
  }
}

TEST(SimulateCommandTest, UntilBeforeAnActionSaysItDoesNotRun) {
  std::ostringstream out, err;
  SimulateOptions o;
  o.scenario = WriteScenario("manual.yaml", kManual);
  o.until = "30s";
  ASSERT_EQ(RunSimulate(o, out, err), 0) << err.str();
  EXPECT_EQ(err.str(), "note: " + o.scenario +
                           ": timeline[1] (at 1m0s) is after --until 30s and does not run\n");
  EXPECT_EQ(out.str().find("gcloud container clusters resize"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace tidepool::runtime
