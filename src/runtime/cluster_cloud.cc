#include "runtime/cluster_cloud.h"

#include <string>
#include <utility>

namespace tidepool::runtime {

namespace emu = cloud::emulated;

std::unique_ptr<emu::EmulatedCloud> NewClusterCloud(const sim::WorldOptions& w, TimerService& queue,
                                                    emu::NodeSink& sink, Random& random,
                                                    log::Logger& log) {
  emu::EmulatedCloudOptions options = w.cloud;
  options.logger = &log;
  return std::make_unique<emu::EmulatedCloud>(w.project, w.cluster, w.zone, queue, sink, random,
                                              std::move(options));
}

Status CreateInitialPools(emu::EmulatedCloud& cloud, const sim::WorldOptions& w) {
  TIDEPOOL_ASSIGN_OR_RETURN(const bool restored, cloud.Restore());
  if (restored) return OkStatus();
  for (const emu::NodePoolSpec& spec : w.node_pools) {
    Status s = cloud.CreateNodePool(spec);
    if (!s.ok()) {
      return Status(s.code(), "node pool \"" + spec.name + "\": " + std::string(s.message()));
    }
  }
  return OkStatus();
}

}  // namespace tidepool::runtime
