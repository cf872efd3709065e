// File: jwt.cc
#include "cloud/gke/live/jwt.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <nlohmann/json.hpp>

namespace tidepool::cloud::gke::live {

using json = nlohmann::json;

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
}  // namespace

std::string Base64UrlEncode(std::string_view data) {
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  for (size_t i = 0; i < data.size(); i += 3) {
    uint32_t v = static_cast<uint8_t>(data[i]) << 16;
    if (i + 1 < data.size()) v |= static_cast<uint8_t>(data[i + 1]) << 8;
    if (i + 2 < data.size()) v |= static_cast<uint8_t>(data[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    if (i + 1 < data.size()) out += kAlphabet[(v >> 6) & 63];
    if (i + 2 < data.size()) out += kAlphabet[v & 63];
  }
  return out;
}

StatusOr<std::string> Base64UrlDecode(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '-' || c == '+') v = 62;
    else if (c == '_' || c == '/') v = 63;
    if (v < 0) return InvalidArgumentError("invalid base64url character");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

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
  const std::string signing_input =
      Base64UrlEncode(header.dump()) + "." + Base64UrlEncode(claims.dump());
  TIDEPOOL_ASSIGN_OR_RETURN(std::string sig, SignRs256(key.private_key, signing_input));
  return signing_input + "." + Base64UrlEncode(sig);
}

}  // namespace tidepool::cloud::gke::live
