#include "cloud/aws/aws_api.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <tuple>

#include "apiserver/http/server.h"
#include "cloud/aws/eks_node_style.h"
#include "common/base64.h"
#include "common/strings.h"

namespace tidepool::cloud::aws {
namespace {

namespace emu = cloud::emulated;
using json = nlohmann::json;

constexpr char kAutoscalingNs[] = "http://autoscaling.amazonaws.com/doc/2011-01-01/";
constexpr char kEc2Ns[] = "http://ec2.amazonaws.com/doc/2016-11-15/";
constexpr char kStsNs[] = "https://sts.amazonaws.com/doc/2011-06-15/";
// EKS's default instance type when a create-nodegroup names none (EKS API reference); the
// default disk is the EKS style's (NodeStyle::DefaultDiskGb).
constexpr char kDefaultInstanceType[] = "t3.medium";
// How many scaling activities of each kind a group keeps (memory stays bounded).
constexpr size_t kActivitiesKept = 50;

// The emulated VPC's subnet i (the cluster's and the node groups' that name none).
std::string SubnetId(size_t i) { return "subnet-0" + std::to_string(i) + "tidepool"; }

// A query parameter that is a whole decimal number (nothing before or after it), else nullopt.
std::optional<long> WholeNumber(const std::string& v) {
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || end == v.c_str() || *end != '\0' || errno == ERANGE) return std::nullopt;
  return n;
}

// EKS's capacity type of a pool.
std::string_view CapacityType(const emu::NodePoolInfo& p) {
  return p.spec.spot ? "SPOT" : "ON_DEMAND";
}

std::string El(std::string_view name, std::string_view text) {
  return "<" + std::string(name) + ">" + XmlEscape(text) + "</" + std::string(name) + ">";
}

// Seconds since the epoch, as EKS returns timestamps.
double EpochSeconds(TimePoint t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

// A form-encoded body (the Query protocols) as parameters.
std::map<std::string, std::string> FormParams(std::string_view body) {
  std::map<std::string, std::string> out;
  for (const std::string& pair : SplitString(body, '&')) {
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    std::string key = apiserver::http::UrlDecode(std::string_view(pair).substr(0, eq), true);
    out[std::move(key)] =
        eq == std::string::npos
            ? ""
            : apiserver::http::UrlDecode(std::string_view(pair).substr(eq + 1), true);
  }
  return out;
}

// Values of a Query list: "<prefix>.1", "<prefix>.2", ... in order.
std::vector<std::string> ListParam(const std::map<std::string, std::string>& p,
                                   const std::string& prefix) {
  std::vector<std::string> out;
  for (int i = 1;; ++i) {
    auto it = p.find(prefix + "." + std::to_string(i));
    if (it == p.end()) return out;
    out.push_back(it->second);
  }
}

struct Filter {
  std::string name;
  std::vector<std::string> values;
};

// "<prefix>.N.Name" with values "<prefix>.N.<values>.M".
std::vector<Filter> Filters(const std::map<std::string, std::string>& p, const std::string& prefix,
                            const std::string& values) {
  std::vector<Filter> out;
  for (int i = 1;; ++i) {
    const std::string base = prefix + "." + std::to_string(i);
    auto name = p.find(base + ".Name");
    if (name == p.end()) return out;
    out.push_back({name->second, ListParam(p, base + "." + values)});
  }
}

bool AnyOf(const std::vector<std::string>& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// An error of one of the protocols.
struct AwsError {
  int status = 400;
  std::string code;
  std::string message;
};

AwsError FromStatus(const Status& s) {
  switch (s.code()) {
    case StatusCode::kNotFound:
      return {404, "ResourceNotFoundException", std::string(s.message())};
    case StatusCode::kAlreadyExists:
      return {409, "ResourceInUseException", std::string(s.message())};
    case StatusCode::kResourceExhausted:
      return {400, "ResourceLimitExceededException", std::string(s.message())};
    default:
      return {400, "InvalidParameterException", std::string(s.message())};
  }
}

// GPU name and memory per GPU (MiB) as EC2's DescribeInstanceTypes reports them.
std::pair<std::string, int64_t> Ec2GpuInfo(std::string_view accelerator) {
  static const std::map<std::string, std::pair<std::string, int64_t>, std::less<>> kGpus = {
      {"nvidia-tesla-t4", {"T4", 16384}},     {"nvidia-a10g", {"A10G", 24576}},
      {"nvidia-l4", {"L4", 24576}},           {"nvidia-l40s", {"L40S", 49152}},
      {"nvidia-tesla-v100", {"V100", 16384}}, {"nvidia-tesla-a100", {"A100", 40960}},
      {"nvidia-a100-80gb", {"A100", 81920}},  {"nvidia-h100", {"H100", 81920}},
      {"nvidia-h200", {"H200", 144384}},
  };
  auto it = kGpus.find(accelerator);
  return it == kGpus.end() ? std::pair<std::string, int64_t>{std::string(accelerator), 0}
                           : it->second;
}

}  // namespace

// ---- Routing ------------------------------------------------------------------------------------

std::string AwsServiceOf(const AwsRequest& r) {
  auto auth = r.headers.find("authorization");
  if (auth != r.headers.end() && auth->second.starts_with("AWS4-HMAC-SHA256")) {
    const size_t cred = auth->second.find("Credential=");
    if (cred != std::string::npos) {
      // AKID/date/region/service/aws4_request
      std::string_view scope(auth->second);
      scope = scope.substr(cred + 11);
      scope = scope.substr(0, scope.find_first_of(", "));
      const std::vector<std::string> parts = SplitString(scope, '/');
      if (parts.size() == 5) return std::string(parts[3]);
    }
  }
  if (r.path == "/clusters" || r.path.starts_with("/clusters/")) return "eks";
  if (r.method == "POST" && r.path == "/") {
    const std::map<std::string, std::string> p = FormParams(r.body);
    auto version = p.find("Version");
    if (version == p.end()) return "";
    if (version->second == "2011-01-01") return "autoscaling";
    if (version->second == "2016-11-15") return "ec2";
    if (version->second == "2011-06-15") return "sts";
  }
  return "";
}

bool IsAwsRequest(std::string_view method, std::string_view path,
                  const std::map<std::string, std::string>& headers) {
  auto auth = headers.find("authorization");
  if (auth != headers.end() && auth->second.starts_with("AWS4-HMAC-SHA256")) return true;
  if (path == "/clusters" || path.starts_with("/clusters/")) return true;
  auto type = headers.find("content-type");
  return method == "POST" && path == "/" && type != headers.end() &&
         type->second.starts_with("application/x-www-form-urlencoded");
}

// ---- State --------------------------------------------------------------------------------------

struct AsgTag {
  std::string key;
  std::string value;
  bool propagate = true;
};

struct Activity {
  std::string id;
  std::string description;
  std::string cause;
  std::string status;  // Successful, Failed, InProgress
  std::string message;
  TimePoint start;
};

struct Update {
  std::string id;
  std::string nodegroup;
  std::string type;
  json params = json::array();
  TimePoint created;
};

struct NodegroupMeta {
  std::string uuid;
  std::string asg;
  TimePoint created;
  TimePoint modified;
  std::vector<std::string> subnets;
  std::vector<std::string> instance_types;
  std::string ami_type = "AL2_x86_64";
  std::string node_role;
  json tags = json::object();
  std::vector<AsgTag> user_tags;  // on the ASG, beyond EKS's
  std::vector<Update> updates;    // the last kActivitiesKept
  std::vector<Activity> activities;  // asked through this API; the last kActivitiesKept
};

// Appends to a bounded history (the oldest goes).
template <typename T>
void Keep(std::vector<T>& list, T item) {
  list.push_back(std::move(item));
  if (list.size() > kActivitiesKept) list.erase(list.begin());
}

struct AwsApi::State {
  gke::GkeControl& control;
  const emu::Catalog& catalog;
  EksClusterInfo cluster;
  const Clock& clock;
  Random random;
  std::map<std::string, NodegroupMeta, std::less<>> meta;
  // The pool's failed launches (AwsApi::failures_).
  std::function<std::vector<AwsApi::FailedLaunch>(const std::string&)> failures;

  State(gke::GkeControl& c, const emu::Catalog& cat, EksClusterInfo info, const Clock& clk,
        uint64_t seed)
      : control(c), catalog(cat), cluster(std::move(info)), clock(clk), random(seed) {}

  std::string Uuid() {
    const uint64_t a = random.Next();
    const uint64_t b = random.Next();
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                  static_cast<unsigned>((a >> 16) & 0xffff),
                  static_cast<unsigned>(0x4000 | (a & 0x0fff)),
                  static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                  static_cast<unsigned long long>(b & 0xffffffffffffULL));
    return buf;
  }

  // The node group's launch template (EKS makes one per node group): "lt-0" + 16 hex.
  static std::string LaunchTemplateId(const NodegroupMeta& m) {
    std::string hex;
    for (char c : m.uuid) {
      if (c != '-' && hex.size() < 16) hex += c;
    }
    return "lt-0" + hex;
  }

  std::string Arn(std::string_view service, std::string_view resource) const {
    return "arn:aws:" + std::string(service) + ":" + cluster.region + ":" + cluster.account + ":" +
           std::string(resource);
  }

  // A pool's EKS metadata; derived from its name when it was not created here.
  NodegroupMeta& MetaOf(const emu::NodePoolInfo& pool) {
    auto it = meta.find(pool.spec.name);
    if (it != meta.end()) return it->second;
    NodegroupMeta m;
    const std::string prefix = "eks-" + pool.spec.name + "-";
    m.asg = pool.spec.group_id.empty() ? prefix + DerivedUuid(pool.spec.name) : pool.spec.group_id;
    m.uuid = m.asg.starts_with(prefix) ? m.asg.substr(prefix.size()) : DerivedUuid(pool.spec.name);
    m.created = m.modified = cluster.created;
    m.instance_types = {pool.spec.machine_type};
    m.ami_type = pool.accelerator.has_value() ? "AL2_x86_64_GPU" : "AL2_x86_64";
    for (size_t i = 0; i < pool.spec.zones.size(); ++i) m.subnets.push_back(SubnetId(i));
    return meta.emplace(pool.spec.name, std::move(m)).first->second;
  }

  std::vector<AsgTag> AsgTags(const std::string& pool, const NodegroupMeta& m) const {
    std::vector<AsgTag> tags = {
        {"eks:cluster-name", cluster.name, true},
        {"eks:nodegroup-name", pool, true},
        {"k8s.io/cluster-autoscaler/enabled", "true", true},
        {"k8s.io/cluster-autoscaler/" + cluster.name, "owned", true},
        {"kubernetes.io/cluster/" + cluster.name, "owned", true},
    };
    for (const AsgTag& t : m.user_tags) {
      auto same =
          std::find_if(tags.begin(), tags.end(), [&](const AsgTag& x) { return x.key == t.key; });
      if (same != tags.end()) {
        *same = t;
      } else {
        tags.push_back(t);
      }
    }
    std::sort(tags.begin(), tags.end(),
              [](const AsgTag& a, const AsgTag& b) { return a.key < b.key; });
    return tags;
  }

  std::vector<std::string> Zones() const {
    if (!cluster.zones.empty()) return cluster.zones;
    return {cluster.region + "a", cluster.region + "b", cluster.region + "c"};
  }

  // The cloud's pools; the metadata of node groups that are gone is dropped (memory stays
  // bounded however many node groups come and go).
  std::vector<emu::NodePoolInfo> Pools() {
    std::vector<emu::NodePoolInfo> pools = control.ListNodePools();
    std::set<std::string, std::less<>> names;
    for (const emu::NodePoolInfo& p : pools) names.insert(p.spec.name);
    std::erase_if(meta, [&](const auto& entry) { return !names.contains(entry.first); });
    return pools;
  }

  // The pool (by node group name) whose ASG is `asg`.
  std::optional<emu::NodePoolInfo> PoolOfAsg(std::string_view asg) {
    for (emu::NodePoolInfo& p : Pools()) {
      if (MetaOf(p).asg == asg) return std::move(p);
    }
    return std::nullopt;
  }
};

AwsApi::AwsApi(gke::GkeControl& control, const emu::Catalog& catalog, EksClusterInfo cluster,
               const Clock& clock, uint64_t seed, SigV4Verifier* verifier)
    : state_(std::make_unique<State>(control, catalog, std::move(cluster), clock, seed)),
      verifier_(verifier) {
  state_->failures = [this](const std::string& pool) {
    std::lock_guard<std::mutex> lock(failures_mu_);
    auto it = failures_.find(pool);
    return it == failures_.end() ? std::vector<FailedLaunch>() : it->second;
  };
}

AwsApi::~AwsApi() = default;

namespace {

// ---- Responses ----------------------------------------------------------------------------------

AwsResponse EksJson(int status, const json& body) {
  return {status, "application/json", {}, body.dump()};
}

AwsResponse EksError(const AwsError& e, std::string_view cluster = "",
                     std::string_view nodegroup = "") {
  json body = {{"message", e.message}};
  if (!cluster.empty()) body["clusterName"] = cluster;
  if (!nodegroup.empty()) body["nodegroupName"] = nodegroup;
  return {e.status, "application/json", {{"x-amzn-ErrorType", e.code}}, body.dump()};
}

AwsResponse QueryXml(std::string_view action, std::string_view ns, const std::string& result,
                     const std::string& request_id) {
  std::string body = "<?xml version=\"1.0\"?>\n<" + std::string(action) + "Response xmlns=\"" +
                     std::string(ns) + "\">";
  if (!result.empty()) {
    body += "<" + std::string(action) + "Result>" + result + "</" + std::string(action) + "Result>";
  }
  body += "<ResponseMetadata><RequestId>" + request_id + "</RequestId></ResponseMetadata></" +
          std::string(action) + "Response>";
  return {200, "text/xml", {}, std::move(body)};
}

AwsResponse QueryError(const AwsError& e, std::string_view ns, const std::string& request_id) {
  return {e.status,
          "text/xml",
          {},
          "<?xml version=\"1.0\"?>\n<ErrorResponse xmlns=\"" + std::string(ns) +
              "\"><Error><Type>Sender</Type>" + El("Code", e.code) + El("Message", e.message) +
              "</Error>" + El("RequestId", request_id) + "</ErrorResponse>"};
}

AwsResponse Ec2Xml(std::string_view action, const std::string& inner,
                   const std::string& request_id) {
  return {200,
          "text/xml;charset=UTF-8",
          {},
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<" + std::string(action) +
              "Response xmlns=\"" + kEc2Ns + "\">" + El("requestId", request_id) + inner + "</" +
              std::string(action) + "Response>"};
}

AwsResponse Ec2Error(const AwsError& e, const std::string& request_id) {
  return {e.status,
          "text/xml;charset=UTF-8",
          {},
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response><Errors><Error>" +
              El("Code", e.code) + El("Message", e.message) + "</Error></Errors>" +
              El("RequestID", request_id) + "</Response>"};
}

}  // namespace

// ---- EKS ----------------------------------------------------------------------------------------

namespace {

std::string NodegroupStatus(const emu::NodePoolInfo& p) {
  if (p.status == emu::NodePoolStatus::kStopping) return "DELETING";
  switch (p.status) {
    case emu::NodePoolStatus::kProvisioning:
      return "CREATING";
    case emu::NodePoolStatus::kError:
      return "DEGRADED";
    default:
      return "ACTIVE";
  }
}

json NodegroupJson(AwsApi::State& s, const emu::NodePoolInfo& p) {
  NodegroupMeta& m = s.MetaOf(p);
  json taints = json::array();
  for (const api::Taint& t : p.spec.taints) {
    json x = {{"key", t.key}, {"effect", EksEffect(t.effect)}};
    if (!t.value.empty()) x["value"] = t.value;
    taints.push_back(std::move(x));
  }
  // EKS's health issue while the group's latest launch failed (a stockout).
  json issues = json::array();
  const std::vector<AwsApi::FailedLaunch> failed = s.failures(p.spec.name);
  if (!failed.empty()) {
    bool launched_since = false;
    for (const gke::VmInfo& v : s.control.ListVms()) {
      launched_since =
          launched_since || (v.instance.node_pool == p.spec.name && !v.instance.error.has_value() &&
                             v.instance.requested_at > failed.back().at);
    }
    if (!launched_since) {
      issues.push_back({{"code", "AsgInstanceLaunchFailures"},
                        {"message", failed.back().message},
                        {"resourceIds", {m.asg}}});
    }
  }
  return {
      {"nodegroupName", p.spec.name},
      {"nodegroupArn",
       s.Arn("eks", "nodegroup/" + s.cluster.name + "/" + p.spec.name + "/" + m.uuid)},
      {"clusterName", s.cluster.name},
      {"version", s.cluster.version},
      {"releaseVersion", s.cluster.version + ".3-20250519"},
      {"createdAt", EpochSeconds(m.created)},
      {"modifiedAt", EpochSeconds(m.modified)},
      {"status", NodegroupStatus(p)},
      {"capacityType", CapacityType(p)},
      {"scalingConfig",
       {{"minSize", p.spec.min_nodes},
        {"maxSize", p.spec.max_nodes},
        {"desiredSize", p.target_size}}},
      {"instanceTypes", m.instance_types},
      {"subnets", m.subnets},
      {"amiType", m.ami_type},
      {"nodeRole", m.node_role.empty() ? "arn:aws:iam::" + s.cluster.account + ":role/tidepool-node"
                                       : m.node_role},
      {"labels", p.spec.labels},
      {"taints", taints},
      {"resources", {{"autoScalingGroups", {{{"name", m.asg}}}}}},
      {"diskSize", p.spec.disk_size_gb},
      {"health", {{"issues", issues}}},
      {"updateConfig", {{"maxUnavailable", 1}}},
      {"tags", m.tags}};
}

json ClusterJson(const AwsApi::State& s) {
  json subnets = json::array();
  for (size_t i = 0; i < s.Zones().size(); ++i) subnets.push_back(SubnetId(i));
  return {{"name", s.cluster.name},
          {"arn", s.Arn("eks", "cluster/" + s.cluster.name)},
          {"createdAt", EpochSeconds(s.cluster.created)},
          {"version", s.cluster.version},
          {"endpoint", s.cluster.endpoint},
          {"roleArn", "arn:aws:iam::" + s.cluster.account + ":role/tidepool-cluster"},
          {"resourcesVpcConfig",
           {{"subnetIds", subnets},
            {"securityGroupIds", json::array()},
            {"clusterSecurityGroupId", "sg-0tidepool"},
            {"vpcId", "vpc-0tidepool"},
            {"endpointPublicAccess", true},
            {"endpointPrivateAccess", false},
            {"publicAccessCidrs", {"0.0.0.0/0"}}}},
          {"kubernetesNetworkConfig",
           {{"serviceIpv4Cidr", s.cluster.service_ipv4_cidr}, {"ipFamily", "ipv4"}}},
          {"status", "ACTIVE"},
          {"certificateAuthority", {{"data", Base64Encode(s.cluster.ca_pem)}}},
          {"platformVersion", s.cluster.platform_version},
          {"tags", json::object()},
          {"accessConfig", {{"authenticationMode", "API_AND_CONFIG_MAP"}}}};
}

std::string NoNodegroup(std::string_view name) {
  // EKS's text.
  return "No node group found for name: " + std::string(name) + ".";
}

StatusOr<json> ParseBody(const std::string& body) {
  if (body.empty()) return json::object();
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return InvalidArgumentError("Invalid request body: not a JSON object");
  }
  return j;
}

// An int field of a JSON object; nullopt when absent; an error when not an integer.
StatusOr<std::optional<int>> IntField(const json& o, const char* key, std::string_view where) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return std::optional<int>();
  if (!it->is_number_integer()) {
    return InvalidArgumentError(std::string(where) + "." + key + " must be an integer");
  }
  const int64_t v = it->get<int64_t>();
  if (v < 0 || v > 100000) {
    return InvalidArgumentError(std::string(where) + "." + key +
                                " is out of range: " + std::to_string(v));
  }
  return std::optional<int>(static_cast<int>(v));
}

