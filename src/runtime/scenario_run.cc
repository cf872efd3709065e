#include "runtime/scenario_run.h"

#include <cctype>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "apiserver/resources.h"
#include "client/rest_client.h"
#include "common/random.h"
#include "scheduler/framework/pod_info.h"
#include "scheduler/plugins/packing/fgd.h"
#include "sim/placement.h"

namespace tidepool::runtime {
namespace {

using nlohmann::json;
namespace emu = cloud::emulated;

constexpr char kLastApplied[] = "kubectl.kubernetes.io/last-applied-configuration";
constexpr char kApplyManager[] = "kubectl-client-side-apply";

// The timeline's two kinds of lines an action makes.
class Terminal {
 public:
  explicit Terminal(SimCluster& c) : c_(c) {}
  void Command(const std::string& command) {
    c_.timeline().Add(c_.Now(), "action", "", "$ " + command, {{"command", command}});
  }
  void Print(const std::string& line) {
    c_.timeline().Add(c_.Now(), "output", "", "  " + line, {{"output", line}});
  }

 private:
  SimCluster& c_;
};

// kubectl's name of a resource in its messages: "pod", "deployment.apps".
std::string KubectlTypeName(const apiserver::Resource& r) {
  return r.group.empty() ? r.singular : r.singular + "." + r.group;
}

// What kubectl prints for a failed request (cmdutil.CheckErr): an Invalid answer as "The Kind
// \"name\" is invalid: field: message" (one line per cause when several), anything else as
// "Error from server (Reason): error when <verb> \"<source>\": message".
void PrintError(Terminal& t, const client::RestResult& r, const std::string& verb,
                const std::string& source) {
  const json* details =
      r.body.is_object() && r.body.contains("details") ? &r.body["details"] : nullptr;
  if (r.reason == "Invalid" && details != nullptr && details->is_object()) {
    const std::string head = "The " + details->value("kind", "") + " \"" +
                             details->value("name", "") + "\" is invalid: ";
    std::vector<std::string> causes;
    if (details->contains("causes") && (*details)["causes"].is_array()) {
      for (const json& c : (*details)["causes"]) {
        if (!c.is_object()) continue;
        const std::string field = c.value("field", "");
        causes.push_back(field.empty() ? c.value("message", "")
                                       : field + ": " + c.value("message", ""));
      }
    }
    if (causes.size() == 1) {
      t.Print(head + causes[0]);
      return;
    }
    if (!causes.empty()) {
      t.Print(head);
      for (const std::string& c : causes) t.Print("* " + c);
      return;
    }
  }
  const std::string reason = r.reason.empty() ? "" : " (" + r.reason + ")";
  const std::string where = verb.empty() ? "" : "error when " + verb + " \"" + source + "\": ";
  t.Print("Error from server" + reason + ": " + where + std::string(r.status.message()));
}

// kubectl apply's three-way patch, as a JSON merge patch (RFC 7386): what `modified` (the
// manifest now) sets that `current` (the live object) does not have so, and null for what
// `original` (the last-applied manifest) had and `modified` dropped. A list the manifest did not
// change is left as it lives (the server's defaults in its items stay), one it changed is
// replaced. Empty when there is nothing to do.
json ThreeWayPatch(const json& original, const json& modified, const json& current) {
  json patch = json::object();
  if (!modified.is_object()) return patch;
  const json empty = json::object();
  if (original.is_object()) {
    for (const auto& [k, v] : original.items()) {
      if (!modified.contains(k) && current.is_object() && current.contains(k)) patch[k] = nullptr;
    }
  }
  for (const auto& [k, v] : modified.items()) {
    const json* was = original.is_object() && original.contains(k) ? &original[k] : nullptr;
    const json* live = current.is_object() && current.contains(k) ? &current[k] : nullptr;
    if (live == nullptr) {
      patch[k] = v;
    } else if (v.is_object() && live->is_object()) {
      json sub = ThreeWayPatch(was != nullptr ? *was : empty, v, *live);
      if (!sub.empty()) patch[k] = std::move(sub);
    } else if (v.is_array() && was != nullptr && *was == v) {
      // Unchanged in the manifest: the live list keeps what the server added to it.
    } else if (*live != v) {
      patch[k] = v;
    }
  }
  return patch;
}

std::vector<std::pair<std::string, std::string>> ApplyQuery() {
  return {{"fieldManager", kApplyManager}, {"fieldValidation", "Strict"}};
}

// One document of `kubectl apply -f source`.
void ApplyOne(SimCluster& c, Terminal& t, json manifest, const std::string& source) {
  const std::string api_version = manifest.value("apiVersion", "");
  const std::string kind = manifest.value("kind", "");
  json& meta = manifest["metadata"];
  const std::string name = meta.value("name", "");
  const apiserver::Resource* r = apiserver::FindResourceByKind(api_version, kind);
  std::string ns = meta.is_object() && meta.contains("namespace") && meta["namespace"].is_string()
                       ? meta["namespace"].get<std::string>()
                       : "default";
  if (r == nullptr) {
    t.Print("error: resource mapping not found for name: \"" + name + "\" namespace: \"" +
            (meta.contains("namespace") ? ns : "") + "\" from \"" + source +
            "\": no matches for kind \"" + kind + "\" in version \"" + api_version + "\"");
    t.Print("ensure CRDs are installed first");
    return;
  }
  if (!r->namespaced) ns.clear();
  // The annotation holds the manifest as applied (kubectl's GetModifiedConfiguration: with its
  // namespace, and annotations without the annotation itself, {} when none).
  if (!meta.contains("annotations") || !meta["annotations"].is_object()) {
    meta["annotations"] = json::object();
  }
  meta["annotations"].erase(kLastApplied);
  if (r->namespaced) meta["namespace"] = ns;
  const std::string applied = manifest.dump() + "\n";
  meta["annotations"][kLastApplied] = applied;
  const std::string collection = client::ResourcePath(r->group, r->version, r->resource, ns);
  const std::string path = collection + "/" + name;
  const std::string shown = KubectlTypeName(*r) + "/" + name;

  client::RestResult current = c.kubectl().GetResult(path);
  if (current.http_status == 404) {
    client::RestRequest req;
    req.method = "POST";
    req.path = collection;
    req.query = ApplyQuery();
    req.body = std::move(manifest);
    client::RestResult created = c.kubectl().Do(req);
    if (created.ok()) {
      t.Print(shown + " created");
    } else {
      PrintError(t, created, "creating", source);
    }
    return;
  }
  if (!current.ok()) {
    PrintError(t, current, "retrieving current configuration of", source);
    return;
  }
  json original = json::object();
  const json& cur_meta = current.body["metadata"];
  if (cur_meta.contains("annotations") && cur_meta["annotations"].contains(kLastApplied) &&
      cur_meta["annotations"][kLastApplied].is_string()) {
    original = json::parse(cur_meta["annotations"][kLastApplied].get_ref<const std::string&>(),
                           nullptr, /*allow_exceptions=*/false);
    if (original.is_discarded()) original = json::object();
  } else {
    t.Print("Warning: resource " + r->resource + "/" + name + " is missing the " + kLastApplied +
            " annotation which is required by kubectl apply. kubectl apply should only be used "
            "on resources created declaratively by either kubectl create --save-config or "
            "kubectl apply. The missing annotation will be patched automatically.");
  }
  const json patch = ThreeWayPatch(original, manifest, current.body);
  if (patch.empty()) {
    t.Print(shown + " unchanged");
    return;
  }
  client::RestRequest req;
  req.method = "PATCH";
  req.path = path;
  req.query = ApplyQuery();
  req.content_type = std::string(client::PatchContentType(client::PatchType::kMerge));
  req.body = patch;
  client::RestResult patched = c.kubectl().Do(req);
  if (patched.ok()) {
    t.Print(shown + " configured");
  } else {
    PrintError(t, patched, "patching", source);
  }
}

void KubectlApply(SimCluster& c, const sim::ScenarioAction& a) {
  Terminal t(c);
  t.Command("kubectl apply -f " + a.source);
  // kubectl names standard input STDIN in its messages.
  const std::string source = a.source == "-" ? "STDIN" : a.source;
  for (const std::string& text : a.manifests) {
    ApplyOne(c, t, json::parse(text), source);
  }
}

// kubectl's resource type lookup, in any case: plural, singular, short name, or
// "<plural>.<group>"; the first served match wins (core before groups, as kubectl's priority).
const apiserver::Resource* FindResourceType(std::string type) {
  // kubectl's RESTMapper lowercases what it is given ("Deployment/web" works).
  for (char& ch : type) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const apiserver::Resource& r : apiserver::Resources()) {
    if (type == r.resource || type == r.singular || type == r.resource + "." + r.group ||
        type == r.singular + "." + r.group) {
      return &r;
    }
    for (const std::string& s : r.short_names) {
      if (type == s) return &r;
    }
  }
  return nullptr;
}

void KubectlDelete(SimCluster& c, const sim::ScenarioAction& a) {
  Terminal t(c);
  const bool other_ns = !a.namespace_.empty() && a.namespace_ != "default";
  t.Command("kubectl delete " + a.resource_type + " " + a.name +
            (other_ns ? " -n " + a.namespace_ : ""));
  const apiserver::Resource* r = FindResourceType(a.resource_type);
  if (r == nullptr) {
    t.Print("error: the server doesn't have a resource type \"" + a.resource_type + "\"");
    return;
  }
  const std::string ns = !r->namespaced ? "" : a.namespace_.empty() ? "default" : a.namespace_;
  const std::string path = client::ResourcePath(r->group, r->version, r->resource, ns, a.name);
  client::RestResult res =
      c.kubectl().DeleteResult(path, json{{"propagationPolicy", "Background"}});
  if (res.ok()) {
    t.Print(KubectlTypeName(*r) + " \"" + a.name + "\" deleted");
  } else {
    PrintError(t, res, "", "");
  }
}

// kubectl scale TYPE/NAME --replicas=N: a merge patch of the scale subresource.
void KubectlScale(SimCluster& c, const sim::ScenarioAction& a) {
  Terminal t(c);
  const bool other_ns = !a.namespace_.empty() && a.namespace_ != "default";
  t.Command("kubectl scale " + a.resource_type + "/" + a.name +
            " --replicas=" + std::to_string(a.replicas) + (other_ns ? " -n " + a.namespace_ : ""));
  const apiserver::Resource* r = FindResourceType(a.resource_type);
  if (r == nullptr) {
    t.Print("error: the server doesn't have a resource type \"" + a.resource_type + "\"");
    return;
  }
  // A kind without a /scale subresource: the server's 404, as kubectl 1.32 prints it.
  const std::string ns = !r->namespaced ? "" : a.namespace_.empty() ? "default" : a.namespace_;
  const std::string path =
      client::ResourcePath(r->group, r->version, r->resource, ns, a.name, "scale");
  client::RestResult res = c.kubectl().PatchResult(path, client::PatchType::kMerge,
                                                   json{{"spec", {{"replicas", a.replicas}}}});
  if (res.ok()) {
    t.Print(KubectlTypeName(*r) + "/" + a.name + " scaled");
  } else {
    PrintError(t, res, "", "");
  }
}

// ---- gcloud ------------------------------------------------------------------------------------

std::string JoinTaints(const std::vector<api::Taint>& taints) {
  std::string out;
  for (const api::Taint& t : taints) out += (out.empty() ? "" : ",") + t.ToString();
  return out;
}

std::string PoolUrl(SimCluster& c, const std::string& pool) {
  return "https://container.googleapis.com/v1/" + c.cloud().NodePoolPath(pool);
}

std::string CreatePoolCommand(const sim::WorldOptions& w, const emu::NodePoolSpec& spec) {
  std::string cmd = "gcloud container node-pools create " + spec.name + " --cluster " + w.cluster +
                    " --zone " + w.zone + " --machine-type " + spec.machine_type;
  if (spec.accelerator.has_value()) {
    cmd += " --accelerator type=" + spec.accelerator->type +
           ",count=" + std::to_string(spec.accelerator->count);
  }
  if (spec.autoscaling) {
    cmd += " --enable-autoscaling --min-nodes " + std::to_string(spec.min_nodes) + " --max-nodes " +
           std::to_string(spec.max_nodes);
  }
  cmd += " --num-nodes " + std::to_string(spec.initial_node_count);
  if (!spec.taints.empty()) cmd += " --node-taints " + JoinTaints(spec.taints);
  if (!spec.labels.empty()) {
    std::string labels;
    for (const auto& [k, v] : spec.labels) labels += (labels.empty() ? "" : ",") + k + "=" + v;
    cmd += " --node-labels " + labels;
  }
  if (spec.spot) cmd += " --spot";
  return cmd;
}

// Runs one gcloud command: the command line, then "ERROR: (gcloud.<group>) message" or `done`.
template <typename Fn>
void Gcloud(SimCluster& c, const std::string& command, const std::string& group, Fn&& call,
            const std::string& done) {
  Terminal t(c);
  t.Command(command);
  const Status s = call();
  t.Print(s.ok() ? done : "ERROR: (gcloud." + group + ") " + std::string(s.message()));
}

void RunAction(SimCluster& c, const sim::WorldOptions& w, const sim::ScenarioAction& a) {
  using Kind = sim::ScenarioAction::Kind;
  const std::string where = " --cluster " + w.cluster + " --zone " + w.zone;
  switch (a.kind) {
    case Kind::kApply:
      KubectlApply(c, a);
      return;
    case Kind::kDelete:
      KubectlDelete(c, a);
      return;
    case Kind::kScale:
      KubectlScale(c, a);
      return;
    case Kind::kCreateNodePool:
      Gcloud(
          c, CreatePoolCommand(w, a.pool), "container.node-pools.create",
          [&] { return c.cloud().CreateNodePool(a.pool); },
          "Created [" + PoolUrl(c, a.pool.name) + "].");
      return;
    case Kind::kDeleteNodePool:
      Gcloud(
          c, "gcloud container node-pools delete " + a.name + where, "container.node-pools.delete",
          [&] { return c.cloud().DeleteNodePool(a.name); },
          "Deleted [" + PoolUrl(c, a.name) + "].");
      return;
    case Kind::kResize:
      Gcloud(
          c,
          "gcloud container clusters resize " + w.cluster + " --node-pool " + a.name +
              " --num-nodes " + std::to_string(a.node_count) + " --zone " + w.zone,
          "container.clusters.resize", [&] { return c.cloud().SetSize(a.name, a.node_count); },
          "Resizing " + w.cluster + "...done.");
      return;
    case Kind::kAutoscaling:
      Gcloud(
          c,
          "gcloud container node-pools update " + a.name + where +
              (a.enabled ? " --enable-autoscaling --min-nodes " + std::to_string(a.min_nodes) +
                               " --max-nodes " + std::to_string(a.max_nodes)
                         : " --no-enable-autoscaling"),
          "container.node-pools.update",
          [&] { return c.cloud().SetAutoscaling(a.name, a.enabled, a.min_nodes, a.max_nodes); },
          "Updated [" + PoolUrl(c, a.name) + "].");
      return;
    case Kind::kFaults: {
      const emu::Faults& f = a.faults;
      const std::string text = "cloud faults now: " + std::to_string(f.stockout.size()) +
                               " stockout, " + std::to_string(f.gpu_quota.size()) + " GPU quota, " +
                               std::to_string(f.never_registers.size()) + " never-registers, " +
                               std::to_string(f.slow_boot.size()) + " slow-boot, " +
                               std::to_string(f.driver_never_ready.size()) +
                               " driver-never-ready rules";
      c.timeline().Add(c.Now(), "action", "", "* " + text, {{"faults", text}});
      c.cloud().faults() = f;
      return;
    }
  }
}

// A trace's pod: created at its arrival (with kubectl's identity, as `kubectl create` would,
// without a command line on the timeline: a trace has thousands), deleted at its end. A
// refused create is on the timeline ("trace   pod/x not created: ...").
void CreateTracePod(SimCluster& c, const nlohmann::json& pod, const std::string& ns) {
  client::RestResult r =
      c.kubectl().CreateResult(client::ResourcePath("", "v1", "pods", ns), pod);
  if (!r.ok()) {
    const std::string name = pod["metadata"].value("name", "");
    c.timeline().Add(c.Now(), "trace", "pod/" + name,
                     "trace   pod/" + name + " not created: " + std::string(r.status.message()),
                     {{"name", name}, {"error", std::string(r.status.message())}});
  }
}

void DeleteTracePod(SimCluster& c, const std::string& name, const std::string& ns) {
  (void)c.kubectl().DeleteResult(client::ResourcePath("", "v1", "pods", ns, name),
                                 json{{"propagationPolicy", "Background"}});
}

// A packing policy's arguments for this run (scheduler.packing): Random's draws from the seed;
// FGD's typical pods are the trace's pods (the workload it expects), so FGD needs a trace.
Status PreparePacking(const sim::Scenario& scenario, const sim::Trace* trace,
                      sim::WorldOptions& w) {
  scheduler::Profile& profile = w.scheduler.profile;
  if (profile.reserve.empty()) return OkStatus();  // kube-scheduler's default profile
  profile.args.packing.seed = SubSeed(w.seed, 2);
  if (profile.score.size() == 1 && profile.score[0].first == "FGD") {
    if (trace == nullptr) {
      return InvalidArgumentError(
          "scheduler.packing: FGD needs a trace (its typical pods are the trace's pods)");
    }
    TIDEPOOL_ASSIGN_OR_RETURN(std::vector<scheduler::PodInfoConstSharedPtr> pods,
                              sim::TracePodInfos(*trace, *scenario.trace));
    profile.args.packing.typical_pods =
        scheduler::plugins::TypicalPods(pods, profile.args.packing.gpu_model_label);
  }
  w.autoscaling.scheduler_profile = profile;
  return OkStatus();
}

// Schedules the trace's pods that arrive before `end` (since `start`); a line on the timeline
// says what was read.
Status ScheduleTrace(SimCluster* c, const sim::TraceOptions& options, const sim::Trace& trace,
                     TimePoint start, Duration end) {
  if (!options.nodes_file.empty()) {
    // The trace's own cluster: its nodes, made Ready by the kubelets (KWOK nodes).
    TIDEPOOL_ASSIGN_OR_RETURN(std::vector<sim::TraceNode> nodes, sim::LoadTraceNodes(options));
    int64_t gpus = 0, created = 0;
    for (const sim::TraceNode& n : nodes) {
      client::RestResult r = c->kubectl().CreateResult("/api/v1/nodes", sim::TraceNodeJson(n));
      if (!r.ok()) {
        return InvalidArgumentError(options.nodes_file + ": node " + n.name + ": " +
                                    std::string(r.status.message()));
      }
      gpus += n.gpus;
      ++created;
    }
    c->timeline().Add(c->Now(), "trace", "nodes",
                      "trace   " + options.nodes_file + ": " + std::to_string(created) +
                          " nodes with " + std::to_string(gpus) + " GPUs",
                      {{"file", options.nodes_file}, {"nodes", created}, {"gpus", gpus}});
  }
  if (options.namespace_ != "default") {
    const json ns = {{"apiVersion", "v1"},
                     {"kind", "Namespace"},
                     {"metadata", {{"name", options.namespace_}}}};
    (void)c->kubectl().CreateResult("/api/v1/namespaces", ns);
  }
  int64_t scheduled = 0;
  for (const sim::TraceRow& row : trace.rows) {
    if (row.arrival > end) break;
    ++scheduled;
    auto pod = std::make_shared<const json>(sim::TracePod(row, options));
    const std::string ns = options.namespace_;
    c->queue().ScheduleAt(start + row.arrival, [c, pod, ns] { CreateTracePod(*c, *pod, ns); });
    if (row.end.has_value() && *row.end <= end) {
      const std::string name = row.name;
      c->queue().ScheduleAt(start + *row.end, [c, name, ns] { DeleteTracePod(*c, name, ns); });
    }
  }
  std::string text = "trace   " + options.file + " (" + trace.format + "): " +
                     std::to_string(trace.rows_read) + " rows, " +
                     std::to_string(trace.rows.size()) + " pods after sampling, " +
                     std::to_string(scheduled) + " arriving before the end";
  if (trace.shared_gpu_rows > 0) {
    text += "; " + std::to_string(trace.shared_gpu_rows) +
            " asked for a share of a GPU and get a whole one";
  }
  for (const auto& [model, n] : trace.unmapped_gpu_models) {
    text += "; GPU model " + model + " (" + std::to_string(n) +
            " pods) not in gpuModels: any GPU node";
  }
  c->timeline().Add(c->Now(), "trace", "trace", text,
                    {{"file", options.file},
                     {"format", trace.format},
                     {"rows", trace.rows_read},
                     {"pods", static_cast<int64_t>(trace.rows.size())},
                     {"arriving", scheduled},
                     {"sharedGpuRows", trace.shared_gpu_rows}});
  return OkStatus();
}

}  // namespace

