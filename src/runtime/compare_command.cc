#include "runtime/compare_command.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <ostream>
#include <thread>

#include "common/duration.h"
#include "runtime/scenario_run.h"
#include "sim/html_report.h"
#include "sim/scenario.h"

namespace tidepool::runtime {
namespace {

std::string BaseName(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (name.size() > 5 && name.compare(name.size() - 5, 5, ".yaml") == 0) name.resize(name.size() - 5);
  return name;
}

using sim::CsvField;
std::string Num(double v, int decimals) { return sim::FormatFixed(v, decimals); }

struct Outcome {
  sim::ComparedRun run;
  std::string error;
};

Outcome RunOne(const std::string& path, const CompareOptions& options,
               std::optional<Duration> until) {
  Outcome o;
  auto scenario = sim::LoadScenario(path);
  if (!scenario.ok()) {
    o.error = std::string(scenario.status().message());
    return o;
  }
  if (options.seed.has_value()) scenario->world.seed = *options.seed;
  auto cluster = RunScenario(*scenario, until, /*summary_only=*/true);
  if (!cluster.ok()) {
    o.error = path + ": " + std::string(cluster.status().message());
    return o;
  }
  o.run.summary = (*cluster)->recorder().Summary();
  o.run.series = (*cluster)->recorder().Series();
  return o;
}

}  // namespace

int RunCompare(const CompareOptions& options, std::ostream& out, std::ostream& err) {
  if (options.scenarios.empty()) {
    err << "error: compare needs at least one scenario\n";
    return 2;
  }
  if (options.output != "text" && options.output != "csv") {
    err << "error: --output must be text or csv, got \"" << options.output << "\"\n";
    return 2;
  }
  std::optional<Duration> until;
  if (options.until.has_value()) {
    auto d = ParseGoDuration(*options.until);
    if (!d.ok() || *d <= Duration::zero()) {
      err << "error: --until: " << (d.ok() ? "must be positive" : d.status().message()) << "\n";
      return 2;
    }
    until = *d;
  }
  const size_t n = options.scenarios.size();
  std::vector<Outcome> outcomes(n);
  const size_t jobs = std::clamp<size_t>(
      options.jobs > 0 ? static_cast<size_t>(options.jobs)
                       : std::max(1u, std::thread::hardware_concurrency()),
      1, n);
  std::atomic<size_t> next{0};
  std::vector<std::thread> workers;
  for (size_t w = 0; w < jobs; ++w) {
    workers.emplace_back([&] {
      for (size_t i = next++; i < n; i = next++) {
        outcomes[i] = RunOne(options.scenarios[i], options, until);
      }
    });
  }
  for (std::thread& t : workers) t.join();
  std::map<std::string, int> names;
  for (const std::string& p : options.scenarios) ++names[BaseName(p)];
  std::vector<sim::ComparedRun> runs;
  for (size_t i = 0; i < n; ++i) {
    if (!outcomes[i].error.empty()) {
      err << "error: " << outcomes[i].error << "\n";
      return 1;
    }
    const std::string& path = options.scenarios[i];
    outcomes[i].run.name = names[BaseName(path)] > 1 ? path : BaseName(path);
    runs.push_back(std::move(outcomes[i].run));
  }
  const std::vector<sim::ComparisonRow> rows = sim::ComparisonRows(runs);
  if (options.output == "csv") {
    out << "metric";
    for (const sim::ComparedRun& r : runs) out << "," << CsvField(r.name);
    out << "\n";
    for (const sim::ComparisonRow& row : rows) {
      out << CsvField(row.metric);
      for (double v : row.values) out << "," << Num(v, std::max(row.decimals, 2));
      out << "\n";
    }
  } else {
    size_t first = 6;
    for (const sim::ComparisonRow& row : rows) first = std::max(first, row.metric.size());
    std::vector<size_t> width;
    for (size_t c = 0; c < runs.size(); ++c) {
      size_t w = runs[c].name.size();
      for (const sim::ComparisonRow& row : rows) {
        w = std::max(w, Num(row.values[c], row.decimals).size());
      }
      width.push_back(w);
    }
    const auto pad_left = [](const std::string& s, size_t w) {
      return std::string(w > s.size() ? w - s.size() : 0, ' ') + s;
    };
    out << std::string(first, ' ');
    for (size_t c = 0; c < runs.size(); ++c) out << "  " << pad_left(runs[c].name, width[c]);
    out << "\n";
    for (const sim::ComparisonRow& row : rows) {
      out << row.metric << std::string(first - row.metric.size(), ' ');
      for (size_t c = 0; c < runs.size(); ++c) {
        out << "  " << pad_left(Num(row.values[c], row.decimals), width[c]);
      }
      out << "\n";
    }
  }
  if (!options.report.empty()) {
    std::string subtitle = std::to_string(n) + " configurations";
    if (options.seed.has_value()) subtitle += ", seed " + std::to_string(*options.seed);
    if (until.has_value()) subtitle += ", " + FormatGoDuration(*until) + " each";
    std::ofstream f(options.report, std::ios::binary | std::ios::trunc);
    f << sim::HtmlComparison("tidepool compare", subtitle, runs);
    if (!f.good()) {
      err << "error: --report: cannot write " << options.report << "\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace tidepool::runtime
