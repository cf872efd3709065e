#include "sim/trace.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace tidepool::sim {
namespace {

using std::chrono::seconds;

// Rows in the published formats (the header rows of ../shared/data/traces, values made up).
constexpr char kDlrm[] =
    "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,"
    "rdma_limit,memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,"
    "creation_time,scheduled_time,deletion_time\n"
    "instance_7,HN,app_0,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,\n"
    "instance_9,CN,app_130,64,64,0,0,1,1,320.0,320.0,255.0,300.0,-1,1435629.0,1435629.0,"
    "1435760.0\n";
constexpr char kOpenb[] =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n"
    "openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061\n"
    "openb-pod-0002,88000,327680,8,1000,V100M16|V100M32,BE,Succeeded,100,400,150\n"
    "openb-pod-0003,1000,1024,0,0,,BE,Pending,50,90,\n";

TraceOptions Options(std::string format = "") {
  TraceOptions o;
  o.file = "t.csv";
  o.format = std::move(format);
  return o;
}

TEST(TraceTest, DlrmRowsArriveAtCreationAndAreDeletedAtDeletion) {
  auto t = ParseTrace(kDlrm, Options(), 1);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->format, "dlrm");
  ASSERT_EQ(t->rows.size(), 2u);
  const TraceRow& hn = t->rows[0];  // existed before the trace: arrives at 0, never deleted
  EXPECT_EQ(hn.name, "instance-7");
  EXPECT_EQ(hn.class_, "HN");
  EXPECT_EQ(hn.owner, "app_0");
  EXPECT_EQ(hn.arrival, Duration::zero());
  EXPECT_FALSE(hn.end.has_value());
  EXPECT_FALSE(hn.run.has_value());
  EXPECT_EQ(hn.cpu_milli, 12000);
  EXPECT_EQ(hn.gpus, 1);
  EXPECT_EQ(hn.memory_bytes, int64_t{120} << 30);
  TraceOptions only_hn = Options();
  only_hn.classes = {"HN"};
  auto hn_only = ParseTrace(kDlrm, only_hn, 1);
  ASSERT_TRUE(hn_only.ok());
  ASSERT_EQ(hn_only->rows.size(), 1u);
  EXPECT_EQ(hn_only->rows[0].name, "instance-7");
  const TraceRow& cn = t->rows[1];
  EXPECT_EQ(cn.arrival, seconds(1435629));
  EXPECT_EQ(cn.end, seconds(1435760));
  EXPECT_EQ(cn.gpus, 0);
}

TEST(TraceTest, OpenbRowsRunFromSchedulingToDeletion) {
  TraceOptions o = Options();
  o.gpu_models = {{"V100M16", "nvidia-tesla-v100"}};
  auto t = ParseTrace(kOpenb, o, 1);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->format, "openb");
  ASSERT_EQ(t->rows.size(), 3u);
  // Ordered by arrival: 0003 (50), 0002 (100), 0001 (427061).
  EXPECT_EQ(t->rows[0].name, "openb-pod-0003");
  EXPECT_EQ(t->rows[0].run, seconds(40));   // never scheduled: deletion - creation
  EXPECT_EQ(t->rows[1].run, seconds(250));  // deletion - scheduled
  EXPECT_EQ(t->rows[1].gpus, 8);
  // V100M16|V100M32, only the first mapped: one accelerator; the other counted as unmapped.
  EXPECT_EQ(t->rows[1].gpu_accelerators, std::vector<std::string>{"nvidia-tesla-v100"});
  EXPECT_EQ(t->rows[1].class_, "BE");
  EXPECT_EQ(t->rows[2].cpu_milli, 6000);
  EXPECT_EQ(t->rows[2].memory_bytes, int64_t{12288} << 20);
  EXPECT_EQ(t->shared_gpu_rows, 1);  // 460 milli-GPU: given a whole one
  EXPECT_EQ(t->unmapped_gpu_models.at("V100M32"), 1);
  o.gpu_models["V100M32"] = "nvidia-tesla-v100-32";
  t = ParseTrace(kOpenb, o, 1);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->rows[1].gpu_accelerators,
            (std::vector<std::string>{"nvidia-tesla-v100", "nvidia-tesla-v100-32"}));
  const nlohmann::json either = TracePod(t->rows[1], o);
  EXPECT_EQ(
      either["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
            ["nodeSelectorTerms"][0]["matchExpressions"][0]["values"],
      nlohmann::json({"nvidia-tesla-v100", "nvidia-tesla-v100-32"}));
  o.gpu_models.clear();
  t = ParseTrace(kOpenb, o, 1);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->unmapped_gpu_models.at("V100M16"), 1);
  EXPECT_TRUE(t->rows[1].gpu_accelerators.empty());
}

