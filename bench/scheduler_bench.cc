// Scheduling throughput and snapshot fork/revert, as issue 2 asks:
//   BM_ScheduleGpuPods      1-GPU pods tolerating nvidia.com/gpu=present:NoSchedule onto 5,000
//                           nodes of mixed pools (tainted 1-, 4- and 8-GPU pools and CPU-only
//                           nodes, three zones), binding each into the snapshot;
//   BM_UnschedulableGpuPod  the failure path: full diagnosis, preemption check and the
//                           FailedScheduling message over the same 5,000 nodes;
//   BM_SnapshotForkRevert   Fork + add one pod + Revert at 15,000 nodes x 30 pods.
// Results and the exact command: bench/README.md.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/scheduler.h"
#include "testing/builders.h"

namespace tidepool::scheduler {
namespace {

using testing::MakeNode;
using testing::MakePod;

const char* kZones[] = {"us-central1-a", "us-central1-b", "us-central1-c"};

struct PoolSpec {
  const char* pool;
  const char* machine;
  const char* cpu;
  const char* memory;
  int gpus;
  int count;
};

// 5,000 nodes; 9,000 GPUs in all.
const PoolSpec kMixedPools[] = {
    {"t4-x1", "n1-standard-4", "4", "15Gi", 1, 1000},
    {"t4-x4", "n1-standard-48", "48", "180Gi", 4, 1000},
    {"a100-x8", "a2-highgpu-8g", "96", "680Gi", 8, 500},
    {"default-pool", "e2-standard-8", "8", "32Gi", 0, 2500},
};

void AddMixedCluster(ClusterSnapshot& s) {
  for (const PoolSpec& p : kMixedPools) {
    for (int i = 0; i < p.count; ++i) {
      std::string name = std::string("gke-tidepool-") + p.pool + "-" + std::to_string(i);
      auto b = MakeNode(name)
                   .Label("cloud.google.com/gke-nodepool", p.pool)
                   .Label("node.kubernetes.io/instance-type", p.machine)
                   .Label("topology.kubernetes.io/zone", kZones[i % 3]);
      if (p.gpus > 0) {
        b.Capacity({{"cpu", p.cpu},
                    {"memory", p.memory},
                    {"nvidia.com/gpu", std::to_string(p.gpus)}})
            .Label("cloud.google.com/gke-accelerator", "nvidia-tesla-t4")
            .Taint("nvidia.com/gpu", "present");
      } else {
        b.Capacity({{"cpu", p.cpu}, {"memory", p.memory}});
      }
      if (!s.AddNode(b.Ptr()).ok()) {
        std::abort();
      }
    }
  }
}

PodInfoConstSharedPtr GpuPod(int i) {
  return MakePodInfo(MakePod("train-" + std::to_string(i))
                         .Req("nvidia.com/gpu", "1")
                         .Req("cpu", "500m")
                         .Req("memory", "1Gi")
                         .Toleration("nvidia.com/gpu", "present", api::TaintEffect::kNoSchedule)
                         .Ptr());
}

void BM_ScheduleGpuPods(benchmark::State& state) {
  auto sched = Scheduler::Create();
  if (!sched.ok()) {
    state.SkipWithError("scheduler");
    return;
  }
  // Pods are made outside the timed region; the loop schedules and binds them.
  constexpr int kPods = 8000;  // fewer than the 9,000 GPUs: every pod fits
  std::vector<PodInfoConstSharedPtr> pods;
  for (int i = 0; i < kPods; ++i) {
    pods.push_back(GpuPod(i));
  }
  auto snapshot = std::make_unique<ClusterSnapshot>();
  AddMixedCluster(*snapshot);
  int next = 0;
  int64_t scheduled = 0;
  for (auto _ : state) {
    if (next == kPods) {
      state.PauseTiming();
      snapshot = std::make_unique<ClusterSnapshot>();
      AddMixedCluster(*snapshot);
      next = 0;
      state.ResumeTiming();
    }
    ScheduleResult r = (*sched)->ScheduleOne(pods[next++], *snapshot);
    if (!r.Scheduled()) {
      state.SkipWithError(r.message.c_str());
      return;
    }
    ++scheduled;
  }
  state.SetItemsProcessed(scheduled);
  state.counters["nodes"] = static_cast<double>(snapshot->NumNodes());
  state.counters["classes"] = static_cast<double>(snapshot->NumClasses());
}
BENCHMARK(BM_ScheduleGpuPods)->Unit(benchmark::kMicrosecond);

void BM_UnschedulableGpuPod(benchmark::State& state) {
  auto sched = Scheduler::Create();
  ClusterSnapshot snapshot;
  AddMixedCluster(snapshot);
  // Needs 16 GPUs on one node: fits nowhere; every node gets a reason.
  auto pod = MakePodInfo(MakePod("huge")
                             .Req("nvidia.com/gpu", "16")
                             .Toleration("nvidia.com/gpu", "present", api::TaintEffect::kNoSchedule)
                             .Ptr());
  std::string message;
  for (auto _ : state) {
    ScheduleResult r = (*sched)->framework().Schedule(*pod, snapshot);
    benchmark::DoNotOptimize(r.message.data());
    message = std::move(r.message);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(message.substr(0, 60));
}
BENCHMARK(BM_UnschedulableGpuPod)->Unit(benchmark::kMicrosecond);

void BM_SnapshotForkRevert(benchmark::State& state) {
  constexpr int kNodes = 15000, kPodsPerNode = 30;
  ClusterSnapshot s;
  for (int i = 0; i < kNodes; ++i) {
    std::string name = "node-" + std::to_string(i);
    if (!s.AddNode(MakeNode(name)
                       .Capacity({{"cpu", "32"}, {"memory", "128Gi"}})
                       .Label("topology.kubernetes.io/zone", kZones[i % 3])
                       .Ptr())
             .ok()) {
      std::abort();
    }
    for (int j = 0; j < kPodsPerNode; ++j) {
      auto pod = MakePodInfo(MakePod(name + "-p" + std::to_string(j)).Req("cpu", "100m").Ptr());
      if (!s.AddPod(pod, name).ok()) {
        std::abort();
      }
    }
  }
  auto extra = MakePodInfo(MakePod("extra").Req("cpu", "1").Ptr());
  const bool add = state.range(0) != 0;
  for (auto _ : state) {
    s.Fork();
    if (add) {
      benchmark::DoNotOptimize(s.AddPod(extra, "node-7777"));
    }
    s.Revert();
  }
  state.counters["nodes"] = kNodes;
  state.counters["pods"] = static_cast<double>(s.NumPods());
}
BENCHMARK(BM_SnapshotForkRevert)->Arg(0)->Arg(1)->ArgName("add_pod")->Unit(benchmark::kNanosecond);

// Resident memory of a snapshot holding 10,000 nodes and 300,000 pods (30 per node), built the
// way the runtimes build them: every pod a full api::Pod as an informer decodes it (name, uid,
// namespace, generateName, the app and pod-template-hash labels, a controller owner reference,
// requests and limits, nodeName, phase Running, four conditions with their times, startTime),
// turned into a PodInfo and added; the api::Pod is then dropped, as the informer cache and the
// snapshot keep only PodInfos. One api::Node per node (labels of a GKE node, capacity,
// allocatable, a taint, conditions). Reported as counters (RSS growth per node and per pod after
// building, and the whole growth), not time. pods_per_class: 1 is the worst case, every pod with
// a label of its own (a StatefulSet's pod-name label), so that no two pods share a class.
int64_t ResidentBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  long pages = 0, resident = 0;
  if (f != nullptr) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) {
      resident = 0;
    }
    std::fclose(f);
  }
  return static_cast<int64_t>(resident) * 4096;
}

