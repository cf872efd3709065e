#include "cloud/aws/eks_node_style.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "cloud/emulated/emulated_cloud.h"
#include "common/fnv.h"
#include "common/strings.h"

namespace tidepool::cloud::aws {
namespace {

namespace emu = cloud::emulated;
constexpr int64_t kMiB = 1LL << 20;
constexpr int64_t kGiB = 1LL << 30;
// The kubelet's max pods when the instance type's ENI limit is unknown.
constexpr int kDefaultMaxPods = 110;

int MaxPods(const emu::MachineType& machine) {
  return machine.max_pods > 0 ? machine.max_pods : kDefaultMaxPods;
}

// "usw2" for "us-west-2", "use1" for "us-east-1", "euc1" for "eu-central-1".
std::string RegionAbbreviation(std::string_view region) {
  std::string out;
  const std::vector<std::string> parts = SplitString(region, '-');
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    if (part.empty()) continue;
    if (std::isdigit(static_cast<unsigned char>(part.front()))) {
      out += part;
    } else {
      out += i == 0 ? part.substr(0, 2) : part.substr(0, 1);
    }
  }
  return out;
}

class EksStyle final : public emu::NodeStyle {
 public:
  std::string_view ProviderName() const override { return "aws"; }
  std::string_view PoolLabel() const override { return kLabelEksNodegroup; }
  std::string_view GpuLabel() const override { return kLabelAwsGpu; }
  bool IsSpot(const api::Labels& labels) const override {
    auto c = labels.find(std::string(kLabelEksCapacityType));
    return c != labels.end() && c->second == "SPOT";
  }
  bool TaintsGpuPools() const override { return false; }
  int64_t DefaultDiskGb() const override { return 20; }  // EKS's diskSize default
  std::string_view DefaultServiceRange() const override { return "10.100.0.0/16"; }
  // The AWS cloud provider's classic ELB: named "a" + the Service's uid without dashes (32
  // characters), its DNS name "<name>-<10 digits>.<region>.elb.amazonaws.com".
  LoadBalancerIngress LoadBalancer(uint32_t, std::string_view uid,
                                   std::string_view region) const override {
    std::string name = "a";
    for (char c : uid) {
      if (c != '-' && name.size() < 32) name += c;
    }
    const uint64_t digits = 1000000000ULL + Fnv1a64(uid) % 9000000000ULL;
    return {"",
            name + "-" + std::to_string(digits) + "." + std::string(region) + ".elb.amazonaws.com"};
  }
  // An EKS-optimised Amazon Linux 2023 AMI for 1.32 (release 1.32.3-20250519).
  emu::NodeSystem System() const override {
    return {"6.1.134-152.225.amzn2023.x86_64", "Amazon Linux 2023.7.20250512",
            "containerd://1.7.27", "v1.32.3-eks-473151a"};
  }
  std::string DefaultGroupId(std::string_view pool) const override {
    return "eks-" + std::string(pool) + "-" + DerivedUuid(pool);
  }
  std::string RegionOf(std::string_view zone) const override { return AwsRegionOf(zone); }

  emu::VmIdentity NewVm(const emu::VmNaming& naming, Random& random,
                        const std::function<bool(std::string_view)>& taken) const override {
    const std::string suffix = PrivateDnsSuffix(AwsRegionOf(naming.zone));
    while (true) {
      // A /16 VPC (10.0.0.0/16); host parts .1-.254.
      const uint64_t a = random.Uniform(256);
      const uint64_t b = 1 + random.Uniform(254);
      std::string name = "ip-10-0-" + std::to_string(a) + "-" + std::to_string(b) + "." + suffix;
      if (taken(name)) continue;
      char id[20];
      std::snprintf(id, sizeof(id), "i-0%016llx", static_cast<unsigned long long>(random.Next()));
      return {name, "aws:///" + std::string(naming.zone) + "/" + id};
    }
  }

