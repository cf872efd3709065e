// The tidepool binary. Parses flags (CLI11 lives only in this translation unit) and calls a
// runtime; nothing else happens here.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <iostream>
#include <string>

#include "runtime/schedule_command.h"
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
      ->required()
      ->check(CLI::ExistingFile);

  tidepool::runtime::SimulateOptions simulate;
  uint64_t seed = 0;
  std::string until;
  CLI::App* sim = app.add_subcommand(
      "simulate",
      "Replay a scenario (cluster, node pools, autoscaler flags, cloud delays and faults, a "
      "timeline of kubectl/gcloud actions) on virtual time and print what a person would see: "
      "pods, nodes, events, the autoscaler's log and node pool sizes, stamped with the simulated "
      "time since the start");
  sim->add_option("scenario", simulate.scenario,
                  "Scenario YAML, e.g. examples/seed-walkthrough.yaml")
      ->required()
      ->check(CLI::ExistingFile);
  sim->add_option("-o,--output", simulate.output, "Output format: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->default_val("text");
  CLI::Option* seed_opt = sim->add_option("--seed", seed, "Random seed (overrides the scenario's)");
  CLI::Option* until_opt = sim->add_option(
      "--until", until, "How long to simulate, a Go duration such as 35m (overrides runFor)");

  tidepool::runtime::UpOptions up;
  bool no_autoscaler = false;
  CLI::App* up_cmd = app.add_subcommand(
      "up",
      "Run an emulated GPU-capable GKE cluster on loopback, in real time: a Kubernetes 1.32 API "
      "that the real kubectl drives, the scheduler, emulated kubelets, cloud and GPU drivers, and "
      "the autoscaler");
  up_cmd->add_option("--address", up.address, "Listen address (loopback unless told otherwise)")
      ->default_val("127.0.0.1");
  up_cmd->add_option("--port", up.port, "API port (0: pick a free one)")->default_val(0);
  up_cmd->add_option("--kubeconfig", up.kubeconfig,
                     "Write a kubeconfig with a context named tidepool to this path");
  up_cmd->add_option("--gcloud-config", up.gcloud_config,
                     "Write a gcloud configuration directory (use it as CLOUDSDK_CONFIG) whose "
                     "endpoints point at this cluster's GKE API");
  up_cmd->add_option("--speed", up.speed,
                     "Divide every emulated duration (boot, kubelet, driver, unneeded time, "
                     "autoscaler timers) by this factor; timestamps stay real")
      ->default_val(1.0);
  up_cmd->add_option("--config", up.config,
                     "Cluster config: node pools, autoscaler flags, cloud delays and faults (the "
                     "scenario format of tidepool simulate, without a timeline)")
      ->check(CLI::ExistingFile);
  up_cmd->add_option("--data-dir", up.data_dir,
                     "Persist every acknowledged write in SQLite under this directory, and resume "
                     "from it");
  up_cmd->add_flag("--no-autoscaler", no_autoscaler, "Do not run the embedded autoscaler");
  bool no_gpu_operator = false;
  up_cmd->add_flag("--no-gpu-operator", no_gpu_operator,
                   "Do not run the emulated NVIDIA GPU operator: GPU nodes then never expose "
                   "nvidia.com/gpu (the walkthrough without its step 2)");
  up_cmd->add_option("-v,--v", up.verbosity,
                     "The autoscaler's log verbosity (klog -v; default: the config's, at least 1)");
  up_cmd->add_option("--seed", up.seed, "Random seed (0: from the clock)");
  up_cmd->add_option("--port-file", up.port_file,
                     "Write the API port to this file once ready (for scripts and tests)");

  CLI11_PARSE(app, argc, argv);
  if (up_cmd->parsed()) {
    up.autoscaler = !no_autoscaler;
    up.gpu_operator = !no_gpu_operator;
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
  return 0;
}