// A 36-character uid in the API server's form.
std::string FakeUid(uint64_t n) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08llx-%04llx-4%03llx-8%03llx-%012llx",
                static_cast<unsigned long long>(n * 2654435761u & 0xffffffffu),
                static_cast<unsigned long long>(n & 0xffff),
                static_cast<unsigned long long>((n >> 4) & 0xfff),
                static_cast<unsigned long long>((n >> 8) & 0xfff),
                static_cast<unsigned long long>(n * 11400714819323198485ull & 0xffffffffffffull));
  return buf;
}

api::Pod InformerPod(int node, int j, const std::string& node_name, bool distinct_labels) {
  const int rs = node % 1000;  // 1,000 ReplicaSets of 300 pods
  const std::string rs_name = "job-" + std::to_string(rs) + "-7d4b9c8f6";
  api::Pod pod = MakePod(rs_name + "-" + std::to_string(node * 30 + j))
                     .OwnedBy("ReplicaSet", rs_name)
                     .Req("cpu", "500m")
                     .Req("memory", "1Gi")
                     .Limit("memory", "1Gi")
                     .NodeName(node_name)
                     .Obj();
  const TimePoint t0 = TimePoint(std::chrono::seconds(1764460800 + node));
  pod.meta.uid = FakeUid(static_cast<uint64_t>(node) * 30 + static_cast<uint64_t>(j));
  pod.meta.generate_name = rs_name + "-";
  pod.meta.resource_version = std::to_string(100000 + node * 30 + j);
  pod.meta.creation_timestamp = t0;
  pod.meta.labels["app"] = "job-" + std::to_string(rs);
  pod.meta.labels["pod-template-hash"] = "7d4b9c8f6";
  if (distinct_labels) {
    pod.meta.labels["statefulset.kubernetes.io/pod-name"] = pod.meta.name;
  }
  for (api::OwnerReference& o : pod.meta.owner_references) {
    o.uid = FakeUid(1000000000ull + static_cast<uint64_t>(rs));
  }
  pod.spec.containers[0].image = "us-docker.pkg.dev/tidepool/apps/job:1.0";
  pod.status.phase = api::PodPhase::kRunning;
  pod.status.start_time = t0 + std::chrono::seconds(1);
  for (const char* type : {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady",
                           "PodScheduled"}) {
    api::PodCondition c;
    c.type = type;
    c.status = api::ConditionStatus::kTrue;
    c.last_transition_time = t0 + std::chrono::seconds(2);
    pod.status.conditions.push_back(std::move(c));
  }
  return pod;
}

