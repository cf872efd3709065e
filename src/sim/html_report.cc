#include "sim/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/strings.h"
#include "sim/timeline.h"

namespace tidepool::sim {
namespace {

using nlohmann::ordered_json;

constexpr int kWidth = 900, kHeight = 240;
constexpr int kLeft = 64, kRight = 16, kTop = 28, kBottom = 36;
constexpr int kPlotWidth = kWidth - kLeft - kRight;
constexpr int kPlotHeight = kHeight - kTop - kBottom;
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                   "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string Escape(std::string_view s) { return XmlEscape(s); }

std::string Num(double v, int decimals) { return FormatFixed(v, decimals); }
double Round(double v, int decimals) { return RoundTo(v, decimals); }

// 1, 2 or 5 times a power of ten, at least v / 4: a tick step for 0..v.
double TickStep(double v) {
  if (v <= 0) return 1;
  const double raw = v / 4;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= raw) return m * p;
  }
  return 10 * p;
}

struct Line {
  std::string name;
  std::string color;
  std::vector<std::pair<double, double>> points;  // (seconds, value)
  bool step = true;                               // a step function; else straight lines
};

// At most two points per pixel column: the column's highest value, then its last.
std::vector<std::pair<double, double>> PerPixel(const std::vector<std::pair<double, double>>& p,
                                                double end) {
  if (p.size() <= 2 * static_cast<size_t>(kPlotWidth) || end <= 0) return p;
  std::vector<std::pair<double, double>> out;
  size_t i = 0;
  for (int col = 0; col < kPlotWidth && i < p.size(); ++col) {
    const double to = end * (col + 1) / kPlotWidth;
    if (p[i].first >= to) continue;
    double high = p[i].second, first_t = p[i].first;
    double last = p[i].second;
    for (; i < p.size() && p[i].first < to; ++i) {
      high = std::max(high, p[i].second);
      last = p[i].second;
    }
    out.emplace_back(first_t, high);
    if (last != high) out.emplace_back(std::min(to, end), last);
  }
  for (; i < p.size(); ++i) out.push_back(p[i]);
  return out;
}

std::string Chart(const std::string& title, const std::string& unit, const std::vector<Line>& lines,
                  double end) {
  double top = 0;
  for (const Line& l : lines) {
    for (const auto& [t, v] : l.points) top = std::max(top, v);
  }
  const double step = TickStep(top);
  const double ymax = std::max(step, std::ceil(top / step) * step);
  const bool hours = end >= 2 * 3600;
  const double xunit = hours ? 3600 : 60;
  const double xstep = TickStep(std::max(end, 1.0) / xunit) * xunit;
  const auto X = [&](double t) {
    return kLeft + (end > 0 ? std::clamp(t / end, 0.0, 1.0) : 0) * kPlotWidth;
  };
  const auto Y = [&](double v) { return kTop + kPlotHeight * (1 - v / ymax); };
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(kWidth) +
                    "\" height=\"" + std::to_string(kHeight) + "\" role=\"img\" aria-label=\"" +
                    Escape(title) + "\">\n";
  svg += "<text x=\"" + std::to_string(kLeft) + "\" y=\"18\" class=\"title\">" + Escape(title) +
         "</text>\n";
  for (double v = 0; v <= ymax + step / 2; v += step) {
    const std::string y = Num(Y(v), 1);
    svg += "<line x1=\"" + std::to_string(kLeft) + "\" x2=\"" + std::to_string(kLeft + kPlotWidth) +
           "\" y1=\"" + y + "\" y2=\"" + y + "\" class=\"grid\"/>";
    svg += "<text x=\"" + std::to_string(kLeft - 6) + "\" y=\"" + Num(Y(v) + 4, 1) +
           "\" class=\"ytick\">" + Num(v, step < 1 ? 2 : 0) + "</text>\n";
  }
  for (double t = 0; t <= end * (1 + 1e-9); t += xstep) {
    svg += "<text x=\"" + Num(X(t), 1) + "\" y=\"" + std::to_string(kTop + kPlotHeight + 16) +
           "\" class=\"xtick\">" + Num(t / xunit, 0) + (hours ? "h" : "m") + "</text>\n";
  }
  svg += "<text x=\"14\" y=\"" + std::to_string(kTop + kPlotHeight / 2) +
         "\" class=\"unit\" transform=\"rotate(-90 14 " + std::to_string(kTop + kPlotHeight / 2) +
         ")\">" + Escape(unit) + "</text>\n";
  int legend_x = kLeft + 260;
  for (const Line& l : lines) {
    const std::vector<std::pair<double, double>> pts = PerPixel(l.points, end);
    if (!pts.empty()) {
      std::string d = "M" + Num(X(pts[0].first), 1) + " " + Num(Y(pts[0].second), 1);
      for (size_t i = 1; i < pts.size(); ++i) {
        if (l.step) {
          d += "H" + Num(X(pts[i].first), 1) + "V" + Num(Y(pts[i].second), 1);
        } else {
          d += "L" + Num(X(pts[i].first), 1) + " " + Num(Y(pts[i].second), 1);
        }
      }
      if (l.step) d += "H" + Num(X(end), 1);
      svg += "<path d=\"" + d + "\" stroke=\"" + l.color + "\" class=\"series\"/>\n";
    }
    svg += "<rect x=\"" + std::to_string(legend_x) +
           "\" y=\"9\" width=\"12\" height=\"3\" fill=\"" + l.color + "\"/><text x=\"" +
           std::to_string(legend_x + 16) + "\" y=\"14\" class=\"legend\">" + Escape(l.name) +
           "</text>\n";
    legend_x += 24 + 7 * static_cast<int>(l.name.size());
  }
  svg += "<rect x=\"" + std::to_string(kLeft) + "\" y=\"" + std::to_string(kTop) + "\" width=\"" +
         std::to_string(kPlotWidth) + "\" height=\"" + std::to_string(kPlotHeight) +
         "\" class=\"frame\"/>\n</svg>\n";
  return svg;
}

