// Scheduling throughput and snapshot fork/revert, as issue 2 asks:
//   BM_ScheduleGpuPods      1-GPU pods tolerating nvidia.com/gpu=present:NoSchedule onto 5,000
//                           nodes of mixed pools (tainted 1-, 4- and 8-GPU pools and CPU-only
//                           nodes, three zones), binding each into the snapshot;
//   BM_UnschedulableGpuPod  the failure path: full diagnosis, preemption check and the
//                           FailedScheduling message over the same 5,000 nodes;
//   BM_SnapshotForkRevert   Fork + add one pod + Revert at 15,000 nodes x 30 pods.
//   BM_AddInformerNodes     AddNode of 10,000 GKE-like nodes into an empty snapshot.
// And memory (issue 3, anchors B5): BM_SnapshotMemory* (10,000 nodes + 300,000 pods, RSS) and
// BM_NodeMemoryBreakdown (malloc'd bytes per node), one process per variant.
// Results and the exact command: bench/README.md.
#include <benchmark/benchmark.h>
#include <malloc.h>

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
// requests and limits, nodeName, phase Running, five conditions with their times, startTime),
// turned into a PodInfo and added; the api::Pod is then dropped, as the informer cache and the
// snapshot keep only PodInfos. Every node is an api::Node as NodeFromJson decodes a GKE node
// (InformerNode below: 19-20 labels, six annotations, providerID, capacity and allocatable,
// the GPU taint, eight conditions with times), added to the snapshot and then dropped, so that
// what is counted is what the snapshot keeps. Reported as counters (RSS growth per node and per
// pod after building, and the whole growth; malloc'd bytes per node), not time.
// distinct_pod_labels is the worst case for pods, every pod with a label of its own (a
// StatefulSet's pod-name label), so that no two pods share a class; distinct_node_labels the
// worst case for nodes, every node with a label of its own.
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

// Bytes handed out by malloc and not freed (glibc's mallinfo2): unlike RSS, exact, and it
// drops when something is freed.
int64_t HeapBytes() { return static_cast<int64_t>(mallinfo2().uordblks); }

