// File: scenario_run.h
//
// RunScenario: a scenario (sim/scenario.h) on SimCluster - what `tidepool simulate` runs. The
// cluster is built (its node pools boot during the warm-up), every timeline action runs at its
// time as the command a person would type, recorded on the timeline as the command line
// ("$ kubectl apply -f gpu-test-pod.yaml") and what the client prints ("  pod/gpu-test-pod
// created"); then the cluster runs to the end and the summary is recorded.
//
// The actions are requests to the API server with kubectl's identity and calls on the emulated
// cloud, with the real clients' texts:
//   apply            kubectl apply (client-side): created when missing, configured (a merge
//                    patch of what changed since the last-applied-configuration annotation) or
//                    unchanged; any kind the API serves ("deployment.apps/web created");
//                    errors as kubectl prints them ("The Pod \"p\" is invalid: ...",
//                    "Error from server (BadRequest): error when creating \"f\": ...").
//   delete           kubectl delete TYPE NAME (background propagation): `pod "p" deleted`,
//                    "Error from server (NotFound): pods \"p\" not found".
//   scale            kubectl scale TYPE/NAME --replicas=N (a merge patch of its /scale):
//                    "deployment.apps/web scaled".
//   createNodePool, deleteNodePool, resize, autoscaling
//                    gcloud container node-pools create/delete, clusters resize, node-pools
//                    update --enable-autoscaling: "Created [https://container.googleapis.com/v1/
//                    projects/.../nodePools/p].", "ERROR: (gcloud.container.node-pools.create)
//                    ...".
//   faults           replaces the emulated cloud's faults (a "* cloud faults now: ..." line).
// A refused action is part of the story, not a failure of the run.
#pragma once

#include <memory>
#include <optional>

#include "common/status_or.h"
#include "runtime/sim_cluster.h"
#include "sim/scenario.h"

namespace tidepool::runtime {

// Builds the cluster, runs the timeline until `until` (default: the scenario's runFor) after
// the start and records the summary. Errors building the cluster (a node pool the cloud refuses:
// InvalidArgument naming it) are returned.
// `summary_only`: the timeline keeps only the summary and the trace's lines.
StatusOr<std::unique_ptr<SimCluster>> RunScenario(const sim::Scenario& scenario,
                                                  std::optional<Duration> until = std::nullopt,
                                                  bool summary_only = false);

}  // namespace tidepool::runtime