TEST(TraceTest, GenericCsv) {
  const std::string csv =
      "name,arrival,duration,end,cpu,memory,gpus,gpuModel,class,owner,priorityClassName\n"
      "Train_A,90s,1h,,4,16Gi,2,nvidia-l4,training,job-1,high\n"
      ",30,,600,500m,512Mi,,,,,\n";
  auto t = ParseTrace(csv, Options(), 1);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->format, "csv");
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->rows[0].name, "row-3");
  EXPECT_EQ(t->rows[0].arrival, seconds(30));
  EXPECT_EQ(t->rows[0].end, seconds(600));
  EXPECT_EQ(t->rows[0].class_, "default");
  EXPECT_EQ(t->rows[0].cpu_milli, 500);
  const TraceRow& a = t->rows[1];
  EXPECT_EQ(a.name, "train-a");
  EXPECT_EQ(a.arrival, seconds(90));
  EXPECT_EQ(a.run, std::chrono::hours(1));
  EXPECT_EQ(a.gpus, 2);
  EXPECT_EQ(a.gpu_accelerators, std::vector<std::string>{"nvidia-l4"});
  EXPECT_EQ(a.priority_class, "high");
  EXPECT_EQ(a.owner, "job-1");
}

TEST(TraceTest, BadInputIsAnErrorNamingFileLineAndColumn) {
  struct Case {
    std::string name;
    std::string text;
    std::string error;
  };
  const std::string h = "arrival,cpu,memory,gpus,duration,end,name\n";
  const std::vector<Case> cases = {
      {"empty", "", "t.csv: empty trace"},
      {"no arrival column", "cpu,memory\n1,1Gi\n", "t.csv: no column \"arrival\" in the header"},
      {"a bad number", h + "soon,1,1Gi,,,,\n", "t.csv:2: arrival: time: invalid duration \"soon\""},
      {"a negative time", h + "-5,1,1Gi,,,,\n", "t.csv:2: arrival: must not be negative"},
      {"a bad quantity", h + "0,lots,1Gi,,,,\n",
       "t.csv:2: cpu: quantities must match the regular expression"},
      {"fractional GPUs", h + "0,1,1Gi,0.5,,,\n",
       "t.csv:2: gpus: expected a whole number of GPUs, got \"0.5\""},
      {"duration and end", h + "0,1,1Gi,,10,20,\n", "t.csv:2: end: give duration or end, not both"},
      {"end before arrival", h + "30,1,1Gi,,,20,\n", "t.csv:2: end: is before arrival"},
      {"a time past Go's durations", h + "8e97,1,1Gi,,,,\n",
       "t.csv:2: arrival: too large (more than 292 years)"},
      {"a name twice", h + "0,1,1Gi,,,,a\n1,1,1Gi,,,,A\n", "t.csv:3: name: \"a\" is given twice"},
      {"a dlrm amount too large",
       std::string(kDlrm).substr(0, std::string(kDlrm).find('\n') + 1) +
           "i,HN,app,1e300,12,1,1,25,25,120,120,640,800,8,,,\n",
       "t.csv:2: cpu_request: too large"},
      {"a dlrm number",
       std::string(kDlrm).substr(0, std::string(kDlrm).find('\n') + 1) +
           "i,HN,app,twelve,12,1,1,25,25,120,120,640,800,8,,,\n",
       "t.csv:2: cpu_request: expected a number, got \"twelve\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto t = ParseTrace(c.text, Options(), 1);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(std::string(t.status().message()).substr(0, c.error.size()), c.error);
  }
  TraceOptions o = Options("parquet");
  EXPECT_EQ(ParseTrace(h, o, 1).status().message(),
            "trace.format: unknown format \"parquet\" (known: dlrm, openb, csv)");
  EXPECT_EQ(LoadTrace(Options(), 1).status().message(), "open t.csv: no such file or directory");
}

std::string ManyRows(int n) {
  std::string csv = "arrival,cpu,memory\n";
  for (int i = 0; i < n; ++i) csv += std::to_string(i) + ",1,1Gi\n";
  return csv;
}

TEST(TraceTest, SamplingAndLoadFactorAreSeededAndScaleTheRows) {
  TraceOptions o = Options();
  o.sample = 0.25;
  auto a = ParseTrace(ManyRows(4000), o, 7);
  auto b = ParseTrace(ManyRows(4000), o, 7);
  auto c = ParseTrace(ManyRows(4000), o, 8);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->rows_read, 4000);
  EXPECT_NEAR(static_cast<double>(a->rows.size()), 1000, 100);
  ASSERT_EQ(a->rows.size(), b->rows.size());
  for (size_t i = 0; i < a->rows.size(); ++i) EXPECT_EQ(a->rows[i].name, b->rows[i].name);
  EXPECT_NE(a->rows.size(), c->rows.size());  // another seed, another sample (here)
  o.sample = 1;
  o.load_factor = 2.5;
  auto d = ParseTrace(ManyRows(4000), o, 7);
  ASSERT_TRUE(d.ok());
  EXPECT_NEAR(static_cast<double>(d->rows.size()), 10000, 200);
  EXPECT_EQ(d->rows[0].name, "row-2");
  EXPECT_EQ(d->rows[1].name, "row-2-r1");  // a copy: same times
  EXPECT_EQ(d->rows[1].arrival, d->rows[0].arrival);
  // A copy's name that a later row also has is an error, not a create refused at run time.
  auto clash = ParseTrace("name,arrival,cpu,memory\na,0,1,1Gi\na-r1,0,1,1Gi\n", o, 7);
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.status().message(),
            "t.csv:3: name: \"a-r1\" is given twice");
  o.load_factor = 1;
  o.time_scale = 0.5;
  auto e = ParseTrace(ManyRows(10), o, 7);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->rows[9].arrival, std::chrono::milliseconds(4500));
}

