// File: config.h
//
// RestConfig: where the Kubernetes API is and how to authenticate to it, as client-go's
// rest.Config. Built from a kubeconfig file (clientcmd's loading rules for one file) or from
// the in-cluster environment (rest.InClusterConfig). Follows client-go v0.32.
//
// Kubeconfig (apiVersion v1, kind Config; YAML or JSON):
//   - the context is `context` when given, else `current-context`; its `namespace` (default
//     "default"), its `cluster` and its `user` are looked up by name;
//   - cluster: `server`, `certificate-authority` (a file) or `certificate-authority-data`
//     (base64 PEM), `insecure-skip-tls-verify`, `tls-server-name` (kept, not used yet);
//   - user: `token`, `tokenFile`, `client-certificate` / `client-key` (files) or their `-data`
//     variants (base64 PEM), `username` / `password` (basic auth), and `exec` (credential plugins
//     such as gke-gcloud-auth-plugin; see auth.h for how they run);
//   - relative file paths are resolved against the kubeconfig's own directory (clientcmd's
//     ResolvePaths), `~/` against $HOME;
//   - errors use clientcmd's texts: `invalid configuration: context was not found for specified
//     context: x`, `invalid configuration: no server found for cluster "c"`, `invalid
//     configuration: auth info "u" does not exist`, `... unable to read
//     certificate-authority /p for c due to open /p: no such file or directory`, ...
//
// In-cluster (rest.InClusterConfig): KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT make
// the host `https://host:port` (IPv6 in brackets); the service-account directory (injectable
// for tests; /var/run/secrets/kubernetes.io/serviceaccount by default) gives `token` (re-read
// about every minute, since the kubelet rotates it), `ca.crt` and `namespace`.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::client {

// A kubeconfig user's `exec` stanza (client.authentication.k8s.io ExecConfig).
struct ExecConfig {
  // client.authentication.k8s.io/v1 or /v1beta1 (v1alpha1 is refused, as client-go 1.24+).
  std::string api_version;
  // The program; looked up in PATH when it has no '/'. Relative paths with a '/' are resolved
  // against the kubeconfig's directory (client-go does the same).
  std::string command;
  std::vector<std::string> args;
  // Added to (and overriding) the process environment, in order.
  std::vector<std::pair<std::string, std::string>> env;
  // Never, IfAvailable or Always. Required for v1; v1beta1 defaults to IfAvailable. We never
  // have a terminal, so Always is refused when the plugin runs (as client-go without one).
  std::string interactive_mode;
  bool provide_cluster_info = false;
  std::string install_hint;
};

struct RestConfig {
  // "https://1.2.3.4:443", without a trailing slash.
  std::string host;
  // The namespace of the context (or of the in-cluster pod); "default" when unset.
  std::string namespace_name = "default";
  // Name of the context that was used (empty for in-cluster).
  std::string context_name;

  // TLS.
  std::string ca_pem;  // empty: the system's CAs
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string client_cert_pem;
  std::string client_key_pem;

  // Authentication, in client-go's precedence: a bearer token (static or from a file), else
  // basic auth; exec plugins provide a token and/or certificate at run time.
  std::string bearer_token;
  std::string bearer_token_file;  // re-read about every minute when set
  std::string username;
  std::string password;
  std::optional<ExecConfig> exec;

  // "tidepool-autoscaler/<version>" unless set.
  std::string user_agent;
  // Default per-request timeout for non-watch calls; zero: none (client-go's default).
  Duration timeout = Duration::zero();
};

// Loads one kubeconfig file. `context` empty: the file's current-context. Errors: NotFound when
// the file does not exist, InvalidArgument for YAML/shape errors and clientcmd validation.
StatusOr<RestConfig> LoadKubeconfig(const std::string& path, const std::string& context = "");

// The same from text; relative paths in it are resolved against `base_dir`.
StatusOr<RestConfig> ParseKubeconfig(std::string_view text, const std::string& base_dir,
                                     const std::string& context = "");

struct InClusterOptions {
  // Where the service account's token, ca.crt and namespace files are.
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  // Environment lookup; the process environment (getenv) when empty.
  std::function<std::optional<std::string>(const std::string& name)> getenv;
};

// rest.InClusterConfig. FailedPrecondition "unable to load in-cluster configuration,
// KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined" outside a pod; NotFound
// "open <dir>/token: no such file or directory" without a token. A missing ca.crt is logged by
// client-go and tolerated; here too (ca_pem stays empty).
StatusOr<RestConfig> InClusterConfig(const InClusterOptions& options = {});

// clientcmd.BuildConfigFromFlags, as CA's --kubeconfig / --kubernetes flags use it: neither
// given -> InClusterConfig(in_cluster); a kubeconfig path -> LoadKubeconfig(path) (current
// context); `master` (a URL), when given, replaces the server (or is the whole config when there
// is no kubeconfig).
StatusOr<RestConfig> BuildConfigFromFlags(const std::string& master, const std::string& kubeconfig_path,
                                          const InClusterOptions& in_cluster = {});

// "tidepool-autoscaler/<version>" (client-go's DefaultKubernetesUserAgent shape, shortened).
std::string DefaultUserAgent();

}  // namespace tidepool::client
