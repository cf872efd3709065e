// File: cluster_cloud.h
//
// The emulated cloud of an emulated cluster, made one way for `tidepool up` and `tidepool
// simulate`: the cloud of `w` (project, cluster, zone, delays, faults, a journal) on `queue`,
// registering its VMs' nodes through `sink`, logging to `log`; then (CreateInitialPools, once
// whatever watches the cloud is registered) the cloud a journal kept comes back
// (EmulatedCloud::Restore, `up --data-dir`) or `w`'s initial node pools are created. The caller
// runs the queue through the warm-up.
#pragma once

#include <memory>

#include "cloud/emulated/emulated_cloud.h"
#include "common/log.h"
#include "common/random.h"
#include "common/status_or.h"
#include "common/timer_service.h"
#include "sim/world_options.h"

namespace tidepool::runtime {

// The cloud of `w` (its `logger` is `log`). Every reference must outlive the cloud.
std::unique_ptr<cloud::emulated::EmulatedCloud> NewClusterCloud(const sim::WorldOptions& w,
                                                                TimerService& queue,
                                                                cloud::emulated::NodeSink& sink,
                                                                Random& random, log::Logger& log);

// The cluster's history: the cloud its journal kept, or else `w`'s initial node pools.
// InvalidArgument naming the pool ("node pool \"p\": ...") when the cloud refuses one; the
// journal's errors as Restore returns them.
Status CreateInitialPools(cloud::emulated::EmulatedCloud& cloud, const sim::WorldOptions& w);

}  // namespace tidepool::runtime
