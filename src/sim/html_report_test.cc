#include "sim/html_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace tidepool::sim {
namespace {

ReportSummary Summary() {
  ReportSummary s;
  s.simulated_seconds = 7200;
  s.pools = {{"gpu<pool>", 1, 2, 1, 1, 1, 1.5, 1.5, 0.79}};
  s.node_hours = 1.5;
  s.cost = 0.79;
  s.gpu_hours_provisioned = 1.5;
  s.gpu_hours_allocated = 0.5;
  s.classes = {{"training", 3, 2, 1, 60, 90, 90, 90}};
  s.unscheduled_reasons = {{"pod didn't trigger scale-up: 1 max node group size reached", 1}};
  return s;
}

ReportSeries Series() {
  ReportSeries r;
  r.end_seconds = 7200;
  r.pending.points = {{0, 0}, {10, 3}, {100, 1}};
  r.gpus_allocated.points = {{0, 0}, {100, 2}, {3700, 0}};
  r.gpus_provisioned.points = {{0, 0}, {90, 1}, {95, 2}, {5400, 0}};
  r.cost_per_hour.points = {{0, 0}, {90, 0.5}, {5400, 0}};
  r.nodes_per_pool = {{"gpu<pool>", {{0, 0}, {90, 2}, {5400, 0}}}};
  return r;
}

TEST(HtmlReportTest, ASelfContainedPageWithTheFiguresAsData) {
  const std::string html = HtmlReport("run </title>", "seed 1", Summary(), Series());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<title>run &lt;/title&gt;</title>"), std::string::npos);
  // Nothing to fetch, nothing to run.
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  // Five plots; the pool's name escaped in the table and the legend.
  size_t svgs = 0;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) {
    ++svgs;
  }
  EXPECT_EQ(svgs, 5u);
  EXPECT_NE(html.find("<td>gpu&lt;pool&gt;</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>0.79</td>"), std::string::npos);
  // The data block parses and holds the summary's numbers and every point.
  const std::string open = "<script type=\"application/json\" id=\"report-data\">";
  const size_t from = html.find(open) + open.size();
  const nlohmann::json data =
      nlohmann::json::parse(html.substr(from, html.find("</script>", from) - from));
  EXPECT_EQ(data["cluster"]["cost"], 0.79);
  EXPECT_EQ(data["cluster"]["gpuHoursAllocated"], 0.5);
  EXPECT_EQ(data["classes"][0]["p99Seconds"], 90);
  EXPECT_EQ(data["series"]["gpusProvisioned"].size(), 4u);
  EXPECT_EQ(data["series"]["nodesPerPool"]["gpu<pool>"][1][1], 2);
  // The same figures give the same bytes.
  EXPECT_EQ(html, HtmlReport("run </title>", "seed 1", Summary(), Series()));
}

TEST(HtmlReportTest, ManyPointsAreDrawnPerPixelColumnAndKeptInTheData) {
  ReportSeries r = Series();
  r.pending.points.clear();
  for (int i = 0; i < 100000; ++i) r.pending.points.push_back({i * 0.07, (i % 50 == 0) ? 40 : 1});
  const std::string html = HtmlReport("t", "s", Summary(), r);
  const size_t chart = html.find("aria-label=\"Pending pods\"");
  const size_t path = html.find("<path d=\"", chart);
  const std::string d = html.substr(path, html.find('"', path + 9) - path);
  EXPECT_LT(d.size(), 40000u);  // about two points per column, not 100,000
  // The plot's top is the spikes' 40 (y 28), its floor the 1 between them (y 199.6).
  EXPECT_NE(d.find("V28.0"), std::string::npos) << d.substr(0, 200);
  EXPECT_NE(d.find("V199.6"), std::string::npos) << d.substr(0, 200);
  EXPECT_NE(html.find("\"pendingPods\":[[0.0,40.0],[0.07,1.0]"), std::string::npos);
}

}  // namespace
}  // namespace tidepool::sim
