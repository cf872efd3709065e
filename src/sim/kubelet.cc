#include "sim/kubelet.h"

#include <utility>

namespace tidepool::sim {

Kubelet::Kubelet(std::string node_name, Store& store, TimerService& timers,
                 KubeletOptions options)
    : store_(store), pods_(std::move(node_name), *this, timers, options) {}

void Kubelet::OnPodChange(const PodChange& change) {
  using Change = kubelet::PodLifecycle::Change;
  const Change c = change.type == ChangeType::kAdded      ? Change::kAdded
                   : change.type == ChangeType::kModified ? Change::kModified
                                                          : Change::kDeleted;
  pods_.OnPod(c, change.pod.pod);
}

const PodRecord* Kubelet::GetPod(const std::string& key) const { return store_.GetPod(key); }

void Kubelet::UpdatePodStatus(const std::string& key, api::PodStatus status,
                              std::vector<ContainerStatus> containers) {
  (void)store_.UpdatePodStatus(key, std::move(status), std::move(containers));
}

void Kubelet::Event(const api::Pod& pod, const std::string& node, std::string_view type,
                    std::string_view reason, std::string message) {
  store_.RecordEvent(RefOf(pod), type, reason, std::move(message), EventSource{"kubelet", node});
}

void Kubelet::RemovePod(const std::string& key) { (void)store_.RemovePod(key); }

}  // namespace tidepool::sim
