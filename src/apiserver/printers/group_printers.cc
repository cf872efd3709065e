// Printers for the named API groups: printers.go printDeployment, printDaemonSet,
// printReplicaSet, printStatefulSet, printJob, printLease, printPodDisruptionBudget,
// printRoleBinding, printClusterRoleBinding and printPriorityClass (kube-apiserver 1.32).

#include <set>
#include <string>
#include <vector>

#include "apiserver/printers/internal.h"
#include "apiserver/printers/resource_printers.h"

namespace tidepool::apiserver::printers::internal {
namespace {

using nlohmann::json;

const Column kContainersColumn = {"Containers", "string", "",
                                  "Names of each container in the template.", 1};
const Column kImagesColumn = {"Images", "string", "",
                              "Images referenced by each container in the template.", 1};

// ---- apps --------------------------------------------------------------------------------------

json DeploymentCells(const json& d, TimePoint now) {
  const int64_t desired = Int(Path(d, "spec", "replicas"), 1);  // API default 1
  const ContainerCells containers =
      LayoutContainers(Path(d, "spec", "template", "spec", "containers"));
  auto selector = SelectorString(Path(d, "spec", "selector"));
  return json::array({
      Name(d),
      std::to_string(Int(Path(d, "status", "readyReplicas"))) + "/" + std::to_string(desired),
      Int(Path(d, "status", "updatedReplicas")),
      Int(Path(d, "status", "availableReplicas")),
      Age(d, now),
      containers.names,
      containers.images,
      selector.has_value() ? *selector : "<invalid>",
  });
}

json DaemonSetCells(const json& ds, TimePoint now) {
  const json* status = Field(ds, "status");
  const ContainerCells containers =
      LayoutContainers(Path(ds, "spec", "template", "spec", "containers"));
  return json::array({
      Name(ds),
      Int(Field(status, "desiredNumberScheduled")),
      Int(Field(status, "currentNumberScheduled")),
      Int(Field(status, "numberReady")),
      Int(Field(status, "updatedNumberScheduled")),
      Int(Field(status, "numberAvailable")),
      FormatLabels(Path(ds, "spec", "template", "spec", "nodeSelector")),
      Age(ds, now),
      containers.names,
      containers.images,
      FormatLabelSelector(Path(ds, "spec", "selector")),
  });
}

// printControllerRevision: CONTROLLER is the controller reference as "<kind>.<group>/<name>"
// in lower case ("daemonset.apps/bind"), "<none>" without one.
json ControllerRevisionCells(const json& cr, TimePoint now) {
  std::string controller = "<none>";
  if (const json* refs = Path(cr, "metadata", "ownerReferences");
      refs != nullptr && refs->is_array()) {
    for (const json& ref : *refs) {
      if (!ref.is_object() || !ref.value("controller", false)) continue;
      const std::string api_version = Str(Field(ref, "apiVersion"));
      const size_t slash = api_version.find('/');
      std::string kind = Str(Field(ref, "kind"));
      if (slash != std::string::npos) kind += "." + api_version.substr(0, slash);
      controller = ToLower(kind) + "/" + Str(Field(ref, "name"));
      break;
    }
  }
  return json::array({Name(cr), controller, Int(Field(cr, "revision")), Age(cr, now)});
}

json ReplicaSetCells(const json& rs, TimePoint now) {
  const ContainerCells containers =
      LayoutContainers(Path(rs, "spec", "template", "spec", "containers"));
  return json::array({
      Name(rs),
      Int(Path(rs, "spec", "replicas"), 1),  // API default 1
      Int(Path(rs, "status", "replicas")),
      Int(Path(rs, "status", "readyReplicas")),
      Age(rs, now),
      containers.names,
      containers.images,
      FormatLabelSelector(Path(rs, "spec", "selector")),
  });
}

json StatefulSetCells(const json& sts, TimePoint now) {
  const ContainerCells containers =
      LayoutContainers(Path(sts, "spec", "template", "spec", "containers"));
  return json::array({
      Name(sts),
      std::to_string(Int(Path(sts, "status", "readyReplicas"))) + "/" +
          std::to_string(Int(Path(sts, "spec", "replicas"), 1)),  // API default 1
      Age(sts, now),
      containers.names,
      containers.images,
  });
}

// ---- autoscaling -------------------------------------------------------------------------------

// A Quantity's text as the status holds it ("<unknown>" when absent).
std::string QuantityText(const json* q) {
  return q != nullptr && q->is_string() ? q->get<std::string>() : "0";
}

// formatHPAMetrics: "cpu: 40%/80%", "<unknown>/500m (avg)", at most two then "+ N more...".
std::string HpaTargets(const json* specs, const json* statuses) {
  if (specs == nullptr || !specs->is_array() || specs->empty()) return "<none>";
  auto status = [&](size_t i, const char* kind) -> const json* {
    if (statuses == nullptr || !statuses->is_array() || i >= statuses->size()) return nullptr;
    const json* s = Field(&(*statuses)[i], kind);
    return s != nullptr && s->is_object() ? s : nullptr;
  };
  std::vector<std::string> list;
  for (size_t i = 0; i < specs->size(); ++i) {
    const json& spec = (*specs)[i];
    const std::string type = Str(Field(&spec, "type"));
    if (type == "External" || type == "Object") {
      const char* kind = type == "External" ? "external" : "object";
      const json* target = Path(&spec, kind, "target");
      const json* st = status(i, kind);
      if (const json* avg = Field(target, "averageValue"); avg != nullptr && avg->is_string()) {
        const json* cur = st != nullptr ? Path(st, "current", "averageValue") : nullptr;
        list.push_back((cur != nullptr ? QuantityText(cur) : "<unknown>") + "/" +
                       avg->get<std::string>() + " (avg)");
      } else {
        list.push_back((st != nullptr ? QuantityText(Path(st, "current", "value")) : "<unknown>") +
                       "/" + QuantityText(Field(target, "value")));
      }
    } else if (type == "Pods") {
      const json* st = status(i, "pods");
      list.push_back(
          (st != nullptr ? QuantityText(Path(st, "current", "averageValue")) : "<unknown>") + "/" +
          QuantityText(Path(&spec, "pods", "target", "averageValue")));
    } else if (type == "Resource" || type == "ContainerResource") {
      const char* kind = type == "Resource" ? "resource" : "containerResource";
      const json* src = Field(&spec, kind);
      const json* target = Field(src, "target");
      const json* st = status(i, kind);
      const std::string name = Str(Field(src, "name"));
      if (const json* avg = Field(target, "averageValue"); avg != nullptr && avg->is_string()) {
        list.push_back(
            name + ": " +
            (st != nullptr ? QuantityText(Path(st, "current", "averageValue")) : "<unknown>") +
            "/" + avg->get<std::string>());
      } else {
        const json* cur = st != nullptr ? Path(st, "current", "averageUtilization") : nullptr;
        const json* util = Field(target, "averageUtilization");
        list.push_back(name + ": " +
                       (IsNumber(cur) ? std::to_string(Int(cur)) + "%" : std::string("<unknown>")) +
                       "/" + (IsNumber(util) ? std::to_string(Int(util)) + "%" : "<auto>"));
      }
    } else {
      list.push_back("<unknown type>");
    }
  }
  std::string out;
  for (size_t i = 0; i < list.size() && i < 2; ++i) out += (i > 0 ? ", " : "") + list[i];
  if (list.size() > 2) out += " + " + std::to_string(list.size() - 2) + " more...";
  return out;
}

json HpaCells(const json& hpa, TimePoint now) {
  const json* spec = Field(&hpa, "spec");
  const json* ref = Field(spec, "scaleTargetRef");
  const json* min = Field(spec, "minReplicas");
  return json::array({
      Name(hpa),
      Str(Field(ref, "kind")) + "/" + Str(Field(ref, "name")),
      HpaTargets(Field(spec, "metrics"), Path(&hpa, "status", "currentMetrics")),
      IsNumber(min) ? std::to_string(Int(min)) : "<unset>",
      Int(Field(spec, "maxReplicas")),
      Int(Path(&hpa, "status", "currentReplicas")),
      Age(hpa, now),
  });
}

// ---- batch -------------------------------------------------------------------------------------

// batchv1.JobSpec{}.SwaggerDoc()["selector"].
const char kJobSelectorDoc[] =
    "A label query over pods that should match the pod count. Normally, the system sets this "
    "field for you. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors";

// printBoolPtr.
std::string BoolPtr(const json* v) {
  if (v == nullptr || !v->is_boolean()) return "<unset>";
  return v->get<bool>() ? "True" : "False";
}

json CronJobCells(const json& cj, TimePoint now) {
  const json* spec = Field(cj, "spec");
  const json* job_spec = Path(cj, "spec", "jobTemplate", "spec");
  const auto last = TimeField(Path(cj, "status", "lastScheduleTime"));
  const json* zone = Field(spec, "timeZone");
  const json* active = Path(cj, "status", "active");
  const ContainerCells containers =
      LayoutContainers(Path(job_spec, "template", "spec", "containers"));
  return json::array({
      Name(cj),
      Str(Field(spec, "schedule")),
      zone != nullptr && zone->is_string() ? zone->get<std::string>() : "<none>",
      BoolPtr(Field(spec, "suspend")),
      active != nullptr && active->is_array() ? static_cast<int64_t>(active->size()) : 0,
      last.has_value() ? HumanDuration(Elapsed(*last, now)) : "<none>",
      Age(cj, now),
      containers.names,
      containers.images,
      FormatLabelSelector(Field(job_spec, "selector")),
  });
}

// hasJobCondition: the first condition of `type` decides.
bool HasJobCondition(const json& job, std::string_view type) {
  const json* condition = FirstOfType(Path(job, "status", "conditions"), type);
  return condition != nullptr && Str(Field(condition, "status")) == "True";
}

json JobCells(const json& job, TimePoint now) {
  const json* spec = Field(job, "spec");
  const int64_t succeeded = Int(Path(job, "status", "succeeded"));
  std::string completions;
  if (IsNumber(Field(spec, "completions"))) {
    completions = std::to_string(succeeded) + "/" + std::to_string(Int(Field(spec, "completions")));
  } else {
    const int64_t parallelism = Int(Field(spec, "parallelism"));
    completions = std::to_string(succeeded) + "/1";
    if (parallelism > 1) {
      completions += " of " + std::to_string(parallelism);
    }
  }

  std::string duration;
  const auto start = TimeField(Path(job, "status", "startTime"));
  const auto completion = TimeField(Path(job, "status", "completionTime"));
  if (start.has_value()) {
    duration = HumanDuration(Elapsed(*start, completion.has_value() ? *completion : now));
  }

  const json* deletion = Path(job, "metadata", "deletionTimestamp");
  std::string status;
  if (HasJobCondition(job, "Complete")) {
    status = "Complete";
  } else if (HasJobCondition(job, "Failed")) {
    status = "Failed";
  } else if (deletion != nullptr && !deletion->is_null()) {
    status = "Terminating";
  } else if (HasJobCondition(job, "Suspended")) {
    status = "Suspended";
  } else if (HasJobCondition(job, "FailureTarget")) {
    status = "FailureTarget";
  } else {
    status = "Running";
  }

  const ContainerCells containers = LayoutContainers(Path(spec, "template", "spec", "containers"));
  return json::array({
      Name(job),
      status,
      completions,
      duration,
      Age(job, now),
      containers.names,
      containers.images,
      FormatLabelSelector(Field(spec, "selector")),
  });
}

// ---- networking.k8s.io
// ----------------------------------------------------------------------------

// printIngress: the class, formatHosts (at most 3, "*" for none, "+ N more..."), the load
// balancer's addresses (sorted, unique; wide, as the server prints), formatPorts.
json IngressCells(const json& ing, TimePoint now) {
  const json* cls = Path(ing, "spec", "ingressClassName");
  std::vector<std::string> hosts;
  size_t rules = 0;
  bool more = false;
  if (const json* r = Path(ing, "spec", "rules"); r != nullptr && r->is_array()) {
    rules = r->size();
    for (const json& rule : *r) {
      if (hosts.size() == 3) more = true;
      const std::string host = Str(Path(rule, "host"));
      if (!more && !host.empty()) hosts.push_back(host);
    }
  }
  std::string hosts_cell = hosts.empty() ? "*" : Join(hosts, ",");
  if (more && !hosts.empty()) hosts_cell += " + " + std::to_string(rules - 3) + " more...";
  std::set<std::string> addresses;
  if (const json* lb = Path(ing, "status", "loadBalancer", "ingress");
      lb != nullptr && lb->is_array()) {
    for (const json& point : *lb) {
      const std::string ip = Str(Path(point, "ip")), hostname = Str(Path(point, "hostname"));
      if (!ip.empty()) {
        addresses.insert(ip);
      } else if (!hostname.empty()) {
        addresses.insert(hostname);
      }
    }
  }
  const json* tls = Path(ing, "spec", "tls");
  const bool has_tls = tls != nullptr && tls->is_array() && !tls->empty();
  return json::array({Name(ing), cls != nullptr && cls->is_string() ? Str(cls) : "<none>",
                      hosts_cell,
                      Join(std::vector<std::string>(addresses.begin(), addresses.end()), ","),
                      has_tls ? "80, 443" : "80", Age(ing, now)});
}

// printIngressClass: parameters as Kind[.apiGroup]/name, or <none>.
json IngressClassCells(const json& ic, TimePoint now) {
  std::string parameters = "<none>";
  if (const json* p = Path(ic, "spec", "parameters"); p != nullptr && p->is_object()) {
    parameters = Str(Path(p, "kind"));
    if (const json* g = Path(p, "apiGroup"); g != nullptr && g->is_string()) {
      parameters += "." + Str(g);
    }
    parameters += "/" + Str(Path(p, "name"));
  }
  return json::array({Name(ic), Str(Path(ic, "spec", "controller")), parameters, Age(ic, now)});
}

// printCertificateSigningRequest: the signer (<none>), the requestor (spec.username), the
// requested duration (HumanDuration of spec.expirationSeconds, <none>) and extractCSRStatus's
// condition: Denied, else Approved, else Pending; then ",Failed" and ",Issued" as they apply.
json CertificateSigningRequestCells(const json& csr, TimePoint now) {
  bool approved = false, denied = false, failed = false;
  if (const json* conds = Path(csr, "status", "conditions");
      conds != nullptr && conds->is_array()) {
    for (const json& c : *conds) {
      const std::string type = Str(Path(&c, "type"));
      approved = approved || type == "Approved";
      denied = denied || type == "Denied";
      failed = failed || type == "Failed";
    }
  }
  std::string condition = denied ? "Denied" : approved ? "Approved" : "Pending";
  if (failed) condition += ",Failed";
  if (!Str(Path(csr, "status", "certificate")).empty()) condition += ",Issued";
  std::string signer = Str(Path(csr, "spec", "signerName"));
  if (signer.empty()) signer = "<none>";
  std::string duration = "<none>";
  if (const json* e = Path(csr, "spec", "expirationSeconds");
      e != nullptr && e->is_number_integer()) {
    duration = HumanDuration(std::chrono::seconds(e->get<int64_t>()));
  }
  return json::array(
      {Name(csr), Age(csr, now), signer, Str(Path(csr, "spec", "username")), duration, condition});
}

// ---- coordination.k8s.io, policy, scheduling.k8s.io --------------------------------------------

json LeaseCells(const json& lease, TimePoint now) {
  return json::array({Name(lease), Str(Path(lease, "spec", "holderIdentity")), Age(lease, now)});
}

// printers.go listWithMoreString: up to three items, then "+ N more..."; "<unset>" for none.
std::string ListWithMore(const std::vector<std::string>& all) {
  constexpr size_t kMax = 3;
  std::vector<std::string> shown(all.begin(), all.begin() + std::min(all.size(), kMax));
  std::string ret = Join(shown, ",");
  if (all.size() > kMax) return ret + " + " + std::to_string(all.size() - kMax) + " more...";
  return ret.empty() ? "<unset>" : ret;
}

// printEndpointSlice: each port's number (its name when it has none, else "*"), and every
// endpoint's addresses.
json EndpointSliceCells(const json& slice, TimePoint now) {
  std::vector<std::string> ports, addresses;
  if (const json* p = Field(slice, "ports"); p != nullptr && p->is_array()) {
    for (const json& port : *p) {
      const json* number = Field(port, "port");
      const json* name = Field(port, "name");
      ports.push_back(number != nullptr && number->is_number_integer() ? std::to_string(Int(number))
                      : name != nullptr && name->is_string()           ? Str(name)
                                                                       : "*");
    }
  }
  if (const json* e = Field(slice, "endpoints"); e != nullptr && e->is_array()) {
    for (const json& ep : *e) {
      const json* a = Field(ep, "addresses");
      if (a == nullptr || !a->is_array()) continue;
      for (const json& address : *a) addresses.push_back(Str(&address));
    }
  }
  return json::array({Name(slice), Str(Field(slice, "addressType")), ListWithMore(ports),
                      ListWithMore(addresses), Age(slice, now)});
}

// intstr.IntOrString.String(), or "N/A" when unset.
std::string IntOrStringOrNA(const json* v) {
  if (v == nullptr || v->is_null()) {
    return "N/A";
  }
  if (v->is_string()) {
    return v->get_ref<const std::string&>();
  }
  return std::to_string(Int(v));
}

json PodDisruptionBudgetCells(const json& pdb, TimePoint now) {
  return json::array({
      Name(pdb),
      IntOrStringOrNA(Path(pdb, "spec", "minAvailable")),
      IntOrStringOrNA(Path(pdb, "spec", "maxUnavailable")),
      Int(Path(pdb, "status", "disruptionsAllowed")),
      Age(pdb, now),
  });
}

json PriorityClassCells(const json& pc, TimePoint now) {
  std::string policy = "PreemptLowerPriority";  // API default
  if (const json* p = Field(pc, "preemptionPolicy"); p != nullptr && !p->is_null()) {
    policy = Str(p);
  }
  return json::array({
      Name(pc),
      Int(Field(pc, "value")),
      Bool(Field(pc, "globalDefault")),
      Age(pc, now),
      policy,
  });
}

// ---- rbac.authorization.k8s.io ---------------------------------------------------------------

// printRoleBinding / printClusterRoleBinding (identical apart from descriptions).
json RoleBindingCells(const json& rb, TimePoint now) {
  std::vector<std::string> users, groups, service_accounts;
  ForEach(Field(rb, "subjects"), [&](const json& s) {
    const std::string kind = Str(Field(s, "kind"));
    const std::string name = Str(Field(s, "name"));
    if (kind == "ServiceAccount") {
      service_accounts.push_back(Str(Field(s, "namespace")) + "/" + name);
    } else if (kind == "User") {
      users.push_back(name);
    } else if (kind == "Group") {
      groups.push_back(name);
    }
  });
  return json::array({
      Name(rb),
      Str(Path(rb, "roleRef", "kind")) + "/" + Str(Path(rb, "roleRef", "name")),
      Age(rb, now),
      Join(users, ", "),
      Join(groups, ", "),
      Join(service_accounts, ", "),
  });
}

std::vector<Column> RoleBindingColumns(const std::string& what) {
  return {
      NameColumn(),
      {"Role", "string", "",
       "RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
       "namespace.",
       0},
      AgeColumn(),
      {"Users", "string", "", "Users in the " + what, 1},
      {"Groups", "string", "", "Groups in the " + what, 1},
      {"ServiceAccounts", "string", "", "ServiceAccounts in the " + what, 1},
  };
}

}  // namespace

Printer MakeDeploymentPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Ready", "string", "", "Number of the pod with ready state", 0},
      {"Up-to-date", "string", "",
       "Total number of non-terminated pods targeted by this deployment that have the desired "
       "template spec.",
       0},
      {"Available", "string", "",
       "Total number of available pods (ready for at least minReadySeconds) targeted by this "
       "deployment.",
       0},
      AgeColumn(),
      kContainersColumn,
      kImagesColumn,
      {"Selector", "string", "", "Label selector for pods.", 1},
  };
  p.cells = &DeploymentCells;
  return p;
}

