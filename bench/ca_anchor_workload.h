// File: ca_anchor_workload.h
//
// The Cluster Autoscaler benchmark anchor's workload (../shared/reference/anchors-and-data.md
// §8), rebuilt exactly, for the benchmarks that compare with CA 1.31.5 (autoscaler_bench,
// loop_bench): its node groups, their nodes, and its pending pods (one ReplicaSet per kind, so
// each kind is one equivalence group; GPU request = limit; GPU pods tolerate nvidia.com/gpu).
#pragma once

#include <string>

#include "api/node.h"
#include "api/pod.h"
#include "testing/builders.h"

namespace tidepool::bench {

struct GroupSpec {
  const char* name;
  const char* cpu;
  const char* memory;
  int gpus;
  const char* accel;  // "" for cpu-only
};

// The single-group case, and the five-group mix.
inline constexpr GroupSpec kSingle[] = {{"gpu-1x", "4", "15Gi", 1, "t4"}};
inline constexpr GroupSpec kFive[] = {{"t4-x1", "4", "15Gi", 1, "t4"},
                                      {"t4-x4", "48", "180Gi", 4, "t4"},
                                      {"a100-x1", "12", "85Gi", 1, "a100"},
                                      {"a100-x8", "96", "680Gi", 8, "a100"},
                                      {"cpu-only", "8", "32Gi", 0, ""}};

// A node of group `g`: capacity = allocatable, zone-a, instance-type = the group; GPU nodes with
// the accelerator labels and the nvidia.com/gpu=present:NoSchedule taint.
inline api::Node AnchorNode(const GroupSpec& g, const std::string& name) {
  auto b = testing::MakeNode(name)
               .Label("topology.kubernetes.io/zone", "zone-a")
               .Label("node.kubernetes.io/instance-type", g.name);
  if (g.gpus > 0) {
    b.Capacity({{"cpu", g.cpu}, {"memory", g.memory}, {"nvidia.com/gpu", std::to_string(g.gpus)}})
        .Label("accel", g.accel)
        .Label("cloud.google.com/gke-accelerator", g.accel)
        .Taint("nvidia.com/gpu", "present");
  } else {
    b.Capacity({{"cpu", g.cpu}, {"memory", g.memory}});
  }
  return b.Obj();
}

// Pending pod `i` of `kind`.
inline api::Pod AnchorPod(const std::string& kind, int i, const char* cpu, const char* mem,
                          int gpus, const char* accel) {
  auto b = testing::MakePod(kind + "-" + std::to_string(i))
               .OwnedBy("ReplicaSet", kind)
               .Req("cpu", cpu)
               .Req("memory", mem);
  if (gpus > 0) {
    b.Req("nvidia.com/gpu", std::to_string(gpus))
        .TolerationExists("nvidia.com/gpu", api::TaintEffect::kNoSchedule);
  }
  if (accel[0] != '\0') {
    b.NodeSelector("accel", accel);
  }
  return b.Obj();
}

// The single-group workload's pod `i`: 500m, 1 GiB, 1 GPU.
inline api::Pod AnchorSinglePod(int i) { return AnchorPod("gpu", i, "500m", "1Gi", 1, ""); }

// The five-group mix of n pods, in order: 40% t4-1, 20% a100-1, 10% a100-8, the rest cpu
// (integer division: n = 10 gives 4/2/1/3).
template <typename F>
void ForEachMixPod(int n, F&& f) {
  const int t4 = n * 4 / 10, a1 = n * 2 / 10, a8 = n / 10, cpu = n - t4 - a1 - a8;
  for (int i = 0; i < t4; ++i) f(AnchorPod("t4-1", i, "1", "4Gi", 1, "t4"));
  for (int i = 0; i < a1; ++i) f(AnchorPod("a100-1", i, "4", "16Gi", 1, "a100"));
  for (int i = 0; i < a8; ++i) f(AnchorPod("a100-8", i, "48", "300Gi", 8, "a100"));
  for (int i = 0; i < cpu; ++i) f(AnchorPod("cpu", i, "2", "4Gi", 0, ""));
}

}  // namespace tidepool::bench
