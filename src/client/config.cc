#include "client/config.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "api/codec/yaml.h"
#include "client/internal.h"
#include "common/base64.h"

namespace tidepool::client {
namespace {

using nlohmann::json;

// clientcmd's errConfigurationInvalid prefix (one error: no brackets, as utilerrors.Aggregate).
Status Invalid(const std::string& msg) { return InvalidArgumentError("invalid configuration: " + msg); }

std::string Str(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

bool Bool(const json& obj, const char* key) {
  if (!obj.is_object()) return false;
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() && it->get<bool>();
}

// Finds `name` in a kubeconfig list of {name, <field>: {...}}; null when absent.
const json* FindNamed(const json& list, const std::string& name, const char* field) {
  if (!list.is_array()) return nullptr;
  for (const json& e : list) {
    if (e.is_object() && Str(e, "name") == name) {
      auto it = e.find(field);
      static const json kEmpty = json::object();
      return (it != e.end() && it->is_object()) ? &*it : &kEmpty;
    }
  }
  return nullptr;
}

// clientcmd ResolvePaths: relative to the kubeconfig's directory; "~/" to $HOME.
std::string Resolve(const std::string& path, const std::string& base_dir) {
  if (path.empty()) return path;
  if (path.rfind("~/", 0) == 0) {
    const char* home = std::getenv("HOME");
    if (home != nullptr) return std::string(home) + path.substr(1);
  }
  if (path[0] == '/' || base_dir.empty()) return path;
  return (std::filesystem::path(base_dir) / path).lexically_normal().string();
}

}  // namespace

namespace internal {

}  // namespace internal

std::string DefaultUserAgent() { return "tidepool-autoscaler/v0.1.0 (linux/amd64)"; }

StatusOr<RestConfig> LoadKubeconfig(const std::string& path, const std::string& context) {
  auto text = internal::ReadFile(path);
  if (!text.ok()) return text.status();
  std::string base = std::filesystem::path(path).parent_path().string();
  if (base.empty()) base = ".";
  return ParseKubeconfig(*text, base, context);
}

StatusOr<RestConfig> ParseKubeconfig(std::string_view text, const std::string& base_dir,
                                     const std::string& context) {
  auto docs = api::codec::ParseYamlDocuments(text);
  if (!docs.ok()) return InvalidArgumentError("error loading config: " + std::string(docs.status().message()));
  if (docs->size() > 1) return InvalidArgumentError("error loading config: more than one YAML document");
  const json cfg = docs->empty() ? json::object() : (*docs)[0];
  if (!cfg.is_object()) return InvalidArgumentError("error loading config: the kubeconfig is not a mapping");

  const json& clusters = cfg.contains("clusters") ? cfg["clusters"] : json();
  const json& contexts = cfg.contains("contexts") ? cfg["contexts"] : json();
  const json& users = cfg.contains("users") ? cfg["users"] : json();
  const bool empty = (!clusters.is_array() || clusters.empty()) && (!contexts.is_array() || contexts.empty()) &&
                     (!users.is_array() || users.empty());
  if (empty) {
    // clientcmd's ErrEmptyConfig.
    return Invalid("no configuration has been provided, try setting KUBERNETES_MASTER environment variable");
  }

  RestConfig out;
  out.context_name = context.empty() ? Str(cfg, "current-context") : context;
  if (out.context_name.empty()) return Invalid("no context chosen");
  const json* ctx = FindNamed(contexts, out.context_name, "context");
  if (ctx == nullptr) return Invalid("context was not found for specified context: " + out.context_name);

  const std::string cluster_name = Str(*ctx, "cluster");
  const std::string user_name = Str(*ctx, "user");
  if (!Str(*ctx, "namespace").empty()) out.namespace_name = Str(*ctx, "namespace");

  // Cluster.
  const json* cluster = FindNamed(clusters, cluster_name, "cluster");
  if (cluster == nullptr || Str(*cluster, "server").empty()) {
    return Invalid("no server found for cluster \"" + cluster_name + "\"");
  }
  out.host = Str(*cluster, "server");
  while (out.host.size() > 1 && out.host.back() == '/') out.host.pop_back();
  out.insecure_skip_tls_verify = Bool(*cluster, "insecure-skip-tls-verify");
  out.tls_server_name = Str(*cluster, "tls-server-name");
  if (!Str(*cluster, "certificate-authority-data").empty()) {
    auto ca = Base64Decode(Str(*cluster, "certificate-authority-data"));
    if (!ca.ok()) {
      return Invalid("certificate-authority-data for " + cluster_name + ": " + std::string(ca.status().message()));
    }
    out.ca_pem = std::move(ca).value();
  } else if (!Str(*cluster, "certificate-authority").empty()) {
    const std::string p = Resolve(Str(*cluster, "certificate-authority"), base_dir);
    auto ca = internal::ReadFile(p);
    if (!ca.ok()) {
      return Invalid("unable to read certificate-authority " + p + " for " + cluster_name + " due to " +
                     std::string(ca.status().message()));
    }
    out.ca_pem = std::move(ca).value();
  }
  if (out.insecure_skip_tls_verify && !out.ca_pem.empty()) {
    // client-go transport's TLS config check.
    return InvalidArgumentError("specifying a root certificates file with the insecure flag is not allowed");
  }

  // User (an empty user name means no credentials, as clientcmd allows).
  if (!user_name.empty()) {
    const json* user = FindNamed(users, user_name, "user");
    if (user == nullptr) return Invalid("auth info \"" + user_name + "\" does not exist");
    out.bearer_token = Str(*user, "token");
    if (!Str(*user, "tokenFile").empty()) {
      out.bearer_token_file = Resolve(Str(*user, "tokenFile"), base_dir);
      auto t = internal::ReadFile(out.bearer_token_file);
      if (!t.ok()) {
        return Invalid("unable to read token-file " + out.bearer_token_file + " for " + user_name + " due to " +
                       std::string(t.status().message()));
      }
    }
    out.username = Str(*user, "username");
    out.password = Str(*user, "password");
    // Client certificate and key: -data wins over the file, as clientcmd's dataFromSliceOrFile.
    struct Pem {
      const char* data_key;
      const char* file_key;
      const char* what;
      std::string* dest;
    };
    for (const Pem& p : {Pem{"client-certificate-data", "client-certificate", "client-cert", &out.client_cert_pem},
                         Pem{"client-key-data", "client-key", "client-key", &out.client_key_pem}}) {
      if (!Str(*user, p.data_key).empty()) {
        auto d = Base64Decode(Str(*user, p.data_key));
        if (!d.ok()) return Invalid(std::string(p.data_key) + " for " + user_name + ": " + std::string(d.status().message()));
        *p.dest = std::move(d).value();
      } else if (!Str(*user, p.file_key).empty()) {
        const std::string path = Resolve(Str(*user, p.file_key), base_dir);
        auto d = internal::ReadFile(path);
        if (!d.ok()) {
          return Invalid("unable to read " + std::string(p.what) + " " + path + " for " + user_name + " due to " +
                         std::string(d.status().message()));
        }
        *p.dest = std::move(d).value();
      }
    }
    if (out.client_cert_pem.empty() != out.client_key_pem.empty()) {
      return Invalid(out.client_key_pem.empty() ? "client-key-data or client-key must be specified for " + user_name +
                                                       " to use the clientCert authentication method."
                                                 : "client-cert-data or client-cert must be specified for " + user_name +
                                                       " to use the clientCert authentication method.");
    }
    if (user->contains("exec") && (*user)["exec"].is_object()) {
      const json& e = (*user)["exec"];
      ExecConfig exec;
      exec.api_version = Str(e, "apiVersion");
      exec.command = Str(e, "command");
      exec.interactive_mode = Str(e, "interactiveMode");
      exec.provide_cluster_info = Bool(e, "provideClusterInfo");
      exec.install_hint = Str(e, "installHint");
      if (e.contains("args") && e["args"].is_array()) {
        for (const json& a : e["args"]) {
          if (a.is_string()) exec.args.push_back(a.get<std::string>());
        }
      }
      if (e.contains("env") && e["env"].is_array()) {
        for (const json& v : e["env"]) exec.env.emplace_back(Str(v, "name"), Str(v, "value"));
      }
      // clientcmd validateAuthInfo's exec checks.
      if (exec.command.empty()) return Invalid("command must be specified for " + user_name + " to use exec authentication plugin");
      if (exec.api_version.empty()) {
        return Invalid("apiVersion must be specified for " + user_name + " to use exec authentication plugin");
      }
      if (exec.api_version != "client.authentication.k8s.io/v1" &&
          exec.api_version != "client.authentication.k8s.io/v1beta1") {
        // exec.go's newAuthenticator.
        return Invalid("exec plugin: invalid apiVersion \"" + exec.api_version + "\"");
      }
      for (const auto& [name, value] : exec.env) {
        if (name.empty()) return Invalid("env variable name must be specified for " + user_name + " to use exec authentication plugin");
      }
      if (exec.interactive_mode.empty()) {
        if (exec.api_version == "client.authentication.k8s.io/v1") {
          return Invalid("interactiveMode must be specified for " + user_name + " to use exec authentication plugin");
        }
        exec.interactive_mode = "IfAvailable";  // v1beta1's default
      } else if (exec.interactive_mode != "Never" && exec.interactive_mode != "IfAvailable" &&
                 exec.interactive_mode != "Always") {
        return Invalid("invalid interactiveMode for " + user_name + ": \"" + exec.interactive_mode + "\"");
      }
      if (exec.command.find('/') != std::string::npos) exec.command = Resolve(exec.command, base_dir);
      out.exec = std::move(exec);
    }
  }
  return out;
}

StatusOr<RestConfig> BuildConfigFromFlags(const std::string& master, const std::string& kubeconfig_path,
                                          const InClusterOptions& in_cluster) {
  if (kubeconfig_path.empty() && master.empty()) return InClusterConfig(in_cluster);
  RestConfig out;
  if (!kubeconfig_path.empty()) {
    auto loaded = LoadKubeconfig(kubeconfig_path);
    if (!loaded.ok()) return loaded.status();
    out = std::move(loaded).value();
  }
  if (!master.empty()) {
    out.host = master;
    while (out.host.size() > 1 && out.host.back() == '/') out.host.pop_back();
  }
  return out;
}

StatusOr<RestConfig> InClusterConfig(const InClusterOptions& options) {
  auto getenv = [&](const std::string& name) -> std::string {
    if (options.getenv) return options.getenv(name).value_or("");
    const char* v = std::getenv(name.c_str());
    return v == nullptr ? "" : v;
  };
  const std::string host = getenv("KUBERNETES_SERVICE_HOST");
  const std::string port = getenv("KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    // rest.ErrNotInCluster.
    return FailedPreconditionError(
        "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined");
  }
  RestConfig out;
  // net.JoinHostPort: brackets around IPv6 literals.
  out.host = "https://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + port;
  const std::string dir = options.service_account_dir;
  out.bearer_token_file = dir + "/token";
  auto token = internal::ReadFile(out.bearer_token_file);
  if (!token.ok()) return token.status();
  auto ca = internal::ReadFile(dir + "/ca.crt");
  if (ca.ok()) out.ca_pem = std::move(ca).value();  // client-go logs and goes on without it
  auto ns = internal::ReadFile(dir + "/namespace");
  if (ns.ok()) {
    std::string n = std::move(ns).value();
    while (!n.empty() && (n.back() == '\n' || n.back() == ' ' || n.back() == '\r')) n.pop_back();
    if (!n.empty()) out.namespace_name = n;
  }
  return out;
}

}  // namespace tidepool::client
