#include "apiserver/authn/service_account_token.h"

#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <nlohmann/json.hpp>

#include "common/base64.h"

namespace tidepool::apiserver::authn {

using nlohmann::json;

struct ServiceAccountTokens::Key {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> pkey{nullptr, &EVP_PKEY_free};
  std::string kid;
};

namespace {

int64_t Seconds(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

TimePoint FromSeconds(int64_t s) { return TimePoint(std::chrono::seconds(s)); }

// Verify's answer for a token another key signed (or not a JWT at all).
StatusOr<std::optional<TokenClaims>> NotMine() { return std::optional<TokenClaims>(); }

// keyIDFromPublicKey: base64url (no padding) of the SHA-256 of the public key's PKIX DER.
std::string KeyId(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  const int len = i2d_PUBKEY(key, &der);
  if (len <= 0) return "";
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(der, static_cast<size_t>(len), digest, &n, EVP_sha256(), nullptr);
  OPENSSL_free(der);
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(digest), n),
                      Base64Encoding::kRawUrl);
}

json RefJson(const TokenClaims::Ref& r) { return {{"name", r.name}, {"uid", r.uid}}; }

std::optional<TokenClaims::Ref> RefOf(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return std::nullopt;
  auto str = [&](const char* k) {
    auto m = it->find(k);
    return m != it->end() && m->is_string() ? m->get<std::string>() : std::string();
  };
  return TokenClaims::Ref{str("name"), str("uid")};
}

}  // namespace

ServiceAccountTokens::ServiceAccountTokens(std::string issuer) : issuer_(std::move(issuer)) {}
ServiceAccountTokens::~ServiceAccountTokens() = default;

const ServiceAccountTokens::Key* ServiceAccountTokens::KeyOrNull() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (key_ != nullptr) return key_.get();
  auto key = std::make_unique<Key>();
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(
      EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nullptr), &EVP_PKEY_CTX_free);
  EVP_PKEY* made = nullptr;
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) != 1 ||
      EVP_PKEY_CTX_set_rsa_keygen_bits(ctx.get(), 2048) != 1 ||
      EVP_PKEY_keygen(ctx.get(), &made) != 1) {
    return nullptr;
  }
  key->pkey.reset(made);
  key->kid = KeyId(made);
  key_ = std::move(key);
  return key_.get();
}

StatusOr<std::string> ServiceAccountTokens::Issue(const TokenClaims& c) const {
  const Key* key = KeyOrNull();
  if (key == nullptr) return InternalError("failed to generate token: no signing key");
  json k8s = {{"namespace", c.ns}, {"serviceaccount", RefJson(c.service_account)}};
  if (c.pod) k8s["pod"] = RefJson(*c.pod);
  if (c.secret) k8s["secret"] = RefJson(*c.secret);
  if (c.node) k8s["node"] = RefJson(*c.node);
  const json claims = {{"aud", c.audiences},
                       {"exp", Seconds(c.expires_at)},
                       {"iat", Seconds(c.issued_at)},
                       {"iss", issuer_},
                       {"jti", c.jti},
                       {"kubernetes.io", k8s},
                       {"nbf", Seconds(c.issued_at)},
                       {"sub", "system:serviceaccount:" + c.ns + ":" + c.service_account.name}};
  const json header = {{"alg", "RS256"}, {"kid", key->kid}};
  const std::string signing = Base64Encode(header.dump(), Base64Encoding::kRawUrl) + "." +
                              Base64Encode(claims.dump(), Base64Encoding::kRawUrl);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  size_t len = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(signing.data());
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key->pkey.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len, data, signing.size()) != 1) {
    return InternalError("failed to generate token: signing failed");
  }
  std::string sig(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, data,
                     signing.size()) != 1) {
    return InternalError("failed to generate token: signing failed");
  }
  sig.resize(len);
  return signing + "." + Base64Encode(sig, Base64Encoding::kRawUrl);
}

StatusOr<std::optional<TokenClaims>> ServiceAccountTokens::Verify(std::string_view token,
                                                                  TimePoint now) const {
  const size_t a = token.find('.');
  const size_t b = a == std::string_view::npos ? a : token.find('.', a + 1);
  if (b == std::string_view::npos || token.find('.', b + 1) != std::string_view::npos) {
    return NotMine();
  }
  auto header_text = Base64Decode(token.substr(0, a), Base64Encoding::kRawUrl);
  auto claims_text = Base64Decode(token.substr(a + 1, b - a - 1), Base64Encoding::kRawUrl);
  auto sig = Base64Decode(token.substr(b + 1), Base64Encoding::kRawUrl);
  if (!header_text.ok() || !claims_text.ok() || !sig.ok()) return NotMine();
  const json header = json::parse(*header_text, nullptr, false);
  const json claims = json::parse(*claims_text, nullptr, false);
  if (!header.is_object() || !claims.is_object()) return NotMine();
  const Key* key = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    key = key_.get();  // no key yet: nothing was issued
  }
  const auto text = [](const json& j, const char* k) {
    auto it = j.find(k);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (key == nullptr || text(header, "alg") != "RS256" || text(header, "kid") != key->kid) {
    return NotMine();
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  const std::string_view signing = token.substr(0, b);
  if (!ctx ||
      EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key->pkey.get()) != 1 ||
      EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig->data()), sig->size(),
                       reinterpret_cast<const unsigned char*>(signing.data()),
                       signing.size()) != 1) {
    return NotMine();
  }
  // Signed with this server's key from here on.
  if (text(claims, "iss") != issuer_)
    return Status(StatusCode::kUnauthenticated, "token has another issuer");
  const auto number = [&](const char* k) -> std::optional<int64_t> {
    auto it = claims.find(k);
    if (it == claims.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<int64_t>();
  };
  const auto exp = number("exp"), nbf = number("nbf"), iat = number("iat");
  if (!exp || Seconds(now) >= *exp) return Status(StatusCode::kUnauthenticated, "token is expired");
  if (nbf && Seconds(now) < *nbf)
    return Status(StatusCode::kUnauthenticated, "token is not valid yet");
  auto k8s = claims.find("kubernetes.io");
  if (k8s == claims.end() || !k8s->is_object()) {
    return Status(StatusCode::kUnauthenticated, "token has no kubernetes.io claims");
  }
  TokenClaims out;
  out.ns = text(*k8s, "namespace");
  auto sa = RefOf(*k8s, "serviceaccount");
  if (!sa || out.ns.empty() || sa->name.empty()) {
    return Status(StatusCode::kUnauthenticated, "token names no service account");
  }
  out.service_account = *sa;
  out.pod = RefOf(*k8s, "pod");
  out.secret = RefOf(*k8s, "secret");
  out.node = RefOf(*k8s, "node");
  if (auto aud = claims.find("aud"); aud != claims.end() && aud->is_array()) {
    for (const json& x : *aud) {
      if (x.is_string()) out.audiences.push_back(x.get<std::string>());
    }
  }
  out.issued_at = FromSeconds(iat.value_or(0));
  out.expires_at = FromSeconds(*exp);
  out.jti = text(claims, "jti");
  return std::optional<TokenClaims>(std::move(out));
}

}  // namespace tidepool::apiserver::authn
