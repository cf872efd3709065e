// File: jwt.cc
#include "cloud/gke/live/jwt.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "common/base64.h"

namespace tidepool::cloud::gke::live {

using json = nlohmann::json;

StatusOr<std::string> SignRs256(std::string_view pem_private_key, std::string_view data) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem_private_key.data(), static_cast<int>(pem_private_key.size())),
      &BIO_free);
  if (!bio) return InternalError("BIO_new_mem_buf failed");
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
  if (!key) return InvalidArgumentError("private_key: not a PEM private key");
  if (EVP_PKEY_base_id(key.get()) != EVP_PKEY_RSA) {
    return InvalidArgumentError("private_key: not an RSA key (RS256 needs one)");
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  size_t len = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len,
                     reinterpret_cast<const unsigned char*>(data.data()), data.size()) != 1) {
    return InternalError("RS256 signing failed");
  }
  std::string sig(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len,
                     reinterpret_cast<const unsigned char*>(data.data()), data.size()) != 1) {
    return InternalError("RS256 signing failed");
  }
  sig.resize(len);
  return sig;
}

StatusOr<ServiceAccountKey> ParseServiceAccountKey(std::string_view json_text) {
  const json j = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return InvalidArgumentError("service account key: not a JSON object");
  }
  auto str = [&](const char* k) {
    return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
  };
  if (str("type") != "service_account") {
    return InvalidArgumentError("service account key: type is \"" + str("type") +
                                "\", want \"service_account\"");
  }
  ServiceAccountKey key;
  key.client_email = str("client_email");
  key.private_key = str("private_key");
  key.private_key_id = str("private_key_id");
  key.project_id = str("project_id");
  if (!str("token_uri").empty()) key.token_uri = str("token_uri");
  if (key.client_email.empty() || key.private_key.empty()) {
    return InvalidArgumentError("service account key: client_email and private_key are required");
  }
  return key;
}

StatusOr<std::string> ServiceAccountJwt(const ServiceAccountKey& key, std::string_view scope,
                                        TimePoint now) {
  json header = {{"alg", "RS256"}, {"typ", "JWT"}};
  if (!key.private_key_id.empty()) header["kid"] = key.private_key_id;
  const int64_t iat = UnixSeconds(now);
  const json claims = {{"iss", key.client_email},
                       {"scope", std::string(scope)},
                       {"aud", key.token_uri},
                       {"iat", iat},
                       {"exp", iat + 3600}};
  const std::string signing_input = Base64Encode(header.dump(), Base64Encoding::kRawUrl) + "." +
                                    Base64Encode(claims.dump(), Base64Encoding::kRawUrl);
  TIDEPOOL_ASSIGN_OR_RETURN(std::string sig, SignRs256(key.private_key, signing_input));
  return signing_input + "." + Base64Encode(sig, Base64Encoding::kRawUrl);
}

}  // namespace tidepool::cloud::gke::live