Printer MakeDaemonSetPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Desired", "integer", "",
       "The total number of nodes that should be running the daemon pod (including nodes "
       "correctly running the daemon pod).",
       0},
      {"Current", "integer", "",
       "The number of nodes that are running at least 1 daemon pod and are supposed to run the "
       "daemon pod.",
       0},
      {"Ready", "integer", "",
       "The number of nodes that should be running the daemon pod and have one or more of the "
       "daemon pod running and ready.",
       0},
      {"Up-to-date", "integer", "", "The total number of nodes that are running updated daemon pod",
       0},
      {"Available", "integer", "",
       "The number of nodes that should be running the daemon pod and have one or more of the "
       "daemon pod running and available (ready for at least spec.minReadySeconds)",
       0},
      {"Node Selector", "string", "",
       "NodeSelector is a selector which must be true for the pod to fit on a node.", 0},
      AgeColumn(),
      kContainersColumn,
      kImagesColumn,
      {"Selector", "string", "", "A label query over pods that are managed by the daemon set.", 1},
  };
  p.cells = &DaemonSetCells;
  return p;
}

Printer MakeControllerRevisionPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Controller", "string", "", "Controller of the object", 0},
      {"Revision", "string", "",
       "Revision indicates the revision of the state represented by Data.", 0},
      AgeColumn(),
  };
  p.cells = &ControllerRevisionCells;
  return p;
}

