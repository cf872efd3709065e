// --speed over every options struct `tidepool up` builds (common/speed.h, runtime/up_options.h).
//
// Completeness does not rest on the visitors themselves: DurationMembers() walks the options'
// members with Boost.PFR (structured-binding reflection of aggregates: every field, in order,
// whatever its name), recursing into nested option structs, lists, optionals and maps, and
// collects the address of every Duration member. The test then requires that set to be exactly
// the set of addresses ForEachDuration visits. A Duration member added to any of these structs
// and not listed in its ForEachDuration fails EveryDurationMemberIsListed, naming the member's
// struct and position; a visitor that lists something else (a copy, a member twice) fails too.
#include "runtime/up_options.h"

#include <gtest/gtest.h>

#include <boost/core/demangle.hpp>
#include <boost/pfr.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

namespace tidepool::runtime {
namespace {

template <typename T>
struct IsVector : std::false_type {};
template <typename T, typename A>
struct IsVector<std::vector<T, A>> : std::true_type {};
template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <typename T>
struct IsMap : std::false_type {};
template <typename K, typename V, typename C, typename A>
struct IsMap<std::map<K, V, C, A>> : std::true_type {};
template <typename T>
struct IsChronoDuration : std::false_type {};
template <typename R, typename P>
struct IsChronoDuration<std::chrono::duration<R, P>> : std::true_type {};
// Classes that are not option structs and cannot hold a Duration: strings, time points, sets
// (their elements are const) and callbacks.
template <typename T>
struct IsOpaqueLeaf : std::false_type {};
template <typename C, typename Tr, typename A>
struct IsOpaqueLeaf<std::basic_string<C, Tr, A>> : std::true_type {};
template <typename C, typename D>
struct IsOpaqueLeaf<std::chrono::time_point<C, D>> : std::true_type {};
template <typename K, typename C, typename A>
struct IsOpaqueLeaf<std::set<K, C, A>> : std::true_type {};
template <typename F>
struct IsOpaqueLeaf<std::function<F>> : std::true_type {};
// Vouched for by reading them (they have private members, so Boost.PFR cannot walk them); a
// class added here must hold no Duration, now or later:
//   Catalog  machine and accelerator types: sizes, prices, zones (cloud/emulated/catalog.h)
//   Ipv4Cidr an IPv4 network: an address and a prefix length (api/ipv4_cidr.h)
template <>
struct IsOpaqueLeaf<cloud::emulated::Catalog> : std::true_type {};
// The scheduler's profile: plugin names, weights and arguments, no time.
template <>
struct IsOpaqueLeaf<scheduler::Profile> : std::true_type {};
template <>
struct IsOpaqueLeaf<api::Ipv4Cidr> : std::true_type {};

// Every Duration member inside a value, by address, with where it is ("member #3 of
// tidepool::cloud::emulated::LifecycleDelays at .0.7.0.3"). Empty lists, optionals and maps
// get one default element first, so that per-element members (a slow boot's extra time) are
// there to be found. Leaves: scalars, enums, pointers (the options do not own what they point
// to) and IsOpaqueLeaf's classes. Anything else it cannot see into is a problem, not a leaf:
// another std::chrono::duration type (ForEachDuration visits Duration&), or a class that is
// neither an aggregate (Boost.PFR reflects aggregates only) nor known to hold no Duration.
class DurationMembers {
 public:
  template <typename T>
  void Walk(T& value, const std::string& path, const std::string& where) {
    if constexpr (std::is_same_v<T, Duration>) {
      found_[&value] = where + " at " + path;
    } else if constexpr (IsChronoDuration<T>::value) {
      problems_.push_back("a duration that is not a Duration (--speed cannot reach it): " +
                          where + " at " + path);
    } else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_pointer_v<T> ||
                         IsOpaqueLeaf<T>::value) {
      // Holds no Duration.
    } else if constexpr (IsOptional<T>::value) {
      if constexpr (std::is_default_constructible_v<typename T::value_type>) {
        if (!value.has_value()) value.emplace();
      }
      if (value.has_value()) Walk(*value, path + "*", where);
    } else if constexpr (IsVector<T>::value) {
      if constexpr (!std::is_same_v<typename T::value_type, bool>) {
        if constexpr (std::is_default_constructible_v<typename T::value_type>) {
          if (value.empty()) value.emplace_back();
        }
        for (size_t i = 0; i < value.size(); ++i) {
          Walk(value[i], path + "[" + std::to_string(i) + "]", where);
        }
      }
    } else if constexpr (IsMap<T>::value) {
      if constexpr (std::is_default_constructible_v<typename T::key_type> &&
                    std::is_default_constructible_v<typename T::mapped_type>) {
        if (value.empty()) value.emplace();
      }
      for (auto& entry : value) Walk(entry.second, path + "[]", where);
    } else if constexpr (std::is_class_v<T> && std::is_aggregate_v<T>) {
      const std::string type = boost::core::demangle(typeid(T).name());
      boost::pfr::for_each_field(value, [&](auto& field, std::size_t i) {
        Walk(field, path + "." + std::to_string(i),
             "member #" + std::to_string(i) + " of " + type);
      });
    } else {
      problems_.push_back("cannot look inside " + boost::core::demangle(typeid(T).name()) +
                          " (" + where + " at " + path +
                          "): make it an aggregate, or a known leaf in up_options_test.cc");
    }
  }

