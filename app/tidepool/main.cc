// The tidepool binary. Parses flags (CLI11 lives only in this translation unit) and calls a
// runtime; nothing else happens here.
#include <CLI/CLI.hpp>

#include <iostream>

#include "runtime/schedule_command.h"

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

  CLI11_PARSE(app, argc, argv);
  if (sched->parsed()) {
    return tidepool::runtime::RunSchedule(schedule, std::cout, std::cerr);
  }
  return 0;
}