// The cumulative cost (USD) from the cost rate (USD/h), at each change of the rate and the end.
std::vector<std::pair<double, double>> Cumulative(const TimeSeries& rate, double end) {
  std::vector<std::pair<double, double>> out;
  double total = 0, last_t = 0, last_rate = 0;
  for (const auto& [t, r] : rate.points) {
    total += last_rate * (t - last_t) / 3600;
    out.emplace_back(t, total);
    last_t = t;
    last_rate = r;
  }
  total += last_rate * (end - last_t) / 3600;
  out.emplace_back(end, total);
  return out;
}

ordered_json Points(const std::vector<std::pair<double, double>>& p) {
  ordered_json a = ordered_json::array();
  for (const auto& [t, v] : p) a.push_back({Round(t, 3), Round(v, 4)});
  return a;
}

ordered_json ToJson(const Fields& fields) {
  ordered_json j = ordered_json::object();
  for (const auto& [k, v] : fields) std::visit([&](const auto& x) { j[k] = x; }, v);
  return j;
}

ordered_json Data(const ReportSummary& s, const ReportSeries& series) {
  ordered_json pools = ordered_json::array();
  for (const PoolReport& p : s.pools) pools.push_back(ToJson(PoolFields(p)));
  ordered_json classes = ordered_json::array();
  for (const ClassReport& c : s.classes) classes.push_back(ToJson(ClassFields(c)));
  ordered_json unscheduled = ordered_json::array();
  for (const auto& [reason, n] : s.unscheduled_reasons) {
    unscheduled.push_back({{"reason", reason}, {"pods", n}});
  }
  ordered_json nodes = ordered_json::object();
  for (const TimeSeries& t : series.nodes_per_pool) nodes[t.name] = Points(t.points);
  return {{"simulatedSeconds", Round(s.simulated_seconds, 3)},
          {"pools", pools},
          {"cluster", ToJson(TotalFields(s))},
          {"classes", classes},
          {"unscheduled", unscheduled},
          {"series",
           {{"pendingPods", Points(series.pending.points)},
            {"gpusAllocated", Points(series.gpus_allocated.points)},
            {"gpusProvisioned", Points(series.gpus_provisioned.points)},
            {"costPerHour", Points(series.cost_per_hour.points)},
            {"nodesPerPool", nodes}}}};
}

