#include "sim/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>
#include <vector>

namespace tidepool::sim {
namespace {

using nlohmann::ordered_json;

constexpr int kWidth = 900, kHeight = 240;
constexpr int kLeft = 64, kRight = 16, kTop = 28, kBottom = 36;
constexpr int kPlotWidth = kWidth - kLeft - kRight;
constexpr int kPlotHeight = kHeight - kTop - kBottom;
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                   "#9467bd", "#8c564b", "#e377c2", "#17becf"};

std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Num(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

double Round(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

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

ordered_json Data(const ReportSummary& s, const ReportSeries& series) {
  ordered_json pools = ordered_json::array();
  for (const PoolReport& p : s.pools) {
    pools.push_back({{"nodePool", p.name},
                     {"size", p.size},
                     {"nodesCreated", p.nodes_created},
                     {"nodesRemoved", p.nodes_removed},
                     {"nodeHours", Round(p.node_hours, 2)},
                     {"gpuHours", Round(p.gpu_hours, 2)},
                     {"cost", Round(p.cost, 2)}});
  }
  ordered_json classes = ordered_json::array();
  for (const ClassReport& c : s.classes) {
    classes.push_back({{"class", c.name},
                       {"pods", c.pods},
                       {"scheduled", c.scheduled},
                       {"neverScheduled", c.never_scheduled},
                       {"p50Seconds", Round(c.p50, 3)},
                       {"p90Seconds", Round(c.p90, 3)},
                       {"p99Seconds", Round(c.p99, 3)},
                       {"maxSeconds", Round(c.max, 3)}});
  }
  ordered_json unscheduled = ordered_json::array();
  for (const auto& [reason, n] : s.unscheduled_reasons) {
    unscheduled.push_back({{"reason", reason}, {"pods", n}});
  }
  ordered_json nodes = ordered_json::object();
  for (const TimeSeries& t : series.nodes_per_pool) nodes[t.name] = Points(t.points);
  return {{"simulatedSeconds", Round(s.simulated_seconds, 3)},
          {"pools", pools},
          {"cluster",
           {{"nodeHours", Round(s.node_hours, 2)},
            {"cost", Round(s.cost, 2)},
            {"gpuHoursAllocated", Round(s.gpu_hours_allocated, 2)},
            {"gpuHoursProvisioned", Round(s.gpu_hours_provisioned, 2)}}},
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
      "<th>created</th><th>removed</th><th>node-hours</th><th>GPU-hours</th>"
      "<th>cost (USD)</th></tr>\n";
  for (const PoolReport& p : s.pools) {
    h += "<tr><td>" + Escape(p.name) + "</td><td>" + std::to_string(p.size) + "</td><td>" +
         std::to_string(p.nodes_created) + "</td><td>" + std::to_string(p.nodes_removed) +
         "</td><td>" + Num(p.node_hours, 2) + "</td><td>" + Num(p.gpu_hours, 2) + "</td><td>" +
         Num(p.cost, 2) + "</td></tr>\n";
  }
  h += "<tr class=\"total\"><td>total</td><td></td><td></td><td></td><td>" + Num(s.node_hours, 2) +
       "</td><td>" + Num(s.gpu_hours_provisioned, 2) + "</td><td>" + Num(s.cost, 2) +
       "</td></tr>\n</table>\n";
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

}  // namespace

std::string HtmlReport(const std::string& title, const std::string& subtitle,
                       const ReportSummary& summary, const ReportSeries& series) {
  const double end = series.end_seconds;
  std::vector<Line> nodes;
  for (size_t i = 0; i < series.nodes_per_pool.size(); ++i) {
    nodes.push_back({series.nodes_per_pool[i].name, kColors[i % std::size(kColors)],
                     series.nodes_per_pool[i].points});
  }
  std::string data = Data(summary, series).dump();
  // Inside <script>, "</" would end the block.
  for (size_t at = data.find("</"); at != std::string::npos; at = data.find("</", at + 2)) {
    data.replace(at, 2, "<\\/");
  }
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
      Escape(title) +
      "</title>\n<style>\n"
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
      "</style>\n</head>\n<body>\n<h1>" +
      Escape(title) + "</h1>\n<p class=\"sub\">" + Escape(subtitle) + "</p>\n" + Tables(summary) +
      "<h2>Over time</h2>\n";
  html += Chart("Pending pods", "pods", {{"pending pods", kColors[1], series.pending.points}}, end);
  html += Chart("Nodes per pool", "nodes", nodes, end);
  html += Chart("GPUs", "GPUs",
                {{"provisioned", kColors[0], series.gpus_provisioned.points},
                 {"allocated", kColors[2], series.gpus_allocated.points}},
                end);
  html +=
      Chart("Cost rate", "USD/h", {{"cost rate", kColors[3], series.cost_per_hour.points}}, end);
  html += Chart("Cumulative cost", "USD",
                {{"cost", kColors[4], Cumulative(series.cost_per_hour, end), false}}, end);
  html += "<script type=\"application/json\" id=\"report-data\">" + data + "</script>\n";
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace tidepool::sim
