// File: authn/service_account_token.h
//
// ServiceAccountTokens: the API server's service-account tokens, as kube-apiserver 1.32 issues
// them for TokenRequest (pkg/serviceaccount/jwt.go and claims.go) and authenticates them.
//
// A token is a JWT signed RS256 with a key the server makes for its run (RSA 2048, on first
// use; never written anywhere): header {"alg":"RS256","kid":<base64url SHA-256 of the public
// key's DER>}, claims {aud, exp, iat, iss, jti, kubernetes.io: {namespace, serviceaccount
// {name, uid}, and the bound object: pod {name, uid} (with node {name, uid} when the pod has
// one), secret {name, uid} or node {name, uid}}, nbf, sub:
// "system:serviceaccount:<ns>:<name>"}. Verify tells a token signed with the server's key
// (its key id and signature) from any other, and checks the issuer and that `now` is within
// [nbf, exp]; the caller checks that the account (and bound object) still exist with their
// uids, as kube's validator does.
//
// Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/status_or.h"

namespace tidepool::apiserver::authn {

struct TokenClaims {
  struct Ref {
    std::string name, uid;
  };
  std::string ns;
  Ref service_account;
  std::vector<std::string> audiences;
  TimePoint issued_at{};
  TimePoint expires_at{};
  std::string jti;
  // The bound object (at most one of pod, secret, node; node also with a pod).
  std::optional<Ref> pod, secret, node;
};

class ServiceAccountTokens {
 public:
  explicit ServiceAccountTokens(std::string issuer);
  ~ServiceAccountTokens();
  ServiceAccountTokens(const ServiceAccountTokens&) = delete;
  ServiceAccountTokens& operator=(const ServiceAccountTokens&) = delete;

  const std::string& issuer() const { return issuer_; }
  // The signed token. Internal when the key cannot be made.
  StatusOr<std::string> Issue(const TokenClaims& claims) const;
  // The claims of a token this server issued that is valid at `now`; Unauthenticated for one it
  // issued (its key, a good signature) that is not (another issuer, not yet or no longer
  // valid, no service account claim); nullopt for any other (not a JWT, another key, a bad
  // signature).
  StatusOr<std::optional<TokenClaims>> Verify(std::string_view token, TimePoint now) const;

 private:
  struct Key;
  const Key* KeyOrNull() const;

  const std::string issuer_;
  mutable std::mutex mu_;
  mutable std::unique_ptr<Key> key_;
};

}  // namespace tidepool::apiserver::authn
