#include "apiserver/certificates/csr.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "api/name_validation.h"
#include "apiserver/validation/fields.h"
#include "apiserver/validation/object_meta.h"
#include "common/base64.h"
#include "common/strings.h"

namespace tidepool::apiserver::certificates {

using api::FieldError;
using nlohmann::json;

namespace {

constexpr char kLegacySigner[] = "kubernetes.io/legacy-unknown";

// certificates.allValidUsages, sorted as sets.List returns them (NotSupported's list).
const std::vector<std::string>& ValidUsages() {
  static const std::vector<std::string> kUsages = [] {
    std::vector<std::string> v = {"signing",
                                  "digital signature",
                                  "content commitment",
                                  "key encipherment",
                                  "key agreement",
                                  "data encipherment",
                                  "cert sign",
                                  "crl sign",
                                  "encipher only",
                                  "decipher only",
                                  "any",
                                  "server auth",
                                  "client auth",
                                  "code signing",
                                  "email protection",
                                  "s/mime",
                                  "ipsec end system",
                                  "ipsec tunnel",
                                  "ipsec user",
                                  "timestamping",
                                  "ocsp signing",
                                  "microsoft sgc",
                                  "netscape sgc"};
    std::sort(v.begin(), v.end());
    return v;
  }();
  return kUsages;
}

// String values ("" when absent or not a string: nothing here may throw).
std::string Str(const json& o, std::initializer_list<std::string_view> path) {
  return std::string(validation::Str(validation::At(o, path)));
}
std::string Member(const json& c, const char* key) {
  return std::string(validation::Str(validation::Member(c, key)));
}

const json& Array(const json& o, std::initializer_list<std::string_view> path) {
  static const json kEmpty = json::array();
  const json* v = validation::At(o, path);
  return v != nullptr && v->is_array() ? *v : kEmpty;
}

// A base64 field's bytes ("" when absent or not base64: the typed decode refused those).
std::string Bytes(const json& o, std::initializer_list<std::string_view> path) {
  auto decoded = Base64Decode(Str(o, path));
  return decoded.ok() ? *decoded : "";
}

// Go's %#v of a []byte: []byte{0x2d, 0x2d, ...}; []byte(nil) when empty.
std::string GoBytes(const std::string& b) {
  if (b.empty()) return "[]byte(nil)";
  std::string out = "[]byte{";
  char buf[8];
  for (size_t i = 0; i < b.size(); ++i) {
    std::snprintf(buf, sizeof(buf), "%s0x%x", i ? ", " : "", static_cast<unsigned char>(b[i]));
    out += buf;
  }
  return out + "}";
}

// One PEM block (encoding/pem's Decode): its type, whether it has headers, and where the next
// block starts; nullopt when there is none.
struct PemBlock {
  std::string type;
  bool headers = false;
  size_t begin = 0, end = 0;  // the block's text is data[begin, end)
};
std::optional<PemBlock> NextPemBlock(const std::string& data, size_t from) {
  const size_t begin = data.find("-----BEGIN ", from);
  if (begin == std::string::npos) return std::nullopt;
  const size_t type_end = data.find("-----", begin + 11);
  if (type_end == std::string::npos) return std::nullopt;
  PemBlock b;
  b.begin = begin;
  b.type = data.substr(begin + 11, type_end - begin - 11);
  const std::string end_marker = "-----END " + b.type + "-----";
  const size_t end = data.find(end_marker, type_end);
  if (end == std::string::npos) return std::nullopt;
  b.headers = data.substr(type_end, end - type_end).find(':') != std::string::npos;
  b.end = end + end_marker.size();
  return b;
}

// certificates.ParseCSR and CheckSignature: "" when `pem` holds a valid, self-signed
// CERTIFICATE REQUEST first.
std::string CsrError(const std::string& pem) {
  const auto block = NextPemBlock(pem, 0);
  if (!block || block->type != "CERTIFICATE REQUEST") {
    return "PEM block type must be CERTIFICATE REQUEST";
  }
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  std::unique_ptr<X509_REQ, decltype(&X509_REQ_free)> req(
      PEM_read_bio_X509_REQ(bio.get(), nullptr, nullptr, nullptr), &X509_REQ_free);
  if (req == nullptr) return "x509: malformed certificate request";
  EVP_PKEY* key = X509_REQ_get0_pubkey(req.get());
  if (key == nullptr) return "x509: unsupported public key algorithm";
  if (X509_REQ_verify(req.get(), key) != 1) {
    return EVP_PKEY_base_id(key) == EVP_PKEY_RSA ? "crypto/rsa: verification error"
                                                 : "x509: ECDSA verification failure";
  }
  return "";
}

// The certificate's problem, if any (validateCertificate with allowArbitraryCertificate false).
std::string CertificateError(const std::string& data) {
  size_t at = 0;
  int blocks = 0;
  while (auto b = NextPemBlock(data, at)) {
    if (b->type != "CERTIFICATE")
      return "only CERTIFICATE PEM blocks are allowed, found \"" + b->type + "\"";
    if (b->headers) return "no PEM block headers are permitted";
    const std::string one = data.substr(b->begin, b->end - b->begin);
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(
        BIO_new_mem_buf(one.data(), static_cast<int>(one.size())), &BIO_free);
    std::unique_ptr<X509, decltype(&X509_free)> cert(
        PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), &X509_free);
    if (cert == nullptr) return "x509: malformed certificate";
    ++blocks;
    at = b->end;
  }
  if (blocks == 0) return "must contain at least one CERTIFICATE PEM block";
  return "";
}

// Compatibility options from the old object (getValidationOptions).
struct Options {
  bool legacy_signer = false;
  bool duplicate_usages = false;
  bool unknown_usages = false;
  bool both_approved_and_denied = false;
  bool duplicate_condition_types = false;
  bool empty_condition_types = false;
  bool arbitrary_certificate = false;
};

size_t Count(const json& conditions, const std::string& type) {
  return static_cast<size_t>(
      std::count_if(conditions.begin(), conditions.end(),
                    [&](const json& c) { return Member(c, "type") == type; }));
}

Options OptionsFor(const json& csr, const json* old) {
  Options o;
  if (old == nullptr) return o;
  o.legacy_signer = Str(*old, {"spec", "signerName"}) == kLegacySigner;
  std::set<std::string> seen;
  for (const json& u : Array(*old, {"spec", "usages"})) {
    const std::string s = u.is_string() ? u.get<std::string>() : "";
    if (!seen.insert(s).second) o.duplicate_usages = true;
    if (!std::binary_search(ValidUsages().begin(), ValidUsages().end(), s)) o.unknown_usages = true;
  }
  const json& conds = Array(*old, {"status", "conditions"});
  o.both_approved_and_denied = Count(conds, "Approved") > 0 && Count(conds, "Denied") > 0;
  std::set<std::string> types;
  for (const json& c : conds) {
    const std::string t = Member(c, "type");
    if (t.empty()) o.empty_condition_types = true;
    if (!types.insert(t).second) o.duplicate_condition_types = true;
  }
  // The certificate is not changing, or the old one was not valid either.
  const std::string old_cert = Bytes(*old, {"status", "certificate"});
  o.arbitrary_certificate = old_cert == Bytes(csr, {"status", "certificate"}) ||
                            (!old_cert.empty() && !CertificateError(old_cert).empty());
  return o;
}

void ValidateSignerName(const std::string& name, api::FieldErrors* errors) {
  const std::string path = "spec.signerName";
  if (name.empty()) {
    errors->push_back(FieldError::Required(path, ""));
    return;
  }
  const std::vector<std::string> segments = SplitString(name, '/');
  if (segments.size() != 2) {
    errors->push_back(FieldError::Invalid(
        path, name,
        "must be a fully qualified domain and path of the form 'example.com/signer-name'"));
    return;
  }
  // Each of `labels` checked with `check`; the first one refused is reported (with every
  // message it has) against `value`, and no further one.
  auto first_invalid = [&](const std::vector<std::string>& labels, const std::string& value,
                           std::vector<std::string> (*check)(std::string_view)) {
    for (const std::string& l : labels) {
      const auto errs = check(l);
      for (const std::string& e : errs) {
        errors->push_back(FieldError::Invalid(path, value, "validating label \"" + l + "\": " + e));
      }
      if (!errs.empty()) break;
    }
  };
  const std::string& domain = segments[0];
  if (domain.size() > 253) errors->push_back(FieldError::TooLong(path, 253));
  const std::vector<std::string> labels = SplitString(domain, '.');
  first_invalid(labels, domain, &api::IsDns1123Label);
  if (labels.size() < 2) {
    errors->push_back(FieldError::Invalid(
        path, domain, "should be a domain with at least two segments separated by dots"));
  }
  first_invalid(SplitString(segments[1], '.'), segments[1], &api::IsDns1123Subdomain);
  if (name.size() > 253 + 253 + 63 + 1 + 1) errors->push_back(FieldError::TooLong(path, 571));
}

void ValidateConditions(const json& csr, const Options& o, api::FieldErrors* errors) {
  const json& conds = Array(csr, {"status", "conditions"});
  std::set<std::string> seen;
  bool approved = false, denied = false;
  for (size_t i = 0; i < conds.size(); ++i) {
    const std::string at = "status.conditions[" + std::to_string(i) + "]";
    const json& c = conds[i];
    const std::string type = Member(c, "type");
    const std::string status = Member(c, "status");
    if (!o.empty_condition_types && type.empty()) {
      errors->push_back(FieldError::Required(at + ".type", ""));
    }
    const bool true_only = type == "Approved" || type == "Denied" || type == "Failed";
    if (status.empty()) {
      errors->push_back(FieldError::Required(at + ".status", ""));
    } else if (true_only && status != "True") {
      errors->push_back(FieldError::NotSupported(at + ".status", status, {"True"}));
    } else if (!true_only && status != "True" && status != "False" && status != "Unknown") {
      errors->push_back(
          FieldError::NotSupported(at + ".status", status, {"False", "True", "Unknown"}));
    }
    if (!o.both_approved_and_denied) {
      approved = approved || type == "Approved";
      denied = denied || type == "Denied";
      if ((type == "Approved" || type == "Denied") && approved && denied) {
        errors->push_back(FieldError::Invalid(
            at + ".type", type, "Approved and Denied conditions are mutually exclusive"));
      }
    }
    if (!o.duplicate_condition_types && !seen.insert(type).second) {
      errors->push_back(FieldError::Duplicate(at + ".type", type));
    }
  }
}

// validateCertificateSigningRequest.
void ValidateObject(const json& csr, const Options& o, api::FieldErrors* errors) {
  const api::FieldErrors meta =
      validation::ValidateObjectMeta(csr, validation::NameRule::kAny, false);
  errors->insert(errors->end(), meta.begin(), meta.end());
  const std::string request = Bytes(csr, {"spec", "request"});
  if (std::string e = CsrError(request); !e.empty()) {
    errors->push_back(FieldError::InvalidRaw("spec.request", GoBytes(request), e));
  }
  const json& usages = Array(csr, {"spec", "usages"});
  if (usages.empty()) errors->push_back(FieldError::Required("spec.usages", ""));
  std::set<std::string> seen;
  for (size_t i = 0; i < usages.size(); ++i) {
    const std::string u = usages[i].is_string() ? usages[i].get<std::string>() : "";
    const std::string at = "spec.usages[" + std::to_string(i) + "]";
    if (!o.unknown_usages && !std::binary_search(ValidUsages().begin(), ValidUsages().end(), u)) {
      errors->push_back(FieldError::NotSupported(at, u, ValidUsages()));
    }
    if (!o.duplicate_usages && !seen.insert(u).second)
      errors->push_back(FieldError::Duplicate(at, u));
  }
  const std::string signer = Str(csr, {"spec", "signerName"});
  if (!o.legacy_signer && signer == kLegacySigner) {
    errors->push_back(FieldError::Invalid(
        "spec.signerName", signer, "the legacy signerName is not allowed via this API version"));
  } else {
    ValidateSignerName(signer, errors);
  }
  const json* exp = validation::At(csr, {"spec", "expirationSeconds"});
  if (exp != nullptr && exp->is_number_integer() && exp->get<int64_t>() < 600) {
    errors->push_back(
        FieldError::InvalidRaw("spec.expirationSeconds", std::to_string(exp->get<int64_t>()),
                               "may not specify a duration less than 600 seconds (10 minutes)"));
  }
  ValidateConditions(csr, o, errors);
  const std::string cert = Bytes(csr, {"status", "certificate"});
  if (!o.arbitrary_certificate && !cert.empty()) {
    if (std::string e = CertificateError(cert); !e.empty()) {
      errors->push_back(FieldError::InvalidRaw("status.certificate", "\"<certificate data>\"", e));
    }
  }
}

// The update rules of ValidateCertificateSigningRequest*Update.
void ValidateUpdate(const json& csr, const json& old, std::string_view subresource,
                    api::FieldErrors* errors) {
  const json& conds = Array(csr, {"status", "conditions"});
  const json& old_conds = Array(old, {"status", "conditions"});
  for (const char* t : {"Approved", "Denied", "Failed"}) {
    if (Count(conds, t) < Count(old_conds, t)) {
      errors->push_back(FieldError::Forbidden(
          "status.conditions",
          std::string("updates may not remove a condition of type \"") + t + "\""));
    }
  }
  if (subresource != "approval") {
    for (const char* t : {"Approved", "Denied"}) {
      if (Count(conds, t) > Count(old_conds, t)) {
        errors->push_back(FieldError::Forbidden(
            "status.conditions",
            std::string("updates may not add a condition of type \"") + t + "\""));
        continue;
      }
      std::vector<json> a, b;
      for (const json& c : conds)
        if (Member(c, "type") == t) a.push_back(c);
      for (const json& c : old_conds)
        if (Member(c, "type") == t) b.push_back(c);
      if (a != b) {
        errors->push_back(FieldError::Forbidden(
            "status.conditions",
            std::string("updates may not modify a condition of type \"") + t + "\""));
      }
    }
  }
  const std::string cert = Str(csr, {"status", "certificate"});
  const std::string old_cert = Str(old, {"status", "certificate"});
  if (cert != old_cert) {
    if (subresource != "status") {
      errors->push_back(
          FieldError::Forbidden("status.certificate", "updates may not set certificate content"));
    } else if (!old_cert.empty()) {
      errors->push_back(FieldError::Forbidden(
          "status.certificate", "updates may not modify existing certificate content"));
    }
  }
}

// populateConditionTimestamps.
void PopulateTimestamps(json& csr, const json& old, const std::string& now) {
  json* conds =
      csr.contains("status") && csr["status"].is_object() && csr["status"].contains("conditions")
          ? &csr["status"]["conditions"]
          : nullptr;
  if (conds == nullptr || !conds->is_array()) return;
  const json& old_conds = Array(old, {"status", "conditions"});
  for (json& c : *conds) {
    if (!c.is_object()) continue;
    if (c.value("lastUpdateTime", json()).is_null()) c["lastUpdateTime"] = now;
    if (!c.value("lastTransitionTime", json()).is_null()) continue;
    c["lastTransitionTime"] = now;
    for (const json& o : old_conds) {
      if (o.is_object() && Member(o, "type") == Member(c, "type") &&
          Member(o, "status") == Member(c, "status") &&
          o.value("lastTransitionTime", json()).is_string()) {
        c["lastTransitionTime"] = o["lastTransitionTime"];
        break;
      }
    }
  }
}

// preserveConditionInstances: the old conditions of `type` back in place when their count did
// not change.
void PreserveConditions(json& csr, const json& old, const std::string& type) {
  const json& old_conds = Array(old, {"status", "conditions"});
  if (!csr["status"].is_object() || !csr["status"].contains("conditions") ||
      !csr["status"]["conditions"].is_array()) {
    return;
  }
  json& conds = csr["status"]["conditions"];
  if (Count(conds, type) != Count(old_conds, type)) return;
  std::vector<json> olds;
  for (const json& c : old_conds)
    if (Member(c, "type") == type) olds.push_back(c);
  size_t i = 0;
  for (json& c : conds) {
    if (Member(c, "type") == type) c = olds[i++];
  }
}

}  // namespace

