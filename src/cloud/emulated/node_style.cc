#include "cloud/emulated/node_style.h"

#include "cloud/emulated/emulated_cloud.h"
#include "common/kube_version.h"

namespace tidepool::cloud::emulated {
namespace {

class GkeStyle final : public NodeStyle {
 public:
  std::string_view ProviderName() const override { return "gke"; }
  std::string_view PoolLabel() const override { return kLabelGkeNodePool; }
  std::string_view GpuLabel() const override { return kLabelGkeAccelerator; }
  bool IsSpot(const api::Labels& labels) const override {
    auto spot = labels.find(std::string(kLabelGkeSpot));
    return spot != labels.end() && spot->second == "true";
  }
  bool TaintsGpuPools() const override { return true; }
  // Ephemeral external IPs, in order from 34.41.0.1 (us-central1 hands out 34.x addresses).
  LoadBalancerIngress LoadBalancer(uint32_t n, std::string_view, std::string_view) const override {
    const uint32_t host = n + 1;
    return {"34.41." + std::to_string((host >> 8) & 255) + "." + std::to_string(host & 255), ""};
  }
  int64_t DefaultDiskGb() const override { return kDefaultBootDiskGb; }
  std::string_view DefaultServiceRange() const override { return "34.118.224.0/20"; }
  std::string DefaultGroupId(std::string_view) const override { return ""; }
  // GKE 1.32.4-gke.1106006's node image.
  NodeSystem System() const override {
    return {"6.6.72+", "Container-Optimized OS from Google", "containerd://1.7.24",
            std::string(kKubeGitVersion)};
  }
  std::string RegionOf(std::string_view zone) const override {
    return EmulatedCloud::RegionOf(zone);
  }
  // A managed instance group's VMs: "<base>-<4 of [a-z0-9]>".
  VmIdentity NewVm(const VmNaming& naming, Random& random,
                   const std::function<bool(std::string_view)>& taken) const override {
    static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    while (true) {
      std::string name = std::string(naming.base) + "-";
      for (int i = 0; i < 4; ++i) name += kAlphabet[random.Uniform(36)];
      if (!taken(name)) {
        return {name, "gce://" + std::string(naming.project) + "/" + std::string(naming.zone) +
                          "/" + name};
      }
    }
  }
  void AddNodeLabels(api::Labels& labels, const NodeFacts& f) const override {
    EmulatedCloud::AddGkeNodeLabels(labels, f.node, f.zone, *f.machine, f.pool, f.spot,
                                    f.accelerator_type);
  }
  std::optional<QuotaUse> QuotaOf(const Catalog& catalog, const MachineType&,
                                  const std::optional<Accelerator>& gpus,
                                  bool spot) const override {
    if (!gpus.has_value()) return std::nullopt;
    const AcceleratorType* type = catalog.FindAcceleratorType(gpus->type);
    if (type == nullptr || type->quota_metric.empty()) return std::nullopt;
    // Spot VMs count against the preemptible quota (GCE).
    return QuotaUse{(spot ? "PREEMPTIBLE_" : "") + type->quota_metric, gpus->count};
  }
  bool QuotaFailsLaunches() const override { return false; }
  InstanceErrorInfo QuotaError(const QuotaUse&, int64_t, bool) const override { return {}; }
  InstanceErrorInfo StockoutError(std::string_view project, std::string_view zone,
                                  const MachineType&, bool) const override {
    // Compute Engine's stockout error, as a managed instance group reports it.
    return {InstanceErrorInfo::Class::kOutOfResources, "ZONE_RESOURCE_POOL_EXHAUSTED",
            "The zone 'projects/" + std::string(project) + "/zones/" + std::string(zone) +
                "' does not have enough resources available to fulfill the request.  Try a "
                "different zone, or try again later."};
  }
  api::ResourceList Capacity(const MachineType& machine, const std::optional<Accelerator>& gpus,
                             int64_t disk_gb) const override {
    return emulated::Capacity(machine, gpus, disk_gb);
  }
  api::ResourceList Allocatable(const MachineType& machine, const std::optional<Accelerator>& gpus,
                                int64_t disk_gb) const override {
    return emulated::Allocatable(machine, gpus, disk_gb);
  }
};

}  // namespace

std::string IpInNodeName(std::string_view node) {
  if (!node.starts_with("ip-")) return "";
  const size_t dot = node.find('.');
  std::string ip(node.substr(3, dot == std::string_view::npos ? std::string_view::npos : dot - 3));
  int dashes = 0;
  for (char& c : ip) {
    if (c == '-') {
      c = '.';
      ++dashes;
    } else if (c < '0' || c > '9') {
      return "";
    }
  }
  return dashes == 3 ? ip : "";
}

const NodeStyle& GkeNodeStyle() {
  static const GkeStyle* const style = new GkeStyle();
  return *style;
}

}  // namespace tidepool::cloud::emulated
