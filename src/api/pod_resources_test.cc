// File: pod_resources_test.cc
//
// Tests for PodRequests against k8s.io/component-helpers/resource PodRequests (Kubernetes 1.32):
//   max(sum(containers) + sum(sidecars), max_i(init_i + sum(sidecars before i))) + overhead,
// per resource, with kube-scheduler's non-missing defaults (100m / 200Mi for a container that
// omits cpu / memory), and for ApplyPodDefaults (SetDefaults_Pod: a limit alone sets the
// request).
#include "api/pod_resources.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/builders.h"

namespace tidepool::api {
namespace {

using ::tidepool::testing::MakePod;
using ::tidepool::testing::Q;
using ::tidepool::testing::Resources;

constexpr bool kSidecar = true;

TEST(PodRequestsTest, AggregatesContainers) {
  struct Case {
    std::string name;
    Pod pod;
    PodRequestsOptions opts;
    ResourceList want;
  };
  const std::vector<Case> cases = {
      {"a pod without requests requests nothing", MakePod("p").Obj(), {}, {}},
      {"one container",
       MakePod("p").Container({{"cpu", "1"}, {"memory", "1Gi"}}).Obj(),
       {},
       Resources({{"cpu", "1"}, {"memory", "1Gi"}})},
      {"containers are summed",
       MakePod("p")
           .Container({{"cpu", "500m"}, {"memory", "1Gi"}})
           .Container({{"cpu", "0.5"}, {"nvidia.com/gpu", "1"}})
           .Container({{"memory", "1Ki"}, {"nvidia.com/gpu", "2"}})
           .Obj(),
       {},
       Resources({{"cpu", "1"}, {"memory", "1073742848"}, {"nvidia.com/gpu", "3"}})},
      {"0.5 and 500m are the same quantity",
       MakePod("p").Container({{"cpu", "0.5"}}).Container({{"cpu", "500m"}}).Obj(),
       {},
       Resources({{"cpu", "1"}})},
      {"an init container larger than the containers decides",
       MakePod("p")
           .Container({{"cpu", "1"}, {"memory", "1Gi"}})
           .Container({{"cpu", "1"}, {"memory", "1Gi"}})
           .InitContainer({{"cpu", "3"}, {"memory", "3Gi"}})
           .Obj(),
       {},
       Resources({{"cpu", "3"}, {"memory", "3Gi"}})},
      {"an init container smaller than the containers' sum does not count",
       MakePod("p")
           .Container({{"cpu", "1"}})
           .Container({{"cpu", "1"}})
           .InitContainer({{"cpu", "1500m"}})
           .Obj(),
       {},
       Resources({{"cpu", "2"}})},
      {"init containers run one at a time: their maximum counts, not their sum",
       MakePod("p")
           .Container({{"cpu", "1"}})
           .InitContainer({{"cpu", "2"}})
           .InitContainer({{"cpu", "3"}})
           .InitContainer({{"cpu", "1"}})
           .Obj(),
       {},
       Resources({{"cpu", "3"}})},
      {"the maximum is taken per resource",
       MakePod("p")
           .Container({{"cpu", "4"}, {"memory", "1Gi"}})
           .InitContainer({{"cpu", "1"}, {"memory", "8Gi"}})
           .Obj(),
       {},
       Resources({{"cpu", "4"}, {"memory", "8Gi"}})},
      {"a resource only an init container requests is kept",
       MakePod("p").Container({{"cpu", "1"}}).InitContainer({{"ephemeral-storage", "10Gi"}}).Obj(),
       {},
       Resources({{"cpu", "1"}, {"ephemeral-storage", "10Gi"}})},
      {"a sidecar adds to the steady state",
       MakePod("p")
           .Container({{"cpu", "1"}, {"memory", "1Gi"}})
           .InitContainer({{"cpu", "500m"}, {"memory", "512Mi"}}, kSidecar)
           .Obj(),
       {},
       Resources({{"cpu", "1500m"}, {"memory", "1536Mi"}})},
      {"a sidecar runs beside every later init container",
       MakePod("p")
           .Container({{"cpu", "1"}})
           .InitContainer({{"cpu", "1"}}, kSidecar)
           .InitContainer({{"cpu", "2"}})
           .Obj(),
       {},
       // steady state 1 + 1 = 2; the init container runs with the sidecar: 2 + 1 = 3.
       Resources({{"cpu", "3"}})},
      {"a sidecar declared after an init container does not run beside it",
       MakePod("p")
           .Container({{"cpu", "1"}})
           .InitContainer({{"cpu", "2"}})
           .InitContainer({{"cpu", "1"}}, kSidecar)
           .Obj(),
       {},
       // steady state 1 + 1 = 2; the init container alone: 2.
       Resources({{"cpu", "2"}})},
      {"sidecars accumulate for later init containers",
       MakePod("p")
           .Container({{"cpu", "100m"}})
           .InitContainer({{"cpu", "1"}}, kSidecar)
           .InitContainer({{"cpu", "2"}}, kSidecar)
           .InitContainer({{"cpu", "3"}})
           .Obj(),
       {},
       // steady state 0.1 + 1 + 2 = 3.1; the last init container: 3 + 1 + 2 = 6.
       Resources({{"cpu", "6"}})},
      {"the sidecars alone can exceed the steady state during init",
       MakePod("p").Container({{"memory", "1Gi"}}).InitContainer({{"cpu", "2"}}, kSidecar).Obj(),
       {},
       Resources({{"cpu", "2"}, {"memory", "1Gi"}})},
      {"overhead is added to the aggregate",
       MakePod("p")
           .Container({{"cpu", "1"}, {"memory", "1Gi"}})
           .InitContainer({{"cpu", "2"}})
           .Overhead({{"cpu", "250m"}, {"memory", "120Mi"}})
           .Obj(),
       {},
       Resources({{"cpu", "2250m"}, {"memory", "1144Mi"}})},
      {"overhead can be excluded",
       MakePod("p").Container({{"cpu", "1"}}).Overhead({{"cpu", "250m"}}).Obj(),
       {.exclude_overhead = true},
       Resources({{"cpu", "1"}})},
      {"overhead alone is a request",
       MakePod("p").Overhead({{"memory", "64Mi"}}).Obj(),
       {},
       Resources({{"memory", "64Mi"}})},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(PodRequests(tc.pod, tc.opts), tc.want);
  }
}

TEST(PodRequestsTest, NonMissingDefaults) {
  struct Case {
    std::string name;
    Pod pod;
    ResourceList want;
  };
  const PodRequestsOptions defaults = {.non_missing_defaults = true};
  const std::vector<Case> cases = {
      {"a container without requests counts 100m and 200Mi", MakePod("p").Obj(),
       Resources({{"cpu", "100m"}, {"memory", "200Mi"}})},
      {"each container gets the defaults", MakePod("p").Container({}).Container({}).Obj(),
       Resources({{"cpu", "200m"}, {"memory", "400Mi"}})},
      {"only the missing key is defaulted (memory)", MakePod("p").Container({{"cpu", "2"}}).Obj(),
       Resources({{"cpu", "2"}, {"memory", "200Mi"}})},
      {"only the missing key is defaulted (cpu)", MakePod("p").Container({{"memory", "1Gi"}}).Obj(),
       Resources({{"cpu", "100m"}, {"memory", "1Gi"}})},
      {"an explicit zero stays zero", MakePod("p").Container({{"cpu", "0"}, {"memory", "0"}}).Obj(),
       Resources({{"cpu", "0"}, {"memory", "0"}})},
      {"defaults are per container, beside explicit requests",
       MakePod("p").Container({{"cpu", "0"}}).Container({{"memory", "1Gi"}}).Obj(),
       Resources({{"cpu", "100m"}, {"memory", "1224Mi"}})},
      {"extended resources get no default",
       MakePod("p").Container({{"cpu", "1"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}}).Obj(),
       Resources({{"cpu", "1"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}})},
      {"an init container without requests is defaulted too",
       MakePod("p").Container({{"cpu", "50m"}, {"memory", "100Mi"}}).InitContainer({}).Obj(),
       Resources({{"cpu", "100m"}, {"memory", "200Mi"}})},
      {"a sidecar without requests is defaulted into the steady state",
       MakePod("p").Container({}).InitContainer({}, kSidecar).Obj(),
       Resources({{"cpu", "200m"}, {"memory", "400Mi"}})},
      {"overhead is added after the defaults", MakePod("p").Overhead({{"cpu", "10m"}}).Obj(),
       Resources({{"cpu", "110m"}, {"memory", "200Mi"}})},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(PodRequests(tc.pod, defaults), tc.want);
  }
  EXPECT_EQ(kDefaultMilliCpuRequest, 100);
  EXPECT_EQ(kDefaultMemoryRequest, 209715200);
}

TEST(PodRequestsTest, QuantitiesAreExact) {
  Pod pod = MakePod("p")
                .Container({{"cpu", "0.5"}, {"memory", "1Ki"}})
                .Container({{"cpu", "500m"}, {"memory", "1Ki"}})
                .Obj();
  ResourceList got = PodRequests(pod);
  EXPECT_EQ(Get(got, "cpu").MilliValue(), 1000);
  EXPECT_EQ(Get(got, "memory").Value(), 2048);
  EXPECT_EQ(Get(got, "ephemeral-storage").Value(), 0);
}

TEST(ApplyPodDefaultsTest, LimitWithoutRequestSetsTheRequest) {
  struct Case {
    std::string name;
    ResourceRequirements in;
    ResourceRequirements want;
  };
  const std::vector<Case> cases = {
      {"a limit alone becomes the request",
       {{}, Resources({{"nvidia.com/gpu", "2"}, {"cpu", "1"}})},
       {Resources({{"nvidia.com/gpu", "2"}, {"cpu", "1"}}),
        Resources({{"nvidia.com/gpu", "2"}, {"cpu", "1"}})}},
      {"an existing request is kept",
       {Resources({{"cpu", "250m"}}), Resources({{"cpu", "1"}, {"memory", "1Gi"}})},
       {Resources({{"cpu", "250m"}, {"memory", "1Gi"}}),
        Resources({{"cpu", "1"}, {"memory", "1Gi"}})}},
      {"a request without a limit is left alone",
       {Resources({{"cpu", "1"}}), {}},
       {Resources({{"cpu", "1"}}), {}}},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    Pod pod = MakePod("p").Obj();
    pod.spec.containers[0].resources = tc.in;
    Container init;
    init.name = "init";
    init.resources = tc.in;
    pod.spec.init_containers.push_back(init);
    ApplyPodDefaults(pod);
    EXPECT_EQ(pod.spec.containers[0].resources, tc.want);
    EXPECT_EQ(pod.spec.init_containers[0].resources, tc.want);
  }
}

TEST(ApplyPodDefaultsTest, DefaultedLimitCountsAsARequest) {
  Pod pod = MakePod("p").Obj();
  pod.spec.containers[0].resources.limits = Resources({{"nvidia.com/gpu", "1"}});
  EXPECT_EQ(PodRequests(pod), ResourceList());
  ApplyPodDefaults(pod);
  EXPECT_EQ(PodRequests(pod), Resources({{"nvidia.com/gpu", "1"}}));
  EXPECT_EQ(Get(PodRequests(pod), "nvidia.com/gpu"), Q("1"));
}

}  // namespace
}  // namespace tidepool::api
