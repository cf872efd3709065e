// File: up_command.h
//
// `tidepool up`: an emulated GPU-capable GKE cluster in one process on loopback, served to the
// real kubectl (architecture.md's first runtime). It wires:
//
//   ObjectStore (+ SQLite with --data-dir) <- ApiServer <- HttpServer (127.0.0.1:PORT)
//                                               ^-- in-process transport <- every actor:
//     kube-scheduler, the kubelets (pods, Leases, heartbeats), kcm's controllers, the embedded
//     autoscaler, and the emulated cloud's VMs registering their nodes (kubelet/api_node_sink.h)
//
// The emulated cloud (VMs, node pools; runtime/cluster_cloud.h) and its event queue hold
// nothing of the cluster. It runs on a real clock: its event queue is advanced to the wall clock by
// one thread, and every emulated duration (VM boot, kubelet, GPU driver, unneeded time, the
// autoscaler's timers and scan interval: every kEmulated duration of runtime/up_options.h) is
// divided by
// --speed; timestamps stay real.
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
// Exposure (runtime/exposure.h): on loopback as above, with no credential for the Kubernetes
// API; on any other --address (or with --anonymous-auth=false) the main port is HTTPS (the CA of
// cloud/gke/tls_endpoint.h, its certificate naming the address, or every local address and the
// host name for 0.0.0.0) and every request needs the run's bearer token, which is written only
// into the kubeconfig (with the CA) and the gcloud configuration, files of mode 0600; a loud
// warning says so. The GKE API always needs that token. A new run makes a new token and CA and
// rewrites both files.
//
// The same port serves the GKE API that the real gcloud drives (cloud/gke/gke_api.h: paths
// /v1/projects/..., /v1beta1/projects/..., /compute/v1/...; everything else is the Kubernetes
// API), over the emulated cloud's node pools through runtime/gke_control.h. With --gcloud-config
// DIR it writes a gcloud configuration directory (CLOUDSDK_CONFIG) whose endpoint overrides point
// at this port (container, serviceusage, compute), with an access-token file instead of
// credentials, core/project and compute/zone, and prints the `export CLOUDSDK_CONFIG=...`
// line. `gcloud container clusters get-credentials` reads the cluster's endpoint and CA from
// the GKE API: an HTTPS listener (cloud/gke/tls_endpoint.h, a self-signed CA made at start)
// in front of the same Kubernetes API.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "common/clock.h"

namespace tidepool::runtime {

struct UpOptions {
  // Loopback (127.0.0.0/8, ::1, localhost): plain HTTP, no credential. Any other address
  // (0.0.0.0, a LAN address; IPv4): HTTPS with tidepool's own CA, and every request needs the
  // run's bearer token (runtime/exposure.h), written only into --kubeconfig / --gcloud-config.
  std::string address = "127.0.0.1";
  // kube-apiserver's --anonymous-auth: unset = true on loopback, false elsewhere. false on
  // loopback serves as a non-loopback address does; true elsewhere is refused.
  std::optional<bool> anonymous_auth;
  uint16_t port = 0;          // 0: a free port
  std::string kubeconfig;     // written when set
  std::string gcloud_config;  // a gcloud configuration directory, written when set
  // --cloud: "gke" (GKE's API for gcloud, GKE-shaped nodes) or "aws" (EKS, Auto Scaling, EC2
  // and STS for the aws CLI, EKS-shaped nodes, AWS's instance types; cloud/aws/aws_api.h),
  // served on the API's port. Empty: the config's cluster.cloud, GKE by default.
  std::string cloud;
  std::string aws_config;     // an AWS CLI config + credentials directory, written when set
  double speed = 1.0;         // divides every emulated duration
  std::string config;         // scenario-format YAML; empty: the built-in default cluster
  // SQLite persistence when set: the API objects and the emulated cloud (pools, VMs with their
  // lifecycle step in flight, GKE operations), in one store and one transaction order
  // (runtime/store_cloud_journal.h). A restart resumes both; --config's nodePools then are not
  // created again (the cluster exists), its delays, faults and autoscaler flags apply.
  std::string data_dir;
  bool autoscaler = true;     // --no-autoscaler turns the embedded autoscaler off
  // --external-autoscaler-grpc ADDR: serve the emulated cloud's node pools as the Cluster
  // Autoscaler's externalgrpc CloudProvider on ADDR ("127.0.0.1:0": a free port), for the real
  // CA (cloud/externalgrpc/cloud_provider_server.h). The embedded autoscaler is then off: CA
  // owns the scaling. Empty: not served.
  std::string external_autoscaler_grpc;
  // --external-autoscaler-cloud-config FILE: CA's --cloud-config for that server ("address:
  // host:port", the port bound), written once ready. REQUIRES external_autoscaler_grpc.
  std::string external_autoscaler_cloud_config;
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
  // kube-apiserver's --service-cluster-ip-range: Services' cluster IPs; empty: the config's
  // cluster.servicesIpv4Cidr, else the cloud's default (GKE 34.118.224.0/20, EKS 10.100.0.0/16).
  std::string service_cluster_ip_range;
  // For tests: a file to write "<port>\n" to once ready.
  std::string port_file;
};

// Blocks until SIGINT/SIGTERM. Returns the exit code: 0 after a clean shutdown, 1 when the
// cluster cannot start (errors go to `err` as "error: ..."), 2 for a bad option value (or an
// exposure it refuses: --anonymous-auth=true off loopback, or a token with nowhere to go).
int RunUp(const UpOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tidepool::runtime
