// The reason names of scale_down.h; the planner is in planner.cc, the actuator in actuator.cc.
#include "autoscaler/scale_down/scale_down.h"

namespace tidepool::autoscaler::scaledown {

std::string_view UnremovableReasonName(UnremovableReason r) {
  switch (r) {
    case UnremovableReason::kNone:
      return "NoReason";
    case UnremovableReason::kScaleDownDisabledAnnotation:
      return "ScaleDownDisabledAnnotation";
    case UnremovableReason::kNotAutoscaled:
      return "NotAutoscaled";
    case UnremovableReason::kNotUnneededLongEnough:
      return "NotUnneededLongEnough";
    case UnremovableReason::kNotUnreadyLongEnough:
      return "NotUnreadyLongEnough";
    case UnremovableReason::kNodeGroupMinSizeReached:
      return "NodeGroupMinSizeReached";
    case UnremovableReason::kNotUnderutilized:
      return "NotUnderutilized";
    case UnremovableReason::kRecentlyAdded:
      return "RecentlyAdded";
    case UnremovableReason::kBlockedByPod:
      return "BlockedByPod";
    case UnremovableReason::kNoPlaceToMovePods:
      return "NoPlaceToMovePods";
    case UnremovableReason::kUnexpectedError:
      return "UnexpectedError";
  }
  return "Unknown";
}

std::string_view BlockingPodReasonName(BlockingPodReason r) {
  switch (r) {
    case BlockingPodReason::kNone:
      return "NoReason";
    case BlockingPodReason::kControllerNotFound:
      return "ControllerNotFound";
    case BlockingPodReason::kMinReplicasReached:
      return "MinReplicasReached";
    case BlockingPodReason::kNotReplicated:
      return "NotReplicated";
    case BlockingPodReason::kLocalStorageRequested:
      return "LocalStorageRequested";
    case BlockingPodReason::kNotSafeToEvictAnnotation:
      return "NotSafeToEvictAnnotation";
    case BlockingPodReason::kUnmovableKubeSystemPod:
      return "UnmovableKubeSystemPod";
    case BlockingPodReason::kNotEnoughPdb:
      return "NotEnoughPdb";
  }
  return "Unknown";
}

}  // namespace tidepool::autoscaler::scaledown