// A string member of a JSON object: `def` when absent or null; an error naming it otherwise.
StatusOr<std::string> StringField(const json& o, const char* key, std::string def = "") {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return def;
  if (!it->is_string()) return InvalidArgumentError(std::string(key) + " must be a string");
  return it->get<std::string>();
}

// A node group's scaling config, with EKS's texts for a bad one.
Status CheckScalingConfig(int min, int max, int desired) {
  if (max < 1) {
    return InvalidArgumentError("Maximum capacity " + std::to_string(max) +
                                " can't be less than 1");
  }
  if (min > max) {
    return InvalidArgumentError("Minimum capacity " + std::to_string(min) +
                                " can't be greater than maximum capacity " + std::to_string(max));
  }
  if (desired < min || desired > max) {
    return InvalidArgumentError("Desired capacity:" + std::to_string(desired) +
                                " can't be greater than max size:" + std::to_string(max) +
                                " or less than min size:" + std::to_string(min));
  }
  return OkStatus();
}

StatusOr<std::vector<api::Taint>> ParseTaints(const json& list) {
  std::vector<api::Taint> out;
  if (!list.is_array()) return InvalidArgumentError("taints must be a list");
  for (const json& t : list) {
    if (!t.is_object() || !t.contains("key") || !t["key"].is_string()) {
      return InvalidArgumentError("Taint key is required");
    }
    TIDEPOOL_ASSIGN_OR_RETURN(const std::string effect, StringField(t, "effect"));
    std::optional<api::TaintEffect> e = ParseEksEffect(effect);
    if (!e.has_value()) {
      // EKS's enum: NO_SCHEDULE | NO_EXECUTE | PREFER_NO_SCHEDULE.
      return InvalidArgumentError("Value '" + effect +
                                  "' at 'taints.effect' failed to satisfy constraint: Member "
                                  "must satisfy enum value set: [NO_SCHEDULE, NO_EXECUTE, "
                                  "PREFER_NO_SCHEDULE]");
    }
    api::Taint taint;
    taint.key = t["key"].get<std::string>();
    TIDEPOOL_ASSIGN_OR_RETURN(taint.value, StringField(t, "value"));
    taint.effect = *e;
    out.push_back(std::move(taint));
  }
  return out;
}

