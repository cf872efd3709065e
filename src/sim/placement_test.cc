// File: placement_test.cc
//
// The FGD paper's placement experiment (placement.h) on small openb-format traces: the metric
// on a case computed by hand, resampling (`tune`), every policy runs and replays byte for
// byte, and the errors that name what is missing.
#include "sim/placement.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "testing/temp_dir.h"

namespace tidepool::sim {
namespace {

constexpr char kPodHeader[] =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";

// Writes the node list and pod list; returns trace options naming them.
TraceOptions Files(const std::string& nodes, const std::string& pods) {
  const std::string dir = testing::TestTempDir();
  std::ofstream(dir + "/nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\n" << nodes;
  std::ofstream(dir + "/pods.csv") << kPodHeader << pods;
  TraceOptions o;
  o.file = dir + "/pods.csv";
  o.nodes_file = dir + "/nodes.csv";
  o.format = "openb";
  return o;
}

std::string Print(const PlacementReport& r, const std::string& format) {
  std::ostringstream out;
  PrintPlacement(r, format, out);
  return out.str();
}

TEST(PlacementTest, TheMetricOnOneGpu) {
  // One GPU; two 600-milli shares: the first takes 60 %, the second fits nowhere.
  TraceOptions o = Files("n1,8000,16384,1,T4\n",
                         "a,1000,1024,1,600,,LS,Running,0,10,0\n"
                         "b,1000,1024,1,600,,LS,Running,0,10,0\n");
  PlacementSpec spec{.policies = {"BestFit"}, .seeds = {1}, .tune = 1.0};
  auto r = RunPlacement(o, spec, 0, 1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->runs.size(), 1u);
  const PlacementRun& run = r->runs[0];
  EXPECT_EQ(r->gpus, 1);
  EXPECT_EQ(run.pods, 2);
  EXPECT_EQ(run.tuned, 0);  // 1,200 milli arrived: already past 100 %
  EXPECT_EQ(run.scheduled, 1);
  EXPECT_EQ(run.failed, 1);
  EXPECT_EQ(run.allocated_milli, 600);
  // Arrived 60 % then 120 %; allocated 60 % both times. Near k: k-1..k+1.
  ASSERT_EQ(run.alloc.size(), 121u);
  EXPECT_EQ(run.alloc[60], 60.0);
  EXPECT_EQ(run.alloc[59], 60.0);
  EXPECT_EQ(run.alloc[61], 60.0);
  EXPECT_EQ(run.alloc[120], 60.0);
  EXPECT_FALSE(run.alloc[58].has_value());
  EXPECT_FALSE(run.alloc[100].has_value());
  EXPECT_EQ(Print(*r, "csv"),
            "policy,seed,arrived_percent,allocated_percent\n"
            "BestFit,1,59,60.00\nBestFit,1,60,60.00\nBestFit,1,61,60.00\n"
            "BestFit,1,119,60.00\nBestFit,1,120,60.00\n");
  const std::string text = Print(*r, "text");
  EXPECT_NE(text.find("2 pods of " + o.file + " on 1 nodes with 1 GPUs, 1 seed\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("BestFit        -                -                         1.0                "
                "0.4\n"),
      std::string::npos)
      << text;
}

TEST(PlacementTest, TuneResamplesUpToTheTarget) {
  // 2 GPUs; 1,000 milli of demand; tune 3 resamples to (at most) 6,000.
  TraceOptions o = Files("n1,64000,262144,2,T4\n",
                         "a,1000,1024,1,500,,LS,Running,0,10,0\n"
                         "b,1000,1024,1,500,,LS,Running,0,10,0\n"
                         "c,1000,1024,0,0,,LS,Running,0,10,0\n");
  PlacementSpec spec{.policies = {"FGD"}, .seeds = {3}, .tune = 3.0};
  auto r = RunPlacement(o, spec, 0, 1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const PlacementRun& run = r->runs[0];
  EXPECT_GT(run.tuned, 0);
  EXPECT_EQ(run.pods, 3 + run.tuned);
  EXPECT_EQ(run.scheduled + run.failed, run.pods);
  EXPECT_EQ(run.allocated_milli, 2000);  // both GPUs full: four shares
  // The curve never goes down and never passes 100 %.
  double last = 0;
  for (const auto& v : run.alloc) {
    if (!v.has_value()) continue;
    EXPECT_GE(*v, last);
    EXPECT_LE(*v, 100.0);
    last = *v;
  }
  EXPECT_LE(run.alloc.size(), 301u);
}

TEST(PlacementTest, EveryPolicyRunsAndReplays) {
  TraceOptions o = Files("n1,32000,131072,4,T4\nn2,32000,131072,2,P100\nn3,16000,65536,1,P100\n",
                         "p0,4000,8192,1,250,,LS,Running,0,10,0\n"
                         "p1,8000,8192,1,1000,T4,LS,Running,0,10,0\n"
                         "p2,2000,4096,2,1000,,BE,Running,0,10,0\n"
                         "p3,1000,2048,1,500,P100|T4,LS,Running,0,10,0\n"
                         "p4,6000,4096,0,0,,BE,Running,0,10,0\n"
                         "p5,4000,8192,1,750,,LS,Running,0,10,0\n"
                         "p6,4000,8192,1,1000,V100M32,LS,Running,0,10,0\n");
  PlacementSpec spec{.policies = {}, .seeds = {42, 43}, .tune = 1.3};
  auto a = RunPlacement(o, spec, 0, 2);
  auto b = RunPlacement(o, spec, 0, 1);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->runs.size(), 12u);
  for (const std::string& f : {"text", "json", "csv"}) {
    EXPECT_EQ(Print(*a, f), Print(*b, f)) << f;
  }
  for (const PlacementRun& run : a->runs) {
    SCOPED_TRACE(run.policy + " " + std::to_string(run.seed));
    EXPECT_EQ(run.scheduled + run.failed, run.pods);
    EXPECT_LE(run.allocated_milli, 7000);
    EXPECT_GE(run.failed, 1);  // p6 asks for a model no node has
  }
}

TEST(PlacementTest, Errors) {
  TraceOptions o = Files("n1,8000,16384,0,\n", "a,1000,1024,0,0,,LS,Running,0,10,0\n");
  PlacementSpec spec{.policies = {"FGD"}};
  EXPECT_EQ(RunPlacement(o, spec, 0).status().message(),
            "trace.nodes: " + o.nodes_file + " has no GPUs");
  o.nodes_file.clear();
  EXPECT_EQ(RunPlacement(o, spec, 0).status().message(),
            "trace.nodes: required by placement (the trace's own nodes)");
}

}  // namespace
}  // namespace tidepool::sim
