// File: up_command.h
//
// `tidepool up`: an emulated GPU-capable GKE cluster in one process on loopback, served to the
// real kubectl (architecture.md's first runtime). It wires:
//
//   ObjectStore (+ SQLite with --data-dir) <- ApiServer <- HttpServer (127.0.0.1:PORT)
//        ^  \-- ClusterBridge --> World (scheduler, kubelets, emulated cloud, autoscaler)
//
// on a real clock: the world's event queue is advanced to the wall clock by one thread, and
// every emulated duration (VM boot, kubelet, GPU driver, unneeded time, the autoscaler's
// timers and scan interval) is divided by --speed; timestamps stay real.
//
// The cluster starts as a real GKE cluster does: a default-pool of CPU nodes (3 by default),
// the namespaces default, kube-system, kube-public and kube-node-lease, and kube-system's pods
// (cluster-autoscaler-<suffix>, whose `kubectl logs -f` is the autoscaler's log, and kube-dns).
// --config takes the same YAML as `tidepool simulate` (cluster, autoscaler flags, kubelet,
// cloud delays and faults, nodePools; no timeline).
//
// It prints where it listens, writes a kubeconfig (context "tidepool") when asked, logs "ready"
// when kubectl can use it, and shuts down cleanly on SIGINT or SIGTERM.
//
// The same port serves the GKE API that the real gcloud drives (cloud/gke/gke_api.h: paths
// /v1/projects/..., /v1beta1/projects/..., /compute/v1/...; everything else is the Kubernetes
// API), over the World's node pools through runtime/gke_control.h. With --gcloud-config DIR it
// writes a gcloud configuration directory (CLOUDSDK_CONFIG) whose endpoint overrides point at
// this port (container, serviceusage, compute), with an access-token file instead of
// credentials, core/project and compute/zone, and prints the `export CLOUDSDK_CONFIG=...`
// line. `gcloud container clusters get-credentials` reads the cluster's endpoint and CA from
// the GKE API: an HTTPS listener (cloud/gke/tls_endpoint.h, a self-signed CA made at start)
// in front of the same Kubernetes API.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "common/clock.h"

namespace tidepool::runtime {

struct UpOptions {
  std::string address = "127.0.0.1";
  uint16_t port = 0;          // 0: a free port
  std::string kubeconfig;     // written when set
  std::string gcloud_config;  // a gcloud configuration directory, written when set
  double speed = 1.0;         // divides every emulated duration
  std::string config;         // scenario-format YAML; empty: the built-in default cluster
  std::string data_dir;       // SQLite persistence when set
  bool autoscaler = true;     // --no-autoscaler turns the embedded autoscaler off
  // --no-gpu-operator: no emulated GPU operator; GPU nodes then never expose nvidia.com/gpu
  // (the walkthrough without its step 2).
  bool gpu_operator = true;
  // The autoscaler's klog -v; -1: the config's, at least 1 (so that the log names the pods
  // that trigger a scale-up, as a deployed CA run with -v=1 or more does).
  int verbosity = -1;
  uint64_t seed = 0;          // 0: from the clock
  // Events are deleted this long after their last write (kube-apiserver's --event-ttl); an
  // emulated duration, divided by --speed. Zero: never.
  Duration event_ttl = std::chrono::hours(1);
  // For tests: a file to write "<port>\n" to once ready.
  std::string port_file;
};

// Blocks until SIGINT/SIGTERM. Returns the exit code: 0 after a clean shutdown, 1 when the
// cluster cannot start (errors go to `err` as "error: ..."), 2 for a bad option value.
int RunUp(const UpOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tidepool::runtime
