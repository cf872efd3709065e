// File: tls_endpoint.h
//
// TlsEndpoint: the HTTPS face of `tidepool up`'s Kubernetes API, for the kubeconfig that
// `gcloud container clusters get-credentials` writes (it always says server: https://<cluster
// endpoint>, with the cluster's masterAuth.clusterCaCertificate as certificate-authority-data).
//
// At Start it makes a throw-away certificate authority (EC P-256, self-signed, CN "tidepool
// CA") and a server certificate signed by it for the listen address (IP SAN; not 0.0.0.0),
// 127.0.0.1, ::1, localhost, kubernetes(.default(.svc)) and `extra_names` (IPv4 addresses as IP
// SANs, anything else as DNS SANs: e.g. this machine's addresses and host name when it
// listens on 0.0.0.0, as `tidepool up --address` exposes the cluster), valid from one hour before the injected
// clock's now for 365 days. It listens on address:port (0: a free port), terminates TLS
// (1.2 or 1.3, HTTP/1.1 only: no ALPN is selected, so clients fall back to HTTP/1.1) and
// relays the bytes both ways to a plain TCP backend (the HTTP server on loopback), one thread
// per connection; watches and `logs -f` stream through unchanged. Nothing is read from or
// written to disk. This file and tls_endpoint.cc are the only ones that see OpenSSL.
//
// Stop() closes the listener and every relayed connection, and joins the threads (each
// notices within 200 ms). Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::cloud::gke {

class TlsEndpoint {
 public:
  // Unavailable with the OS's or OpenSSL's reason when it cannot listen or make the keys.
  static StatusOr<std::unique_ptr<TlsEndpoint>> Start(const std::string& address, uint16_t port,
                                                      const std::string& backend_host,
                                                      uint16_t backend_port, const Clock& clock,
                                                      const std::vector<std::string>& extra_names = {});
  ~TlsEndpoint();
  TlsEndpoint(const TlsEndpoint&) = delete;
  TlsEndpoint& operator=(const TlsEndpoint&) = delete;

  uint16_t port() const;
  // The CA certificate, PEM.
  const std::string& ca_pem() const;
  // Idempotent.
  void Stop();

  struct Impl;

 private:
  explicit TlsEndpoint(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tidepool::cloud::gke
