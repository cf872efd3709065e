// File: discovery.h
//
// discovery.k8s.io/v1 EndpointSlice (pkg/apis/discovery/validation, kube-apiserver 1.32):
// ObjectMeta; addressType required, one of IPv4, IPv6, FQDN, and immutable; at most 1000
// endpoints, each with 1 to 100 addresses valid for the type ("must be a valid IPv4 address",
// "must be a valid IPv6 address", a DNS subdomain for FQDN), a DNS-1123 label hostname and a
// DNS subdomain nodeName when given; at most 20000 ports, each with a DNS-1123 label name
// unique in the slice (an empty name counts as one) and a protocol of TCP, UDP or SCTP.
// `old` is null on create.
#pragma once

#include "apiserver/validation/fields.h"
#include "common/status.h"

namespace tidepool::apiserver::validation {

// SetDefaults_EndpointPort: each port's name "" and protocol TCP when unset.
void DefaultEndpointSlice(json& object);

Status ValidateEndpointSlice(const json& object, const json* old, api::FieldErrors* errors);

}  // namespace tidepool::apiserver::validation
