#include "runtime/simulate_command.h"

#include <fstream>
#include <ostream>

#include "common/duration.h"
#include "runtime/scenario_run.h"
#include "sim/html_report.h"
#include "sim/scenario.h"

namespace tidepool::runtime {

namespace {

// A scenario with `placement:`: the FGD paper's experiment instead of a timeline.
int RunPlacementScenario(const sim::Scenario& scenario, const SimulateOptions& options,
                         std::ostream& out, std::ostream& err) {
  if (!options.report.empty() || options.until.has_value() || options.summary_only) {
    err << "error: --report, --until and --summary do not apply to a placement scenario\n";
    return 2;
  }
  sim::PlacementSpec spec = *scenario.placement;
  if (options.seed.has_value()) {
    spec.seeds = {*options.seed};
  }
  auto report = sim::RunPlacement(*scenario.trace, spec, scenario.world.seed);
  if (!report.ok()) {
    err << "error: " << options.scenario << ": " << report.status().message() << "\n";
    return 1;
  }
  sim::PrintPlacement(*report, options.output, out);
  return 0;
}

}  // namespace

int RunSimulate(const SimulateOptions& options, std::ostream& out, std::ostream& err) {
  if (options.output != "text" && options.output != "json" && options.output != "csv") {
    err << "error: --output must be text, json or csv, got \"" << options.output << "\"\n";
    return 2;
  }
  std::optional<Duration> until;
  if (options.until.has_value()) {
    auto d = ParseGoDuration(*options.until);
    if (!d.ok()) {
      err << "error: --until: " << d.status().message() << "\n";
      return 2;
    }
    if (*d <= Duration::zero()) {
      err << "error: --until: must be positive, got \"" << *options.until << "\"\n";
      return 2;
    }
    until = *d;
  }
  auto scenario = sim::LoadScenario(options.scenario);
  if (!scenario.ok()) {
    err << "error: " << scenario.status().message() << "\n";
    return 1;
  }
  if (options.seed.has_value()) {
    scenario->world.seed = *options.seed;
  }
  if (scenario->placement.has_value()) {
    return RunPlacementScenario(*scenario, options, out, err);
  }
  const Duration run_for = until.value_or(scenario->run_for);
  // --until shorter than the timeline: what is cut is said, never silently dropped.
  for (size_t i = 0; i < scenario->timeline.size(); ++i) {
    if (scenario->timeline[i].at > run_for) {
      err << "note: " << options.scenario << ": timeline[" << i << "] (at "
          << FormatGoDuration(scenario->timeline[i].at) << ") is after --until "
          << FormatGoDuration(run_for) << " and does not run\n";
    }
  }
  auto cluster = RunScenario(*scenario, until, options.summary_only || options.output == "csv");
  if (!cluster.ok()) {
    err << "error: " << options.scenario << ": " << cluster.status().message() << "\n";
    return 1;
  }
  sim::Timeline& timeline = (*cluster)->timeline();
  const sim::WorldOptions& w = scenario->world;
  if (!options.report.empty()) {
    const std::string subtitle =
        "seed " + std::to_string(w.seed) + ", " + FormatGoDuration(run_for) +
        " of simulated time from " + FormatRfc3339(w.start) + "; cluster " + w.cluster +
        " (project " + w.project + ", zone " + w.zone + ")" +
        (scenario->trace.has_value() ? "; trace " + scenario->trace->file : "");
    std::ofstream f(options.report, std::ios::binary | std::ios::trunc);
    f << sim::HtmlReport("tidepool simulate " + options.scenario, subtitle,
                         (*cluster)->recorder().Summary(), (*cluster)->recorder().Series());
    if (!f.good()) {
      err << "error: --report: cannot write " << options.report << "\n";
      return 1;
    }
  }
  if (options.output == "json") {
    out << timeline.ToJson(options.summary_only);
    return 0;
  }
  if (options.output == "csv") {
    out << timeline.SummaryCsv();
    return 0;
  }
  out << "# tidepool simulate " << options.scenario << ": seed " << w.seed << ", "
      << FormatGoDuration(run_for) << " of virtual time from " << FormatRfc3339(w.start)
      << "; cluster " << w.cluster << " (project " << w.project << ", zone " << w.zone << ")"
      << (w.autoscaler ? "" : "; autoscaler off") << "\n";
  out << timeline.ToText(options.summary_only);
  return 0;
}

}  // namespace tidepool::runtime