TEST(TraceTest, TheTracesOwnNodes) {
  TraceOptions o = Options();
  o.nodes_file = "n.csv";
  o.gpu_models = {{"V100M16", "nvidia-tesla-v100"}};
  auto openb = ParseTraceNodes(
      "sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0000,64000,262144,2,P100\n"
      "openb-node-0001,96000,786432,8,V100M16\nopenb-node-1213,96000,786432,0,\n",
      o);
  ASSERT_TRUE(openb.ok()) << openb.status().ToString();
  ASSERT_EQ(openb->size(), 3u);
  EXPECT_EQ((*openb)[0].cpu_milli, 64000);
  EXPECT_EQ((*openb)[0].memory_bytes, int64_t{262144} << 20);
  EXPECT_EQ((*openb)[0].gpu_accelerator, "");  // P100: no translation
  EXPECT_EQ((*openb)[1].gpu_accelerator, "nvidia-tesla-v100");
  const nlohmann::json node = TraceNodeJson((*openb)[1]);
  EXPECT_EQ(node["metadata"]["annotations"]["kwok.x-k8s.io/node"], "fake");
  EXPECT_EQ(node["metadata"]["labels"]["cloud.google.com/gke-accelerator"], "nvidia-tesla-v100");
  EXPECT_EQ(node["metadata"]["labels"]["tidepool.dev/gpu-model"], "V100M16");
  EXPECT_EQ(node["status"]["capacity"]["nvidia.com/gpu"], "8");
  EXPECT_EQ(node["status"]["allocatable"]["memory"], "768Gi");
  EXPECT_EQ(node["status"]["allocatable"]["cpu"], "96");
  EXPECT_FALSE(TraceNodeJson((*openb)[2])["status"]["capacity"].contains("nvidia.com/gpu"));
  // PAI 2020's machine spec (no header) and the 2026 spot trace's node list.
  auto pai = ParseTraceNodes(
      "7399a758eb02bae1a3621236,CPU,96,512,0\n"
      "c6a2a7e1b3e2e5cdb1e00ce4,V100M16,96,384,8\n",
      o);
  ASSERT_TRUE(pai.ok()) << pai.status().ToString();
  ASSERT_EQ(pai->size(), 2u);
  EXPECT_EQ((*pai)[0].name, "7399a758eb02bae1a3621236");
  EXPECT_EQ((*pai)[0].gpus, 0);
  EXPECT_EQ((*pai)[0].gpu_model, "");
  EXPECT_EQ((*pai)[1].cpu_milli, 96000);
  EXPECT_EQ((*pai)[1].memory_bytes, int64_t{384} << 30);
  EXPECT_EQ((*pai)[1].gpus, 8);
  EXPECT_EQ((*pai)[1].gpu_accelerator, "nvidia-tesla-v100");
  auto spot = ParseTraceNodes(
      "gpu_model,gpu_capacity_num,cpu_num,node_name\nGPU-series-1,4,192,0\nA10,1,128,2\n", o);
  ASSERT_TRUE(spot.ok()) << spot.status().ToString();
  ASSERT_EQ(spot->size(), 2u);
  EXPECT_EQ((*spot)[0].name, "spot-node-0");
  EXPECT_EQ((*spot)[0].gpu_model, "GPU-series-1");
  EXPECT_EQ((*spot)[0].gpus, 4);
  EXPECT_EQ((*spot)[1].cpu_milli, 128000);
  EXPECT_EQ((*spot)[1].memory_bytes, int64_t{128 * 7} << 30);
  auto csv = ParseTraceNodes("name,cpu,memory,gpus,gpuModel\nn1,8,32Gi,1,nvidia-l4\n", o);
  ASSERT_TRUE(csv.ok()) << csv.status().ToString();
  EXPECT_EQ((*csv)[0].gpu_accelerator, "nvidia-l4");
  struct Case {
    std::string text, error;
  };
  for (const Case& c : std::vector<Case>{
           {"", "n.csv: empty node list"},
           {"sn,cpu_milli\n", "n.csv: no column \"memory_mib\" in the header"},
           {"name,cpu,memory\na,1,1Gi\nA,1,1Gi\n", "n.csv:3: name: \"a\" is given twice"},
           {"name,cpu,memory\na,lots,1Gi\n", "n.csv:2: cpu: quantities must match"},
           {"m1,CPU,96,512,0\nm2,T4,x,512,2\n", "n.csv:2: cap_cpu: expected a number"},
           // Found by fuzz/trace_fuzzer.cc: GiB beyond an int64 of bytes overflowed.
           {"m1,CPU,96,78643286432,0\n", "n.csv:1: cap_mem: too large"},
           {"gpu_model,gpu_capacity_num,cpu_num,node_name\nA10,1,900000000000,0\n",
            "n.csv:2: cpu_num: too large"},
           {"m1,CPU,96,512,0\nm1,T4,96,512,2\n", "n.csv:2: machine: \"m1\" is given twice"},
           {"gpu_model,gpu_capacity_num,cpu_num\n", "n.csv: no column \"node_name\""},
       }) {
    auto r = ParseTraceNodes(c.text, o);
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(std::string(r.status().message()).substr(0, c.error.size()), c.error);
  }
}

