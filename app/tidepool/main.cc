// The tidepool binary. Parses flags (CLI11 lives only in this translation unit) and calls a
// runtime; nothing else happens here.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "autoscaler/flags.h"
#include "common/duration.h"
#include "runtime/autoscale_command.h"

#include "runtime/schedule_command.h"
#include "runtime/compare_command.h"
#include "runtime/simulate_command.h"
#include "runtime/up_command.h"

int main(int argc, char** argv) {
  CLI::App app{"tidepool: GPU-aware, scale-from-zero autoscaling for Kubernetes"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tidepool 0.1.0 (Kubernetes 1.32 scheduling semantics)");

  tidepool::runtime::ScheduleOptions schedule;
  CLI::App* sched = app.add_subcommand(
      "schedule",
      "Run the scheduling core on manifests of Nodes and Pods, one file per step, printing the "
      "scheduler's events (kube-scheduler 1.32's FailedScheduling texts)");
  sched->add_option("-f,--filename", schedule.files, "Manifest (YAML or JSON); repeat for steps")
      ->required();

  tidepool::runtime::SimulateOptions simulate;
  uint64_t seed = 0;
  std::string until;
  CLI::App* sim = app.add_subcommand(
      "simulate",
      "Replay a scenario (cluster, node pools, autoscaler flags, cloud delays and faults, a "
      "timeline of kubectl/gcloud actions) on virtual time and print what a person would see: "
      "pods, nodes, events, the autoscaler's log and node pool sizes, stamped with the simulated "
      "time since the start");
  sim->footer(
      "A scenario's `trace:` replays a real cluster's trace (Alibaba's DLRM serving trace, the "
      "openb pod lists, or a CSV: arrival, duration or end, cpu, memory, gpus, gpuModel, "
      "class, ...) as pods; see src/sim/trace.h and the README. Pods run for their annotation "
      "tidepool.dev/duration (a Go duration) or their container's `sleep N`.");
  sim->add_option("scenario", simulate.scenario,
                  "Scenario YAML, e.g. examples/seed-walkthrough.yaml")
      ->required();
  sim->add_option("-o,--output", simulate.output,
                  "Output format: text, json (the same entries as data) or csv (the summary, one "
                  "number per row: section,name,metric,value)")
      ->check(CLI::IsMember({"text", "json", "csv"}))
      ->default_val("text");
  sim->add_option("--report", simulate.report,
                  "Also write the run as one self-contained HTML page (summary tables; plots of "
                  "pending pods, nodes per pool, GPUs allocated and provisioned, cost over time)");
  sim->add_flag("--summary", simulate.summary_only,
                "Print only the end-of-run summary (cost per pool, GPU-hours allocated and "
                "provisioned, pending-time percentiles per class, pods never scheduled and why, "
                "provisioning times) and the trace's line, not every change");
  CLI::Option* seed_opt = sim->add_option("--seed", seed, "Random seed (overrides the scenario's)");
  CLI::Option* until_opt = sim->add_option(
      "--until", until, "How long to simulate, a Go duration such as 35m (overrides runFor)");

  tidepool::runtime::CompareOptions compare;
  uint64_t compare_seed = 0;
  std::string compare_until;
  std::string compare_shard;
  CLI::App* cmp = app.add_subcommand(
      "compare",
      "Run the same workload under several configurations (each a simulate scenario: other node "
      "pools, machine types, spot, expander, unneeded time, max nodes...) in parallel and print "
      "one table side by side: cost, GPU-hours allocated and provisioned, nodes created, and "
      "per class the pods never scheduled and the wait percentiles");
  cmp->add_option("scenarios", compare.scenarios,
                  "Scenario YAML files, e.g. a.yaml b.yaml (with --merge: shards' CSV files)")
      ->required();
  cmp->add_option("-o,--output", compare.output, "Output format: text or csv")
      ->check(CLI::IsMember({"text", "csv"}))
      ->default_val("text");
  cmp->add_option("--report", compare.report,
                  "Also write the comparison as one self-contained HTML page (the table and "
                  "overlaid plots of pending pods, nodes, GPUs and cumulative cost)");
  cmp->add_option("-j,--jobs", compare.jobs, "Runs at once (default: the machine's cores)");
  CLI::Option* shard_opt = cmp->add_option(
      "--shard", compare_shard,
      "i/N: run only the scenarios at positions k with k mod N = i (a sweep shared by N "
      "processes, e.g. an Indexed Job's pods: deploy/sweep/); print them as --output csv");
  cmp->add_flag("--merge", compare.merge,
                "The arguments are shards' CSV files: print their columns side by side");
  CLI::Option* compare_seed_opt =
      cmp->add_option("--seed", compare_seed, "Random seed (overrides every scenario's)");
  CLI::Option* compare_until_opt = cmp->add_option(
      "--until", compare_until, "How long to simulate each, a Go duration (overrides runFor)");

  tidepool::runtime::UpOptions up;
  bool no_autoscaler = false;
  CLI::App* up_cmd = app.add_subcommand(
      "up",
      "Run an emulated GPU-capable GKE cluster on loopback, in real time: a Kubernetes 1.32 API "
      "that the real kubectl drives, the scheduler, emulated kubelets, cloud and GPU drivers, and "
      "the autoscaler");
  up_cmd->footer(
      "Emulated containers: a container runs for its pod's annotation tidepool.dev/duration (a "
      "Go duration, e.g. \"2m\") or the `sleep N` of its command and args; a command made only "
      "of commands that end at once (echo, printf, true, false, exit, date, env, nvidia-smi...) "
      "and sleeps ends after its sleeps; `while true`, the image's entrypoint or any other "
      "program without a sleep runs until deleted. It exits with the annotation "
      "tidepool.dev/exit-code (an integer), the first `exit N` of its command, or 1 when its last "
      "command is `false`, else 0: terminated Completed (0) or Error. restartPolicy Never: "
      "the pod Succeeds (0) or Fails; OnFailure (non-zero) and Always restart the container as the "
      "kubelet does (restartCount, lastState, CrashLoopBackOff 10s doubling to 5m, divided by "
      "--speed). Run times are the pod's own: --speed does not divide them.");
  up_cmd->add_option("--address", up.address,
                     "Listen address (default loopback, no credential). Any other address "
                     "(0.0.0.0, a LAN address) serves HTTPS with tidepool's own CA and requires a "
                     "bearer token, written only into --kubeconfig and --gcloud-config (mode 0600)")
      ->default_val("127.0.0.1");
  bool anonymous_auth = true;
  CLI::Option* anonymous_auth_opt = up_cmd->add_option(
      "--anonymous-auth", anonymous_auth,
      "Serve requests without a credential (kube-apiserver's flag). Default: true on loopback; "
      "false on loopback serves HTTPS with a token as a non-loopback address does; true on a "
      "non-loopback address is refused");
  up_cmd->add_option("--port", up.port, "API port (0: pick a free one)")->default_val(0);
  up_cmd->add_option("--kubeconfig", up.kubeconfig,
                     "Write a kubeconfig with a context named tidepool to this path");
  up_cmd->add_option("--gcloud-config", up.gcloud_config,
                     "Write a gcloud configuration directory (use it as CLOUDSDK_CONFIG) whose "
                     "endpoints point at this cluster's GKE API");
  up_cmd
      ->add_option("--cloud", up.cloud,
                   "The cloud to emulate: gke (GKE's API for gcloud) or aws (EKS, Auto "
                   "Scaling, EC2 and STS for the aws CLI; EKS nodes, AWS instance types)")
      ->default_val("gke");
  up_cmd->add_option("--aws-config", up.aws_config,
                     "With --cloud aws: write an AWS CLI config and credentials file into this "
                     "directory (use them as AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE) "
                     "whose endpoint is this cluster's AWS API");
  up_cmd->add_option("--speed", up.speed,
                     "Divide every emulated duration (VM boot, kubelet, GPU driver, scheduler "
                     "backoffs, event TTL, every autoscaler timer) by this factor; timestamps "
                     "stay real")
      ->default_val(1.0);
  up_cmd->add_option("--config", up.config,
                     "Cluster config: node pools, autoscaler flags, cloud delays and faults (the "
                     "scenario format of tidepool simulate, without a timeline)");
  up_cmd->add_option("--data-dir", up.data_dir,
                     "Persist every acknowledged write in SQLite under this directory, and resume "
                     "from it");
  up_cmd->add_flag("--no-autoscaler", no_autoscaler, "Do not run the embedded autoscaler");
  up_cmd->add_option("--service-cluster-ip-range", up.service_cluster_ip_range,
                     "Services' cluster IP range, a CIDR (kube-apiserver's flag; default: the "
                     "config's cluster.servicesIpv4Cidr, else GKE's 34.118.224.0/20 or EKS's "
                     "10.100.0.0/16)");
  auto* external_grpc = up_cmd->add_option(
      "--external-autoscaler-grpc", up.external_autoscaler_grpc,
      "Serve the emulated cloud's node pools as the Cluster Autoscaler's externalgrpc cloud "
      "provider on this address (host:port, port 0 for a free one) for the real CA; the "
      "embedded autoscaler is then off");
  up_cmd
      ->add_option("--external-autoscaler-cloud-config", up.external_autoscaler_cloud_config,
                   "Write the Cluster Autoscaler's --cloud-config for that server (its address "
                   "with the port bound) to this file once ready")
      ->needs(external_grpc);
  bool no_gpu_operator = false;
  up_cmd->add_flag("--no-gpu-operator", no_gpu_operator,
                   "Do not run the emulated NVIDIA GPU operator: GPU nodes then never expose "
                   "nvidia.com/gpu (the walkthrough without its step 2)");
  up_cmd->add_option("-v,--v", up.verbosity,
                     "The autoscaler's log verbosity (klog -v; default: the config's, at least 1)");
  up_cmd->add_option("--seed", up.seed, "Random seed (0: from the clock)");
  std::string event_ttl = "1h0m0s";
  up_cmd->add_option("--event-ttl", event_ttl,
                     "Amount of time to retain events (kube-apiserver's --event-ttl); an emulated "
                     "duration, divided by --speed like the others")
      ->default_val("1h0m0s");
  up_cmd->add_option("--port-file", up.port_file,
                     "Write the API port to this file once ready (for scripts and tests)");

  tidepool::runtime::AutoscaleOptions autoscale;
  CLI::App* as_cmd = app.add_subcommand(
      "autoscale",
      "Run the autoscaler against a Kubernetes API server and a cloud's public APIs (GKE, AWS), in "
      "place of the Cluster Autoscaler: informers, leader election, /healthz and /metrics; the "
      "same engine as tidepool up and simulate. Takes the Cluster Autoscaler's flags");
  as_cmd->add_option("--kubeconfig", autoscale.kubeconfig,
                     "Path to a kubeconfig (default: $KUBECONFIG, else the in-cluster service "
                     "account)");
  as_cmd->add_option("--context", autoscale.context, "The kubeconfig context to use");
  as_cmd->add_option("--cloud-provider,--cloud", autoscale.cloud_provider, "Cloud provider type")
      ->default_val("gke");
  as_cmd->add_option("--cloud-config", autoscale.cloud.cloud_config,
                     "The path to the cloud provider configuration file.  Empty string for no "
                     "configuration file.");
  // The flags each cloud provider declares (cloud/registry.h), by name; a switch as a bool.
  std::map<std::string, std::string> cloud_values;
  std::map<std::string, bool> cloud_switches;
  std::map<std::string, CLI::Option*> cloud_flags;
  for (const tidepool::cloud::ProviderFlag& f : tidepool::runtime::AutoscaleCloudFlags()) {
    cloud_flags[f.name] = f.kind == tidepool::cloud::ProviderFlag::Kind::kSwitch
                              ? as_cmd->add_flag("--" + f.name, cloud_switches[f.name], f.help)
                              : as_cmd->add_option("--" + f.name, cloud_values[f.name], f.help);
  }
  as_cmd
      ->add_option("--nodes", autoscale.cloud.node_groups,
                   "sets min,max size and other configuration data for a node group in a "
                   "format accepted by cloud provider. Can be used multiple times. Format: "
                   "<min>:<max>:<other...> (GKE: <min>:<max>:<node pool>; without it, the "
                   "pools with GKE autoscaling enabled; AWS: <min>:<max>:<ASG name>)")
      ->allow_extra_args(false);
  as_cmd
      ->add_option("--node-group-auto-discovery", autoscale.cloud.node_group_auto_discovery,
                   "One or more definition(s) of node group auto-discovery. A definition is "
                   "expressed `<name of discoverer>:[<key>[=<value>]]`. AWS matches by ASG "
                   "tags, e.g. `asg:tag=tagKey,anotherTagKey`. Can be used multiple times.")
      ->allow_extra_args(false);
  as_cmd->add_flag("--insecure-allow-http-credentials", autoscale.insecure_allow_http_credentials,
                   "Send credentials (the kubeconfig's, the cloud's OAuth token) over plain "
                   "http:// to a host other than this machine; refused without it");
  as_cmd->add_option("--config", autoscale.config,
                     "YAML map of Cluster Autoscaler flags (command-line flags win)");
  as_cmd->add_option("--leader-elect", autoscale.leader_elect,
                     "Start a leader election client and gain leadership before executing the "
                     "main loop")
      ->default_val(true)
      ->expected(0, 1)
      ->default_str("true");
  std::string lease_duration = "15s", renew_deadline = "10s", retry_period = "2s";
  as_cmd->add_option("--leader-elect-lease-duration", lease_duration,
                     "The duration that non-leader candidates will wait after observing a "
                     "leadership renewal until attempting to acquire leadership");
  as_cmd->add_option("--leader-elect-renew-deadline", renew_deadline,
                     "The interval between attempts by the acting master to renew a leadership "
                     "slot before it stops leading");
  as_cmd->add_option("--leader-elect-retry-period", retry_period,
                     "The duration the clients should wait between attempting acquisition and "
                     "renewal of a leadership");
  as_cmd->add_option("--leader-elect-resource-name", autoscale.lease_name,
                     "The name of the Lease object used in leader election")
      ->default_val("cluster-autoscaler");
  as_cmd->add_option("--leader-elect-resource-namespace", autoscale.lease_namespace,
                     "The namespace of the Lease object used in leader election")
      ->default_val("kube-system");
  as_cmd->add_option("--leader-elect-identity", autoscale.identity,
                     "This replica's identity in the election (default: <hostname>_<random>)");
  as_cmd->add_option("--namespace", autoscale.status_namespace,
                     "Namespace in which the status ConfigMap lives")
      ->default_val("kube-system");
  as_cmd->add_option("--address", autoscale.address,
                     "The address to expose /healthz and /metrics on ([host]:port)")
      ->default_val(":8085");
  as_cmd->add_option("--port-file", autoscale.port_file,
                     "Write the /metrics port to this file once serving (scripts and tests)");
  as_cmd->add_option("-v,--v", autoscale.verbosity, "Log verbosity (klog -v)")->default_val(1);
  as_cmd->add_option("--seed", autoscale.seed, "Random seed (the random expander, jitter)")
      ->default_val(1);
  // Every engine flag by the Cluster Autoscaler's name; --gpu-total may repeat.
  std::map<std::string, std::vector<std::string>> ca_flags;
  for (const tidepool::autoscaler::FlagInfo& f : tidepool::autoscaler::AutoscalerFlags()) {
    as_cmd->add_option("--" + f.name, ca_flags[f.name], f.help)->multi_option_policy(
        f.name == "gpu-total" ? CLI::MultiOptionPolicy::TakeAll : CLI::MultiOptionPolicy::TakeLast);
  }

  // A file that does not exist is the command's to report (its documented exit code, 1); a flag
  // CLI11 cannot parse is a bad option: exit 2, as every command documents (CLI11's own codes,
  // 105 and up, are not).
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints --help / --version (0) or the error
    return rc == 0 ? 0 : 2;
  }
  if (as_cmd->parsed()) {
    for (const auto& [name, option] : cloud_flags) {
      if (option->count() == 0) continue;
      autoscale.cloud.flags[name] = cloud_switches.count(name) > 0
                                        ? (cloud_switches[name] ? "true" : "false")
                                        : cloud_values[name];
    }
    for (const auto& [name, values] : ca_flags) {
      if (values.empty()) continue;
      std::string joined;
      for (const std::string& v : values) joined += (joined.empty() ? "" : ",") + v;
      autoscale.flags.emplace_back(name, joined);
    }
    for (auto [text, out] : {std::pair{&lease_duration, &autoscale.lease_duration},
                             std::pair{&renew_deadline, &autoscale.renew_deadline},
                             std::pair{&retry_period, &autoscale.retry_period}}) {
      auto d = tidepool::ParseGoDuration(*text);
      if (!d.ok()) {
        std::cerr << "error: " << d.status().message() << "\n";
        return 2;
      }
      *out = *d;
    }
    return tidepool::runtime::RunAutoscale(autoscale, std::cout, std::cerr);
  }
  if (up_cmd->parsed()) {
    auto ttl = tidepool::ParseGoDuration(event_ttl);
    if (!ttl.ok() || *ttl < tidepool::Duration::zero()) {
      std::cerr << "error: --event-ttl: "
                << (ttl.ok() ? "must not be negative" : std::string(ttl.status().message()))
                << "\n";
      return 2;
    }
    up.event_ttl = *ttl;
    up.autoscaler = !no_autoscaler;
    up.gpu_operator = !no_gpu_operator;
    if (anonymous_auth_opt->count() > 0) up.anonymous_auth = anonymous_auth;
    return tidepool::runtime::RunUp(up, std::cout, std::cerr);
  }
  if (sched->parsed()) {
    return tidepool::runtime::RunSchedule(schedule, std::cout, std::cerr);
  }
  if (sim->parsed()) {
    if (seed_opt->count() > 0) {
      simulate.seed = seed;
    }
    if (until_opt->count() > 0) {
      simulate.until = until;
    }
    return tidepool::runtime::RunSimulate(simulate, std::cout, std::cerr);
  }
  if (cmp->parsed()) {
    if (compare_seed_opt->count() > 0) compare.seed = compare_seed;
    if (compare_until_opt->count() > 0) compare.until = compare_until;
    if (shard_opt->count() > 0) compare.shard = compare_shard;
    return tidepool::runtime::RunCompare(compare, std::cout, std::cerr);
  }
  return 0;
}