std::string Tables(const ReportSummary& s) {
  std::string h =
      "<h2>Cost</h2>\n<table>\n<tr><th>node pool</th><th>nodes at the end</th>"
      "<th>created</th><th>removed</th><th>scale-ups / downs</th><th>node-hours</th>"
      "<th>GPU-hours</th><th>cost (USD)</th></tr>\n";
  for (const PoolReport& p : s.pools) {
    h += "<tr><td>" + Escape(p.name) + "</td><td>" + std::to_string(p.size) + "</td><td>" +
         std::to_string(p.nodes_created) + "</td><td>" + std::to_string(p.nodes_removed) +
         "</td><td>" + std::to_string(p.scale_ups) + " / " + std::to_string(p.scale_downs) +
         "</td><td>" + Num(p.node_hours, 2) + "</td><td>" + Num(p.gpu_hours, 2) + "</td><td>" +
         Num(p.cost, 2) + "</td></tr>\n";
  }
  h += "<tr class=\"total\"><td>total</td><td></td><td></td><td></td><td></td><td>" +
       Num(s.node_hours, 2) + "</td><td>" + Num(s.gpu_hours_provisioned, 2) + "</td><td>" +
       Num(s.cost, 2) + "</td></tr>\n</table>\n";
  const double util =
      s.gpu_hours_provisioned > 0 ? 100 * s.gpu_hours_allocated / s.gpu_hours_provisioned : 0;
  h += "<p>GPU-hours allocated to pods: <b>" + Num(s.gpu_hours_allocated, 2) + "</b> of " +
       Num(s.gpu_hours_provisioned, 2) + " provisioned (" + Num(util, 1) + "%).";
  if (s.nodes_provisioned > 0) {
    h += " " + std::to_string(s.nodes_provisioned) +
         " nodes provisioned; VM request to Ready: p50 " + Num(s.provision_p50, 0) + " s, max " +
         Num(s.provision_max, 0) + " s.";
  }
  h += "</p>\n<h2>Waiting</h2>\n<table>\n<tr><th>class</th><th>pods</th><th>scheduled</th>"
       "<th>never scheduled</th><th>p50 (s)</th><th>p90 (s)</th><th>p99 (s)</th>"
       "<th>max (s)</th></tr>\n";
  for (const ClassReport& c : s.classes) {
    h += "<tr><td>" + Escape(c.name) + "</td><td>" + std::to_string(c.pods) + "</td><td>" +
         std::to_string(c.scheduled) + "</td><td>" + std::to_string(c.never_scheduled) +
         "</td><td>" + Num(c.p50, 0) + "</td><td>" + Num(c.p90, 0) + "</td><td>" + Num(c.p99, 0) +
         "</td><td>" + Num(c.max, 0) + "</td></tr>\n";
  }
  h += "</table>\n";
  if (!s.unscheduled_reasons.empty()) {
    h += "<h2>Never scheduled</h2>\n<table>\n<tr><th>pods</th><th>why (the last reason the "
         "cluster gave)</th></tr>\n";
    for (const auto& [reason, n] : s.unscheduled_reasons) {
      h += "<tr><td>" + std::to_string(n) + "</td><td class=\"reason\">" + Escape(reason) +
           "</td></tr>\n";
    }
    h += "</table>\n";
  }
  return h;
}

constexpr const char* kStyle =
    "<style>\n"
    "body{font-family:sans-serif;margin:24px;color:#222;max-width:940px}\n"
    "h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin-top:28px}\n"
    ".sub{color:#666;margin-top:0}\n"
    "table{border-collapse:collapse;font-size:13px}\n"
    "th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}\n"
    "th:first-child,td:first-child{text-align:left}\n"
    "td.reason{text-align:left;max-width:640px}\n"
    "tr.total td{font-weight:bold}\n"
    "svg{display:block;margin:10px 0}\n"
    "svg .title{font-size:14px;font-weight:bold}\n"
    "svg .grid{stroke:#eee}svg .frame{fill:none;stroke:#999}\n"
    "svg .ytick{font-size:11px;text-anchor:end;fill:#555}\n"
    "svg .xtick{font-size:11px;text-anchor:middle;fill:#555}\n"
    "svg .unit{font-size:11px;text-anchor:middle;fill:#555}\n"
    "svg .legend{font-size:12px}\n"
    "svg .series{fill:none;stroke-width:1.5}\n"
    "</style>\n";

