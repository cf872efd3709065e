// File: simulate_command.h
//
// `tidepool simulate`: runs a scenario (sim/scenario.h) on virtual time and prints its
// timeline: what a person following the walkthrough would see with `kubectl get pods -w`,
// `kubectl get nodes -w`, `kubectl get events -w`, the autoscaler's log and the node pools'
// sizes, each line stamped with the simulated time since the start. Text by default; with
// --output json the same entries as a JSON array; --summary keeps only the end-of-run summary
// (sim/report.h); --output csv prints that summary as rows of section,name,metric,value;
// --report FILE also writes the run as one self-contained HTML page (sim/html_report.h). The
// same scenario and seed give the same bytes. A timeline action after runFor refuses the scenario
// (exit 1); one after a shorter
// --until does not run, and a note on `err` says so.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

namespace tidepool::runtime {

struct SimulateOptions {
  std::string scenario;              // path to the scenario YAML
  std::string output = "text";       // "text", "json" or "csv" (the summary only)
  std::optional<uint64_t> seed;      // overrides the scenario's seed
  std::optional<std::string> until;  // a Go duration; overrides the scenario's runFor
  bool summary_only = false;         // text and json: only the summary and trace entries
  std::string report;                // when set, the HTML report is written there
};

// Returns the process exit code: 0 when the scenario ran (actions that kubectl or gcloud refuse
// are part of the timeline, not failures), 1 when the scenario cannot be read, is invalid or
// the cluster cannot be built, 2 for a bad option value. Errors go to `err` as "error: ...".
int RunSimulate(const SimulateOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tidepool::runtime
