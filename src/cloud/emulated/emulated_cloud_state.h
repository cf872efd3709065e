// File: emulated_cloud_state.h
//
// The emulated cloud's state, one Pool per node pool and one Vm per instance: private to
// EmulatedCloud (emulated_cloud.cc runs it, emulated_cloud_journal.cc writes it to and reads it
// from a CloudJournal). Not part of any interface; include only from those two files.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cloud/emulated/emulated_cloud.h"

namespace tidepool::cloud::emulated {

struct EmulatedCloud::Vm {
  std::string name;
  std::string pool;
  std::string zone;
  std::string provider_id;
  uint64_t seq = 0;
  VmStatus status = VmStatus::kProvisioning;
  bool registered = false;
  bool ready = false;
  bool gpu_ready = false;
  // Faults decided when the instance was requested.
  bool never_registers = false;
  bool driver_never_ready = false;
  // Its launch was over a quota that fails launches (NodeStyle::QuotaFailsLaunches).
  bool over_quota = false;
  std::optional<InstanceErrorInfo> error;
  TimePoint requested_at;
  TimePoint registered_at;
  TimePoint ready_at;
  // The pending lifecycle step (null = none) and when it is due: what a restart resumes.
  Step step = nullptr;
  TimePoint step_due;
  // Its token (0 = none) and timer.
  uint64_t token = 0;
  TimerService::TimerId timer = 0;
  bool timer_pending = false;
};

struct EmulatedCloud::Pool {
  NodePoolSpec spec;
  std::optional<Accelerator> accelerator;
  const MachineType* machine = nullptr;  // into options_.catalog, which never changes
  NodePoolStatus status = NodePoolStatus::kProvisioning;
  std::string prefix;                  // "gke-<cluster>-<pool>"
  std::vector<std::string> hashes;     // per zone, in zone order
  std::vector<std::string> instances;  // in creation order
  // Instances not stopping, per zone (the target size is their sum; PickZone's counts), kept by
  // EmulatedCloud::CountLive wherever an instance is added, starts stopping or is erased.
  std::map<std::string, int, std::less<>> live_by_zone;
  bool deleting = false;
  // The GKE operation in progress (create or resize): the instances it waits for.
  std::set<std::string> settling;
  int op_total = 0;
  int op_failed = 0;
};

}  // namespace tidepool::cloud::emulated