Printer MakeReplicaSetPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Desired", "integer", "", "Replicas is the number of desired pods.", 0},
      {"Current", "integer", "",
       "Replicas is the most recently observed number of non-terminating pods.", 0},
      {"Ready", "integer", "",
       "The number of non-terminating pods targeted by this ReplicaSet with a Ready Condition.", 0},
      AgeColumn(),
      kContainersColumn,
      kImagesColumn,
      {"Selector", "string", "",
       "Selector is a label query over pods that should match the replica count.", 1},
  };
  p.cells = &ReplicaSetCells;
  return p;
}

Printer MakeStatefulSetPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),  {"Ready", "string", "", "Number of the pod with ready state", 0},
      AgeColumn(),   kContainersColumn,
      kImagesColumn,
  };
  p.cells = &StatefulSetCells;
  return p;
}

Printer MakeHpaPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Reference", "string", "",
       "scaleTargetRef points to the target resource to scale, and is used to the pods for which "
       "metrics should be collected, as well as to actually change the replica count.",
       0},
      {"Targets", "string", "",
       "metrics contains the specifications for which to use to calculate the desired replica "
       "count (the maximum replica count across all metrics will be used).  The desired replica "
       "count is calculated multiplying the ratio between the target value and the current value "
       "by the current number of pods.  Ergo, metrics used must decrease as the pod count is "
       "increased, and vice-versa.  See the individual metric source types for more information "
       "about how each type of metric must respond.",
       0},
      {"MinPods", "string", "",
       "minReplicas is the lower limit for the number of replicas to which the autoscaler can "
       "scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature "
       "gate HPAScaleToZero is enabled and at least one Object or External metric is configured. "
       " Scaling is active as long as at least one metric value is available.",
       0},
      {"MaxPods", "integer", "",
       "maxReplicas is the upper limit for the number of replicas to which the autoscaler can "
       "scale up. It cannot be less that minReplicas.",
       0},
      {"Replicas", "integer", "",
       "currentReplicas is current number of replicas of pods managed by this autoscaler, as last "
       "seen by the autoscaler.",
       0},
      AgeColumn(),
  };
  p.cells = &HpaCells;
  return p;
}

