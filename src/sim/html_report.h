// File: html_report.h
//
// HtmlReport: a `tidepool simulate` run as one self-contained HTML page (`--report FILE`): no
// script, no network, styles inline, plots as inline SVG. What a capacity planner looks at:
//   - the summary tables (report.h): cost and node-hours per pool with the totals, GPU-hours
//     allocated and provisioned, pending-time percentiles per class, pods never scheduled and
//     why, provisioning times;
//   - plots over the simulated time (step functions, as the cluster changed): pending pods;
//     nodes per pool; GPUs allocated against provisioned; the cost rate (USD/h) and the
//     cumulative cost.
// The figures are also in the page as data, `<script type="application/json"
// id="report-data">` (an inert block: the browser runs nothing), with the summary's numbers
// as `--output json` gives them, so a test can check the plots against the JSON output.
// A series with more points than a plot has pixels is drawn per pixel column (the column's
// highest value, then its last), so spikes stay visible; the data block keeps every point.
// Deterministic: the same run gives the same bytes.
#pragma once

#include <string>
#include <vector>

#include "sim/report.h"

namespace tidepool::sim {

// `title` heads the page (the scenario's name); `subtitle` says the run (seed, duration).
std::string HtmlReport(const std::string& title, const std::string& subtitle,
                       const ReportSummary& summary, const ReportSeries& series);

// One configuration's run, for a comparison.
struct ComparedRun {
  std::string name;
  ReportSummary summary;
  ReportSeries series;
};

// The rows a comparison shows, each with one value per run (`tidepool compare`'s table): cost,
// node-hours, GPU-hours provisioned and allocated, GPU utilisation, nodes created, provisioning
// p50, and per class (every class any run has) pods, never scheduled and wait p50/p90/p99/max.
struct ComparisonRow {
  std::string metric;
  std::vector<double> values;
  int decimals = 2;
};
std::vector<ComparisonRow> ComparisonRows(const std::vector<ComparedRun>& runs);

// Several configurations' runs on one page: the comparison table and overlaid plots (one line
// per run) of pending pods, nodes (all pools), GPUs allocated, GPUs provisioned and the
// cumulative cost. Self-contained and deterministic as HtmlReport; its data block holds the
// table.
std::string HtmlComparison(const std::string& title, const std::string& subtitle,
                           const std::vector<ComparedRun>& runs);

}  // namespace tidepool::sim
