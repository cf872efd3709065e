// File: auth.h
//
// Authenticator: the credentials a request carries, from a RestConfig, refreshed as client-go
// refreshes them (v0.32):
//   - a static bearer token;
//   - a token file (tokenFile, in-cluster): re-read when the cached copy is older than one
//     minute (transport.NewCachedFileTokenSource: period 1 min, 10 s leeway); a failed re-read
//     keeps the old token, as client-go does;
//   - an exec credential plugin (plugin/pkg/client/auth/exec): the command runs with
//     posix_spawn (no shell), stdin /dev/null, stderr passed through, the environment merged with
//     the ExecConfig's env plus KUBERNETES_EXEC_INFO (an ExecCredential with spec.interactive
//     false); its stdout must be an ExecCredential of the configured apiVersion whose status
//     has a token and/or clientCertificateData + clientKeyData. The result is cached until
//     status.expirationTimestamp (forever without one) and the plugin runs again once expired
//     or after the server answered 401 to these credentials (Invalidate);
//   - basic auth (username/password) as an Authorization header;
//   - precedence: a static token, else the token file, else the exec plugin, else basic auth;
//   - client certificates come from the config (or the plugin).
// Errors are Unauthenticated with client-go's texts prefixed "getting credentials: ", e.g.
// "getting credentials: exec: executable gke-gcloud-auth-plugin not found", "getting
// credentials: exec plugin didn't return a token or cert/key pair".
//
// Thread-safe; the plugin runs at most once at a time.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "client/config.h"
#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::client {

struct Credentials {
  // The Authorization header's value ("Bearer <token>" / "Basic <base64>"), or "".
  std::string authorization;
  // A client certificate from an exec plugin (overrides the config's), both PEM, or nullopt.
  std::optional<std::pair<std::string, std::string>> client_cert_and_key;
  // Incremented whenever the credentials change (tests and logs).
  uint64_t generation = 0;
};

class Authenticator {
 public:
  // `clock` must outlive the authenticator.
  Authenticator(const RestConfig& config, const Clock& clock);
  ~Authenticator();
  Authenticator(const Authenticator&) = delete;
  Authenticator& operator=(const Authenticator&) = delete;

  // The credentials to send now (runs the plugin or re-reads the token file when due).
  StatusOr<Credentials> Get();
  // The server refused `used` with 401: forget it so that the next Get() refreshes (runs the
  // plugin again / re-reads the token file). No effect if newer credentials exist already.
  void Invalidate(const Credentials& used);
  // True when an Invalidate can produce different credentials (exec plugin or token file).
  bool Refreshable() const;

  // How many times the exec plugin ran (tests, metrics).
  uint64_t exec_runs() const;

 private:
  StatusOr<Credentials> RunExecLocked();
  StatusOr<std::string> ReadTokenFileLocked();

  const RestConfig config_;
  const Clock& clock_;
  mutable std::mutex mu_;
  // State below is protected by mu_.
  std::optional<Credentials> cached_;
  std::optional<TimePoint> expiry_;  // of cached_ (exec: expirationTimestamp; file: +1 min)
  uint64_t generation_ = 0;
  uint64_t exec_runs_ = 0;
};

}  // namespace tidepool::client