StatusOr<api::Labels> ParseLabels(const json& o) {
  api::Labels out;
  if (!o.is_object()) return InvalidArgumentError("labels must be a map");
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (!it.value().is_string()) return InvalidArgumentError("label values must be strings");
    out[it.key()] = it.value().get<std::string>();
  }
  return out;
}

}  // namespace

namespace {

AwsResponse CreateNodegroup(AwsApi::State& s, const std::string& body) {
  StatusOr<json> req = ParseBody(body);
  if (!req.ok())
    return EksError({400, "InvalidParameterException", std::string(req.status().message())});
  const json& r = *req;
  StatusOr<std::string> name_or = StringField(r, "nodegroupName");
  if (!name_or.ok()) return EksError(FromStatus(name_or.status()), s.cluster.name);
  const std::string name = *name_or;
  if (name.empty()) {
    return EksError({400, "InvalidParameterException", "nodegroupName is required"},
                    s.cluster.name);
  }
  for (const emu::NodePoolInfo& p : s.Pools()) {
    if (p.spec.name == name) {
      // EKS's text.
      return EksError(
          {409, "ResourceInUseException",
           "NodeGroup already exists with name " + name + " and cluster name " + s.cluster.name},
          s.cluster.name, name);
    }
  }
  NodegroupMeta m;
  m.uuid = s.Uuid();
  m.asg = "eks-" + name + "-" + m.uuid;
  m.created = m.modified = s.clock.Now();
  std::string capacity_type;
  for (auto [key, target, def] :
       {std::tuple{"nodeRole", &m.node_role, ""}, std::tuple{"amiType", &m.ami_type, "AL2_x86_64"},
        std::tuple{"capacityType", &capacity_type, "ON_DEMAND"}}) {
    StatusOr<std::string> v = StringField(r, key, def);
    if (!v.ok()) return EksError(FromStatus(v.status()), s.cluster.name, name);
    *target = std::move(v).value();
  }
  if (capacity_type != "ON_DEMAND" && capacity_type != "SPOT") {
    return EksError(
        {400, "InvalidParameterException",
         "capacityType " + capacity_type + " is not supported by tidepool (ON_DEMAND, SPOT)"},
        s.cluster.name, name);
  }
  if (r.contains("subnets") && r["subnets"].is_array()) {
    for (const json& x : r["subnets"]) {
      if (x.is_string()) m.subnets.push_back(x.get<std::string>());
    }
  }
  if (m.subnets.empty()) {
    return EksError({400, "InvalidParameterException", "Subnets are required"}, s.cluster.name,
                    name);
  }
  if (r.contains("instanceTypes") && r["instanceTypes"].is_array()) {
    for (const json& x : r["instanceTypes"]) {
      if (x.is_string()) m.instance_types.push_back(x.get<std::string>());
    }
  }
  if (m.instance_types.empty()) m.instance_types.push_back(kDefaultInstanceType);
  StatusOr<std::optional<int>> disk = IntField(r, "diskSize", "nodegroup");
  if (!disk.ok()) return EksError(FromStatus(disk.status()), s.cluster.name, name);
  if (r.contains("tags") && r["tags"].is_object()) m.tags = r["tags"];

  // scalingConfig: EKS's defaults min 1, max 2, desired 2.
  int min = 1;
  int max = 2;
  int desired = 2;
  if (r.contains("scalingConfig")) {
    const json& sc = r["scalingConfig"];
    for (auto [key, target] : {std::pair{"minSize", &min}, std::pair{"maxSize", &max},
                               std::pair{"desiredSize", &desired}}) {
      StatusOr<std::optional<int>> v = IntField(sc, key, "scalingConfig");
      if (!v.ok()) return EksError(FromStatus(v.status()), s.cluster.name, name);
      if (v->has_value()) *target = **v;
    }
  }
  if (Status st = CheckScalingConfig(min, max, desired); !st.ok()) {
    return EksError(FromStatus(st), s.cluster.name, name);
  }

  emu::NodePoolSpec spec;
  spec.name = name;
  spec.machine_type = m.instance_types.front();
  const std::vector<std::string> zones = s.Zones();
  for (size_t i = 0; i < m.subnets.size(); ++i) {
    const std::string& z = zones[i % zones.size()];
    if (std::find(spec.zones.begin(), spec.zones.end(), z) == spec.zones.end()) {
      spec.zones.push_back(z);
    }
  }
  spec.min_nodes = min;
  spec.max_nodes = max;
  spec.autoscaling = true;
  spec.initial_node_count = desired;
  spec.spot = capacity_type == "SPOT";
  spec.disk_size_gb = disk->value_or(0);  // 0: the cloud's default (EKS: 20 GB)
  spec.group_id = m.asg;
  if (r.contains("labels")) {
    StatusOr<api::Labels> labels = ParseLabels(r["labels"]);
    if (!labels.ok()) return EksError(FromStatus(labels.status()), s.cluster.name, name);
    spec.labels = std::move(labels).value();
  }
  if (r.contains("taints")) {
    StatusOr<std::vector<api::Taint>> taints = ParseTaints(r["taints"]);
    if (!taints.ok()) return EksError(FromStatus(taints.status()), s.cluster.name, name);
    spec.taints = std::move(taints).value();
  }
  if (s.catalog.FindMachineType(spec.machine_type) == nullptr) {
    return EksError({400, "InvalidParameterException",
                     "Instance type " + spec.machine_type + " is not supported"},
                    s.cluster.name, name);
  }
  if (Status st = s.control.CreateNodePool(spec); !st.ok()) {
    return EksError(FromStatus(st), s.cluster.name, name);
  }
  s.meta[name] = std::move(m);
  StatusOr<emu::NodePoolInfo> p = s.control.GetNodePool(name);
  if (!p.ok()) return EksError(FromStatus(p.status()), s.cluster.name, name);
  json ng = NodegroupJson(s, *p);
  ng["status"] = "CREATING";  // EKS answers a create with CREATING
  return EksJson(200, {{"nodegroup", ng}});
}

json UpdateJson(const Update& u) {
  return {{"id", u.id},
          {"status", "Successful"},
          {"type", u.type},
          {"params", u.params},
          {"createdAt", EpochSeconds(u.created)},
          {"errors", json::array()}};
}

AwsResponse UpdateNodegroupConfig(AwsApi::State& s, const emu::NodePoolInfo& p,
                                  const std::string& body) {
  StatusOr<json> req = ParseBody(body);
  if (!req.ok()) return EksError(FromStatus(req.status()), s.cluster.name, p.spec.name);
  const json& r = *req;
  Update u;
  u.id = s.Uuid();
  u.nodegroup = p.spec.name;
  u.created = s.clock.Now();
  u.type = "ConfigUpdate";
  if (r.contains("scalingConfig")) {
    int min = p.spec.min_nodes;
    int max = p.spec.max_nodes;
    int desired = p.target_size;
    for (auto [key, target, type] :
         {std::tuple{"minSize", &min, "MinSize"}, std::tuple{"maxSize", &max, "MaxSize"},
          std::tuple{"desiredSize", &desired, "DesiredSize"}}) {
      StatusOr<std::optional<int>> v = IntField(r["scalingConfig"], key, "scalingConfig");
      if (!v.ok()) return EksError(FromStatus(v.status()), s.cluster.name, p.spec.name);
      if (v->has_value()) {
        *target = **v;
        u.params.push_back({{"type", type}, {"value", std::to_string(**v)}});
      }
    }
    if (Status st = CheckScalingConfig(min, max, desired); !st.ok()) {
      return EksError(FromStatus(st), s.cluster.name, p.spec.name);
    }
    if (Status st = s.control.SetAutoscaling(p.spec.name, true, min, max); !st.ok()) {
      return EksError(FromStatus(st), s.cluster.name, p.spec.name);
    }
    if (desired != p.target_size) {
      if (Status st = s.control.SetSize(p.spec.name, desired); !st.ok()) {
        return EksError(FromStatus(st), s.cluster.name, p.spec.name);
      }
    }
  }
  if (r.contains("labels")) {
    const json& l = r["labels"];
    api::Labels labels = p.spec.labels;
    if (l.contains("addOrUpdateLabels")) {
      StatusOr<api::Labels> add = ParseLabels(l["addOrUpdateLabels"]);
      if (!add.ok()) return EksError(FromStatus(add.status()), s.cluster.name, p.spec.name);
      for (auto& [k, v] : *add) labels[k] = v;
      u.params.push_back({{"type", "LabelsToAdd"}, {"value", l["addOrUpdateLabels"].dump()}});
    }
    if (l.contains("removeLabels") && l["removeLabels"].is_array()) {
      for (const json& k : l["removeLabels"]) {
        if (k.is_string()) labels.erase(k.get<std::string>());
      }
      u.params.push_back({{"type", "LabelsToRemove"}, {"value", l["removeLabels"].dump()}});
    }
    if (Status st = s.control.SetLabels(p.spec.name, labels); !st.ok()) {
      return EksError(FromStatus(st), s.cluster.name, p.spec.name);
    }
  }
  if (r.contains("taints")) {
    const json& t = r["taints"];
    std::vector<api::Taint> taints = p.spec.taints;
    if (t.contains("addOrUpdateTaints")) {
      StatusOr<std::vector<api::Taint>> add = ParseTaints(t["addOrUpdateTaints"]);
      if (!add.ok()) return EksError(FromStatus(add.status()), s.cluster.name, p.spec.name);
      for (api::Taint& a : *add) {
        std::erase_if(taints,
                      [&](const api::Taint& x) { return x.key == a.key && x.effect == a.effect; });
        taints.push_back(std::move(a));
      }
      u.params.push_back({{"type", "TaintsToAdd"}, {"value", t["addOrUpdateTaints"].dump()}});
    }
    if (t.contains("removeTaints")) {
      StatusOr<std::vector<api::Taint>> remove = ParseTaints(t["removeTaints"]);
      if (!remove.ok()) return EksError(FromStatus(remove.status()), s.cluster.name, p.spec.name);
      for (const api::Taint& a : *remove) {
        std::erase_if(taints,
                      [&](const api::Taint& x) { return x.key == a.key && x.effect == a.effect; });
      }
      u.params.push_back({{"type", "TaintsToRemove"}, {"value", t["removeTaints"].dump()}});
    }
    if (Status st = s.control.SetTaints(p.spec.name, taints); !st.ok()) {
      return EksError(FromStatus(st), s.cluster.name, p.spec.name);
    }
  }
  NodegroupMeta& m = s.MetaOf(p);
  m.modified = u.created;
  Keep(m.updates, u);
  json out = UpdateJson(u);
  out["status"] = "InProgress";  // as EKS answers the call; describe-update says Successful
  return EksJson(200, {{"update", out}});
}

// Splits "/clusters/C/..." into its segments after "clusters".
std::vector<std::string> Segments(std::string_view path) {
  return path.size() <= 1 ? std::vector<std::string>() : SplitString(path.substr(1), '/');
}

std::string QueryValue(const std::multimap<std::string, std::string>& q, const std::string& k) {
  auto it = q.find(k);
  return it == q.end() ? "" : it->second;
}

AwsResponse HandleEks(AwsApi::State& s, const AwsRequest& r) {
  const std::vector<std::string> seg = Segments(r.path);  // "clusters", C, ...
  if (seg.size() == 1) {
    if (r.method == "GET") return EksJson(200, {{"clusters", {s.cluster.name}}});
    if (r.method == "POST") {
      StatusOr<json> req = ParseBody(r.body);
      const std::string name = req.ok() ? req->value("name", "") : "";
      if (name == s.cluster.name) {
        return EksError(
            {409, "ResourceInUseException", "Cluster already exists with name: " + name}, name);
      }
      return EksError({400, "InvalidRequestException",
                       "tidepool emulates one EKS cluster (" + s.cluster.name +
                           "); create-cluster is not supported"});
    }
  }
  if (seg.empty() || seg[0] != "clusters") {
    return EksError({404, "ResourceNotFoundException", "Unknown path " + r.path});
  }
  const std::string& cluster = seg[1];
  if (cluster != s.cluster.name) {
    // EKS's text.
    return EksError(
        {404, "ResourceNotFoundException", "No cluster found for name: " + cluster + "."}, cluster);
  }
  if (seg.size() == 2) {
    if (r.method == "GET") return EksJson(200, {{"cluster", ClusterJson(s)}});
    if (r.method == "DELETE") {
      return EksError({400, "InvalidRequestException",
                       "tidepool's emulated EKS cluster cannot be deleted; stop tidepool up"},
                      cluster);
    }
  }
  if (seg.size() == 3 && seg[2] == "node-groups") {
    if (r.method == "POST") return CreateNodegroup(s, r.body);
    if (r.method == "GET") {
      json names = json::array();
      for (const emu::NodePoolInfo& p : s.Pools()) names.push_back(p.spec.name);
      return EksJson(200, {{"nodegroups", names}});
    }
  }
  if (seg.size() == 4 && seg[2] == "updates" && r.method == "GET") {
    const std::string ng = QueryValue(r.query, "nodegroupName");
    for (const auto& [name, m] : s.meta) {
      if (!ng.empty() && name != ng) continue;
      for (const Update& u : m.updates) {
        if (u.id == seg[3]) return EksJson(200, {{"update", UpdateJson(u)}});
      }
    }
    return EksError({404, "ResourceNotFoundException", "No update found for ID: " + seg[3] + "."},
                    cluster, ng);
  }
  if (seg.size() >= 4 && seg[2] == "node-groups") {
    const std::string& name = seg[3];
    StatusOr<emu::NodePoolInfo> p = s.control.GetNodePool(name);
    if (!p.ok()) {
      return EksError({404, "ResourceNotFoundException", NoNodegroup(name)}, cluster, name);
    }
    if (seg.size() == 4 && r.method == "GET") {
      return EksJson(200, {{"nodegroup", NodegroupJson(s, *p)}});
    }
    if (seg.size() == 4 && r.method == "DELETE") {
      if (p->status == emu::NodePoolStatus::kStopping) {
        return EksError(
            {409, "ResourceInUseException", "Nodegroup " + name + " is already being deleted"},
            cluster, name);
      }
      if (Status st = s.control.DeleteNodePool(name); !st.ok()) {
        return EksError(FromStatus(st), cluster, name);
      }
      json ng = NodegroupJson(s, *p);
      ng["status"] = "DELETING";
      return EksJson(200, {{"nodegroup", ng}});
    }
    if (seg.size() == 5 && seg[4] == "update-config" && r.method == "POST") {
      return UpdateNodegroupConfig(s, *p, r.body);
    }
    if (seg.size() == 5 && seg[4] == "updates" && r.method == "GET") {
      json ids = json::array();
      for (const Update& u : s.MetaOf(*p).updates) ids.push_back(u.id);
      return EksJson(200, {{"updateIds", ids}});
    }
  }
  return EksError({404, "ResourceNotFoundException",
                   "tidepool's EKS does not serve " + r.method + " " + r.path});
}

// ---- Auto Scaling -------------------------------------------------------------------------------

std::string InstanceState(emu::VmStatus status) {
  switch (status) {
    case emu::VmStatus::kProvisioning:
      return "Pending";
    case emu::VmStatus::kRunning:
      return "InService";
    case emu::VmStatus::kStopping:
      return "Terminating";
    case emu::VmStatus::kFailed:
      return "";
  }
  return "";
}

std::string AsgXml(AwsApi::State& s, const emu::NodePoolInfo& p,
                   const std::vector<gke::VmInfo>& vms) {
  NodegroupMeta& m = s.MetaOf(p);
  std::string x =
      "<member>" + El("AutoScalingGroupName", m.asg) +
      El("AutoScalingGroupARN",
         s.Arn("autoscaling", "autoScalingGroup:" + m.uuid + ":autoScalingGroupName/" + m.asg)) +
      "<MixedInstancesPolicy><LaunchTemplate><LaunchTemplateSpecification>" +
      El("LaunchTemplateId", AwsApi::State::LaunchTemplateId(m)) +
      El("LaunchTemplateName", "eks-" + m.uuid) + El("Version", "1") +
      "</LaunchTemplateSpecification><Overrides>";
  for (const std::string& t : m.instance_types) {
    x += "<member>" + El("InstanceType", t) + "</member>";
  }
  x += "</Overrides></LaunchTemplate><InstancesDistribution>" +
       El("OnDemandAllocationStrategy", "prioritized") + El("OnDemandBaseCapacity", "0") +
       El("OnDemandPercentageAboveBaseCapacity", p.spec.spot ? "0" : "100") +
       El("SpotAllocationStrategy", "capacity-optimized") +
       "</InstancesDistribution></MixedInstancesPolicy>" +
       El("MinSize", std::to_string(p.spec.min_nodes)) +
       El("MaxSize", std::to_string(p.spec.max_nodes)) +
       El("DesiredCapacity", std::to_string(p.target_size)) + El("DefaultCooldown", "300") +
       "<AvailabilityZones>";
  for (const std::string& z : p.spec.zones) x += El("member", z);
  x += "</AvailabilityZones><LoadBalancerNames/><TargetGroupARNs/>" + El("HealthCheckType", "EC2") +
       El("HealthCheckGracePeriod", "15") + "<Instances>";
  for (const gke::VmInfo& v : vms) {
    if (v.instance.node_pool != p.spec.name) continue;
    const std::string state = InstanceState(v.instance.status);
    if (state.empty()) continue;
    x += "<member>" + El("InstanceId", InstanceIdOf(v.instance.provider_id)) +
         El("InstanceType", v.instance.machine_type) + El("AvailabilityZone", v.instance.zone) +
         El("LifecycleState", state) + El("HealthStatus", "Healthy") + "<LaunchTemplate>" +
         El("LaunchTemplateId", AwsApi::State::LaunchTemplateId(m)) +
         El("LaunchTemplateName", "eks-" + m.uuid) + El("Version", "1") + "</LaunchTemplate>" +
         El("ProtectedFromScaleIn", "false") + "</member>";
  }
  x += "</Instances>" + El("CreatedTime", FormatRfc3339(m.created)) + "<SuspendedProcesses/>";
  std::string subnets;
  for (const std::string& sn : m.subnets) subnets += (subnets.empty() ? "" : ",") + sn;
  x += El("VPCZoneIdentifier", subnets) + "<EnabledMetrics/><Tags>";
  for (const AsgTag& t : s.AsgTags(p.spec.name, m)) {
    x += "<member>" + El("ResourceId", m.asg) + El("ResourceType", "auto-scaling-group") +
         El("Key", t.key) + El("Value", t.value) +
         El("PropagateAtLaunch", t.propagate ? "true" : "false") + "</member>";
  }
  x += "</Tags><TerminationPolicies><member>AllocationStrategy</member><member>OldestLaunchTemplate"
       "</member><member>OldestInstance</member></TerminationPolicies>" +
       El("NewInstancesProtectedFromScaleIn", "false") +
       El("ServiceLinkedRoleARN",
          "arn:aws:iam::" + s.cluster.account +
              ":role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling") +
       El("CapacityRebalance", p.spec.spot ? "true" : "false") + "</member>";
  return x;
}

bool TagFiltersMatch(const std::vector<Filter>& filters, const std::vector<AsgTag>& tags) {
  for (const Filter& f : filters) {
    bool any = false;
    for (const AsgTag& t : tags) {
      if (f.name == "tag-key") any = any || AnyOf(f.values, t.key);
      if (f.name == "tag-value") any = any || AnyOf(f.values, t.value);
      if (f.name.starts_with("tag:")) {
        any = any || (t.key == f.name.substr(4) && AnyOf(f.values, t.value));
      }
    }
    if (!any) return false;
  }
  return true;
}

// An Activity's fields (the content of its element).
std::string ActivityFields(const NodegroupMeta& m, const Activity& a) {
  return El("ActivityId", a.id) + El("AutoScalingGroupName", m.asg) +
         El("Description", a.description) + El("Cause", a.cause) +
         El("StartTime", FormatRfc3339Millis(a.start)) +
         El("EndTime", FormatRfc3339Millis(a.start)) + El("StatusCode", a.status) +
         (a.message.empty() ? "" : El("StatusMessage", a.message)) +
         El("Progress", a.status == "InProgress" ? "0" : "100");
}

// Auto Scaling's text for a group name it does not know.
std::string AsgNotFound(const std::string& name) {
  return "AutoScalingGroup name not found - AutoScalingGroup '" + name + "' not found";
}

// Auto Scaling's cause of a launch at `at`.
std::string LaunchCause(TimePoint at) {
  return "At " + FormatRfc3339(at) +
         " an instance was started in response to a difference between desired and actual "
         "capacity, increasing the capacity.";
}

Activity NewActivity(AwsApi::State& s, std::string description, std::string cause) {
  return {s.Uuid(), std::move(description), std::move(cause), "Successful", "", s.clock.Now()};
}

// One Auto Scaling call: its parameters and what every action needs.
struct QueryCall {
  AwsApi::State& s;
  std::map<std::string, std::string> p;
  std::string action;
  std::string rid;