std::string Head(const std::string& title, const std::string& subtitle) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
         Escape(title) + "</title>\n" + kStyle + "</head>\n<body>\n<h1>" + Escape(title) +
         "</h1>\n<p class=\"sub\">" + Escape(subtitle) + "</p>\n";
}

// The data block (an inert script element; "</" would end it).
std::string DataBlock(const ordered_json& data) {
  std::string text = data.dump();
  for (size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 2)) {
    text.replace(at, 2, "<\\/");
  }
  return "<script type=\"application/json\" id=\"report-data\">" + text + "</script>\n";
}

// The sum of step functions (all pools' nodes).
std::vector<std::pair<double, double>> Sum(const std::vector<TimeSeries>& all) {
  std::map<double, double> deltas;
  for (const TimeSeries& s : all) {
    double last = 0;
    for (const auto& [t, v] : s.points) {
      deltas[t] += v - last;
      last = v;
    }
  }
  std::vector<std::pair<double, double>> out;
  double total = 0;
  for (const auto& [t, d] : deltas) {
    total += d;
    out.emplace_back(t, total);
  }
  return out;
}

}  // namespace

std::vector<ComparisonRow> ComparisonRows(const std::vector<ComparedRun>& runs) {
  std::vector<ComparisonRow> rows;
  const auto row = [&](std::string metric, int decimals, auto value) {
    ComparisonRow r{std::move(metric), {}, decimals};
    for (const ComparedRun& run : runs) r.values.push_back(value(run.summary));
    rows.push_back(std::move(r));
  };
  row("cost (USD)", 2, [](const ReportSummary& s) { return s.cost; });
  row("node-hours", 2, [](const ReportSummary& s) { return s.node_hours; });
  row("GPU-hours provisioned", 2, [](const ReportSummary& s) { return s.gpu_hours_provisioned; });
  row("GPU-hours allocated", 2, [](const ReportSummary& s) { return s.gpu_hours_allocated; });
  row("GPU utilization (%)", 1, [](const ReportSummary& s) {
    return s.gpu_hours_provisioned > 0 ? 100 * s.gpu_hours_allocated / s.gpu_hours_provisioned
                                       : 0.0;
  });
  row("nodes created", 0, [](const ReportSummary& s) {
    double n = 0;
    for (const PoolReport& p : s.pools) n += static_cast<double>(p.nodes_created);
    return n;
  });
  row("scale-ups", 0, [](const ReportSummary& s) {
    double n = 0;
    for (const PoolReport& p : s.pools) n += static_cast<double>(p.scale_ups);
    return n;
  });
  row("provisioning p50 (s)", 0, [](const ReportSummary& s) { return s.provision_p50; });
  std::set<std::string> classes;
  for (const ComparedRun& run : runs) {
    for (const ClassReport& c : run.summary.classes) classes.insert(c.name);
  }
  for (const std::string& name : classes) {
    const auto of = [name](const ReportSummary& s, double ClassReport::*field) {
      for (const ClassReport& c : s.classes) {
        if (c.name == name) return c.*field;
      }
      return 0.0;
    };
    const auto count = [name](const ReportSummary& s, int64_t ClassReport::*field) {
      for (const ClassReport& c : s.classes) {
        if (c.name == name) return static_cast<double>(c.*field);
      }
      return 0.0;
    };
    row(name + ": pods", 0, [&](const ReportSummary& s) { return count(s, &ClassReport::pods); });
    row(name + ": never scheduled", 0,
        [&](const ReportSummary& s) { return count(s, &ClassReport::never_scheduled); });
    row(name + ": wait p50 (s)", 0, [&](const ReportSummary& s) { return of(s, &ClassReport::p50); });
    row(name + ": wait p90 (s)", 0, [&](const ReportSummary& s) { return of(s, &ClassReport::p90); });
    row(name + ": wait p99 (s)", 0, [&](const ReportSummary& s) { return of(s, &ClassReport::p99); });
    row(name + ": wait max (s)", 0, [&](const ReportSummary& s) { return of(s, &ClassReport::max); });
  }
  return rows;
}