// A node as NodeFromJson decodes a GKE node of a 50-pool cluster over three zones: even pools
// a2-highgpu-8g (8 A100s, the GPU taint, gke-accelerator), odd pools n2-standard-32. What a
// real node object has beyond this (status.addresses, status.nodeInfo, status.images,
// daemonEndpoints, managedFields) is not part of api::Node: the decoder drops it. With
// distinct_labels, every node has a label of its own (no two nodes share a class).
api::Node InformerNode(int i, const std::string& name, bool distinct_labels) {
  const int pool = i % 50;
  const bool gpu = pool % 2 == 0;
  const std::string zone = kZones[i % 3];
  const std::string machine = gpu ? "a2-highgpu-8g" : "n2-standard-32";
  const std::string pool_name = "pool-" + std::to_string(pool);
  api::Node n;
  n.meta.name = name;
  n.meta.uid = FakeUid(5000000000ull + static_cast<uint64_t>(i));
  n.meta.resource_version = std::to_string(200000 + i);
  const TimePoint t0 = TimePoint(std::chrono::seconds(1764400000 + i));
  n.meta.creation_timestamp = t0;
  api::Labels& l = n.meta.labels;
  l["beta.kubernetes.io/arch"] = "amd64";
  l["beta.kubernetes.io/instance-type"] = machine;
  l["beta.kubernetes.io/os"] = "linux";
  if (gpu) {
    l["cloud.google.com/gke-accelerator"] = "nvidia-tesla-a100";
  }
  l["cloud.google.com/gke-boot-disk"] = "pd-balanced";
  l["cloud.google.com/gke-container-runtime"] = "containerd";
  l["cloud.google.com/gke-cpu-scaling-level"] = gpu ? "96" : "32";
  l["cloud.google.com/gke-max-pods-per-node"] = "110";
  l["cloud.google.com/gke-nodepool"] = pool_name;
  l["cloud.google.com/gke-os-distribution"] = "cos";
  l["cloud.google.com/gke-provisioning"] = "standard";
  l["cloud.google.com/machine-family"] = gpu ? "a2" : "n2";
  l["failure-domain.beta.kubernetes.io/region"] = "us-central1";
  l["failure-domain.beta.kubernetes.io/zone"] = zone;
  l["kubernetes.io/arch"] = "amd64";
  l[std::string(api::kLabelHostname)] = name;
  l["kubernetes.io/os"] = "linux";
  l["node.kubernetes.io/instance-type"] = machine;
  l["topology.kubernetes.io/region"] = "us-central1";
  l["topology.kubernetes.io/zone"] = zone;
  if (distinct_labels) {
    l["example.com/serial"] = std::to_string(i);
  }
  auto& a = n.meta.annotations;
  a["container.googleapis.com/instance_id"] = std::to_string(7000000000000000000ull + 7919ull * i);
  a["csi.volume.kubernetes.io/nodeid"] =
      R"({"pd.csi.storage.gke.io":"projects/tidepool-prod/zones/)" + zone + "/instances/" + name +
      R"("})";
  a["node.alpha.kubernetes.io/ttl"] = "0";
  a["node.gke.io/last-applied-node-labels"] =
      "cloud.google.com/gke-boot-disk=pd-balanced,cloud.google.com/gke-container-runtime="
      "containerd,cloud.google.com/gke-cpu-scaling-level=" +
      l["cloud.google.com/gke-cpu-scaling-level"] +
      ",cloud.google.com/gke-max-pods-per-node=110,cloud.google.com/gke-nodepool=" + pool_name +
      ",cloud.google.com/gke-os-distribution=cos,cloud.google.com/machine-family=" +
      l["cloud.google.com/machine-family"];
  a["node.gke.io/last-applied-node-taints"] = gpu ? "nvidia.com/gpu=present:NoSchedule" : "";
  a["volumes.kubernetes.io/controller-managed-attach-detach"] = "true";
  n.spec.provider_id = "gce://tidepool-prod/" + zone + "/" + name;
  if (gpu) {
    n.spec.taints.push_back(
        api::Taint{"nvidia.com/gpu", "present", api::TaintEffect::kNoSchedule, std::nullopt});
    n.status.capacity = testing::Resources({{"cpu", "96"},
                                            {"ephemeral-storage", "98831908Ki"},
                                            {"hugepages-1Gi", "0"},
                                            {"hugepages-2Mi", "0"},
                                            {"memory", "696867516Ki"},
                                            {"nvidia.com/gpu", "8"},
                                            {"pods", "110"}});
    n.status.allocatable = testing::Resources({{"cpu", "95690m"},
                                               {"ephemeral-storage", "47060071478"},
                                               {"hugepages-1Gi", "0"},
                                               {"hugepages-2Mi", "0"},
                                               {"memory", "669574332Ki"},
                                               {"nvidia.com/gpu", "8"},
                                               {"pods", "110"}});
  } else {
    n.status.capacity = testing::Resources({{"cpu", "32"},
                                            {"ephemeral-storage", "98831908Ki"},
                                            {"hugepages-1Gi", "0"},
                                            {"hugepages-2Mi", "0"},
                                            {"memory", "131896380Ki"},
                                            {"pods", "110"}});
    n.status.allocatable = testing::Resources({{"cpu", "31850m"},
                                               {"ephemeral-storage", "47060071478"},
                                               {"hugepages-1Gi", "0"},
                                               {"hugepages-2Mi", "0"},
                                               {"memory", "121395772Ki"},
                                               {"pods", "110"}});
  }
  struct Cond {
    const char* type;
    bool status;
    const char* reason;
    const char* message;
  };
  for (const Cond& c : {
           Cond{"FrequentContainerdRestart", false, "NoFrequentContainerdRestart",
                "containerd is functioning properly"},
           Cond{"KernelDeadlock", false, "KernelHasNoDeadlock", "kernel has no deadlock"},
           Cond{"ReadonlyFilesystem", false, "FilesystemIsNotReadOnly",
                "Filesystem is not read-only"},
           Cond{"NetworkUnavailable", false, "RouteCreated", "NodeController create implicit route"},
           Cond{"MemoryPressure", false, "KubeletHasSufficientMemory",
                "kubelet has sufficient memory available"},
           Cond{"DiskPressure", false, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
           Cond{"PIDPressure", false, "KubeletHasSufficientPID",
                "kubelet has sufficient PID available"},
           Cond{"Ready", true, "KubeletReady", "kubelet is posting ready status"},
       }) {
    api::NodeCondition nc;
    nc.type = c.type;
    nc.status = c.status ? api::ConditionStatus::kTrue : api::ConditionStatus::kFalse;
    nc.reason = c.reason;
    nc.message = c.message;
    nc.last_heartbeat_time = t0 + std::chrono::seconds(3600);
    nc.last_transition_time = t0 + std::chrono::seconds(40);
    n.status.conditions.push_back(std::move(nc));
  }
  return n;
}

