// EndpointSlice (discovery.k8s.io/v1).
#include "apiserver/validation/discovery.h"

#include <gtest/gtest.h>

#include "apiserver/validation/test_util.h"

namespace tidepool::apiserver::validation {
namespace {

constexpr const char* kSlice = R"({
  "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
  "metadata": {"name": "web-abcde", "namespace": "default"},
  "addressType": "IPv4",
  "endpoints": [{"addresses": ["10.0.0.1"], "conditions": {"ready": true}, "nodeName": "n1"}],
  "ports": [{"name": "http", "port": 80, "protocol": "TCP"}]})";

TEST(EndpointSliceTest, AddressesPortsAndTheirTexts) {
  testing::RunCases(
      kSlice, [](json& o) { DefaultEndpointSlice(o); }, ValidateEndpointSlice,
      {
          {"valid", "", "", {}},
          {"no address type", R"({"addressType": null})", "", {"addressType: Required value"}},
          {"an unknown address type",
           R"({"addressType": "IP"})",
           "",
           {"addressType: Unsupported value: \"IP\": supported values: \"FQDN\", \"IPv4\", "
            "\"IPv6\""}},
          {"an endpoint without addresses",
           R"({"endpoints": [{"addresses": []}]})",
           "",
           {"endpoints[0].addresses: Required value: must contain at least 1 address"}},
          {"an address of another family",
           R"({"endpoints": [{"addresses": ["fd00::1"]}]})",
           "",
           {"endpoints[0].addresses[0]: Invalid value: \"fd00::1\": must be a valid IPv4 "
            "address"}},
          {"an IPv6 slice",
           R"({"addressType": "IPv6", "endpoints": [{"addresses": ["fd00::1"]}]})",
           "",
           {}},
          {"duplicate port names",
           R"({"ports": [{"name": "", "port": 80, "protocol": "TCP"},
                         {"name": "", "port": 81, "protocol": "TCP"}]})",
           "",
           {"ports[1].name: Duplicate value: \"\""}},
          {"a port defaulted (name \"\", protocol TCP)", R"({"ports": [{"port": 80}]})", "", {}},
          {"an unknown protocol",
           R"({"ports": [{"name": "a", "port": 80, "protocol": "HTTP"}]})",
           "",
           {"ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", "
            "\"UDP\""}},
          {"a bad port name",
           R"({"ports": [{"name": "HTTP", "port": 80, "protocol": "TCP"}]})",
           "",
           {"ports[0].name: Invalid value: \"HTTP\": a lowercase RFC 1123 label must consist of "
            "lower case alphanumeric characters or '-', and must start and end with an "
            "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation "
            "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"}},
          {"the address type changed",
           R"({"addressType": "IPv6", "endpoints": null})",
           "{}",
           {"addressType: Invalid value: \"IPv6\": field is immutable"}},
      });
}

}  // namespace
}  // namespace tidepool::apiserver::validation
