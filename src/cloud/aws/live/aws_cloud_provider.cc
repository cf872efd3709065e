// File: aws_cloud_provider.cc
#include "cloud/aws/live/aws_cloud_provider.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "api/codec/json_fields.h"
#include "cloud/aws/aws_catalog.h"
#include "cloud/aws/eks_node_style.h"
#include "cloud/emulated/emulated_cloud.h"
#include "common/strings.h"

namespace tidepool::cloud::aws::live {
namespace {

namespace emu = cloud::emulated;
using api::codec::JsonAt;
using api::codec::JsonStr;
using json = nlohmann::json;
using Asg = AwsCloudProvider::Asg;
using AsgInstance = AwsCloudProvider::AsgInstance;

constexpr char kPlaceholderPrefix[] = "i-placeholder";
constexpr char kTemplateLabelTag[] = "k8s.io/cluster-autoscaler/node-template/label/";
constexpr char kTemplateTaintTag[] = "k8s.io/cluster-autoscaler/node-template/taint/";
constexpr char kTemplateResourceTag[] = "k8s.io/cluster-autoscaler/node-template/resources/";
constexpr Duration kInstanceTypeTtl = std::chrono::minutes(20);  // CA's asgInstanceTypeCache
constexpr Duration kNodegroupTtl = std::chrono::minutes(6);      // CA's managedNodegroupCache
constexpr size_t kMaxRecords = 100;  // CA's maxRecordsReturnedByAPI, maxAsgNamesPerDescribe
constexpr int kMaxPages = 1000;      // 100,000 groups per selector
constexpr int kMaxPlaceholders = 10000;  // per group, whatever DesiredCapacity says

// An EC2 instance id ("i-" and hex), not a node name such as EC2's resource-based
// "i-0abc....us-west-2.compute.internal".
bool IsInstanceId(std::string_view s) {
  return s.size() > 2 && s.starts_with("i-") &&
         s.find_first_not_of("0123456789abcdef", 2) == std::string_view::npos;
}

int ToInt(const std::string& s) {
  try {
    return std::stoi(s);
  } catch (...) {
    return 0;
  }
}

Asg ParseAsg(const XmlNode& g) {
  Asg a;
  a.name = g.Text({"AutoScalingGroupName"});
  a.min = ToInt(g.Text({"MinSize"}));
  a.max = ToInt(g.Text({"MaxSize"}));
  a.desired = ToInt(g.Text({"DesiredCapacity"}));
  for (const XmlNode* z : g.List({"AvailabilityZones"})) a.zones.push_back(z->text);
  for (const XmlNode* i : g.List({"Instances"})) {
    a.instances.push_back({i->Text({"InstanceId"}), i->Text({"AvailabilityZone"}),
                           i->Text({"LifecycleState"}), false});
  }
  for (const XmlNode* t : g.List({"Tags"})) a.tags[t->Text({"Key"})] = t->Text({"Value"});
  a.launch_configuration = g.Text({"LaunchConfigurationName"});
  if (const XmlNode* lt = g.Child("LaunchTemplate"); lt != nullptr) {
    a.template_name = lt->Text({"LaunchTemplateName"});
    a.template_version = lt->Text({"Version"});
  } else if (const XmlNode* mip = g.Find({"MixedInstancesPolicy", "LaunchTemplate"})) {
    a.template_name = mip->Text({"LaunchTemplateSpecification", "LaunchTemplateName"});
    a.template_version = mip->Text({"LaunchTemplateSpecification", "Version"});
    for (const XmlNode* o : mip->List({"Overrides"})) {
      if (std::string type = o->Text({"InstanceType"}); !type.empty()) {
        a.override_types.push_back(type);
      }
    }
  }
  return a;
}

// An accelerator type named as CA's AWS GPU types are ("nvidia-tesla-t4") from EC2's GPU name.
std::string AcceleratorName(std::string_view manufacturer, std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::map<std::string, std::string, std::less<>> kTesla = {
      {"k80", "nvidia-tesla-k80"},   {"m60", "nvidia-tesla-m60"}, {"p100", "nvidia-tesla-p100"},
      {"v100", "nvidia-tesla-v100"}, {"t4", "nvidia-tesla-t4"},   {"a100", "nvidia-tesla-a100"}};
  if (auto it = kTesla.find(name); it != kTesla.end()) return it->second;
  std::string vendor(manufacturer);
  std::transform(vendor.begin(), vendor.end(), vendor.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return (vendor.empty() ? "nvidia" : vendor) + "-" + name;
}

}  // namespace

std::vector<std::string> AwsProviderActions() {
  return {"autoscaling:DescribeAutoScalingGroups",
          "autoscaling:DescribeLaunchConfigurations",
          "autoscaling:DescribeScalingActivities",
          "autoscaling:SetDesiredCapacity",
          "autoscaling:TerminateInstanceInAutoScalingGroup",
          "ec2:DescribeInstanceTypes",
          "ec2:DescribeInstances",
          "ec2:DescribeLaunchTemplateVersions",
          "eks:DescribeNodegroup"};
}

// ---- Auto-discovery --------------------------------------------------------------------------

StatusOr<std::map<std::string, std::string>> ParseAsgAutoDiscovery(
    const std::vector<std::string>& specs) {
  std::map<std::string, std::string> tags;
  for (const std::string& spec : specs) {
    // CA: parseASGAutoDiscoverySpec.
    const size_t colon = spec.find(':');
    if (colon == std::string::npos) {
      return InvalidArgumentError(
          "invalid node group auto discovery spec specified via --node-group-auto-discovery: " +
          spec);
    }
    const std::string discoverer = spec.substr(0, colon);
    if (discoverer != "asg") {
      return InvalidArgumentError("unsupported discoverer specified: " + discoverer);
    }
    const std::string param = spec.substr(colon + 1);
    const size_t eq = param.find('=');
    if (eq == std::string::npos) return InvalidArgumentError("invalid key=value pair " + param);
    const std::string key = param.substr(0, eq);
    if (key != "tag") {
      return InvalidArgumentError("unsupported parameter key \"" + key +
                                  "\" is specified for discoverer \"asg\". The only supported "
                                  "key is \"tag\"");
    }
    const std::string value = param.substr(eq + 1);
    if (value.empty()) return InvalidArgumentError("tag value not supplied");
    for (const std::string& item : SplitString(value, ',')) {
      const size_t e = item.find('=');
      const std::string k = item.substr(0, e);
      if (k.empty()) {
        return InvalidArgumentError(
            "invalid ASG tag for auto discovery specified: ASG tag must not be empty");
      }
      tags[k] = e == std::string::npos ? "" : item.substr(e + 1);
    }
  }
  return tags;
}

// ---- AwsNodeGroup ------------------------------------------------------------------------------

int AwsNodeGroup::MinSize() const {
  const auto* a = provider_.Find(asg_);
  return a == nullptr ? 0 : a->min;
}
int AwsNodeGroup::MaxSize() const {
  const auto* a = provider_.Find(asg_);
  return a == nullptr ? 0 : a->max;
}
StatusOr<int> AwsNodeGroup::TargetSize() const {
  const auto* a = provider_.Find(asg_);
  if (a == nullptr) return NotFoundError("ASG " + asg_ + " not found");
  return a->desired;
}
Status AwsNodeGroup::IncreaseSize(int delta) { return provider_.IncreaseSize(asg_, delta); }
Status AwsNodeGroup::DeleteNodes(const std::vector<std::string>& names) {
  return provider_.DeleteNodes(asg_, names);
}
Status AwsNodeGroup::DecreaseTargetSize(int delta) {
  return provider_.DecreaseTargetSize(asg_, delta);
}
StatusOr<std::vector<Instance>> AwsNodeGroup::Nodes() const { return provider_.Instances(asg_); }
StatusOr<api::Node> AwsNodeGroup::TemplateNode() const { return provider_.TemplateNode(asg_); }
std::string AwsNodeGroup::Debug() const {
  // CA's AwsNodeGroup.Debug: "%s (%d:%d)".
  return asg_ + " (" + std::to_string(MinSize()) + ":" + std::to_string(MaxSize()) + ")";
}

// ---- AwsCloudProvider --------------------------------------------------------------------------

int AwsCloudProvider::Asg::Real() const {
  return static_cast<int>(std::count_if(instances.begin(), instances.end(),
                                        [](const AsgInstance& i) { return !i.placeholder; }));
}

AwsCloudProvider::AwsCloudProvider(AwsProviderOptions options, AwsClient& client,
                                   const Clock& clock)
    : options_(std::move(options)), client_(client), clock_(clock) {}

AwsCloudProvider::~AwsCloudProvider() = default;

void AwsCloudProvider::Log(const std::string& msg) const {
  if (options_.logger != nullptr) options_.logger->Info(msg);
}

void AwsCloudProvider::WarnOnce(const std::string& key, const std::string& msg) const {
  if (options_.logger != nullptr && warned_.insert(key).second) options_.logger->Warning(msg);
}

const Asg* AwsCloudProvider::Find(const std::string& name) const {
  auto it = std::lower_bound(asgs_.begin(), asgs_.end(), name,
                             [](const Asg& a, const std::string& n) { return a.name < n; });
  return it != asgs_.end() && it->name == name ? &*it : nullptr;
}

Asg* AwsCloudProvider::FindMutable(const std::string& name) { return const_cast<Asg*>(Find(name)); }

std::vector<NodeGroup*> AwsCloudProvider::NodeGroups() {
  std::vector<NodeGroup*> out;
  for (const Asg& a : asgs_) {
    auto& g = groups_[a.name];
    if (!g) g = std::make_unique<AwsNodeGroup>(*this, a.name);
    out.push_back(g.get());
  }
  return out;
}

NodeGroup* AwsCloudProvider::NodeGroupForNode(const api::Node& node) {
  auto it = asg_by_provider_id_.find(node.spec.provider_id);
  if (it == asg_by_provider_id_.end()) return nullptr;
  auto& g = groups_[it->second];
  if (!g) g = std::make_unique<AwsNodeGroup>(*this, it->second);
  return g.get();
}

std::string AwsCloudProvider::GpuLabel() const { return std::string(kLabelAwsGpu); }

std::optional<GpuConfig> AwsCloudProvider::GetNodeGpuConfig(const api::Node& node) const {
  return NodeGpuConfigByLabel(node, kLabelAwsGpu);
}

std::vector<std::string> AwsCloudProvider::AvailableGpuTypes() const {
  // CA's AWS provider: GetAvailableGPUTypes.
  return {"nvidia-a10g",      "nvidia-l4",         "nvidia-l40s",     "nvidia-tesla-a100",
          "nvidia-tesla-k80", "nvidia-tesla-p100", "nvidia-tesla-t4", "nvidia-tesla-v100"};
}

StatusOr<std::vector<Asg>> AwsCloudProvider::Describe(const QueryParams& selector) const {
  std::vector<Asg> out;
  std::string next;
  int pages = 0;
  do {
    QueryParams params = selector;
    params.emplace_back("MaxRecords", std::to_string(kMaxRecords));
    if (!next.empty()) params.emplace_back("NextToken", next);
    TIDEPOOL_ASSIGN_OR_RETURN(
        XmlNode r, client_.Query(AwsService::kAutoScaling, "DescribeAutoScalingGroups", params));
    for (const XmlNode* g : r.List({"DescribeAutoScalingGroupsResult", "AutoScalingGroups"})) {
      out.push_back(ParseAsg(*g));
    }
    std::string token = r.Text({"DescribeAutoScalingGroupsResult", "NextToken"});
    if (token == next || ++pages >= kMaxPages) break;  // a token that does not move on
    next = std::move(token);
  } while (!next.empty());
  return out;
}

StatusOr<std::vector<Asg>> AwsCloudProvider::FetchGroups() {
  std::vector<Asg> groups;
  // Named groups, 100 names per call; the flag's limits win.
  for (size_t i = 0; i < options_.node_groups.size(); i += kMaxRecords) {
    QueryParams names;
    for (size_t j = i; j < std::min(options_.node_groups.size(), i + kMaxRecords); ++j) {
      names.emplace_back("AutoScalingGroupNames.member." + std::to_string(j - i + 1),
                         options_.node_groups[j].name);
    }
    TIDEPOOL_ASSIGN_OR_RETURN(std::vector<Asg> found, Describe(names));
    for (const NodeGroupSpec& spec : options_.node_groups) {
      auto it = std::find_if(found.begin(), found.end(),
                             [&](const Asg& a) { return a.name == spec.name; });
      if (it == found.end()) continue;
      it->min = spec.min_size;
      it->max = spec.max_size;
    }
    for (Asg& a : found) groups.push_back(std::move(a));
  }
  for (const NodeGroupSpec& spec : options_.node_groups) {
    if (std::none_of(groups.begin(), groups.end(),
                     [&](const Asg& a) { return a.name == spec.name; })) {
      WarnOnce("nodes/" + spec.name, "ASG " + spec.name + " of --nodes not found: skipped");
    }
  }
  // Discovered groups: every tag ANDed (CA: getAutoscalingGroupsByTags).
  if (!options_.discovery.empty()) {
    QueryParams filters;
    int n = 0;
    for (const auto& [key, value] : options_.discovery) {
      const std::string base = "Filters.member." + std::to_string(++n) + ".";
      filters.emplace_back(base + "Name", value.empty() ? "tag-key" : "tag:" + key);
      filters.emplace_back(base + "Values.member.1", value.empty() ? key : value);
    }
    TIDEPOOL_ASSIGN_OR_RETURN(std::vector<Asg> found, Describe(filters));
    for (Asg& a : found) {
      if (std::none_of(groups.begin(), groups.end(),
                       [&](const Asg& g) { return g.name == a.name; })) {
        groups.push_back(std::move(a));
      }
    }
  }
  std::sort(groups.begin(), groups.end(),
            [](const Asg& a, const Asg& b) { return a.name < b.name; });
  return groups;
}

StatusOr<bool> AwsCloudProvider::Unfulfillable(const Asg& asg) const {
  // CA: isNodeGroupAvailable - the first page, in AWS's order (newest first), down to the last
  // size change of this provider.
  TIDEPOOL_ASSIGN_OR_RETURN(XmlNode r,
                            client_.Query(AwsService::kAutoScaling, "DescribeScalingActivities",
                                          {{"AutoScalingGroupName", asg.name}}));
  TimePoint since{};
  if (auto it = last_size_change_.find(asg.name); it != last_size_change_.end()) {
    since = it->second;
  }
  for (const XmlNode* a : r.List({"DescribeScalingActivitiesResult", "Activities"})) {
    StatusOr<TimePoint> start = ParseRfc3339(a->Text({"StartTime"}));
    if (start.ok() && *start < since) break;
    if (a->Text({"StatusCode"}) == "Failed") {
      Log("ASG " + asg.name + " scaling failed with " + a->Text({"StatusMessage"}));
      return true;
    }
  }
  return false;
}

Status AwsCloudProvider::Refresh() {
  TIDEPOOL_ASSIGN_OR_RETURN(std::vector<Asg> groups, FetchGroups());
  for (Asg& a : groups) {
    if (!Find(a.name)) Log("Registering ASG " + a.name);
    const int real = a.Real();
    if (a.desired > real && !a.zones.empty()) {
      // CA: createPlaceholdersForDesiredNonStartedInstances.
      StatusOr<bool> failed = Unfulfillable(a);
      if (!failed.ok()) {
        Log("Could not check instance availability, creating placeholder node anyways: " +
            std::string(failed.status().message()));
      } else if (*failed) {
        a.unfulfillable = true;
        Log("Instance group " + a.name + " cannot provision any more nodes!");
      }
      const int upto = std::min(a.desired, real + kMaxPlaceholders);
      for (int i = real; i < upto; ++i) {
        a.instances.push_back(
            {std::string(kPlaceholderPrefix) + "-" + a.name + "-" + std::to_string(i),
             a.zones.front(), "", true});
      }
    }
  }
  for (const Asg& a : asgs_) {
    if (std::none_of(groups.begin(), groups.end(),
                     [&](const Asg& g) { return g.name == a.name; })) {
      Log("Unregistered ASG " + a.name);
    }
  }
  asgs_ = std::move(groups);
  asg_by_provider_id_.clear();
  for (const Asg& a : asgs_) {
    for (const AsgInstance& i : a.instances) asg_by_provider_id_[i.ProviderId()] = a.name;
  }
  return OkStatus();
}

Status AwsCloudProvider::SetDesired(Asg& asg, int size) {
  // CA: setAsgSizeNoLock.
  const TimePoint start = clock_.Now();
  Log("Setting asg " + asg.name + " size to " + std::to_string(size));
  TIDEPOOL_RETURN_IF_ERROR(client_
                               .Query(AwsService::kAutoScaling, "SetDesiredCapacity",
                                      {{"AutoScalingGroupName", asg.name},
                                       {"DesiredCapacity", std::to_string(size)},
                                       {"HonorCooldown", "false"}})
                               .status());
  last_size_change_[asg.name] = start;
  asg.desired = size;
  return OkStatus();
}

Status AwsCloudProvider::IncreaseSize(const std::string& name, int delta) {
  Asg* a = FindMutable(name);
  if (a == nullptr) return NotFoundError("ASG " + name + " not found");
  if (delta <= 0) return InvalidArgumentError("size increase must be positive");
  if (a->desired + delta > a->max) {
    return InvalidArgumentError(
        "size increase too large - desired:" + std::to_string(a->desired + delta) +
        " max:" + std::to_string(a->max));
  }
  return SetDesired(*a, a->desired + delta);
}

Status AwsCloudProvider::DecreaseTargetSize(const std::string& name, int delta) {
  Asg* a = FindMutable(name);
  if (a == nullptr) return NotFoundError("ASG " + name + " not found");
  if (delta >= 0) return InvalidArgumentError("size decrease size must be negative");
  if (a->desired + delta < a->Real()) {
    return FailedPreconditionError(
        "attempt to delete existing nodes targetSize:" + std::to_string(a->desired) +
        " delta:" + std::to_string(delta) + " existingNodes: " + std::to_string(a->Real()));
  }
  return SetDesired(*a, a->desired + delta);
}

StatusOr<std::map<std::string, std::string>> AwsCloudProvider::InstanceIdsOfNodeNames(
    const std::vector<std::string>& names) const {
  std::map<std::string, std::string> ids;
  if (names.empty()) return ids;
  QueryParams params = {{"Filter.1.Name", "private-dns-name"}};
  for (size_t i = 0; i < names.size(); ++i) {
    params.emplace_back("Filter.1.Value." + std::to_string(i + 1), names[i]);
  }
  TIDEPOOL_ASSIGN_OR_RETURN(XmlNode r,
                            client_.Query(AwsService::kEc2, "DescribeInstances", params));
  for (const XmlNode* res : r.List({"reservationSet"})) {
    for (const XmlNode* inst : res->List({"instancesSet"})) {
      ids[inst->Text({"privateDnsName"})] = inst->Text({"instanceId"});
    }
  }
  return ids;
}

Status AwsCloudProvider::DeleteNodes(const std::string& name,
                                     const std::vector<std::string>& names) {
  Asg* a = FindMutable(name);
  if (a == nullptr) return NotFoundError("ASG " + name + " not found");
  if (a->desired <= a->min) {
    return FailedPreconditionError("min size reached, nodes will not be deleted");
  }
  // Instance ids: from provider ids, as given, or by the node's private DNS name.
  std::vector<std::string> ids, dns_names;
  for (const std::string& n : names) {
    if (n.starts_with("aws:///")) {
      ids.push_back(InstanceIdOf(n));
    } else if (IsInstanceId(n)) {
      ids.push_back(n);
    } else {
      dns_names.push_back(n);
    }
  }
  TIDEPOOL_ASSIGN_OR_RETURN(auto by_dns, InstanceIdsOfNodeNames(dns_names));
  for (const std::string& n : dns_names) {
    auto it = by_dns.find(n);
    if (it == by_dns.end()) return NotFoundError(n + " doesn't belong to a known asg");
    ids.push_back(it->second);
  }
  std::vector<const AsgInstance*> targets;
  for (const std::string& id : ids) {
    auto in = std::find_if(a->instances.begin(), a->instances.end(),
                           [&](const AsgInstance& i) { return i.id == id; });
    if (in != a->instances.end()) {
      targets.push_back(&*in);
      continue;
    }
    for (const Asg& other : asgs_) {
      for (const AsgInstance& i : other.instances) {
        if (i.id == id) {
          return InvalidArgumentError(id + " belongs to a different asg than " + name);
        }
      }
    }
    return NotFoundError(id + " doesn't belong to a known asg");
  }
  // Placeholders: back to the real instances (CA: DeleteInstances).
  if (std::any_of(targets.begin(), targets.end(),
                  [](const AsgInstance* i) { return i->placeholder; })) {
    Log("Detected placeholder instance(s) in ASG " + name);
    TIDEPOOL_RETURN_IF_ERROR(SetDesired(*a, a->Real()));
  }
  for (const AsgInstance* i : targets) {
    if (i->placeholder) continue;
    if (i->lifecycle.starts_with("Terminat")) {
      Log("instance " + i->id + " is already terminating in state " + i->lifecycle +
          ", will skip instead");
      continue;
    }
    TIDEPOOL_RETURN_IF_ERROR(
        client_
            .Query(AwsService::kAutoScaling, "TerminateInstanceInAutoScalingGroup",
                   {{"InstanceId", i->id}, {"ShouldDecrementDesiredCapacity", "true"}})
            .status());
    a->desired = std::max(0, a->desired - 1);
    last_size_change_[name] = clock_.Now();
  }
  return OkStatus();
}

StatusOr<std::vector<Instance>> AwsCloudProvider::Instances(const std::string& name) const {
  const Asg* a = Find(name);
  if (a == nullptr) return NotFoundError("ASG " + name + " not found");
  std::vector<Instance> out;
  for (const AsgInstance& i : a->instances) {
    Instance inst;
    inst.id = i.ProviderId();
    if (i.placeholder || i.lifecycle.starts_with("Pending")) {
      inst.state = InstanceState::kCreating;
    } else if (i.lifecycle.starts_with("Terminat")) {
      inst.state = InstanceState::kDeleting;
    } else {
      inst.state = InstanceState::kRunning;
    }
    if (i.placeholder && a->unfulfillable) {
      inst.error = InstanceErrorInfo{InstanceErrorInfo::Class::kOutOfResources,
                                     "placeholder-cannot-be-fulfilled",
                                     "AWS cannot provision any more instances for this node group"};
    }
    out.push_back(std::move(inst));
  }
  return out;
}

StatusOr<std::string> AwsCloudProvider::InstanceType(const Asg& a) const {
  if (!a.launch_configuration.empty()) {
    TIDEPOOL_ASSIGN_OR_RETURN(
        XmlNode r, client_.Query(AwsService::kAutoScaling, "DescribeLaunchConfigurations",
                                 {{"LaunchConfigurationNames.member.1", a.launch_configuration}}));
    for (const XmlNode* lc :
         r.List({"DescribeLaunchConfigurationsResult", "LaunchConfigurations"})) {
      return lc->Text({"InstanceType"});
    }
    return NotFoundError("could not find instance type for " + a.name);
  }
  if (!a.override_types.empty()) return a.override_types.front();
  if (a.template_name.empty()) return NotFoundError("could not find instance type for " + a.name);
  TIDEPOOL_ASSIGN_OR_RETURN(
      XmlNode r, client_.Query(AwsService::kEc2, "DescribeLaunchTemplateVersions",
                               {{"LaunchTemplateName", a.template_name},
                                {"LaunchTemplateVersion.1",
                                 a.template_version.empty() ? "$Default" : a.template_version}}));
  std::vector<const XmlNode*> versions = r.List({"launchTemplateVersionSet"});
  if (versions.empty()) {
    return NotFoundError("unable to find template versions for launch template " + a.template_name);
  }
  std::string type = versions.front()->Text({"launchTemplateData", "instanceType"});
  if (type.empty()) return NotFoundError("unable to find instance type using launch template");
  return type;
}

StatusOr<emu::MachineType> AwsCloudProvider::Shape(const std::string& type) const {
  if (const emu::MachineType* m = options_.catalog.FindMachineType(type)) return *m;
  const TimePoint now = clock_.Now();
  if (auto it = types_.find(type);
      it != types_.end() && now - it->second.fetched < kInstanceTypeTtl) {
    return it->second.machine;
  }
  TIDEPOOL_ASSIGN_OR_RETURN(XmlNode r, client_.Query(AwsService::kEc2, "DescribeInstanceTypes",
                                                     {{"InstanceType.1", type}}));
  std::vector<const XmlNode*> types = r.List({"instanceTypeSet"});
  if (types.empty()) {
    return NotFoundError("uses the unknown EC2 instance type \"" + type + "\"");
  }
  const XmlNode& t = *types.front();
  emu::MachineType m;
  m.name = type;
  m.family = type.substr(0, type.find('.'));
  m.vcpus = ToInt(t.Text({"vCpuInfo", "defaultVCpus"}));
  m.memory_mib = ToInt(t.Text({"memoryInfo", "sizeInMiB"}));
  // The EKS AMI's max pods with the VPC CNI's defaults: ENIs x (IPv4 addresses per ENI - 1) + 2.
  const int enis = ToInt(t.Text({"networkInfo", "maximumNetworkInterfaces"}));
  const int ips = ToInt(t.Text({"networkInfo", "ipv4AddressesPerInterface"}));
  if (enis > 0 && ips > 1) m.max_pods = enis * (ips - 1) + 2;
  std::vector<const XmlNode*> archs = t.List({"processorInfo", "supportedArchitectures"});
  const std::string arch =
      !archs.empty() && archs.front()->text == "arm64" ? "arm64" : "amd64";  // CA's reading
  for (const XmlNode* g : t.List({"gpuInfo", "gpus"})) {
    m.builtin_accelerator = AcceleratorName(g->Text({"manufacturer"}), g->Text({"name"}));
    m.builtin_accelerator_count += ToInt(g->Text({"count"}));
  }
  types_[type] = CachedType{m, arch, now};
  return m;
}

StatusOr<AwsCloudProvider::CachedNodegroup> AwsCloudProvider::Nodegroup(const Asg& a) const {
  auto cluster = a.tags.find("eks:cluster-name");
  auto ng = a.tags.find("eks:nodegroup-name");
  if (cluster == a.tags.end() || ng == a.tags.end()) return CachedNodegroup{};
  const std::string key = cluster->second + "/" + ng->second;
  const TimePoint now = clock_.Now();
  if (auto it = nodegroups_.find(key);
      it != nodegroups_.end() && now - it->second.fetched < kNodegroupTtl) {
    return it->second;
  }
  CachedNodegroup out;
  out.fetched = now;
  StatusOr<std::string> body =
      client_.Eks("GET", "/clusters/" + cluster->second + "/node-groups/" + ng->second);
  if (!body.ok()) {
    // CA caches the failure and builds the node without the node group's details.
    WarnOnce("nodegroup/" + key,
             "Failed to query the managed nodegroup " + ng->second + " for the cluster " +
                 cluster->second +
                 " while looking for labels/taints/tags: " + std::string(body.status().message()));
    nodegroups_[key] = out;
    return out;
  }
  // Members of another type read as absent (api/codec/json_fields.h): a reply of any shape
  // never throws.
  const json j = json::parse(*body, nullptr, false);
  const json& n = JsonAt(j, "nodegroup");
  auto strings = [&](const char* member, std::map<std::string, std::string>& into) {
    const json& m = JsonAt(n, member);
    if (!m.is_object()) return;
    for (const auto& [k, v] : m.items()) {
      if (v.is_string()) into[k] = v.get<std::string>();
    }
  };
  strings("labels", out.labels);
  strings("tags", out.tags);
  if (const json& taints = JsonAt(n, "taints"); taints.is_array()) {
    for (const json& t : taints) {
      std::optional<api::TaintEffect> effect = ParseEksEffect(JsonStr(t, "effect"));
      if (!effect) {
        return InvalidArgumentError("couldn't translate EKS DescribeNodegroup response taint " +
                                    t.dump() + " into Kubernetes format");
      }
      out.taints.push_back(
          api::Taint{JsonStr(t, "key"), JsonStr(t, "value"), *effect, std::nullopt});
    }
  }
  out.spot = JsonStr(n, "capacityType") == "SPOT";
  if (const json& disk = JsonAt(n, "diskSize"); disk.is_number_integer()) {
    out.disk_gb = disk.get<int64_t>();
  }
  nodegroups_[key] = out;
  return out;
}

StatusOr<api::Node> AwsCloudProvider::TemplateNode(const std::string& name) const {
  const Asg* a = Find(name);
  if (a == nullptr) return NotFoundError("ASG " + name + " not found");
  if (a->zones.empty()) {
    return FailedPreconditionError("unable to get first AvailabilityZone for ASG \"" + name + "\"");
  }
  StatusOr<std::string> type = InstanceType(*a);
  if (!type.ok()) {
    return Status(type.status().code(), "could not get instance type for " + name + ": " +
                                            std::string(type.status().message()));
  }
  StatusOr<emu::MachineType> machine = Shape(*type);
  if (!machine.ok()) {
    return NotFoundError("ASG \"" + name + "\" uses the unknown EC2 instance type \"" + *type +
                         "\"");
  }
  TIDEPOOL_ASSIGN_OR_RETURN(const CachedNodegroup ng, Nodegroup(*a));
  auto described = types_.find(*type);

  emu::EmulatedCloud::TemplateSpec spec;
  spec.name = "template-node-for-" + name;
  spec.zone = a->zones.front();
  spec.machine = &*machine;
  if (!machine->builtin_accelerator.empty() && machine->builtin_accelerator_count > 0) {
    spec.gpus = emu::Accelerator{machine->builtin_accelerator, machine->builtin_accelerator_count};
  }
  spec.spot = ng.spot;
  spec.disk_gb = ng.disk_gb;
  // Labels: the ASG's template tags, then the node group's (CA lets EKS's win).
  std::map<std::string, std::string> resources;
  for (const auto& [k, v] : a->tags) {
    if (k.starts_with(kTemplateLabelTag)) {
      if (k.size() > sizeof(kTemplateLabelTag) - 1) {
        spec.labels[k.substr(sizeof(kTemplateLabelTag) - 1)] = v;
      }
    } else if (k.starts_with(kTemplateTaintTag)) {
      // "value:Effect" (CA: extractTaintsFromAsg).
      const size_t colon = v.find(':');
      if (colon == std::string::npos) continue;
      StatusOr<api::TaintEffect> effect = api::ParseTaintEffect(v.substr(colon + 1));
      if (!effect.ok()) continue;
      spec.taints.push_back(api::Taint{k.substr(sizeof(kTemplateTaintTag) - 1), v.substr(0, colon),
                                       *effect, std::nullopt});
    } else if (k.starts_with(kTemplateResourceTag)) {
      resources[k.substr(sizeof(kTemplateResourceTag) - 1)] = v;
    }
  }
  for (const auto& [k, v] : ng.labels) spec.labels[k] = v;
  for (const api::Taint& t : ng.taints) spec.taints.push_back(t);
  for (const auto& [k, v] : ng.tags) {
    if (k.starts_with(kTemplateResourceTag))
      resources[k.substr(sizeof(kTemplateResourceTag) - 1)] = v;
  }
  auto ng_name = a->tags.find("eks:nodegroup-name");
  spec.pool = ng_name != a->tags.end() ? ng_name->second : name;

  api::Node node =
      emu::EmulatedCloud::BuildTemplateNode(EksNodeStyle(), options_.catalog, spec, clock_.Now());
  if (described != types_.end() && described->second.arch != "amd64") {
    for (const char* l : {"kubernetes.io/arch", "beta.kubernetes.io/arch"}) {
      node.meta.labels[l] = described->second.arch;
    }
  }
  if (ng_name == a->tags.end()) {
    // A self-managed group: EKS's node group labels are not on its nodes.
    for (std::string_view l :
         {kLabelEksNodegroup, kLabelEksCapacityType, kLabelEksNodegroupImage}) {
      if (spec.labels.count(std::string(l)) == 0) node.meta.labels.erase(std::string(l));
    }
  }
  for (const auto& [r, v] : resources) {
    StatusOr<api::Quantity> q = api::Quantity::Parse(v);
    if (!q.ok()) continue;  // CA skips what it cannot parse
    node.status.capacity[r] = *q;
    node.status.allocatable[r] = *q;
  }
  return node;
}

}  // namespace tidepool::cloud::aws::live
