#include "runtime/compare_command.h"

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "testing/temp_dir.h"

namespace tidepool::runtime {
namespace {

// Two configurations of one trace: a T4 pool that may grow to 2 nodes, and one held at 1.
std::string Write(const std::string& dir, const std::string& name, int max_nodes) {
  std::ofstream(dir + "/" + name + ".yaml")
      << "seed: 3\n"
         "nodePools:\n"
         "- {name: default-pool, machineType: e2-standard-4, initialNodeCount: 1}\n"
         "- {name: t4, machineType: n1-standard-4, accelerator: {type: nvidia-tesla-t4, "
         "count: 1}, minNodes: 0, maxNodes: "
      << max_nodes
      << ", taints: [\"nvidia.com/gpu=present:NoSchedule\"]}\n"
         "trace: {file: t.csv}\n"
         "runFor: 1h\n";
  return dir + "/" + name + ".yaml";
}

TEST(CompareCommandTest, OneColumnPerConfigurationTheSameAloneOrTogether) {
  const std::string dir = tidepool::testing::TestTempDir();
  std::ofstream(dir + "/t.csv") << "name,arrival,duration,cpu,memory,gpus,class\n"
                                   "a,0,10m,1,1Gi,1,training\n"
                                   "b,0,10m,1,1Gi,1,training\n";
  CompareOptions o;
  o.scenarios = {Write(dir, "two", 2), Write(dir, "one", 1)};
  o.output = "csv";
  o.report = dir + "/cmp.html";
  std::ostringstream out, err;
  ASSERT_EQ(RunCompare(o, out, err), 0) << err.str();
  const std::string csv = out.str();
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "metric,two,one");
  EXPECT_NE(csv.find("\nnodes created,2.00,1.00\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\ntraining: pods,2.00,2.00\n"), std::string::npos) << csv;
  // With one node the second pod waits for the first to finish: a longer p99.
  std::istringstream lines(csv);
  std::string line;
  double p99_two = -1, p99_one = -1;
  while (std::getline(lines, line)) {
    if (line.rfind("training: wait p99 (s),", 0) == 0) {
      std::sscanf(line.c_str() + 23, "%lf,%lf", &p99_two, &p99_one);
    }
  }
  EXPECT_GT(p99_one, p99_two + 500);
  std::ifstream html(dir + "/cmp.html");
  const std::string page((std::istreambuf_iterator<char>(html)), {});
  EXPECT_NE(page.find("<th>two</th><th>one</th>"), std::string::npos);
  // One at a time gives the same figures.
  o.jobs = 1;
  o.report.clear();
  std::ostringstream alone;
  ASSERT_EQ(RunCompare(o, alone, err), 0);
  EXPECT_EQ(alone.str(), csv);
}

TEST(CompareCommandTest, Errors) {
  std::ostringstream out, err;
  CompareOptions o;
  EXPECT_EQ(RunCompare(o, out, err), 2);
  o.scenarios = {"/nonexistent.yaml"};
  EXPECT_EQ(RunCompare(o, out, err), 1);
  EXPECT_NE(err.str().find("error: open /nonexistent.yaml: no such file or directory"),
            std::string::npos)
      << err.str();
}

}  // namespace
}  // namespace tidepool::runtime