Printer MakeCronJobPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Schedule", "string", "",
       "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.", 0},
      {"Timezone", "string", "",
       "The time zone name for the given schedule, see "
       "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will "
       "default to the time zone of the kube-controller-manager process. The set of valid time "
       "zone names and the time zone offset is loaded from the system-wide time zone database by "
       "the API server during CronJob validation and the controller manager during execution. If "
       "no system-wide time zone database can be found a bundled version of the database is used "
       "instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to "
       "a change in host configuration, the controller will stop creating new new Jobs and will "
       "create a system event with the reason UnknownTimeZone. More information can be found in "
       "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones",
       0},
      {"Suspend", "boolean", "",
       "This flag tells the controller to suspend subsequent executions, it does not apply to "
       "already started executions.  Defaults to false.",
       0},
      {"Active", "integer", "", "A list of pointers to currently running jobs.", 0},
      {"Last Schedule", "string", "",
       "Information when was the last time the job was successfully scheduled.", 0},
      AgeColumn(),
      kContainersColumn,
      kImagesColumn,
      {"Selector", "string", "", kJobSelectorDoc, 1},
  };
  p.cells = &CronJobCells;
  return p;
}

Printer MakeJobPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Status", "string", "", "Status of the job.", 0},
      {"Completions", "string", "", "The number of pods which reached phase Succeeded.", 0},
      {"Duration", "string", "", "Time required to complete the job.", 0},
      AgeColumn(),
      kContainersColumn,
      kImagesColumn,
      {"Selector", "string", "", kJobSelectorDoc, 1},
  };
  p.cells = &JobCells;
  return p;
}

