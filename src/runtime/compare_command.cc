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

// A table: the run names (columns) and, per metric in order, its cells as written.
struct Table {
  std::vector<std::string> names;
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
};

void PrintText(const Table& t, std::ostream& out) {
  size_t first = 6;
  for (const auto& [metric, cells] : t.rows) first = std::max(first, metric.size());
  std::vector<size_t> width;
  for (size_t c = 0; c < t.names.size(); ++c) {
    size_t w = t.names[c].size();
    for (const auto& [metric, cells] : t.rows) w = std::max(w, cells[c].size());
    width.push_back(w);
  }
  const auto pad_left = [](const std::string& s, size_t w) {
    return std::string(w > s.size() ? w - s.size() : 0, ' ') + s;
  };
  out << std::string(first, ' ');
  for (size_t c = 0; c < t.names.size(); ++c) out << "  " << pad_left(t.names[c], width[c]);
  out << "\n";
  for (const auto& [metric, cells] : t.rows) {
    out << metric << std::string(first - metric.size(), ' ');
    for (size_t c = 0; c < t.names.size(); ++c) out << "  " << pad_left(cells[c], width[c]);
    out << "\n";
  }
}

void PrintCsv(const Table& t, std::ostream& out) {
  out << "metric";
  for (const std::string& n : t.names) out << "," << CsvField(n);
  out << "\n";
  for (const auto& [metric, cells] : t.rows) {
    out << CsvField(metric);
    for (const std::string& c : cells) out << "," << CsvField(c);
    out << "\n";
  }
}

// Shards' CSV files side by side: columns in the files' order, metrics in order of first
// appearance.
int Merge(const CompareOptions& options, std::ostream& out, std::ostream& err) {
  Table merged;
  std::map<std::string, size_t> row_of;
  for (const std::string& path : options.scenarios) {
    std::ifstream in(path);
    if (!in) {
      err << "error: open " << path << ": no such file or directory\n";
      return 1;
    }
    std::string line;
    if (!std::getline(in, line) || line.rfind("metric", 0) != 0) {
      err << "error: " << path << ": not a tidepool compare CSV (no \"metric,...\" header)\n";
      return 1;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> header = sim::SplitCsvLine(line);
    const size_t first = merged.names.size();
    merged.names.insert(merged.names.end(), header.begin() + 1, header.end());
    for (auto& [metric, cells] : merged.rows) cells.resize(merged.names.size());
    int line_no = 1;
    while (std::getline(in, line)) {
      ++line_no;
      if (line.empty()) continue;
      if (line.back() == '\r') line.pop_back();
      std::vector<std::string> cells = sim::SplitCsvLine(line);
      if (cells.size() != header.size()) {
        err << "error: " << path << ":" << line_no << ": " << cells.size()
            << " fields, the header has " << header.size() << "\n";
        return 1;
      }
      auto [it, added] = row_of.try_emplace(cells[0], merged.rows.size());
      if (added) merged.rows.push_back({cells[0], std::vector<std::string>(merged.names.size())});
      std::vector<std::string>& row = merged.rows[it->second].second;
      for (size_t c = 1; c < cells.size(); ++c) row[first + c - 1] = cells[c];
    }
  }
  if (options.output == "csv") {
    PrintCsv(merged, out);
  } else {
    PrintText(merged, out);
  }
  return 0;
}

int RunScenarios(const CompareOptions& options, std::ostream& out, std::ostream& err) {
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
  // Text shows each row at its precision; CSV at two places at least.
  const bool csv = options.output == "csv";
  Table table;
  for (const sim::ComparedRun& r : runs) table.names.push_back(r.name);
  for (const sim::ComparisonRow& row : sim::ComparisonRows(runs)) {
    std::vector<std::string> cells;
    for (double v : row.values)
      cells.push_back(Num(v, csv ? std::max(row.decimals, 2) : row.decimals));
    table.rows.emplace_back(row.metric, std::move(cells));
  }
  if (csv) {
    PrintCsv(table, out);
  } else {
    PrintText(table, out);
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

}  // namespace

int RunCompare(const CompareOptions& options, std::ostream& out, std::ostream& err) {
  if (options.scenarios.empty()) {
    err << "error: compare needs at least one scenario\n";
    return 2;
  }
  if (options.merge) return Merge(options, out, err);
  std::vector<std::string> scenarios = options.scenarios;
  if (options.shard.has_value()) {
    unsigned index = 0, count = 0;
    char extra = 0;
    if (std::sscanf(options.shard->c_str(), "%u/%u%c", &index, &count, &extra) != 2 || count == 0 ||
        index >= count) {
      err << "error: --shard: expected i/N with 0 <= i < N, got \"" << *options.shard << "\"\n";
      return 2;
    }
    scenarios.clear();
    for (size_t k = index; k < options.scenarios.size(); k += count) {
      scenarios.push_back(options.scenarios[k]);
    }
    if (scenarios.empty()) {  // more shards than scenarios: this one has nothing to run
      out << "metric\n";
      return 0;
    }
  }
  CompareOptions mine = options;
  mine.scenarios = scenarios;
  return RunScenarios(mine, out, err);
}

}  // namespace tidepool::runtime