  std::string Param(const std::string& k) const {
    auto it = p.find(k);
    return it == p.end() ? std::string() : it->second;
  }
  AwsResponse Validation(std::string message) const {
    return QueryError({400, "ValidationError", std::move(message)}, kAutoscalingNs, rid);
  }
};

AwsResponse AsgDescribeAutoScalingGroups(const QueryCall& c) {
  AwsApi::State& s = c.s;
  const std::map<std::string, std::string>& p = c.p;
  const std::string& action = c.action;
  const std::string& rid = c.rid;
  const std::vector<std::string> names = ListParam(p, "AutoScalingGroupNames.member");
  const std::vector<Filter> filters = Filters(p, "Filters.member", "Values.member");
  const std::vector<gke::VmInfo> vms = s.control.ListVms();
  std::string out = "<AutoScalingGroups>";
  for (const emu::NodePoolInfo& pool : s.Pools()) {
    NodegroupMeta& m = s.MetaOf(pool);
    if (!names.empty() && !AnyOf(names, m.asg)) continue;
    if (!TagFiltersMatch(filters, s.AsgTags(pool.spec.name, m))) continue;
    out += AsgXml(s, pool, vms);
  }
  out += "</AutoScalingGroups>";
  return QueryXml(action, kAutoscalingNs, out, rid);
}

AwsResponse AsgSetCapacity(const QueryCall& c) {
  AwsApi::State& s = c.s;
  const std::string& action = c.action;
  const std::string& rid = c.rid;
  const std::string name = c.Param("AutoScalingGroupName");
  std::optional<emu::NodePoolInfo> pool = s.PoolOfAsg(name);
  if (!pool.has_value()) {
    // Auto Scaling's text.
    return c.Validation(AsgNotFound(name));
  }
  auto int_param = [&](const std::string& k) -> std::optional<int> {
    const std::string v = c.Param(k);
    if (v.empty()) return std::nullopt;
    const std::optional<long> n = WholeNumber(v);
    if (!n || *n < 0 || *n > 100000) return -1;
    return static_cast<int>(*n);
  };
  int min = pool->spec.min_nodes;
  int max = pool->spec.max_nodes;
  std::optional<int> desired = int_param("DesiredCapacity");
  if (action == "UpdateAutoScalingGroup") {
    if (auto v = int_param("MinSize")) min = *v;
    if (auto v = int_param("MaxSize")) max = *v;
  } else if (!desired.has_value()) {
    return c.Validation(
        "1 validation error detected: Value null at 'desiredCapacity' failed to "
        "satisfy constraint: Member must not be null");
  }
  if (min < 0 || max < 0 || (desired.has_value() && *desired < 0)) {
    return c.Validation("Invalid size: sizes must be non-negative integers");
  }
  if (desired.has_value() && *desired > max) {
    return c.Validation("New SetDesiredCapacity value " + std::to_string(*desired) +
                        " is above max value " + std::to_string(max) +
                        " for the AutoScalingGroup.");
  }
  if (desired.has_value() && *desired < min) {
    return c.Validation("New SetDesiredCapacity value " + std::to_string(*desired) +
                        " is below min value " + std::to_string(min) +
                        " for the AutoScalingGroup.");
  }
  if (min > max) {
    return c.Validation("Max bound, " + std::to_string(max) +
                        ", must be greater than or equal to min bound, " + std::to_string(min));
  }
  if (min != pool->spec.min_nodes || max != pool->spec.max_nodes) {
    if (Status st = s.control.SetAutoscaling(pool->spec.name, true, min, max); !st.ok()) {
      return c.Validation(std::string(st.message()));
    }
  }
  if (desired.has_value() && *desired != pool->target_size) {
    // A decrease terminates only instances that exist (capacity whose launch failed goes
    // without an activity).
    int instances = 0;
    for (const gke::VmInfo& v : s.control.ListVms()) {
      instances += v.instance.node_pool == pool->spec.name && !v.instance.error.has_value();
    }
    const int change = *desired > pool->target_size ? *desired - pool->target_size
                                                    : std::max(0, instances - *desired);
    if (Status st = s.control.SetSize(pool->spec.name, *desired); !st.ok()) {
      return c.Validation(std::string(st.message()));
    }
    NodegroupMeta& m = s.MetaOf(*pool);
    if (change > 0) {
      Keep(m.activities,
           NewActivity(s,
                       (*desired > pool->target_size ? "Launching " : "Terminating ") +
                           std::to_string(change) + " EC2 instance(s)",
                       "a user request explicitly set group desired capacity changing the "
                       "desired capacity from " +
                           std::to_string(pool->target_size) + " to " + std::to_string(*desired) +
                           "."));
    }
  }
  return QueryXml(action, kAutoscalingNs, "", rid);
}

AwsResponse AsgTerminateInstance(const QueryCall& c) {
  AwsApi::State& s = c.s;
  const std::string& action = c.action;
  const std::string& rid = c.rid;
  const std::string id = c.Param("InstanceId");
  const bool decrement = c.Param("ShouldDecrementDesiredCapacity") == "true";
  for (const gke::VmInfo& v : s.control.ListVms()) {
    if (InstanceIdOf(v.instance.provider_id) != id) continue;
    StatusOr<emu::NodePoolInfo> pool = s.control.GetNodePool(v.instance.node_pool);
    if (!pool.ok()) break;
    if (Status st = s.control.DeleteInstances(pool->spec.name, {v.instance.name}); !st.ok()) {
      return c.Validation(std::string(st.message()));
    }
    if (!decrement) {
      // The group keeps its desired capacity: a replacement is launched.
      if (Status st = s.control.SetSize(pool->spec.name, pool->target_size); !st.ok()) {
        return c.Validation(std::string(st.message()));
      }
    }
    NodegroupMeta& m = s.MetaOf(*pool);
    Activity a = NewActivity(
        s, "Terminating EC2 instance: " + id,
        "At " + FormatRfc3339(s.clock.Now()) + " instance " + id +
            " was taken out of service in response to a user request" +
            (decrement ? ", shrinking the capacity from " + std::to_string(pool->target_size) +
                             " to " + std::to_string(pool->target_size - 1) + "."
                       : "."));
    a.status = "InProgress";
    Keep(m.activities, a);
    return QueryXml(action, kAutoscalingNs, "<Activity>" + ActivityFields(m, a) + "</Activity>",
                    rid);
  }
  // Auto Scaling's text.
  return c.Validation("Instance Id not found - No managed instance found for instance ID: " + id);
}

AwsResponse AsgChangeTags(const QueryCall& c) {
  AwsApi::State& s = c.s;
  const std::map<std::string, std::string>& p = c.p;
  const std::string& action = c.action;
  const std::string& rid = c.rid;
  for (int i = 1;; ++i) {
    const std::string base = "Tags.member." + std::to_string(i) + ".";
    if (!p.count(base + "Key")) break;
    const std::string asg = c.Param(base + "ResourceId");
    std::optional<emu::NodePoolInfo> pool = s.PoolOfAsg(asg);
    if (!pool.has_value()) {
      return c.Validation(AsgNotFound(asg));
    }
    NodegroupMeta& m = s.MetaOf(*pool);
    const std::string key = c.Param(base + "Key");
    std::erase_if(m.user_tags, [&](const AsgTag& t) { return t.key == key; });
    if (action == "CreateOrUpdateTags") {
      m.user_tags.push_back(
          {key, c.Param(base + "Value"), c.Param(base + "PropagateAtLaunch") != "false"});
    }
  }
  return QueryXml(action, kAutoscalingNs, "", rid);
}

AwsResponse AsgDescribeTags(const QueryCall& c) {
  AwsApi::State& s = c.s;
  const std::map<std::string, std::string>& p = c.p;
  const std::string& action = c.action;
  const std::string& rid = c.rid;
  const std::vector<Filter> filters = Filters(p, "Filters.member", "Values.member");
  std::string out = "<Tags>";
  for (const emu::NodePoolInfo& pool : s.Pools()) {
    NodegroupMeta& m = s.MetaOf(pool);
    for (const AsgTag& t : s.AsgTags(pool.spec.name, m)) {
      bool keep = true;
      for (const Filter& f : filters) {
        if (f.name == "auto-scaling-group") keep = keep && AnyOf(f.values, m.asg);
        if (f.name == "key") keep = keep && AnyOf(f.values, t.key);
        if (f.name == "value") keep = keep && AnyOf(f.values, t.value);
        if (f.name == "propagate-at-launch") {
          keep = keep && AnyOf(f.values, t.propagate ? "true" : "false");
        }
      }
      if (!keep) continue;
      out += "<member>" + El("ResourceId", m.asg) + El("ResourceType", "auto-scaling-group") +
             El("Key", t.key) + El("Value", t.value) +
             El("PropagateAtLaunch", t.propagate ? "true" : "false") + "</member>";
    }
  }
  return QueryXml(action, kAutoscalingNs, out + "</Tags>", rid);
}

AwsResponse AsgDescribeScalingActivities(const QueryCall& c) {
  AwsApi::State& s = c.s;
  const std::string& action = c.action;
  const std::string& rid = c.rid;
  // The group's launches (from its VMs: a failed one with EC2's reason) and the changes
  // asked through this API, newest first.
  const std::string name = c.Param("AutoScalingGroupName");
  const std::vector<gke::VmInfo> vms = s.control.ListVms();
  std::string out = "<Activities>";
  for (const emu::NodePoolInfo& pool : s.Pools()) {
    NodegroupMeta& m = s.MetaOf(pool);
    if (!name.empty() && m.asg != name) continue;
    std::vector<Activity> all = m.activities;
    for (const auto& f : s.failures(pool.spec.name)) {
      all.push_back({DerivedUuid(pool.spec.name + "/failed/" +
                                 std::to_string(f.at.time_since_epoch().count())),
                     "Launching a new EC2 instance.  Status Reason: " + f.message,
                     LaunchCause(f.at), "Failed", f.message, f.at});
    }
    for (const gke::VmInfo& v : vms) {
      if (v.instance.node_pool != pool.spec.name || v.instance.error.has_value()) continue;
      Activity a{DerivedUuid("launch/" + InstanceIdOf(v.instance.provider_id)),
                 "",
                 "",
                 "Successful",
                 "",
                 v.instance.requested_at};
      a.cause = LaunchCause(v.instance.requested_at);
      a.description = "Launching a new EC2 instance: " + InstanceIdOf(v.instance.provider_id);
      all.push_back(std::move(a));
    }
    std::stable_sort(all.begin(), all.end(),
                     [](const Activity& a, const Activity& b) { return a.start > b.start; });
    for (const Activity& a : all) out += "<member>" + ActivityFields(m, a) + "</member>";
  }
  return QueryXml(action, kAutoscalingNs, out + "</Activities>", rid);
}

AwsResponse HandleAutoscaling(AwsApi::State& s, const AwsRequest& r, const std::string& rid) {
  static const std::map<std::string, AwsResponse (*)(const QueryCall&), std::less<>> kActions = {
      {"DescribeAutoScalingGroups", AsgDescribeAutoScalingGroups},
      {"SetDesiredCapacity", AsgSetCapacity},
      {"UpdateAutoScalingGroup", AsgSetCapacity},
      {"TerminateInstanceInAutoScalingGroup", AsgTerminateInstance},
      {"CreateOrUpdateTags", AsgChangeTags},
      {"DeleteTags", AsgChangeTags},
      {"DescribeTags", AsgDescribeTags},
      {"DescribeScalingActivities", AsgDescribeScalingActivities},
  };
  std::map<std::string, std::string> p = FormParams(r.body);
  const std::string action = p.count("Action") ? p.at("Action") : "";
  auto it = kActions.find(action);
  if (it != kActions.end()) return it->second(QueryCall{s, std::move(p), action, rid});
  // Auto Scaling's text for an operation it does not have.
  return QueryError(
      {400, "InvalidAction", "Could not find operation " + action + " for version 2011-01-01"},
      kAutoscalingNs, rid);
}

// ---- EC2 ----------------------------------------------------------------------------------------

// The EKS-optimised AMI of a node group (emulated IDs, as EksNodeStyle's node label).
std::string AmiOf(const NodegroupMeta& m) {
  const bool gpu =
      m.ami_type.find("GPU") != std::string::npos || m.ami_type.find("NVIDIA") != std::string::npos;
  return EksAmiId(gpu);
}

// EC2's instance state of a VM: code and name.
std::pair<int, std::string_view> Ec2State(emu::VmStatus status) {
  switch (status) {
    case emu::VmStatus::kRunning:
      return {16, "running"};
    case emu::VmStatus::kStopping:
      return {32, "shutting-down"};
    default:
      return {0, "pending"};
  }
}

// An instance's tags: its group's tags that propagate at launch, and those EC2 Auto Scaling and
// EKS put on every instance.
std::vector<AsgTag> InstanceTags(const AwsApi::State& s, const emu::NodePoolInfo& pool,
                                 const NodegroupMeta& m) {
  std::vector<AsgTag> tags;
  for (AsgTag& t : s.AsgTags(pool.spec.name, m)) {
    if (t.propagate) tags.push_back(std::move(t));
  }
  tags.push_back({"aws:autoscaling:groupName", m.asg, true});
  tags.push_back({"aws:eks:cluster-name", s.cluster.name, true});
  return tags;
}

std::string InstanceXml(const gke::VmInfo& v, const std::vector<AsgTag>& tags,
                        const NodegroupMeta& m) {
  const auto& i = v.instance;
  const auto [code, name] = Ec2State(i.status);
  const std::string ip = emu::IpInNodeName(i.name);
  std::string x = "<item>" + El("instanceId", InstanceIdOf(i.provider_id)) +
                  El("imageId", AmiOf(m)) + "<instanceState>" + El("code", std::to_string(code)) +
                  El("name", name) + "</instanceState>" + El("privateDnsName", i.name) +
                  "<dnsName/>" + El("instanceType", i.machine_type) +
                  El("launchTime", FormatRfc3339(i.requested_at)) + "<placement>" +
                  El("availabilityZone", i.zone) + El("tenancy", "default") + "</placement>" +
                  El("privateIpAddress", ip) +
                  El("subnetId", m.subnets.empty() ? SubnetId(0) : m.subnets.front()) +
                  El("vpcId", "vpc-0tidepool") + El("architecture", "x86_64") +
                  El("instanceLifecycle", i.spot ? "spot" : "") + "<tagSet>";
  for (const AsgTag& t : tags) x += "<item>" + El("key", t.key) + El("value", t.value) + "</item>";
  return x + "</tagSet></item>";
}

// The launch template EKS makes per node group ("eks-<uuid>", one version; the instance types
// are the Auto Scaling group's overrides, not the template's), and its versions.
AwsResponse DescribeLaunchTemplates(AwsApi::State& s, const std::map<std::string, std::string>& p,
                                    const std::string& action, const std::string& rid) {
  const bool versions = action == "DescribeLaunchTemplateVersions";
  std::vector<std::string> ids = ListParam(p, "LaunchTemplateId");
  std::vector<std::string> names = ListParam(p, "LaunchTemplateName");
  if (versions) {
    if (p.count("LaunchTemplateId")) ids.push_back(p.at("LaunchTemplateId"));
    if (p.count("LaunchTemplateName")) names.push_back(p.at("LaunchTemplateName"));
  }
  std::string out;
  size_t found = 0;
  for (const emu::NodePoolInfo& pool : s.Pools()) {
    const NodegroupMeta& m = s.MetaOf(pool);
    const std::string id = AwsApi::State::LaunchTemplateId(m);
    const std::string name = "eks-" + m.uuid;
    if ((!ids.empty() || !names.empty()) && !AnyOf(ids, id) && !AnyOf(names, name)) continue;
    ++found;
    const std::string common =
        El("launchTemplateId", id) + El("launchTemplateName", name) +
        El("createTime", FormatRfc3339(m.created)) +
        El("createdBy", "arn:aws:sts::" + s.cluster.account +
                            ":assumed-role/AWSServiceRoleForAmazonEKSNodegroup/EKS");
    if (versions) {
      out += "<item>" + common + El("versionNumber", "1") + El("defaultVersion", "true") +
             "<launchTemplateData>" + El("imageId", AmiOf(m)) + "</launchTemplateData></item>";
    } else {
      out += "<item>" + common + El("defaultVersionNumber", "1") + El("latestVersionNumber", "1") +
             "<tagSet><item>" + El("key", "eks:cluster-name") + El("value", s.cluster.name) +
             "</item><item>" + El("key", "eks:nodegroup-name") + El("value", pool.spec.name) +
             "</item></tagSet></item>";
    }
  }
  if ((!ids.empty() || !names.empty()) && found == 0) {
    // EC2's code and text.
    return Ec2Error({400,
                     names.empty() ? "InvalidLaunchTemplateId.NotFound"
                                   : "InvalidLaunchTemplateName.NotFoundException",
                     "At least one of the launch templates specified in the request does not "
                     "exist."},
                    rid);
  }
  return Ec2Xml(action,
                versions ? "<launchTemplateVersionSet>" + out + "</launchTemplateVersionSet>"
                         : "<launchTemplates>" + out + "</launchTemplates>",
                rid);
}

AwsResponse HandleEc2(AwsApi::State& s, const AwsRequest& r, const std::string& rid) {
  const std::map<std::string, std::string> p = FormParams(r.body);
  const std::string action = p.count("Action") ? p.at("Action") : "";
  if (action == "DescribeInstances") {
    const std::vector<std::string> ids = ListParam(p, "InstanceId");
    const std::vector<Filter> filters = Filters(p, "Filter", "Value");
    std::string out = "<reservationSet>";
    std::map<std::string, emu::NodePoolInfo, std::less<>> pools;
    for (emu::NodePoolInfo& pool : s.Pools()) pools.emplace(pool.spec.name, std::move(pool));
    for (const gke::VmInfo& v : s.control.ListVms()) {
      if (v.instance.status == emu::VmStatus::kFailed) continue;
      auto pool = pools.find(v.instance.node_pool);
      if (pool == pools.end()) continue;
      const NodegroupMeta& m = s.MetaOf(pool->second);
      const std::vector<AsgTag> tags = InstanceTags(s, pool->second, m);
      const std::string id = InstanceIdOf(v.instance.provider_id);
      if (!ids.empty() && !AnyOf(ids, id)) continue;
      const std::string_view state = Ec2State(v.instance.status).second;
      bool keep = true;
      for (const Filter& f : filters) {
        if (f.name == "instance-id") keep = keep && AnyOf(f.values, id);
        if (f.name == "instance-state-name") keep = keep && AnyOf(f.values, state);
        if (f.name == "instance-type") keep = keep && AnyOf(f.values, v.instance.machine_type);
        if (f.name == "availability-zone") keep = keep && AnyOf(f.values, v.instance.zone);
        if (f.name == "private-dns-name") keep = keep && AnyOf(f.values, v.instance.name);
        if (f.name == "tag-key" || f.name.starts_with("tag:")) {
          keep = keep && TagFiltersMatch({f}, tags);
        }
      }
      if (!keep) continue;
      out += "<item>" + El("reservationId", "r-0" + id.substr(std::min<size_t>(3, id.size()))) +
             El("ownerId", s.cluster.account) + "<groupSet/><instancesSet>" +
             InstanceXml(v, tags, m) + "</instancesSet></item>";
    }
    return Ec2Xml(action, out + "</reservationSet>", rid);
  }
  if (action == "DescribeInstanceTypes") {
    std::vector<std::string> names = ListParam(p, "InstanceType");
    if (names.empty()) names = s.catalog.MachineTypeNames();
    std::string out = "<instanceTypeSet>";
    for (const std::string& n : names) {
      const emu::MachineType* m = s.catalog.FindMachineType(n);
      if (m == nullptr) {
        // EC2's text.
        return Ec2Error({400, "InvalidInstanceType",
                         "The following supplied instance types do not exist: [" + n + "]"},
                        rid);
      }
      out += "<item>" + El("instanceType", m->name) + El("currentGeneration", "true") +
             "<vCpuInfo>" + El("defaultVCpus", std::to_string(m->vcpus)) + "</vCpuInfo>" +
             "<memoryInfo>" + El("sizeInMiB", std::to_string(m->memory_mib)) + "</memoryInfo>" +
             "<processorInfo><supportedArchitectures><item>x86_64</item>"
             "</supportedArchitectures></processorInfo>";
      if (m->builtin_accelerator_count > 0) {
        auto [gpu, mib] = Ec2GpuInfo(m->builtin_accelerator);
        out += "<gpuInfo><gpus><item>" + El("name", gpu) + El("manufacturer", "NVIDIA") +
               El("count", std::to_string(m->builtin_accelerator_count)) + "<memoryInfo>" +
               El("sizeInMiB", std::to_string(mib)) + "</memoryInfo></item></gpus>" +
               El("totalGpuMemoryInMiB", std::to_string(mib * m->builtin_accelerator_count)) +
               "</gpuInfo>";
      }
      out += "</item>";
    }
    return Ec2Xml(action, out + "</instanceTypeSet>", rid);
  }
  if (action == "DescribeLaunchTemplates" || action == "DescribeLaunchTemplateVersions") {
    return DescribeLaunchTemplates(s, p, action, rid);
  }
  // EC2's text.
  return Ec2Error(
      {400, "InvalidAction", "The action " + action + " is not valid for this web service."}, rid);
}

// STS AssumeRoleWithWebIdentity (IRSA): a web identity token the verifier accepts
// (sigv4.h) for temporary credentials of a role of the cluster's account, valid for
// DurationSeconds (900 to 43200, default 3600).
AwsResponse AssumeRoleWithWebIdentity(AwsApi::State& s, SigV4Verifier* verifier,
                                      const std::map<std::string, std::string>& p,
                                      const std::string& rid) {
  const std::string action = "AssumeRoleWithWebIdentity";
  auto param = [&](const char* k) { return p.count(k) ? p.at(k) : std::string(); };
  for (const char* k : {"RoleArn", "RoleSessionName", "WebIdentityToken"}) {
    if (param(k).empty()) {
      std::string member(k);
      member[0] = static_cast<char>(std::tolower(member[0]));
      return QueryError({400, "ValidationError",
                         "1 validation error detected: Value null at '" + member +
                             "' failed to satisfy constraint: Member must not be null"},
                        kStsNs, rid);
    }
  }
  const std::string role_arn = param("RoleArn");
  const std::string prefix = "arn:aws:iam::" + s.cluster.account + ":role/";
  if (verifier == nullptr || role_arn.rfind(prefix, 0) != 0 || role_arn.size() == prefix.size()) {
    return QueryError(
        {403, "AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity"}, kStsNs,
        rid);
  }
  long duration = 3600;
  if (!param("DurationSeconds").empty()) {
    duration = WholeNumber(param("DurationSeconds")).value_or(-1);
    if (duration < 900 || duration > 43200) {
      return QueryError({400, "ValidationError",
                         "1 validation error detected: Value '" + param("DurationSeconds") +
                             "' at 'durationSeconds' failed to satisfy constraint: Member must "
                             "have value between 900 and 43200"},
                        kStsNs, rid);
    }
  }
  const TimePoint now = s.clock.Now();
  StatusOr<WebIdentityClaims> claims =
      verifier->VerifyWebIdentityToken(param("WebIdentityToken"), now);
  if (!claims.ok()) {
    const std::string text(claims.status().message());
    const size_t colon = text.find(": ");
    return QueryError({400, text.substr(0, colon), text.substr(colon + 2)}, kStsNs, rid);
  }
  // Temporary credentials: "ASIA" + 16, a 40-character secret, a session token.
  auto draw = [&](size_t n, std::string_view alphabet) {
    std::string out;
    for (size_t i = 0; i < n; ++i) out += alphabet[s.random.Uniform(alphabet.size())];
    return out;
  };
  const std::string key = "ASIA" + draw(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567");
  const std::string secret =
      draw(40, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
  const std::string token =
      "IQoJb3JpZ2luX2Vj" +
      draw(120, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
  const TimePoint expiration = now + std::chrono::seconds(duration);
  verifier->AddTemporary(key, secret, token, expiration);
  const std::string role = role_arn.substr(prefix.size());
  const std::string session = param("RoleSessionName");
  return QueryXml(
      action, kStsNs,
      El("Audience", claims->audience) + "<AssumedRoleUser>" +
          El("AssumedRoleId",
             "AROA" + draw(17, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") + ":" + session) +
          El("Arn", "arn:aws:sts::" + s.cluster.account + ":assumed-role/" + role + "/" + session) +
          "</AssumedRoleUser><Credentials>" + El("AccessKeyId", key) +
          El("SecretAccessKey", secret) + El("SessionToken", token) +
          El("Expiration", FormatRfc3339(expiration)) + "</Credentials>" +
          El("SubjectFromWebIdentityToken", claims->subject) + El("Provider", claims->issuer),
      rid);
}

AwsResponse HandleSts(AwsApi::State& s, SigV4Verifier* verifier, const AwsRequest& r,
                      const std::string& rid) {
  const std::map<std::string, std::string> p = FormParams(r.body);
  const std::string action = p.count("Action") ? p.at("Action") : "";
  if (action == "AssumeRoleWithWebIdentity") return AssumeRoleWithWebIdentity(s, verifier, p, rid);
  if (action == "GetCallerIdentity") {
    return QueryXml(action, kStsNs,
                    El("Arn", "arn:aws:iam::" + s.cluster.account + ":user/tidepool") +
                        El("UserId", "AIDATIDEPOOLEXAMPLE") + El("Account", s.cluster.account),
                    rid);
  }
  return QueryError(
      {400, "InvalidAction", "Could not find operation " + action + " for version 2011-06-15"},
      kStsNs, rid);
}

}  // namespace

void AwsApi::OnCloudEvent(const emu::CloudEvent& event) {
  constexpr size_t kKept = 50;
  std::lock_guard<std::mutex> lock(failures_mu_);
  if (event.kind == emu::CloudEventKind::kNodePoolDeleted) {
    failures_.erase(event.node_pool);
    return;
  }
  if (event.kind != emu::CloudEventKind::kInstanceFailed) return;
  std::vector<FailedLaunch>& list = failures_[event.node_pool];
  list.push_back({event.at, event.detail});
  if (list.size() > kKept) list.erase(list.begin());
}

AwsResponse AwsApi::Handle(const AwsRequest& request) {
  // The last defence of "no input kills the process": a JSON accessor that throws on a type
  // the checks above missed answers as AWS does for a body it cannot read.
  try {
    return HandleLocked(request);
  } catch (const std::exception& e) {
    return {400,
            "application/json",
            {{"x-amzn-ErrorType", "SerializationException"}},
            json{{"message", std::string("Could not read the request: ") + e.what()}}.dump()};
  }
}

AwsResponse AwsApi::HandleLocked(const AwsRequest& request) {
  std::lock_guard<std::mutex> lock(mu_);
  State& s = *state_;
  const std::string service = AwsServiceOf(request);
  const std::string rid = s.Uuid();
  AwsResponse out;
  Status signed_ok = OkStatus();
  // STS's AssumeRoleWithWebIdentity is not signed: the web identity token is the proof.
  const bool unsigned_sts = service == "sts" && request.headers.count("authorization") == 0 &&
                            FormParams(request.body)["Action"] == "AssumeRoleWithWebIdentity";
  if (verifier_ != nullptr && !unsigned_sts) {
    signed_ok = verifier_->Verify(
        {request.method, request.path, request.query, request.headers, request.body},
        s.clock.Now());
  }
  if (!signed_ok.ok()) {
    // "<Code>: <message>" (sigv4.h); EKS names two codes differently.
    const std::string text(signed_ok.message());
    const size_t colon = text.find(": ");
    std::string code = text.substr(0, colon);
    const std::string message = colon == std::string::npos ? text : text.substr(colon + 2);
    if (service == "eks") {
      if (code == "SignatureDoesNotMatch") code = "InvalidSignatureException";
      if (code == "InvalidClientTokenId") code = "UnrecognizedClientException";
      if (code == "MissingAuthenticationToken") code = "MissingAuthenticationTokenException";
      out = EksError({403, code, message});
    } else if (service == "ec2") {
      out = Ec2Error({403, code == "InvalidClientTokenId" ? "AuthFailure" : code, message}, rid);
    } else {
      out = QueryError({403, code, message}, service == "sts" ? kStsNs : kAutoscalingNs, rid);
    }
  } else if (service == "eks") {
    out = HandleEks(s, request);
  } else if (service == "autoscaling") {
    out = HandleAutoscaling(s, request, rid);
  } else if (service == "ec2") {
    out = HandleEc2(s, request, rid);
  } else if (service == "sts") {
    out = HandleSts(s, verifier_, request, rid);
  } else {
    out = {400,
           "application/json",
           {{"x-amzn-ErrorType", "UnknownOperationException"}},
           json{{"message", "tidepool's AWS endpoint does not serve service '" + service + "'"}}
               .dump()};
  }
  out.headers.emplace_back("x-amzn-RequestId", rid);
  return out;
}

}  // namespace tidepool::cloud::aws