  void AddNodeLabels(api::Labels& l, const emu::NodeFacts& f) const override {
    const std::string region = AwsRegionOf(f.zone);
    l[std::string(api::kLabelHostname)] = f.node;
    l["kubernetes.io/arch"] = "amd64";
    l["kubernetes.io/os"] = "linux";
    l["beta.kubernetes.io/arch"] = "amd64";
    l["beta.kubernetes.io/os"] = "linux";
    l[std::string(emu::kLabelInstanceType)] = f.machine->name;
    l["beta.kubernetes.io/instance-type"] = f.machine->name;
    l[std::string(emu::kLabelZone)] = f.zone;
    l[std::string(emu::kLabelRegion)] = region;
    l["failure-domain.beta.kubernetes.io/zone"] = f.zone;
    l["failure-domain.beta.kubernetes.io/region"] = region;
    const char letter = f.zone.empty() ? 'a' : f.zone.back();
    l[std::string(kLabelAwsZoneId)] =
        RegionAbbreviation(region) + "-az" + std::to_string(std::max(1, letter - 'a' + 1));
    l[std::string(kLabelEksNodegroup)] = f.pool;
    l[std::string(kLabelEksCapacityType)] = f.spot ? "SPOT" : "ON_DEMAND";
    // The EKS-optimised AMI (an emulated ID: GPU and standard images differ).
    l[std::string(kLabelEksNodegroupImage)] = EksAmiId(!f.accelerator_type.empty());
  }

  // EC2's vCPU-based On-Demand and Spot quotas by instance bucket (Service Quotas codes).
  std::optional<emu::QuotaUse> QuotaOf(const emu::Catalog&, const emu::MachineType& machine,
                                       const std::optional<emu::Accelerator>&,
                                       bool spot) const override {
    const std::string& f = machine.family;
    const bool gvt = !f.empty() && (f[0] == 'g' || f.starts_with("vt"));
    const bool p = !f.empty() && f[0] == 'p';
    const char* code = gvt ? (spot ? "L-3819A6DF" : "L-DB2E81BA")
                       : p ? (spot ? "L-7212CCBC" : "L-417A185B")
                           : (spot ? "L-34B43A08" : "L-1216C47A");
    return emu::QuotaUse{code, machine.vcpus};
  }
  bool QuotaFailsLaunches() const override { return true; }
  InstanceErrorInfo QuotaError(const emu::QuotaUse&, int64_t limit, bool spot) const override {
    // EC2's text, as an Auto Scaling group's failed launch reports it.
    return {InstanceErrorInfo::Class::kOutOfResources, "placeholder-cannot-be-fulfilled",
            std::string("Could not launch ") + (spot ? "Spot" : "On-Demand") +
                " Instances. VcpuLimitExceeded - You have requested more vCPU capacity than your "
                "current vCPU limit of " +
                std::to_string(limit) +
                " allows for the instance bucket that the specified instance type belongs to. "
                "Please visit http://aws.amazon.com/contact-us/ec2-request to request an "
                "adjustment to this limit. Launching EC2 instance failed."};
  }
  InstanceErrorInfo StockoutError(std::string_view, std::string_view zone,
                                  const emu::MachineType& machine, bool spot) const override {
    // EC2's texts, as an Auto Scaling group's failed launch activity reports them; CA's AWS
    // provider reports such an instance as a placeholder that cannot be fulfilled.
    std::string message;
    if (spot) {
      message =
          "Could not launch Spot Instances. InsufficientInstanceCapacity - There is no "
          "Spot capacity available that matches your request. Launching EC2 instance "
          "failed.";
    } else {
      std::string others;
      const std::string region = AwsRegionOf(zone);
      for (const char* letter : {"a", "b", "c", "d"}) {
        const std::string z = region + letter;
        if (z != zone) others += (others.empty() ? "" : ", ") + z;
      }
      message =
          "Could not launch On-Demand Instances. InsufficientInstanceCapacity - We "
          "currently do not have sufficient " +
          machine.name + " capacity in the Availability Zone you requested (" + std::string(zone) +
          "). Our system will be working on provisioning additional capacity. You can "
          "currently get " +
          machine.name +
          " capacity by not specifying an Availability Zone in your request or choosing " + others +
          ". Launching EC2 instance failed.";
    }
    return {InstanceErrorInfo::Class::kOutOfResources, "placeholder-cannot-be-fulfilled", message};
  }