  const std::map<const Duration*, std::string>& found() const { return found_; }
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::map<const Duration*, std::string> found_;
  std::vector<std::string> problems_;
};

struct Visit {
  std::string name;
  Duration* value;
  TimeBase base;
};

template <typename Options>
std::vector<Visit> Visits(Options& o) {
  std::vector<Visit> out;
  o.ForEachDuration([&out](std::string_view name, Duration& d, TimeBase base) {
    out.push_back(Visit{std::string(name), &d, base});
  });
  return out;
}

// What is wrong with `o`'s visitor: Duration members it does not list, and visits that are not
// members or repeat one. Empty when ForEachDuration lists every Duration member exactly once.
template <typename Options>
std::vector<std::string> VisitorProblems(Options& o) {
  DurationMembers members;
  members.Walk(o, "", boost::core::demangle(typeid(Options).name()));
  std::vector<std::string> problems = members.problems();
  std::set<const Duration*> visited;
  std::set<std::string> names;
  for (const Visit& v : Visits(o)) {
    if (!visited.insert(v.value).second) problems.push_back("listed twice: " + v.name);
    if (!names.insert(v.name).second) problems.push_back("name used twice: " + v.name);
    if (members.found().count(v.value) == 0) problems.push_back("not a member: " + v.name);
  }
  for (const auto& [address, where] : members.found()) {
    if (visited.count(address) == 0) {
      problems.push_back("not listed in a ForEachDuration (--speed would not reach it): " + where);
    }
  }
  return problems;
}

// Every options struct of `up`, with one element in each of its lists (cloud.faults.slowBoot[0]
// and the like), so that per-element durations exist.
UpComponentOptions Populated() {
  UpComponentOptions o;
  DurationMembers().Walk(o, "", "");
  return o;
}

TEST(UpOptionsTest, EveryDurationMemberIsListed) {
  UpComponentOptions o = Populated();
  for (const std::string& p : VisitorProblems(o)) ADD_FAILURE() << p;
  DurationMembers members;
  members.Walk(o, "", "");
  EXPECT_EQ(Visits(o).size(), members.found().size());
  // As of this writing: 19 autoscaler, 4 scheduler loop, 3 kubelet, 8 emulated cloud (6 delays,
  // the stockout delay, one slow boot's extra), the warm-up, the event TTL and the bookmark
  // interval.
  EXPECT_GE(members.found().size(), 37u);
}

// The check above is not vacuous: a struct whose visitor forgets a member is caught.
struct ForgetsOne {
  Duration listed{1};
  int other = 0;
  Duration forgotten{2};
  template <typename F>
  void ForEachDuration(F&& f) {
    f("listed", listed, TimeBase::kEmulated);
  }
};
struct ListsTwice {
  Duration once{1};
  template <typename F>
  void ForEachDuration(F&& f) {
    f("once", once, TimeBase::kEmulated);
    f("again", once, TimeBase::kEmulated);
  }
};
struct Nested {
  std::vector<ForgetsOne> list;
  template <typename F>
  void ForEachDuration(F&& f) {
    for (ForgetsOne& e : list) e.ForEachDuration(WithPrefix("list.", f));
  }
};
// A duration in other units: the visitor's Duration& cannot take it, so it must not exist.
struct OtherUnits {
  std::chrono::seconds timeout{5};
  template <typename F>
  void ForEachDuration(F&&) {}
};
// A class the walker cannot reflect (it has a constructor), so it cannot vouch for it.
class Opaque {
 public:
  Opaque() = default;

 private:
  Duration hidden_{3};
};
struct HoldsOpaque {
  Opaque opaque;
  template <typename F>
  void ForEachDuration(F&&) {}
};

TEST(UpOptionsTest, TheCompletenessCheckCatchesAForgottenMember) {
  ForgetsOne forgets;
  std::vector<std::string> p = VisitorProblems(forgets);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0],
            "not listed in a ForEachDuration (--speed would not reach it): member #2 of "
            "tidepool::runtime::(anonymous namespace)::ForgetsOne at .2");
  ListsTwice twice;
  p = VisitorProblems(twice);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0], "listed twice: again");
  Nested nested;  // the element the walker adds to the empty list is checked too
  p = VisitorProblems(nested);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_NE(p[0].find("member #2 of tidepool::runtime::(anonymous namespace)::ForgetsOne at "
                      ".0[0].2"),
            std::string::npos)
      << p[0];
  OtherUnits units;
  p = VisitorProblems(units);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0],
            "a duration that is not a Duration (--speed cannot reach it): member #0 of "
            "tidepool::runtime::(anonymous namespace)::OtherUnits at .0");
  HoldsOpaque opaque;
  p = VisitorProblems(opaque);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].rfind("cannot look inside tidepool::runtime::(anonymous namespace)::Opaque", 0),
            0u)
      << p[0];
}