std::string HtmlComparison(const std::string& title, const std::string& subtitle,
                           const std::vector<ComparedRun>& runs) {
  const std::vector<ComparisonRow> rows = ComparisonRows(runs);
  std::string html = Head(title, subtitle) + "<h2>Side by side</h2>\n<table>\n<tr><th></th>";
  for (const ComparedRun& r : runs) html += "<th>" + Escape(r.name) + "</th>";
  html += "</tr>\n";
  ordered_json table = ordered_json::array();
  for (const ComparisonRow& row : rows) {
    html += "<tr><td>" + Escape(row.metric) + "</td>";
    ordered_json values = ordered_json::array();
    for (double v : row.values) {
      html += "<td>" + Num(v, row.decimals) + "</td>";
      values.push_back(Round(v, std::max(row.decimals, 2)));
    }
    html += "</tr>\n";
    table.push_back({{"metric", row.metric}, {"values", values}});
  }
  html += "</table>\n<h2>Over time</h2>\n";
  double end = 0;
  for (const ComparedRun& r : runs) end = std::max(end, r.series.end_seconds);
  const auto lines = [&](auto points) {
    std::vector<Line> out;
    for (size_t i = 0; i < runs.size(); ++i) {
      out.push_back({runs[i].name, kColors[i % std::size(kColors)], points(runs[i])});
    }
    return out;
  };
  html += Chart("Pending pods", "pods",
                lines([](const ComparedRun& r) { return r.series.pending.points; }), end);
  html += Chart("Nodes (all pools)", "nodes",
                lines([](const ComparedRun& r) { return Sum(r.series.nodes_per_pool); }), end);
  html += Chart("GPUs allocated", "GPUs",
                lines([](const ComparedRun& r) { return r.series.gpus_allocated.points; }), end);
  html += Chart("GPUs provisioned", "GPUs",
                lines([](const ComparedRun& r) { return r.series.gpus_provisioned.points; }), end);
  std::vector<Line> cost = lines([](const ComparedRun& r) {
    return Cumulative(r.series.cost_per_hour, r.series.end_seconds);
  });
  for (Line& l : cost) l.step = false;
  html += Chart("Cumulative cost", "USD", cost, end);
  ordered_json names = ordered_json::array();
  for (const ComparedRun& r : runs) names.push_back(r.name);
  html += DataBlock({{"runs", names}, {"table", table}});
  html += "</body>\n</html>\n";
  return html;
}

std::string HtmlReport(const std::string& title, const std::string& subtitle,
                       const ReportSummary& summary, const ReportSeries& series) {
  const double end = series.end_seconds;
  std::vector<Line> nodes;
  for (size_t i = 0; i < series.nodes_per_pool.size(); ++i) {
    nodes.push_back({series.nodes_per_pool[i].name, kColors[i % std::size(kColors)],
                     series.nodes_per_pool[i].points});
  }
  std::string html = Head(title, subtitle) + Tables(summary) + "<h2>Over time</h2>\n";
  html += Chart("Pending pods", "pods", {{"pending pods", kColors[1], series.pending.points}}, end);
  html += Chart("Nodes per pool", "nodes", nodes, end);
  html += Chart("GPUs", "GPUs",
                {{"provisioned", kColors[0], series.gpus_provisioned.points},
                 {"allocated", kColors[2], series.gpus_allocated.points}},
                end);
  html += Chart("Cost rate", "USD/h", {{"cost rate", kColors[3], series.cost_per_hour.points}},
                end);
  html += Chart("Cumulative cost", "USD",
                {{"cost", kColors[4], Cumulative(series.cost_per_hour, end), false}}, end);
  html += DataBlock(Data(summary, series));
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace tidepool::sim
