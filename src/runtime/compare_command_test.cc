#include "runtime/compare_command.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

TEST(CompareCommandTest, ShardsMergeIntoTheWholeTable) {
  const std::string dir = tidepool::testing::TestTempDir();
  std::ofstream(dir + "/t.csv") << "name,arrival,duration,cpu,memory,gpus,class\n"
                                   "a,0,10m,1,1Gi,1,training\n";
  CompareOptions whole;
  whole.scenarios = {Write(dir, "s0", 2), Write(dir, "s1", 1), Write(dir, "s2", 3)};
  whole.output = "csv";
  std::ostringstream expected, err;
  ASSERT_EQ(RunCompare(whole, expected, err), 0) << err.str();
  // Two shards: positions 0 and 2, then 1; merged in the order s0, s2, s1.
  std::vector<std::string> files;
  for (const char* shard : {"0/2", "1/2", "2/2"}) {
    CompareOptions o = whole;
    o.shard = shard;
    std::ostringstream out;
    if (std::string(shard) == "2/2") {
      EXPECT_EQ(RunCompare(o, out, err), 2);
      EXPECT_NE(err.str().find("error: --shard: expected i/N with 0 <= i < N, got \"2/2\""),
                std::string::npos);
      continue;
    }
    ASSERT_EQ(RunCompare(o, out, err), 0) << err.str();
    files.push_back(dir + "/shard-" + std::string(1, shard[0]) + ".csv");
    std::ofstream(files.back()) << out.str();
  }
  CompareOptions merge;
  merge.scenarios = files;
  merge.merge = true;
  merge.output = "csv";
  std::ostringstream merged;
  ASSERT_EQ(RunCompare(merge, merged, err), 0) << err.str();
  // The same cells as the whole run's, columns reordered.
  std::istringstream a(expected.str()), b(merged.str());
  std::string la, lb;
  std::getline(a, la);
  std::getline(b, lb);
  EXPECT_EQ(la, "metric,s0,s1,s2");
  EXPECT_EQ(lb, "metric,s0,s2,s1");
  while (std::getline(a, la) && std::getline(b, lb)) {
    const auto cells = [](const std::string& l) {
      std::vector<std::string> v;
      std::stringstream ss(l);
      for (std::string c; std::getline(ss, c, ',');) v.push_back(c);
      return v;
    };
    const auto x = cells(la), y = cells(lb);
    ASSERT_EQ(x.size(), 4u) << la;
    ASSERT_EQ(y.size(), 4u) << lb;
    EXPECT_EQ(x[0], y[0]);
    EXPECT_EQ(x[1], y[1]);
    EXPECT_EQ(x[2], y[3]);
    EXPECT_EQ(x[3], y[2]);
  }
  // A file that is not a shard's output.
  std::ofstream(dir + "/bad.csv") << "hello\n";
  merge.scenarios = {dir + "/bad.csv"};
  std::ostringstream bad_out, bad_err;
  EXPECT_EQ(RunCompare(merge, bad_out, bad_err), 1);
  EXPECT_NE(bad_err.str().find("not a tidepool compare CSV"), std::string::npos);
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
