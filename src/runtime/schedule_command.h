// File: schedule_command.h
//
// `tidepool schedule`: runs the scheduling core on manifests, step by step, the way a person
// follows a tutorial. Each file is one step: its Nodes and Pods are applied (validated as the
// API server would; a refused object is reported with the API server's message and not
// stored), then every pending pod is tried in scheduling-queue order (higher priority first,
// then arrival) and the scheduler's event is printed: Scheduled or FailedScheduling with
// kube-scheduler 1.32's exact message. Pods that name a node are bound as they are.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace tidepool::runtime {

struct ScheduleOptions {
  std::vector<std::string> files;
};

// Returns the process exit code: 0 when every step was read (refused objects are part of the
// story, not failures), 1 when a file cannot be read or parsed.
int RunSchedule(const ScheduleOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tidepool::runtime
