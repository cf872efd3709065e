#include "client/auth.h"
#include "common/base64.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include <nlohmann/json.hpp>

#include "client/internal.h"
#include "client/rest_client.h"

extern char** environ;

namespace tidepool::client {
namespace {

using nlohmann::json;

// transport.NewCachedFileTokenSource: a token read from a file is good for one minute, minus
// cachingTokenSource's 10 s leeway.
constexpr Duration kTokenFilePeriod = std::chrono::seconds(50);

Status CredError(const std::string& msg) {
  return Status(StatusCode::kUnauthenticated, "getting credentials: " + msg);
}

std::string TrimToken(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.pop_back();
  size_t b = 0;
  while (b < s.size() && (s[b] == ' ' || s[b] == '\t')) ++b;
  return s.substr(b);
}

struct ProcessResult {
  std::string out;
  int exit_code = 0;
};

// Runs argv[0] (PATH lookup when it has no '/') with `env`, stdin from /dev/null, stdout
// captured, stderr inherited. NotFound when the program does not exist.
StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) return InternalError(std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipefd[1], 1);
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  std::vector<char*> cenv;
  for (const std::string& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  cenv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, cargv[0], &actions, nullptr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipefd[1]);
  if (rc != 0) {
    ::close(pipefd[0]);
    if (rc == ENOENT || rc == EACCES || rc == ENOEXEC) return NotFoundError(std::strerror(rc));
    return InternalError(std::string("spawn: ") + std::strerror(rc));
  }
  ProcessResult res;
  char buf[4096];
  while (true) {
    const ssize_t n = ::read(pipefd[0], buf, sizeof(buf));
    if (n > 0) {
      res.out.append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  ::close(pipefd[0]);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  res.exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + (WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0);
  return res;
}

}  // namespace

Authenticator::Authenticator(const RestConfig& config, const Clock& clock) : config_(config), clock_(clock) {}

Authenticator::~Authenticator() = default;

bool Authenticator::Refreshable() const {
  return config_.bearer_token.empty() && (config_.exec.has_value() || !config_.bearer_token_file.empty());
}

uint64_t Authenticator::exec_runs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return exec_runs_;
}

void Authenticator::Invalidate(const Credentials& used) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cached_ && cached_->generation == used.generation) {
    cached_.reset();
    expiry_.reset();
  }
}

StatusOr<Credentials> Authenticator::Get() {
  std::lock_guard<std::mutex> lock(mu_);
  const TimePoint now = clock_.Now();
  // exec.go credsExpired: expired once now is after the expiration timestamp.
  if (cached_ && (!expiry_ || now <= *expiry_)) return *cached_;

  Credentials creds;
  if (!config_.bearer_token.empty()) {
    // A static token (kubeconfig `token`) wins over the others (client-go issue 87369).
    creds.authorization = "Bearer " + config_.bearer_token;
    expiry_.reset();
  } else if (!config_.bearer_token_file.empty()) {
    auto token = ReadTokenFileLocked();
    if (!token.ok()) {
      if (cached_) return *cached_;  // keep the last good token, as cachingTokenSource does
      return token.status();
    }
    creds.authorization = "Bearer " + *token;
    expiry_ = now + kTokenFilePeriod;
  } else if (config_.exec) {
    return RunExecLocked();
  } else if (!config_.username.empty() || !config_.password.empty()) {
    creds.authorization = "Basic " + Base64Encode(config_.username + ":" + config_.password);
    expiry_.reset();
  }
  if (cached_ && cached_->authorization == creds.authorization) {
    creds.generation = cached_->generation;
  } else {
    creds.generation = ++generation_;
  }
  cached_ = creds;
  return creds;
}

StatusOr<std::string> Authenticator::ReadTokenFileLocked() {
  auto text = internal::ReadFile(config_.bearer_token_file);
  if (!text.ok()) return CredError(std::string(text.status().message()));
  std::string token = TrimToken(std::move(text).value());
  // fileTokenSource: "read empty token from file %q".
  if (token.empty()) return CredError("read empty token from file \"" + config_.bearer_token_file + "\"");
  return token;
}