Printer MakeIngressPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Class", "string", "",
       "The name of the IngressClass resource that should be used for additional configuration", 0},
      {"Hosts", "string", "",
       "Hosts that incoming requests are matched against before the ingress rule", 0},
      {"Address", "string", "", "Address is a list containing ingress points for the load-balancer",
       0},
      {"Ports", "string", "", "Ports of TLS configurations that open", 0},
      AgeColumn(),
  };
  p.cells = &IngressCells;
  return p;
}

Printer MakeIngressClassPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Controller", "string", "", "Controller that is responsible for handling this class", 0},
      {"Parameters", "string", "", "A reference to a resource with additional parameters", 0},
      AgeColumn(),
  };
  p.cells = &IngressClassCells;
  return p;
}

Printer MakeCertificateSigningRequestPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      AgeColumn(),
      {"SignerName", "string", "",
       "signerName indicates the requested signer, and is a qualified name.  List/watch "
       "requests for CertificateSigningRequests can filter on this field using a \"spec.s"
       "ignerName=NAME\" fieldSelector.  Well-known Kubernetes signers are:  1. \"kubernet"
       "es.io/kube-apiserver-client\": issues client certificates that can be used to aut"
       "henticate to kube-apiserver.   Requests for this signer are never auto-approved "
       "by kube-controller-manager, can be issued by the \"csrsigning\" controller in kube"
       "-controller-manager.  2. \"kubernetes.io/kube-apiserver-client-kubelet\": issues c"
       "lient certificates that kubelets use to authenticate to kube-apiserver.   Reques"
       "ts for this signer can be auto-approved by the \"csrapproving\" controller in kube"
       "-controller-manager, and can be issued by the \"csrsigning\" controller in kube-co"
       "ntroller-manager.  3. \"kubernetes.io/kubelet-serving\" issues serving certificate"
       "s that kubelets use to serve TLS endpoints, which kube-apiserver can connect to "
       "securely.   Requests for this signer are never auto-approved by kube-controller-"
       "manager, and can be issued by the \"csrsigning\" controller in kube-controller-man"
       "ager.  More details are available at https://k8s.io/docs/reference/access-authn-"
       "authz/certificate-signing-requests/#kubernetes-signers  Custom signerNames can a"
       "lso be specified. The signer defines:  1. Trust distribution: how trust (CA bund"
       "les) are distributed.  2. Permitted subjects: and behavior when a disallowed sub"
       "ject is requested.  3. Required, permitted, or forbidden x509 extensions in the "
       "request (including whether subjectAltNames are allowed, which types, restriction"
       "s on allowed values) and behavior when a disallowed extension is requested.  4. "
       "Required, permitted, or forbidden key usages / extended key usages.  5. Expirati"
       "on/certificate lifetime: whether it is fixed by the signer, configurable by the "
       "admin.  6. Whether or not requests for CA certificates are allowed.",
       0},
      {"Requestor", "string", "",
       "request contains an x509 certificate signing request encoded in a \"CERTIFICATE R"
       "EQUEST\" PEM block. When serialized as JSON or YAML, the data is additionally bas"
       "e64-encoded.",
       0},
      {"RequestedDuration", "string", "",
       "expirationSeconds is the requested duration of validity of the issued certificat"
       "e. The certificate signer may issue a certificate with a different validity dura"
       "tion so a client must check the delta between the notBefore and and notAfter fie"
       "lds in the issued certificate to determine the actual duration.  The v1.22+ in-t"
       "ree implementations of the well-known Kubernetes signers will honor this field a"
       "s long as the requested duration is not greater than the maximum duration they w"
       "ill honor per the --cluster-signing-duration CLI flag to the Kubernetes controll"
       "er manager.  Certificate signers may not honor this field for various reasons:  "
       "  1. Old signer that is unaware of the field (such as the in-tree      implement"
       "ations prior to v1.22)   2. Signer whose configured maximum is shorter than the "
       "requested duration   3. Signer whose configured minimum is longer than the reque"
       "sted duration  The minimum valid value for expirationSeconds is 600, i.e. 10 min"
       "utes.",
       0},
      {"Condition", "string", "",
       "conditions applied to the request. Known conditions are \"Approved\", \"Denied\", an"
       "d \"Failed\".",
       0},
  };
  p.cells = &CertificateSigningRequestCells;
  return p;
}