void PrepareCsrForCreate(json& csr, const authn::UserInfo& user) {
  json& spec = csr["spec"];
  if (!spec.is_object()) spec = json::object();
  for (const char* k : {"username", "uid", "groups", "extra"}) spec.erase(k);
  if (!user.username.empty()) spec["username"] = user.username;
  if (!user.uid.empty()) spec["uid"] = user.uid;
  if (!user.groups.empty()) spec["groups"] = user.groups;
  if (!user.extra.empty()) spec["extra"] = user.extra;
  csr["status"] = json::object();
}

void PrepareCsrForUpdate(json& csr, const json& old, std::string_view subresource,
                         const std::string& now) {
  const json old_spec = old.value("spec", json::object());
  const json old_status = old.value("status", json::object());
  if (subresource.empty()) {
    csr["spec"] = old_spec;
    csr["status"] = old_status;
    return;
  }
  csr["spec"] = old_spec;
  if (!csr["status"].is_object()) csr["status"] = json::object();
  if (subresource == "status") {
    PreserveConditions(csr, old, "Approved");
    PreserveConditions(csr, old, "Denied");
    PopulateTimestamps(csr, old, now);
    return;
  }
  // approval
  PopulateTimestamps(csr, old, now);
  json conditions = csr["status"].value("conditions", json());
  csr["status"] = old_status;
  if (conditions.is_null()) {
    csr["status"].erase("conditions");
  } else {
    csr["status"]["conditions"] = std::move(conditions);
  }
}

api::FieldErrors ValidateCsr(const json& csr, const json* old, std::string_view subresource) {
  api::FieldErrors errors;
  const Options o = OptionsFor(csr, old);
  ValidateObject(csr, o, &errors);
  if (old != nullptr) {
    const api::FieldErrors meta = validation::ValidateObjectMetaUpdate(csr, *old);
    errors.insert(errors.end(), meta.begin(), meta.end());
    ValidateUpdate(csr, *old, subresource, &errors);
  }
  return errors;
}

}  // namespace tidepool::apiserver::certificates
