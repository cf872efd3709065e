#include "scheduler/scheduler.h"

#include "common/check.h"
#include "scheduler/plugins/registry.h"

namespace tidepool::scheduler {

StatusOr<std::unique_ptr<Scheduler>> Scheduler::Create(const Profile& profile) {
  TIDEPOOL_ASSIGN_OR_RETURN(std::unique_ptr<Framework> fw,
                            Framework::Create(plugins::NewInTreeRegistry(), profile));
  return std::unique_ptr<Scheduler>(new Scheduler(std::move(fw)));
}

ScheduleResult Scheduler::ScheduleOne(const PodInfoConstSharedPtr& pod,
                                      ClusterSnapshot& snapshot) const {
  ScheduleResult r = framework_->Schedule(*pod, snapshot);
  if (r.Scheduled()) {
    Status s = snapshot.AddPod(r.reservation.gpu_indices == 0
                                   ? pod
                                   : pod->WithPlacement(r.node, r.reservation.gpu_indices),
                               r.node);
    TIDEPOOL_CHECK(s.ok());  // the node was just read from this snapshot
  }
  return r;
}

}  // namespace tidepool::scheduler