StatusOr<std::unique_ptr<SimCluster>> RunScenario(const sim::Scenario& scenario,
                                                  std::optional<Duration> until,
                                                  bool summary_only) {
  // The trace is read once: its pods, and FGD's typical pods.
  std::optional<sim::Trace> trace;
  if (scenario.trace.has_value()) {
    TIDEPOOL_ASSIGN_OR_RETURN(trace,
                              sim::LoadTrace(*scenario.trace, SubSeed(scenario.world.seed, 1)));
  }
  UpComponentOptions components;
  components.world = scenario.world;
  components.ApplyWorld();
  TIDEPOOL_RETURN_IF_ERROR(
      PreparePacking(scenario, trace.has_value() ? &*trace : nullptr, components.world));
  TIDEPOOL_ASSIGN_OR_RETURN(std::unique_ptr<SimCluster> cluster,
                            SimCluster::Create(std::move(components)));
  SimCluster* c = cluster.get();
  c->timeline().set_summary_only(summary_only);
  const TimePoint start = scenario.world.start;
  // Copies: an action after `until` stays queued on the cluster the caller gets.
  auto world = std::make_shared<const sim::WorldOptions>(scenario.world);
  for (const sim::ScenarioAction& a : scenario.timeline) {
    auto action = std::make_shared<const sim::ScenarioAction>(a);
    c->queue().ScheduleAt(start + a.at, [c, world, action] { RunAction(*c, *world, *action); });
  }
  const Duration end = until.value_or(scenario.run_for);
  if (trace.has_value()) {
    TIDEPOOL_RETURN_IF_ERROR(ScheduleTrace(c, *scenario.trace, *trace, start, end));
  }
  c->RunUntil(start + end);
  c->recorder().RecordSummary(scenario.world.seed, c->feed().Pods());
  return cluster;
}

}  // namespace tidepool::runtime