TEST(TraceTest, APodAsTheClusterWouldGetIt) {
  TraceRow row;
  row.name = "train-a";
  row.class_ = "training";
  row.owner = "job-1";
  row.run = std::chrono::minutes(90);
  row.cpu_milli = 4500;
  row.memory_bytes = int64_t{16} << 30;
  row.gpus = 2;
  row.gpu_accelerators = {"nvidia-l4"};
  TraceOptions o = Options();
  o.namespace_ = "replay";
  const nlohmann::json pod = TracePod(row, o);
  EXPECT_EQ(pod["metadata"]["namespace"], "replay");
  EXPECT_EQ(pod["metadata"]["labels"][kTraceClassLabel], "training");
  EXPECT_EQ(pod["metadata"]["labels"][kTraceOwnerLabel], "job-1");
  EXPECT_EQ(pod["metadata"]["annotations"]["tidepool.dev/duration"], "1h30m0s");
  EXPECT_EQ(pod["spec"]["restartPolicy"], "Never");
  const nlohmann::json& res = pod["spec"]["containers"][0]["resources"];
  EXPECT_EQ(res["requests"]["cpu"], "4500m");
  EXPECT_EQ(res["requests"]["memory"], "16Gi");
  EXPECT_EQ(res["requests"]["nvidia.com/gpu"], "2");
  EXPECT_EQ(res["limits"]["nvidia.com/gpu"], "2");
  EXPECT_EQ(pod["spec"]["tolerations"][0]["key"], "nvidia.com/gpu");
  EXPECT_EQ(pod["spec"]["nodeSelector"]["cloud.google.com/gke-accelerator"], "nvidia-l4");
  row.gpus = 0;
  row.gpu_accelerators.clear();
  row.run.reset();
  const nlohmann::json cpu = TracePod(row, o);
  EXPECT_FALSE(cpu["spec"].contains("tolerations"));
  EXPECT_FALSE(cpu["spec"].contains("nodeSelector"));
  EXPECT_FALSE(cpu["metadata"].contains("annotations"));
}

}  // namespace
}  // namespace tidepool::sim