std::string InformerNodeName(int i) {
  return "gke-tidepool-pool-" + std::to_string(i % 50) + "-23b55979-" + std::to_string(i);
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

void SnapshotMemory(benchmark::State& state, bool distinct_pod_labels,
                    bool distinct_node_labels) {
  constexpr int kNodes = 10000;
  constexpr int kPodsPerNode = 30;
  for (auto _ : state) {
    const int64_t before = ResidentBytes();
    const int64_t heap_before = HeapBytes();
    auto s = std::make_unique<ClusterSnapshot>();
    std::vector<std::string> names;
    names.reserve(kNodes);
    for (int i = 0; i < kNodes; ++i) {
      names.push_back(InformerNodeName(i));
      (void)s->AddNode(
          std::make_shared<const api::Node>(InformerNode(i, names.back(), distinct_node_labels)));
    }
    const int64_t after_nodes = ResidentBytes();
    const int64_t heap_nodes = HeapBytes() - heap_before;
    for (int i = 0; i < kNodes; ++i) {
      for (int j = 0; j < kPodsPerNode; ++j) {
        PodInfoConstSharedPtr info = MakePodInfo(InformerPod(i, j, names[i], distinct_pod_labels));
        (void)s->AddPod(std::move(info), names[i]);
      }
    }
    const int64_t grown = ResidentBytes() - before;
    const double pods = static_cast<double>(kNodes) * kPodsPerNode;
    state.counters["rss_MB"] = static_cast<double>(grown) / (1 << 20);
    state.counters["bytes_per_node"] = static_cast<double>(after_nodes - before) / kNodes;
    // The names vector (kept by the benchmark, not the snapshot) is included; about 64 B a node.
    state.counters["heap_bytes_per_node"] = static_cast<double>(heap_nodes) / kNodes;
    state.counters["bytes_per_pod"] =
        static_cast<double>(ResidentBytes() - after_nodes) / pods;
    state.counters["pods_per_class"] = pods / static_cast<double>(PodInfo::NumLiveClasses());
    state.counters["node_classes"] = static_cast<double>(s->NumClasses());
    state.counters["pods"] = static_cast<double>(s->NumPods());
    state.PauseTiming();
    s.reset();
    state.ResumeTiming();
  }
}

void BM_SnapshotMemory10kNodes300kPods(benchmark::State& state) {
  SnapshotMemory(state, false, false);
}
BENCHMARK(BM_SnapshotMemory10kNodes300kPods)->Iterations(1)->Unit(benchmark::kMillisecond);

// The worst case for pods: no two pods share a class.
void BM_SnapshotMemory10kNodes300kPodsDistinctLabels(benchmark::State& state) {
  SnapshotMemory(state, true, false);
}
BENCHMARK(BM_SnapshotMemory10kNodes300kPodsDistinctLabels)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// The worst case for nodes: no two nodes share a class.
void BM_SnapshotMemory10kNodes300kPodsDistinctNodeLabels(benchmark::State& state) {
  SnapshotMemory(state, false, true);
}
BENCHMARK(BM_SnapshotMemory10kNodes300kPodsDistinctNodeLabels)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// AddNode of 10,000 informer-decoded nodes (150 shapes) into an empty snapshot: what a new
// snapshot costs to fill with nodes. The api::Nodes are made outside the timed region.
void BM_AddInformerNodes(benchmark::State& state) {
  constexpr int kNodes = 10000;
  std::vector<api::NodeConstSharedPtr> nodes;
  for (int i = 0; i < kNodes; ++i) {
    nodes.push_back(std::make_shared<const api::Node>(InformerNode(i, InformerNodeName(i), false)));
  }
  for (auto _ : state) {
    auto s = std::make_unique<ClusterSnapshot>();
    for (const auto& n : nodes) {
      (void)s->AddNode(n);
    }
    state.PauseTiming();
    s.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kNodes);
}
BENCHMARK(BM_AddInformerNodes)->Unit(benchmark::kMillisecond);

// Where a node's bytes go (malloc'd bytes, exact; no time): the api::Node as decoded, what the
// snapshot adds while sharing it, and what stays once the caller drops its api::Node.
void BM_NodeMemoryBreakdown(benchmark::State& state) {
  constexpr int kNodes = 10000;
  const bool distinct = state.range(0) != 0;
  for (auto _ : state) {
    std::vector<std::string> names;
    names.reserve(kNodes);
    for (int i = 0; i < kNodes; ++i) {
      names.push_back(InformerNodeName(i));
    }
    const int64_t h0 = HeapBytes();
    std::vector<api::NodeConstSharedPtr> nodes;
    nodes.reserve(kNodes);
    for (int i = 0; i < kNodes; ++i) {
      nodes.push_back(std::make_shared<const api::Node>(InformerNode(i, names[i], distinct)));
    }
    const int64_t h1 = HeapBytes();
    auto s = std::make_unique<ClusterSnapshot>();
    for (const auto& n : nodes) {
      (void)s->AddNode(n);
    }
    const int64_t h2 = HeapBytes();
    nodes.clear();
    nodes.shrink_to_fit();
    const int64_t h3 = HeapBytes();
    state.counters["api_node_B"] = static_cast<double>(h1 - h0) / kNodes;
    state.counters["snapshot_adds_B"] = static_cast<double>(h2 - h1) / kNodes;
    state.counters["kept_B"] = static_cast<double>(h3 - h0) / kNodes;
    state.counters["sizeof_NodeInfo"] = sizeof(NodeInfo);
    state.counters["sizeof_api_Node"] = sizeof(api::Node);
    state.counters["node_classes"] = static_cast<double>(s->NumClasses());
    state.PauseTiming();
    s.reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_NodeMemoryBreakdown)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("distinct_labels")
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tidepool::scheduler

BENCHMARK_MAIN();
