#include "client/leader_election.h"

#include <gtest/gtest.h>

#include <thread>

#include "client/test_api_server.h"

namespace tidepool::client {
namespace {

using nlohmann::json;
using testing::TestApiServer;

bool Eventually(const std::function<bool()>& cond, Duration timeout) {
  RealClock clock;
  const TimePoint end = clock.Now() + timeout;
  while (clock.Now() < end) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return cond();
}

class LeaderElectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(api_.StartServer().ok());
    client_ = std::make_unique<RestClient>(api_.Config(), clock_);
  }
  // Short durations: lease 1 s, renew deadline 0.6 s, retry 0.2 s.
  LeaderElectionConfig Config(const std::string& id) {
    LeaderElectionConfig c;
    c.identity = id;
    c.lease_duration = std::chrono::seconds(1);
    c.renew_deadline = std::chrono::milliseconds(600);
    c.retry_period = std::chrono::milliseconds(200);
    c.on_started_leading = [this, id] { Push("start " + id); };
    c.on_stopped_leading = [this, id] { Push("stop " + id); };
    return c;
  }
  json Lease() {
    auto l = client_->Get("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/cluster-autoscaler");
    return l.ok() ? *l : json();
  }
  void Push(const std::string& s) {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(s);
  }
  std::vector<std::string> Events() {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }

  TestApiServer api_;
  RealClock clock_;
  std::unique_ptr<RestClient> client_;
  std::mutex mu_;
  std::vector<std::string> events_;
};

TEST(LeaderElectionConfigTest, ClientGoChecks) {
  LeaderElectionConfig c;
  c.identity = "me";
  EXPECT_TRUE(LeaderElector::ValidateConfig(c).ok());
  c.renew_deadline = c.lease_duration;
  EXPECT_EQ(LeaderElector::ValidateConfig(c).message(), "leaseDuration must be greater than renewDeadline");
  c.renew_deadline = std::chrono::seconds(2);
  EXPECT_EQ(LeaderElector::ValidateConfig(c).message(), "renewDeadline must be greater than retryPeriod*JitterFactor");
  c = LeaderElectionConfig();
  EXPECT_EQ(LeaderElector::ValidateConfig(c).message(), "Lock identity is empty");
}

TEST_F(LeaderElectionTest, OneLeadsAndTheOtherTakesOverAfterExpiry) {
  LeaderElectionConfig ca = Config("a");
  ca.release_on_cancel = false;  // a crash: the lease must expire before b may take it
  auto a = std::make_unique<LeaderElector>(*client_, clock_, ca);
  LeaderElector b(*client_, clock_, Config("b"));
  a->Start();
  ASSERT_TRUE(Eventually([&] { return a->IsLeader(); }, std::chrono::seconds(3)));
  b.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // b tries and waits
  EXPECT_TRUE(a->IsLeader());
  EXPECT_FALSE(b.IsLeader());
  EXPECT_EQ(b.GetLeader(), "a");
  EXPECT_GE(a->renewals(), 3u);

  json lease = Lease();
  EXPECT_EQ(lease["spec"]["holderIdentity"], "a");
  EXPECT_EQ(lease["spec"]["leaseDurationSeconds"], 1);
  EXPECT_EQ(lease["spec"]["leaseTransitions"], 0);
  const std::string renew = lease["spec"]["renewTime"];
  EXPECT_EQ(renew.size(), 27u) << renew;  // 2026-11-29T22:50:22.123456Z
  EXPECT_TRUE(ParseRfc3339(renew).ok());

  const TimePoint stopped = clock_.Now();
  a->Stop();
  ASSERT_TRUE(Eventually([&] { return b.IsLeader(); }, std::chrono::seconds(4)));
  // Not before the lease (1 s, judged from b's own observation) ran out.
  EXPECT_GE(clock_.Now() - stopped, std::chrono::milliseconds(500));
  lease = Lease();
  EXPECT_EQ(lease["spec"]["holderIdentity"], "b");
  EXPECT_EQ(lease["spec"]["leaseTransitions"], 1);
  EXPECT_EQ(Events(), (std::vector<std::string>{"start a", "stop a", "start b"}));
  b.Stop();
  // ReleaseOnCancel: an empty holder with a 1 s duration.
  lease = Lease();
  EXPECT_EQ(lease["spec"]["holderIdentity"], "");
  EXPECT_EQ(lease["spec"]["leaseDurationSeconds"], 1);
  EXPECT_EQ(lease["spec"]["leaseTransitions"], 1);
  EXPECT_FALSE(b.IsLeader());
}

TEST_F(LeaderElectionTest, ReleasedLeaseIsTakenAtOnce) {
  LeaderElector a(*client_, clock_, Config("a"));
  a.Start();
  ASSERT_TRUE(Eventually([&] { return a.IsLeader(); }, std::chrono::seconds(3)));
  LeaderElector b(*client_, clock_, Config("b"));
  b.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  a.Stop();  // releases
  ASSERT_TRUE(Eventually([&] { return b.IsLeader(); }, std::chrono::seconds(3)));
  EXPECT_FALSE(a.IsLeader());
  EXPECT_TRUE(a.Done());
}

TEST_F(LeaderElectionTest, LosingTheServerPastTheRenewDeadlineStopsLeading) {
  LeaderElector a(*client_, clock_, Config("a"));
  a.Start();
  ASSERT_TRUE(Eventually([&] { return a.IsLeader(); }, std::chrono::seconds(3)));
  api_.StopServer();
  ASSERT_TRUE(Eventually([&] { return a.Done(); }, std::chrono::seconds(3)));
  EXPECT_FALSE(a.IsLeader());
  EXPECT_EQ(Events(), (std::vector<std::string>{"start a", "stop a"}));
}

TEST_F(LeaderElectionTest, ConflictingWriterLosesTheRound) {
  // Two electors racing from the start: exactly one leads at any time.
  LeaderElector a(*client_, clock_, Config("a"));
  LeaderElector b(*client_, clock_, Config("b"));
  a.Start();
  b.Start();
  ASSERT_TRUE(Eventually([&] { return a.IsLeader() || b.IsLeader(); }, std::chrono::seconds(3)));
  for (int i = 0; i < 20; ++i) {
    EXPECT_FALSE(a.IsLeader() && b.IsLeader());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace
}  // namespace tidepool::client