TEST(UpOptionsTest, SpeedDividesEveryEmulatedDurationAndNoRealOne) {
  UpComponentOptions o = Populated();
  // Distinct, non-zero values, so that a duration divided twice or not at all shows.
  std::vector<Visit> visits = Visits(o);
  for (size_t i = 0; i < visits.size(); ++i) {
    *visits[i].value = std::chrono::minutes(7) * static_cast<int>(i + 1) + Duration(i);
  }
  std::vector<Duration> before;
  for (const Visit& v : visits) before.push_back(*v.value);

  ApplySpeed(o, 60);

  std::vector<Visit> after = Visits(o);
  ASSERT_EQ(after.size(), before.size());
  size_t emulated = 0;
  for (size_t i = 0; i < after.size(); ++i) {
    SCOPED_TRACE(after[i].name);
    if (after[i].base == TimeBase::kEmulated) {
      ++emulated;
      EXPECT_EQ(*after[i].value, DivideDuration(before[i], 60));
      EXPECT_LT(*after[i].value, before[i]);
    } else {
      EXPECT_EQ(*after[i].value, before[i]);
    }
  }
  EXPECT_GT(emulated, 0u);
}

TEST(UpOptionsTest, OnlyTheseDurationsAreRealTime) {
  UpComponentOptions o = Populated();
  std::vector<std::string> real;
  std::set<std::string> emulated;
  for (const Visit& v : Visits(o)) {
    if (v.base == TimeBase::kReal) {
      real.push_back(v.name);
    } else {
      emulated.insert(v.name);
    }
  }
  // A node's Lease renewals and status heartbeats are stamped and read in wall-clock time
  // (kubelet/pod_lifecycle.h), and so is the node lifecycle controller's health check that reads
  // them; watch bookmarks go to real clients on their connections (api_server.h). The
  // controllers' expectations timeouts wait out their informers' lag, which is this machine's
  // work: divided by 600 (0.5 s), they expired under load and a ReplicaSet of 2,000 replicas
  // made 40 pods too many, and the autoscaler nodes for them; they never go below a real-time
  // floor (controllers/expectations_timeout.h).
  EXPECT_EQ(real, (std::vector<std::string>{
                      "kubelet.nodeLeaseRenewInterval", "kubelet.nodeStatusReportFrequency",
                      "apiServer.bookmarkInterval", "replicaset.expectationsTimeoutFloor",
                      "job.expectationsTimeoutFloor", "daemonset.expectationsTimeoutFloor",
                      "nodeLifecycle.monitorPeriod", "nodeLifecycle.monitorGrace",
                      "nodeLifecycle.startupGrace"}));
  // Issue 15: under --speed 60 the unremovable-node recheck waited 5 real minutes.
  for (const char* name :
       {"autoscaler.unremovable-node-recheck-timeout", "autoscaler.scan-interval",
        "autoscaler.max-cloud-provider-node-deletion-time",
        "autoscaler.node-template-stabilization-delay",
        "autoscaler.pod-long-terminating-extra-threshold", "scheduler.firstAttemptDelay",
        "kubelet.startDelay", "cloud.delays.provisioning", "cloud.faults.stockoutDelay",
        "cloud.faults.slowBoot[0].extra", "warmup", "store.eventTtl",
        "replicaset.expectationsTimeout"}) {
    EXPECT_EQ(emulated.count(name), 1u) << name;
  }
}

TEST(UpOptionsTest, SpeedOneChangesNothing) {
  UpComponentOptions o = Populated();
  std::vector<Duration> before;
  for (const Visit& v : Visits(o)) before.push_back(*v.value);
  ApplySpeed(o, 1);
  std::vector<Visit> after = Visits(o);
  for (size_t i = 0; i < after.size(); ++i) EXPECT_EQ(*after[i].value, before[i]) << after[i].name;
}

TEST(UpOptionsTest, DivisionRoundsToTheNearestNanosecond) {
  EXPECT_EQ(DivideDuration(std::chrono::minutes(5), 60), std::chrono::seconds(5));
  EXPECT_EQ(DivideDuration(Duration(5), 2), Duration(3));  // 2.5 -> 3
  EXPECT_EQ(DivideDuration(Duration(10), 3), Duration(3));
  EXPECT_EQ(DivideDuration(std::chrono::seconds(1), 0.5), std::chrono::seconds(2));
}

}  // namespace
}  // namespace tidepool::runtime