StatusOr<Credentials> Authenticator::RunExecLocked() {
  const ExecConfig& exec = *config_.exec;
  if (exec.interactive_mode == "Always") {
    // We never have a terminal on stdin.
    return CredError("exec plugin cannot support interactive mode: standard input is not a terminal");
  }
  // KUBERNETES_EXEC_INFO: the ExecCredential handed to the plugin.
  json info = {{"kind", "ExecCredential"}, {"apiVersion", exec.api_version}, {"spec", {{"interactive", false}}}};
  if (exec.provide_cluster_info) {
    json cluster = {{"server", config_.host}};
    if (!config_.ca_pem.empty()) cluster["certificate-authority-data"] = Base64Encode(config_.ca_pem);
    if (config_.insecure_skip_tls_verify) cluster["insecure-skip-tls-verify"] = true;
    if (!config_.tls_server_name.empty()) cluster["tls-server-name"] = config_.tls_server_name;
    info["spec"]["cluster"] = cluster;
  }
  // The environment: ours, then the config's (overriding), then KUBERNETES_EXEC_INFO.
  std::map<std::string, std::string> envmap;
  std::vector<std::string> order;
  auto set = [&](const std::string& k, const std::string& v) {
    if (!envmap.count(k)) order.push_back(k);
    envmap[k] = v;
  };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string kv(*e);
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) continue;
    set(kv.substr(0, eq), kv.substr(eq + 1));
  }
  for (const auto& [k, v] : exec.env) set(k, v);
  set("KUBERNETES_EXEC_INFO", info.dump());
  std::vector<std::string> env;
  env.reserve(order.size());
  for (const std::string& k : order) env.push_back(k + "=" + envmap[k]);
  std::vector<std::string> argv = {exec.command};
  argv.insert(argv.end(), exec.args.begin(), exec.args.end());

  ++exec_runs_;
  auto run = RunProcess(argv, env);
  if (!run.ok()) {
    if (run.status().code() == StatusCode::kNotFound) {
      std::string msg = "exec: executable " + exec.command + " not found";
      if (!exec.install_hint.empty()) msg += "\n\n" + exec.install_hint;
      return CredError(msg);
    }
    return CredError("exec: " + std::string(run.status().message()));
  }
  if (run->exit_code != 0) {
    return CredError("exec: executable " + exec.command + " failed with exit code " + std::to_string(run->exit_code));
  }
  json cred;
  try {
    cred = json::parse(run->out);
  } catch (const json::exception& e) {
    return CredError(std::string("decoding stdout: couldn't get version/kind; json parse error: ") + e.what());
  }
  if (!cred.is_object()) return CredError("decoding stdout: couldn't get version/kind; json parse error: not an object");
  const std::string kind = cred.value("kind", "");
  const std::string api_version = cred.value("apiVersion", "");
  if (kind != "ExecCredential") {
    return CredError("decoding stdout: no kind \"" + kind + "\" is registered for version \"" + api_version + "\"");
  }
  if (api_version != exec.api_version) {
    return CredError("exec plugin is configured to use API version " + exec.api_version +
                     ", plugin returned version " + api_version);
  }
  if (!cred.contains("status") || !cred["status"].is_object()) return CredError("exec plugin didn't return a status field");
  const json& st = cred["status"];
  const std::string token = st.value("token", "");
  const std::string cert = st.value("clientCertificateData", "");
  const std::string key = st.value("clientKeyData", "");
  if (token.empty() && cert.empty() && key.empty()) return CredError("exec plugin didn't return a token or cert/key pair");
  if (cert.empty() != key.empty()) return CredError("exec plugin returned only certificate or key, not both");
  std::optional<TimePoint> expiry;
  if (st.contains("expirationTimestamp") && st["expirationTimestamp"].is_string()) {
    auto t = ParseRfc3339(st["expirationTimestamp"].get<std::string>());
    if (!t.ok()) return CredError("decoding stdout: " + std::string(t.status().message()));
    expiry = *t;
  }
  Credentials creds;
  if (!token.empty()) creds.authorization = "Bearer " + token;
  if (!cert.empty()) creds.client_cert_and_key = std::make_pair(cert, key);
  creds.generation = ++generation_;
  cached_ = creds;
  expiry_ = expiry;
  return creds;
}

}  // namespace tidepool::client