void SnapshotMemory(benchmark::State& state, bool distinct_labels) {
  constexpr int kNodes = 10000;
  constexpr int kPodsPerNode = 30;
  for (auto _ : state) {
    const int64_t before = ResidentBytes();
    auto s = std::make_unique<ClusterSnapshot>();
    std::vector<std::string> names;
    names.reserve(kNodes);
    for (int i = 0; i < kNodes; ++i) {
      names.push_back("gke-tidepool-pool-" + std::to_string(i % 50) + "-23b55979-" +
                      std::to_string(i));
      (void)s->AddNode(MakeNode(names.back())
                           .Capacity({{"cpu", "32"}, {"memory", "128Gi"}, {"nvidia.com/gpu", "8"}})
                           .Label("cloud.google.com/gke-nodepool", "pool-" + std::to_string(i % 50))
                           .Label("topology.kubernetes.io/zone", kZones[i % 3])
                           .Label("node.kubernetes.io/instance-type", "a2-highgpu-8g")
                           .Label("cloud.google.com/gke-accelerator", "nvidia-tesla-a100")
                           .Taint("nvidia.com/gpu", "present")
                           .Ready()
                           .Ptr());
    }
    const int64_t after_nodes = ResidentBytes();
    for (int i = 0; i < kNodes; ++i) {
      for (int j = 0; j < kPodsPerNode; ++j) {
        PodInfoConstSharedPtr info = MakePodInfo(InformerPod(i, j, names[i], distinct_labels));
        (void)s->AddPod(std::move(info), names[i]);
      }
    }
    const int64_t grown = ResidentBytes() - before;
    const double pods = static_cast<double>(kNodes) * kPodsPerNode;
    state.counters["rss_MB"] = static_cast<double>(grown) / (1 << 20);
    state.counters["bytes_per_node"] = static_cast<double>(after_nodes - before) / kNodes;
    state.counters["bytes_per_pod"] =
        static_cast<double>(ResidentBytes() - after_nodes) / pods;
    state.counters["pods_per_class"] = pods / static_cast<double>(PodInfo::NumLiveClasses());
    state.counters["pods"] = static_cast<double>(s->NumPods());
    state.PauseTiming();
    s.reset();
    state.ResumeTiming();
  }
}

void BM_SnapshotMemory10kNodes300kPods(benchmark::State& state) { SnapshotMemory(state, false); }
BENCHMARK(BM_SnapshotMemory10kNodes300kPods)->Iterations(1)->Unit(benchmark::kMillisecond);

// The worst case: no two pods share a class.
void BM_SnapshotMemory10kNodes300kPodsDistinctLabels(benchmark::State& state) {
  SnapshotMemory(state, true);
}
BENCHMARK(BM_SnapshotMemory10kNodes300kPodsDistinctLabels)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tidepool::scheduler

BENCHMARK_MAIN();
