// File: autoscale_command.h
//
// `tidepool autoscale`: the autoscaler as a standalone program against a Kubernetes API server
// and a cloud's public APIs, in place of the Cluster Autoscaler — the same engine as `tidepool
// up` and `tidepool simulate` (autoscaler/core), fed by informers (client/) instead of an
// in-process store, acting through a cloud provider from the registry (cloud/providers.h)
// instead of the emulated cloud. Against `tidepool up --no-autoscaler` it is the live path of
// the seed walkthrough.
//
//   Kubernetes     --kubeconfig (else $KUBECONFIG, else the in-cluster service account),
//                  --context
//   cloud          --cloud-provider NAME (alias --cloud; default gke), looked up in the cloud
//                  registry; an unknown name is CA's "Unknown cloud provider: NAME" (exit 2).
//                  CA's --cloud-config and repeatable --nodes=MIN:MAX:NAME go to the provider,
//                  with the flags the provider declares (AutoscaleCloudFlags; the flags of
//                  another provider are refused). gke (cloud/gke/live/gke_provider_factory.h):
//                  --project, --location, --cluster-name; --gke-api-endpoint /
//                  --compute-api-endpoint to point at another GKE API (tidepool up's); OAuth
//                  tokens from --gcp-token-file, else a service-account key
//                  (--gcp-credentials-file or $GOOGLE_APPLICATION_CREDENTIALS), else the GCE
//                  metadata server; --gcp-no-auth sends none (tidepool up); node groups: the
//                  pools with GKE autoscaling on, or exactly those named by --nodes (for pools
//                  whose GKE autoscaling is off). Bad provider options exit 2; a provider that
//                  cannot be built (credentials) exits 1
//   transport      credentials are never sent over plain http:// to another host than this one
//                  (loopback): such a Kubernetes server or cloud endpoint is refused (exit 2)
//                  unless --insecure-allow-http-credentials (then a warning is logged)
//   engine         every Cluster Autoscaler flag autoscaler/flags.h knows, by CA's name
//                  (--scan-interval=10s, --scale-down-unneeded-time=10m, --expander=...), also
//                  from --config FILE (a YAML map of the same names)
//   HA             --leader-elect (default true) on the Lease kube-system/cluster-autoscaler,
//                  --leader-elect-lease-duration 15s, --leader-elect-renew-deadline 10s,
//                  --leader-elect-retry-period 2s, --leader-elect-resource-name/-namespace;
//                  a replica that loses the lease stops acting at once and stands for election
//                  again (CA exits instead, for its Deployment to restart it)
//   operations     --address :8085 serves /healthz and /metrics (Prometheus text, CA's metric
//                  names); klog-shaped logs on stderr (--v); SIGINT/SIGTERM: finish the loop,
//                  release the lease, exit 0
//
// One loop every --scan-interval while leading: the informers' ClusterView, RunOnce(now), the
// status ConfigMap (kube-system/cluster-autoscaler-status) when it changed, the metrics.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "cloud/registry.h"
#include "common/clock.h"

namespace tidepool::runtime {

struct AutoscaleOptions {
  std::string kubeconfig;  // empty: $KUBECONFIG, else in-cluster
  std::string context;

  std::string cloud_provider = "gke";
  // CA's --cloud-config and --nodes (explicit node groups, MIN:MAX:NAME, repeatable; GKE: node
  // pools, or a single-zone pool's instance group URL; empty: the pools with GKE autoscaling
  // enabled), and the values of the provider's own flags that were given.
  cloud::CloudProviderOptions cloud;
  // Credentials (a kubeconfig's token, basic auth or exec plugin; the cloud's OAuth token) over
  // plain http:// to a host other than this machine are refused unless this is set (then a
  // warning is logged). Loopback http is always allowed.
  bool insecure_allow_http_credentials = false;

  // CA flags by name, as given ("scan-interval", "10s"); applied after --config.
  std::vector<std::pair<std::string, std::string>> flags;
  std::string config;  // YAML map of CA flags

  bool leader_elect = true;
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
  std::string lease_name = "cluster-autoscaler";
  std::string lease_namespace = "kube-system";
  std::string identity;  // empty: "<hostname>_<random>"
  std::string status_namespace = "kube-system";  // CA's --namespace

  std::string address = ":8085";  // ":PORT" binds every interface; "127.0.0.1:0" a free port
  std::string port_file;          // tidepool: the bound port is written here once serving
  int verbosity = 1;
  uint64_t seed = 1;
};

// The flags of every registered cloud provider, each once (for the command line).
std::vector<cloud::ProviderFlag> AutoscaleCloudFlags();

// Runs until SIGINT/SIGTERM (0) or a fatal error at start-up (1); 2 for bad options.
// Messages for the user go to `err` as "error: ...".
int RunAutoscale(const AutoscaleOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tidepool::runtime
