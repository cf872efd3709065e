#include "controllers/replicaset/tally.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

namespace tidepool::controllers::replicaset {
namespace {

using std::chrono::seconds;

const TimePoint kT0 = TimePoint() + std::chrono::hours(1000);

PodFactsPtr Pod(const std::string& name, api::Labels labels, bool ready = false,
                std::optional<TimePoint> ready_since = std::nullopt, std::string phase = "Running",
                bool deleting = false) {
  auto p = std::make_shared<PodFacts>();
  p->ns = "default";
  p->name = name;
  p->uid = "uid-" + name;
  p->labels = std::move(labels);
  p->ready = ready;
  p->ready_since = ready_since;
  p->phase = std::move(phase);
  p->deleting = deleting;
  return p;
}

Tally::Params Params(Duration min_ready = Duration::zero()) {
  Tally::Params p;
  p.uid = "rs-uid";
  p.selector = api::LabelSelector{{{"app", "a"}}, {}};
  p.template_labels = {{"app", "a"}, {"tier", "gpu"}};
  p.min_ready = min_ready;
  return p;
}

// kcm's calculateStatus over every pod, as the controller computed it before it kept a tally.
Tally::Counts Recount(const Tally::Params& params, const std::map<std::string, PodFactsPtr>& pods,
                      TimePoint now) {
  Tally::Counts c;
  for (const auto& [key, p] : pods) {
    if (!params.selector.has_value() || !params.selector->Matches(p->labels) || !p->Active())
      continue;
    ++c.replicas;
    bool all = true;
    for (const auto& [k, v] : params.template_labels) {
      auto it = p->labels.find(k);
      if (it == p->labels.end() || it->second != v) all = false;
    }
    if (all) ++c.fully_labeled;
    if (p->ready) ++c.ready;
    if (p->Available(params.min_ready, now)) {
      ++c.available;
    } else if (p->ready && p->ready_since.has_value()) {
      const TimePoint at = *p->ready_since + params.min_ready;
      c.recheck = c.recheck.has_value() ? std::min(*c.recheck, at) : at;
    }
  }
  return c;
}

void ExpectCounts(const Tally::Counts& got, const Tally::Counts& want, const std::string& what) {
  EXPECT_EQ(got.replicas, want.replicas) << what;
  EXPECT_EQ(got.fully_labeled, want.fully_labeled) << what;
  EXPECT_EQ(got.ready, want.ready) << what;
  EXPECT_EQ(got.available, want.available) << what;
  EXPECT_EQ(got.recheck, want.recheck) << what;
}

TEST(TallyTest, CountsWhatKcmsCalculateStatusCounts) {
  struct Case {
    const char* name;
    PodFactsPtr pod;
    Duration min_ready;
    Tally::Counts want;  // at kT0
    bool unmatched;
  };
  const Duration m = seconds(30);
  const Case cases[] = {
      {"not ready", Pod("p", {{"app", "a"}}), {}, {1, 0, 0, 0, {}}, false},
      {"fully labeled", Pod("p", {{"app", "a"}, {"tier", "gpu"}}), {}, {1, 1, 0, 0, {}}, false},
      {"ready, no minReady", Pod("p", {{"app", "a"}}, true), {}, {1, 0, 1, 1, {}}, false},
      {"ready long enough", Pod("p", {{"app", "a"}}, true, kT0 - m), m, {1, 0, 1, 1, {}}, false},
      {"ready too briefly",
       Pod("p", {{"app", "a"}}, true, kT0 - seconds(10)),
       m,
       {1, 0, 1, 0, kT0 + seconds(20)},
       false},
      {"ready, no transition time", Pod("p", {{"app", "a"}}, true), m, {1, 0, 1, 0, {}}, false},
      {"succeeded", Pod("p", {{"app", "a"}}, false, {}, "Succeeded"), {}, {}, false},
      {"failed", Pod("p", {{"app", "a"}}, false, {}, "Failed"), {}, {}, false},
      {"being deleted", Pod("p", {{"app", "a"}}, true, {}, "Running", true), {}, {}, false},
      {"selector no longer matches", Pod("p", {{"app", "b"}}, true), {}, {}, true},
      {"no longer matches, but succeeded (not released: kcm claims active pods)",
       Pod("p", {{"app", "b"}}, false, {}, "Succeeded"),
       {},
       {},
       false},
  };
  for (const Case& c : cases) {
    Tally t(Params(c.min_ready));
    t.Set("default/p", c.pod);
    ExpectCounts(t.CountsAt(kT0), c.want, c.name);
    ExpectCounts(t.CountsOf(*c.pod, kT0), c.want, std::string(c.name) + " (CountsOf)");
    EXPECT_EQ(t.Unmatched().size(), c.unmatched ? 1u : 0u) << c.name;
    EXPECT_EQ(t.Active().size(), static_cast<size_t>(c.want.replicas)) << c.name;
    t.Set("default/p", nullptr);
    ExpectCounts(t.CountsAt(kT0), {}, std::string(c.name) + " removed");
    EXPECT_TRUE(t.Unmatched().empty()) << c.name;
  }
}

TEST(TallyTest, AvailabilityComesWithTimeAndGoesBackWithIt) {
  Tally t(Params(seconds(30)));
  t.Set("default/a", Pod("a", {{"app", "a"}}, true, kT0));
  t.Set("default/b", Pod("b", {{"app", "a"}}, true, kT0 + seconds(10)));
  ExpectCounts(t.CountsAt(kT0), {2, 0, 2, 0, kT0 + seconds(30)}, "at t0");
  ExpectCounts(t.CountsAt(kT0 + seconds(30)), {2, 0, 2, 1, kT0 + seconds(40)}, "a available");
  ExpectCounts(t.CountsAt(kT0 + seconds(45)), {2, 0, 2, 2, {}}, "both");
  // An available pod that changes leaves the count it was in.
  t.Set("default/a", Pod("a", {{"app", "a"}}, false));
  ExpectCounts(t.CountsAt(kT0 + seconds(45)), {2, 0, 1, 1, {}}, "a not ready");
  // A clock that goes back is counted afresh.
  ExpectCounts(t.CountsAt(kT0 + seconds(35)), {2, 0, 1, 0, kT0 + seconds(40)}, "earlier");
}

// Random changes against the count over every pod: the tally always agrees.
TEST(TallyTest, AgreesWithARecountThroughRandomChanges) {
  for (Duration min_ready : {Duration::zero(), Duration(seconds(20))}) {
    const Tally::Params params = Params(min_ready);
    Tally t(params);
    std::map<std::string, PodFactsPtr> pods;
    std::mt19937_64 rng(7);
    TimePoint now = kT0;
    for (int step = 0; step < 3000; ++step) {
      const std::string name = "p" + std::to_string(rng() % 40);
      const std::string key = "default/" + name;
      if (rng() % 5 == 0) {
        pods.erase(key);
        t.Set(key, nullptr);
      } else {
        api::Labels labels = {{"app", rng() % 6 == 0 ? "b" : "a"}};
        if (rng() % 2 == 0) labels["tier"] = "gpu";
        const bool ready = rng() % 3 != 0;
        std::optional<TimePoint> since;
        if (ready && rng() % 8 != 0) since = now - seconds(static_cast<int>(rng() % 40));
        static const char* kPhases[] = {"Running", "Pending", "", "Succeeded", "Failed"};
        PodFactsPtr p = Pod(name, labels, ready, since, kPhases[rng() % 5], rng() % 10 == 0);
        pods[key] = p;
        t.Set(key, p);
      }
      now += seconds(static_cast<int>(rng() % 3));
      if (step % 7 == 0) {
        const std::string what = "step " + std::to_string(step);
        ExpectCounts(t.CountsAt(now), Recount(params, pods, now), what);
        EXPECT_EQ(t.replicas(), Recount(params, pods, now).replicas) << what;
        size_t unmatched = 0;
        for (const auto& [key, p] : pods)
          unmatched += !params.selector->Matches(p->labels) && p->Active();
        ASSERT_EQ(t.Unmatched().size(), unmatched) << what;
      }
    }
  }
}

}  // namespace
}  // namespace tidepool::controllers::replicaset
