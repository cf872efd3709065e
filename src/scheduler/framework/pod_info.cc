#include "scheduler/framework/pod_info.h"

#include "api/pod_resources.h"

namespace tidepool::scheduler {

PodInfoConstSharedPtr MakePodInfo(api::PodConstSharedPtr pod) {
  auto info = std::make_shared<PodInfo>();
  info->request = Resource::FromList(api::PodRequests(*pod));
  api::ResourceList non_zero = api::PodRequests(*pod, {.non_missing_defaults = true});
  info->non_zero_milli_cpu = api::Get(non_zero, api::kResourceCpu).MilliValue();
  info->non_zero_memory = api::Get(non_zero, api::kResourceMemory).Value();
  info->fingerprint = api::SchedulingFingerprint(*pod);
  info->pod = std::move(pod);
  return info;
}

}  // namespace tidepool::scheduler