  api::ResourceList Capacity(const emu::MachineType& machine,
                             const std::optional<emu::Accelerator>& gpus,
                             int64_t disk_gb) const override {
    using api::Quantity;
    using api::QuantityFormat;
    api::ResourceList r;
    r[std::string(api::kResourceCpu)] =
        Quantity::FromInt(machine.vcpus, QuantityFormat::kDecimalSI);
    r[std::string(api::kResourceMemory)] =
        Quantity::FromInt(machine.memory_mib * kMiB, QuantityFormat::kBinarySI);
    r[std::string(api::kResourcePods)] =
        Quantity::FromInt(MaxPods(machine), QuantityFormat::kDecimalSI);
    r[std::string(api::kResourceEphemeralStorage)] =
        Quantity::FromInt(disk_gb * kGiB, QuantityFormat::kBinarySI);
    if (gpus.has_value() && gpus->count > 0) {
      r[std::string(api::kResourceNvidiaGpu)] =
          Quantity::FromInt(gpus->Advertised(), QuantityFormat::kDecimalSI);
    }
    return r;
  }

  api::ResourceList Allocatable(const emu::MachineType& machine,
                                const std::optional<emu::Accelerator>& gpus,
                                int64_t disk_gb) const override {
    using api::Quantity;
    using api::QuantityFormat;
    api::ResourceList r = Capacity(machine, gpus, disk_gb);
    emu::MachineType dedicated = machine;
    dedicated.shared_core = false;  // the EKS AMI's formula has no shared-core case
    r[std::string(api::kResourceCpu)] =
        Quantity::FromMilli(int64_t{machine.vcpus} * 1000 - emu::GkeReservedCpuMillis(dedicated),
                            QuantityFormat::kDecimalSI);
    const int64_t reserved = (11LL * MaxPods(machine) + 255) * kMiB + 100 * kMiB;
    r[std::string(api::kResourceMemory)] = Quantity::FromInt(
        std::max<int64_t>(machine.memory_mib * kMiB - reserved, 0), QuantityFormat::kBinarySI);
    const int64_t disk = disk_gb * kGiB;
    r[std::string(api::kResourceEphemeralStorage)] =
        Quantity::FromInt(std::max<int64_t>(disk - kGiB - disk / 10, 0), QuantityFormat::kBinarySI);
    return r;
  }
};

}  // namespace

const emu::NodeStyle& EksNodeStyle() {
  static const EksStyle* const style = new EksStyle();
  return *style;
}

std::string DerivedUuid(std::string_view name) {
  // FNV-1a of the name and of the salted name, as a version-4-shaped UUID.
  const uint64_t a = Fnv1a64(name);
  const uint64_t b = Fnv1a64(std::string(name) + "/asg");
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-4%03x-8%03x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0x0fff),
                static_cast<unsigned>((b >> 48) & 0x0fff),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string AwsRegionOf(std::string_view zone) {
  size_t end = zone.size();
  while (end > 0 && zone[end - 1] >= 'a' && zone[end - 1] <= 'z') --end;
  return std::string(zone.substr(0, end));
}

std::string InstanceIdOf(std::string_view provider_id) {
  constexpr std::string_view kPrefix = "aws:///";
  if (!provider_id.starts_with(kPrefix)) return "";
  const size_t slash = provider_id.find('/', kPrefix.size());
  return slash == std::string_view::npos ? "" : std::string(provider_id.substr(slash + 1));
}

std::string PrivateDnsSuffix(std::string_view region) {
  return region == "us-east-1" ? "ec2.internal" : std::string(region) + ".compute.internal";
}

std::string EksAmiId(bool gpu) { return gpu ? "ami-0a9b8c7d6e5f40312" : "ami-0e1d2c3b4a5968778"; }

std::string_view EksEffect(api::TaintEffect e) {
  switch (e) {
    case api::TaintEffect::kNoSchedule:
      return "NO_SCHEDULE";
    case api::TaintEffect::kPreferNoSchedule:
      return "PREFER_NO_SCHEDULE";
    case api::TaintEffect::kNoExecute:
      return "NO_EXECUTE";
    case api::TaintEffect::kNone:
      break;
  }
  return "NO_SCHEDULE";
}

std::optional<api::TaintEffect> ParseEksEffect(std::string_view e) {
  if (e == "NO_SCHEDULE") return api::TaintEffect::kNoSchedule;
  if (e == "PREFER_NO_SCHEDULE") return api::TaintEffect::kPreferNoSchedule;
  if (e == "NO_EXECUTE") return api::TaintEffect::kNoExecute;
  return std::nullopt;
}

}  // namespace tidepool::cloud::aws
