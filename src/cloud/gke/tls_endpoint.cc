// File: tls_endpoint.cc
#include "cloud/gke/tls_endpoint.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <list>
#include <mutex>
#include <system_error>
#include <thread>

namespace tidepool::cloud::gke {

namespace {

std::string SslError(const std::string& what) {
  std::string msg = what;
  unsigned long e = ERR_get_error();
  if (e != 0) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    msg += ": ";
    msg += buf;
  }
  ERR_clear_error();
  return msg;
}

struct KeyDeleter {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertDeleter {
  void operator()(X509* x) const { X509_free(x); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyDeleter>;
using Cert = std::unique_ptr<X509, CertDeleter>;

bool AddExt(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

// A certificate for `key` named `cn`, signed by (issuer, issuer_key); self-signed when issuer is
// null.
StatusOr<Cert> MakeCert(EVP_PKEY* key, const std::string& cn, X509* issuer, EVP_PKEY* issuer_key,
                        bool ca, const std::string& san, TimePoint now) {
  Cert cert(X509_new());
  if (!cert) return UnavailableError(SslError("X509_new"));
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof(serial)) != 1) return UnavailableError(SslError("RAND_bytes"));
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof(serial), nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  const time_t start = static_cast<time_t>(UnixSeconds(now)) - 3600;
  ASN1_TIME_set(X509_getm_notBefore(cert.get()), start);
  ASN1_TIME_set(X509_getm_notAfter(cert.get()), start + 3600 + 365LL * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("tidepool"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509* signer = issuer != nullptr ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  bool ok = true;
  if (ca) {
    ok = AddExt(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE") &&
         AddExt(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature") &&
         AddExt(cert.get(), signer, NID_subject_key_identifier, "hash");
  } else {
    ok = AddExt(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE") &&
         AddExt(cert.get(), signer, NID_key_usage, "critical,digitalSignature,keyEncipherment") &&
         AddExt(cert.get(), signer, NID_ext_key_usage, "serverAuth") &&
         AddExt(cert.get(), signer, NID_subject_alt_name, san.c_str()) &&
         AddExt(cert.get(), signer, NID_authority_key_identifier, "keyid:always");
  }
  if (!ok) return UnavailableError(SslError("certificate extensions"));
  if (X509_sign(cert.get(), issuer_key != nullptr ? issuer_key : key, EVP_sha256()) == 0) {
    return UnavailableError(SslError("X509_sign"));
  }
  return cert;
}

std::string ToPem(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

struct TlsEndpoint::Impl {
  int listen_fd = -1;
  uint16_t port = 0;
  std::string backend_host;
  uint16_t backend_port = 0;
  std::string ca_pem;
  SSL_CTX* ctx = nullptr;
  std::atomic<bool> stopping{false};
  std::thread acceptor;
  std::mutex mu;
  struct Conn {
    std::thread thread;
    std::atomic<bool> done{false};
  };
  std::list<Conn> conns;

  ~Impl() {
    if (listen_fd >= 0) ::close(listen_fd);
    if (ctx != nullptr) SSL_CTX_free(ctx);
  }

  void AcceptLoop() {
    while (!stopping.load()) {
      pollfd p{listen_fd, POLLIN, 0};
      int r = ::poll(&p, 1, 200);
      if (r <= 0) continue;
      int fd = ::accept(listen_fd, nullptr, nullptr);
      if (fd < 0) continue;
      std::lock_guard<std::mutex> lock(mu);
      for (auto it = conns.begin(); it != conns.end();) {
        if (it->done.load()) {
          it->thread.join();
          it = conns.erase(it);
        } else {
          ++it;
        }
      }
      Conn& c = conns.emplace_back();
      try {
        c.thread = std::thread([this, fd, &c] {
          Relay(fd);
          c.done = true;
        });
      } catch (const std::system_error&) {
        // No thread for it (the process is out of threads): the connection is dropped, as a
        // full listen backlog would drop it, instead of std::terminate.
        conns.pop_back();
        ::close(fd);
      }
    }
  }

  int ConnectBackend() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(backend_port);
    if (::inet_pton(AF_INET, backend_host.c_str(), &a.sin_addr) != 1 ||
        ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
      ::close(fd);
      return -1;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
  }

  void Relay(int client) {
    int one = 1;
    ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    timeval tv{10, 0};  // the handshake must not hang a thread forever
    ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    SSL* ssl = SSL_new(ctx);
    SSL_set_fd(ssl, client);
    int backend = -1;
    if (SSL_accept(ssl) == 1) {
      timeval none{0, 0};
      ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof(none));
      backend = ConnectBackend();
    }
    char buf[16384];
    while (backend >= 0 && !stopping.load()) {
      if (SSL_pending(ssl) == 0) {
        pollfd p[2] = {{client, POLLIN, 0}, {backend, POLLIN, 0}};
        int r = ::poll(p, 2, 200);
        if (r < 0 && errno != EINTR) break;
        if (r <= 0) continue;
        if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) {
          ssize_t n = ::recv(backend, buf, sizeof(buf), 0);
          if (n <= 0) break;
          if (SSL_write(ssl, buf, static_cast<int>(n)) <= 0) break;
        }
        if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      }
      int n = SSL_read(ssl, buf, sizeof(buf));
      if (n <= 0) {
        int e = SSL_get_error(ssl, n);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) continue;
        break;
      }
      if (!WriteAll(backend, buf, static_cast<size_t>(n))) break;
    }
    if (backend >= 0) ::close(backend);
    SSL_shutdown(ssl);
    SSL_free(ssl);
    ERR_clear_error();
    ::close(client);
  }
};

StatusOr<std::unique_ptr<TlsEndpoint>> TlsEndpoint::Start(const std::string& address,
                                                          uint16_t port,
                                                          const std::string& backend_host,
                                                          uint16_t backend_port,
                                                          const Clock& clock,
                                                          const std::vector<std::string>& extra_names) {
  auto impl = std::make_unique<Impl>();
  impl->backend_host = backend_host;
  impl->backend_port = backend_port;
  const TimePoint now = clock.Now();

  Key ca_key(EVP_EC_gen("P-256"));
  Key server_key(EVP_EC_gen("P-256"));
  if (!ca_key || !server_key) return UnavailableError(SslError("EVP_EC_gen"));
  TIDEPOOL_ASSIGN_OR_RETURN(Cert ca, MakeCert(ca_key.get(), "tidepool CA", nullptr, nullptr,
                                              /*ca=*/true, "", now));
  std::string san = "IP:127.0.0.1,IP:::1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,"
                    "DNS:kubernetes.default.svc";
  in_addr a4{};
  if (address != "127.0.0.1" && address != "0.0.0.0" &&
      ::inet_pton(AF_INET, address.c_str(), &a4) == 1) {
    san += ",IP:" + address;
  }
  for (const std::string& name : extra_names) {
    if (name.empty() || name == address || name.find_first_of(",\n") != std::string::npos) {
      continue;
    }
    san += (::inet_pton(AF_INET, name.c_str(), &a4) == 1 ? ",IP:" : ",DNS:") + name;
  }
  TIDEPOOL_ASSIGN_OR_RETURN(Cert server, MakeCert(server_key.get(), "tidepool-apiserver", ca.get(),
                                                  ca_key.get(), /*ca=*/false, san, now));
  impl->ca_pem = ToPem(ca.get());

  impl->ctx = SSL_CTX_new(TLS_server_method());
  if (impl->ctx == nullptr) return UnavailableError(SslError("SSL_CTX_new"));
  SSL_CTX_set_min_proto_version(impl->ctx, TLS1_2_VERSION);
  if (SSL_CTX_use_certificate(impl->ctx, server.get()) != 1 ||
      SSL_CTX_add1_chain_cert(impl->ctx, ca.get()) != 1 ||
      SSL_CTX_use_PrivateKey(impl->ctx, server_key.get()) != 1) {
    return UnavailableError(SslError("SSL_CTX certificate"));
  }

  impl->listen_fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (impl->listen_fd < 0) return UnavailableError(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(impl->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  if (::inet_pton(AF_INET, address.c_str(), &sa.sin_addr) != 1) {
    return InvalidArgumentError("listen address " + address + ": not an IPv4 address");
  }
  if (::bind(impl->listen_fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0 ||
      ::listen(impl->listen_fd, 128) != 0) {
    return UnavailableError("listen on " + address + ":" + std::to_string(port) + ": " +
                            std::strerror(errno));
  }
  socklen_t len = sizeof(sa);
  ::getsockname(impl->listen_fd, reinterpret_cast<sockaddr*>(&sa), &len);
  impl->port = ntohs(sa.sin_port);
  Impl* raw = impl.get();
  impl->acceptor = std::thread([raw] { raw->AcceptLoop(); });
  return std::unique_ptr<TlsEndpoint>(new TlsEndpoint(std::move(impl)));
}

TlsEndpoint::TlsEndpoint(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

TlsEndpoint::~TlsEndpoint() { Stop(); }

uint16_t TlsEndpoint::port() const { return impl_->port; }
const std::string& TlsEndpoint::ca_pem() const { return impl_->ca_pem; }

void TlsEndpoint::Stop() {
  if (impl_->stopping.exchange(true)) return;
  if (impl_->acceptor.joinable()) impl_->acceptor.join();
  std::lock_guard<std::mutex> lock(impl_->mu);
  for (auto& c : impl_->conns) {
    if (c.thread.joinable()) c.thread.join();
  }
  impl_->conns.clear();
}

}  // namespace tidepool::cloud::gke
