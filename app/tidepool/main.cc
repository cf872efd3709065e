// The tidepool binary. Parses flags (CLI11 lives only in this translation unit) and calls a
// runtime; nothing else happens here.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <iostream>
#include <string>

#include "runtime/schedule_command.h"
#include "runtime/simulate_command.h"

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

  CLI11_PARSE(app, argc, argv);
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
