#include "apiserver/validation/discovery.h"

#include <arpa/inet.h>

#include <set>
#include <string>

#include "api/name_validation.h"
#include "apiserver/validation/object_meta.h"

namespace tidepool::apiserver::validation {

using api::FieldError;

namespace {

constexpr size_t kMaxEndpoints = 1000;
constexpr size_t kMaxAddresses = 100;
constexpr size_t kMaxPorts = 20000;

void Each(const std::vector<std::string>& messages, const std::string& path,
          const std::string& value, api::FieldErrors* errors) {
  for (const std::string& m : messages) errors->push_back(FieldError::Invalid(path, value, m));
}

bool IsIp(int family, const std::string& address) {
  unsigned char buf[16];
  return inet_pton(family, address.c_str(), buf) == 1;
}

void ValidateAddress(const std::string& type, const std::string& address, const std::string& path,
                     api::FieldErrors* errors) {
  if (type == "IPv4" && !IsIp(AF_INET, address)) {
    errors->push_back(FieldError::Invalid(path, address, "must be a valid IPv4 address"));
  } else if (type == "IPv6" && !IsIp(AF_INET6, address)) {
    errors->push_back(FieldError::Invalid(path, address, "must be a valid IPv6 address"));
  } else if (type == "FQDN") {
    Each(api::IsDns1123Subdomain(address), path, address, errors);
  }
}

void ValidateEndpoints(const json* endpoints, const std::string& type, api::FieldErrors* errors) {
  if (endpoints == nullptr || !endpoints->is_array()) return;
  if (endpoints->size() > kMaxEndpoints) {
    errors->push_back(
        FieldError::TooMany("endpoints", static_cast<long long>(endpoints->size()), kMaxEndpoints));
  }
  for (size_t i = 0; i < endpoints->size(); ++i) {
    const json& ep = (*endpoints)[i];
    const std::string at = "endpoints[" + std::to_string(i) + "]";
    const json* addresses = Member(ep, "addresses");
    const size_t n = addresses != nullptr && addresses->is_array() ? addresses->size() : 0;
    if (n == 0) {
      errors->push_back(FieldError::Required(at + ".addresses", "must contain at least 1 address"));
    } else if (n > kMaxAddresses) {
      errors->push_back(
          FieldError::TooMany(at + ".addresses", static_cast<long long>(n), kMaxAddresses));
    }
    for (size_t j = 0; j < n; ++j) {
      ValidateAddress(type, std::string(Str(&(*addresses)[j])),
                      at + ".addresses[" + std::to_string(j) + "]", errors);
    }
    if (const std::string node(Str(Member(ep, "nodeName"))); !node.empty()) {
      Each(api::IsDns1123Subdomain(node), at + ".nodeName", node, errors);
    }
    if (const std::string host(Str(Member(ep, "hostname"))); !host.empty()) {
      Each(api::IsDns1123Label(host), at + ".hostname", host, errors);
    }
  }
}

void ValidatePorts(const json* ports, api::FieldErrors* errors) {
  if (ports == nullptr || !ports->is_array()) return;
  if (ports->size() > kMaxPorts) {
    errors->push_back(
        FieldError::TooMany("ports", static_cast<long long>(ports->size()), kMaxPorts));
  }
  std::set<std::string> names;
  for (size_t i = 0; i < ports->size(); ++i) {
    const json& p = (*ports)[i];
    const std::string at = "ports[" + std::to_string(i) + "]";
    const std::string name(Str(Member(p, "name")));
    if (!name.empty()) Each(api::IsDns1123Label(name), at + ".name", name, errors);
    if (!names.insert(name).second) errors->push_back(FieldError::Duplicate(at + ".name", name));
    const json* protocol = Member(p, "protocol");
    const std::string proto(Str(protocol));
    if (protocol == nullptr || protocol->is_null() || proto.empty()) {
      errors->push_back(FieldError::Required(at + ".protocol", ""));
    } else if (proto != "TCP" && proto != "UDP" && proto != "SCTP") {
      errors->push_back(FieldError::NotSupported(at + ".protocol", proto, {"SCTP", "TCP", "UDP"}));
    }
  }
}

}  // namespace

void DefaultEndpointSlice(json& object) {
  auto ports = object.find("ports");
  if (ports == object.end() || !ports->is_array()) return;
  for (json& p : *ports) {
    if (!p.is_object()) continue;
    if (!p.contains("name") || p["name"].is_null()) p["name"] = "";
    if (!p.contains("protocol") || p["protocol"].is_null()) p["protocol"] = "TCP";
  }
}

Status ValidateEndpointSlice(const json& object, const json* old, api::FieldErrors* errors) {
  *errors = old == nullptr ? ValidateObjectMeta(object, NameRule::kDns1123Subdomain, true)
                           : ValidateObjectMetaUpdate(object, *old);
  const std::string type(Str(Member(object, "addressType")));
  if (type.empty()) {
    errors->push_back(FieldError::Required("addressType", ""));
  } else if (type != "IPv4" && type != "IPv6" && type != "FQDN") {
    errors->push_back(FieldError::NotSupported("addressType", type, {"FQDN", "IPv4", "IPv6"}));
  } else {
    ValidateEndpoints(Member(object, "endpoints"), type, errors);
  }
  ValidatePorts(Member(object, "ports"), errors);
  if (old != nullptr) {
    const std::string was(Str(Member(*old, "addressType")));
    if (was != type)
      errors->push_back(FieldError::Invalid("addressType", type, "field is immutable"));
  }
  return Status::Ok();
}

}  // namespace tidepool::apiserver::validation
