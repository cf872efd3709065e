// File: compare_command.h
//
// `tidepool compare A.yaml B.yaml ...`: the same workload under several configurations. Each
// argument is a whole scenario (sim/scenario.h) - typically one trace or timeline with other
// node pools, machine types, spot, expander, unneeded time or max nodes - run as `tidepool
// simulate` runs it (summary only), each on a thread of its own, at most --jobs at a time (the
// machine's cores by default); a run is a function of its scenario and seed, so running them
// together changes nothing. Prints one table with a column per scenario (sim/html_report.h's
// ComparisonRows: cost, node-hours, GPU-hours, utilisation, nodes created, provisioning, and
// per class pods, never scheduled, wait p50/p90/p99/max): text, or --output csv ("metric,<name
// of each scenario>..."); --report FILE writes the comparison page with overlaid plots. A
// scenario is named by its file name without ".yaml" (the path when two share a name).
//
// Sweeps larger than one machine: `--shard i/N` runs only the scenarios whose position k
// (from 0, in the order given) has k mod N = i, so N processes - a Kubernetes Indexed Job's
// pods, deploy/sweep/ - share a sweep; each prints its columns as CSV, and `--merge a.csv b.csv
// ...` puts the columns side by side again (in the files' order; a metric a shard lacks, such
// as a class none of its scenarios has, is left empty), as text or CSV.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace tidepool::runtime {

struct CompareOptions {
  std::vector<std::string> scenarios;  // at least one
  std::string output = "text";         // "text" or "csv"
  std::optional<uint64_t> seed;        // overrides every scenario's seed
  std::optional<std::string> until;    // a Go duration; overrides every runFor
  std::string report;                  // when set, the HTML comparison is written there
  int jobs = 0;                        // runs at once; 0: the machine's cores
  std::optional<std::string> shard;    // "i/N"
  bool merge = false;                  // `scenarios` are shards' CSV files to merge
};

// The exit code: 0 when every scenario ran, 1 when one cannot be read or built (the error
// names it), 2 for a bad option value.
int RunCompare(const CompareOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tidepool::runtime