Printer MakeLeasePrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Holder", "string", "",
       "holderIdentity contains the identity of the holder of a current lease.", 0},
      AgeColumn(),
  };
  p.cells = &LeaseCells;
  return p;
}

Printer MakeEndpointSlicePrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"AddressType", "string", "",
       "addressType specifies the type of address carried by this EndpointSlice. All addresses "
       "in this slice must be the same type. This field is immutable after creation. The "
       "following address types are currently supported: * IPv4: Represents an IPv4 Address. * "
       "IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name.",
       0},
      {"Ports", "string", "",
       "ports specifies the list of network ports exposed by each endpoint in this slice. Each "
       "port must have a unique name. When ports is empty, it indicates that there are no "
       "defined ports. When a port is defined with a nil port value, it indicates \"all "
       "ports\". Each slice may include a maximum of 100 ports.",
       0},
      {"Endpoints", "string", "",
       "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum "
       "of 1000 endpoints.",
       0},
      AgeColumn(),
  };
  p.cells = &EndpointSliceCells;
  return p;
}

Printer MakePodDisruptionBudgetPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Min Available", "string", "", "The minimum number of pods that must be available.", 0},
      {"Max Unavailable", "string", "", "The maximum number of pods that may be unavailable.", 0},
      {"Allowed Disruptions", "integer", "",
       "Calculated number of pods that may be disrupted at this time.", 0},
      AgeColumn(),
  };
  p.cells = &PodDisruptionBudgetCells;
  return p;
}

Printer MakeRoleBindingPrinter() {
  Printer p;
  p.columns = RoleBindingColumns("roleBinding");
  p.cells = &RoleBindingCells;
  return p;
}

Printer MakeClusterRoleBindingPrinter() {
  Printer p;
  p.columns = RoleBindingColumns("clusterRoleBinding");
  p.cells = &RoleBindingCells;
  return p;
}

Printer MakePriorityClassPrinter() {
  Printer p;
  p.columns = {
      NameColumn(),
      {"Value", "integer", "",
       "value represents the integer value of this priority class. This is the actual priority "
       "that pods receive when they have the name of this class in their pod spec.",
       0},
      {"Global-Default", "boolean", "",
       "globalDefault specifies whether this PriorityClass should be considered as the default "
       "priority for pods that do not have any priority class.",
       0},
      AgeColumn(),
      {"PreemptionPolicy", "string", "",
       "preemptionPolicy is the Policy for preempting pods with lower priority.", 0},
  };
  p.cells = &PriorityClassCells;
  return p;
}

}  // namespace tidepool::apiserver::printers::internal
