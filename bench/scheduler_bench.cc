// Scheduling throughput and snapshot fork/revert, as issue 2 asks:
//   BM_ScheduleGpuPods      1-GPU pods tolerating nvidia.com/gpu=present:NoSchedule onto 5,000
//                           nodes of mixed pools (tainted 1-, 4- and 8-GPU pools and CPU-only
//                           nodes, three zones), binding each into the snapshot;
//   BM_UnschedulableGpuPod  the failure path: full diagnosis, preemption check and the
//                           FailedScheduling message over the same 5,000 nodes;
//   BM_SnapshotForkRevert   Fork + add one pod + Revert at 15,000 nodes x 30 pods.
// Results and the exact command: bench/README.md.
#include <benchmark/benchmark.h>

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
// way the runtimes hold them: one shared api::Pod + PodInfo per pod, one api::Node per node.
// Reported as counters (bytes per node and per pod, whole-process RSS growth), not time.
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

void BM_SnapshotMemory10kNodes300kPods(benchmark::State& state) {
  for (auto _ : state) {
    const int64_t before = ResidentBytes();
    auto s = std::make_unique<ClusterSnapshot>();
    for (int i = 0; i < 10000; ++i) {
      std::string name = "gke-tidepool-pool-" + std::to_string(i);
      (void)s->AddNode(MakeNode(name)
                           .Capacity({{"cpu", "32"}, {"memory", "128Gi"}, {"nvidia.com/gpu", "8"}})
                           .Label("cloud.google.com/gke-nodepool", "pool-" + std::to_string(i % 50))
                           .Label("topology.kubernetes.io/zone", kZones[i % 3])
                           .Taint("nvidia.com/gpu", "present")
                           .Ptr());
      for (int j = 0; j < 30; ++j) {
        auto pod = MakePod("job-" + std::to_string(i) + "-" + std::to_string(j))
                       .OwnedBy("ReplicaSet", "job-" + std::to_string(i % 1000))
                       .Req("cpu", "500m")
                       .Req("memory", "1Gi")
                       .Ptr();
        (void)s->AddPod(MakePodInfo(pod), name);
      }
    }
    const int64_t grown = ResidentBytes() - before;
    state.counters["rss_MB"] = static_cast<double>(grown) / (1 << 20);
    state.counters["bytes_per_pod"] = static_cast<double>(grown) / 300000;
    state.PauseTiming();
    s.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_SnapshotMemory10kNodes300kPods)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tidepool::scheduler

BENCHMARK_MAIN();
