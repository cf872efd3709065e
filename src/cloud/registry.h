// File: registry.h
//
// Clouds behind one registry, as the Cluster Autoscaler's cloudprovider/builder: a name (CA's
// --cloud-provider) maps to a registration that says which command-line flags the provider
// owns and how it is built from provider-neutral options (CA's --cloud-config and --nodes, plus
// the values of its own flags). `tidepool autoscale` knows no cloud: it offers every registered
// provider's flags, looks the provider up by --cloud-provider and builds it. Adding a cloud is
// one folder and one line in cloud/providers.cc's NewCloudProviderRegistry (no provider
// registers itself).
//
// Building happens in two steps, so that a command can tell bad options (exit 2) from a cloud
// it cannot reach (exit 1): `validate` checks the options without I/O; `build` makes the
// clients, reads credentials and returns the provider with everything it owns.
//
// Threading: a registry is filled once, then only read (thread-safe for reads).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cloud/cloud_provider.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/status_or.h"

namespace tidepool::cloud {

// A command-line flag one provider owns, named without "--" ("project", "gcp-no-auth").
struct ProviderFlag {
  enum class Kind {
    kValue,   // --name VALUE (or --name=VALUE)
    kSwitch,  // --name: a boolean, true when given
  };
  std::string name;
  std::string help;
  Kind kind = Kind::kValue;
};

// What every provider is built from.
struct CloudProviderOptions {
  // CA's --cloud-config: the path of the provider's configuration file; empty: none.
  std::string cloud_config;
  // CA's --nodes, each as given ("<min>:<max>:<other...>"); the provider parses them. Empty:
  // the provider discovers its node groups.
  std::vector<std::string> node_groups;
  // CA's --node-group-auto-discovery, each as given ("asg:tag=k1,k2=v" on AWS); the provider
  // parses them. Empty: none.
  std::vector<std::string> node_group_auto_discovery;
  // The provider's own flags that were given, by name: the value, or "true" / "false" for a
  // switch. A flag that was not given is absent.
  std::map<std::string, std::string, std::less<>> flags;

  // The value of a given flag, else "".
  std::string Flag(std::string_view name) const;
  // A switch given as true.
  bool Switch(std::string_view name) const;
};

// What the program that runs a provider lends it; every member must outlive the provider.
struct CloudProviderEnvironment {
  const Clock* clock = nullptr;
  log::Logger* logger = nullptr;
  // The program's rule for credentials in transit: called by `build` for each endpoint the
  // provider will call, before any call (`flag` names the setting, e.g. "--gke-api-endpoint";
  // `url` is its value, "" for the provider's default). An error stops the build and is
  // returned as is. Unset: everything is allowed.
  std::function<Status(std::string_view flag, std::string_view url, bool sends_credentials)>
      check_credential_transport;
};

// A built provider with what it owns (HTTP clients, token sources).
class CloudProviderHandle {
 public:
  virtual ~CloudProviderHandle() = default;
  CloudProviderHandle() = default;
  CloudProviderHandle(const CloudProviderHandle&) = delete;
  CloudProviderHandle& operator=(const CloudProviderHandle&) = delete;

  // Valid as long as the handle.
  virtual CloudProvider& provider() = 0;
  // Cuts short the waits in progress (shutdown). Thread-safe. Implementation optional.
  virtual void Stop() {}
};
using CloudProviderHandlePtr = std::unique_ptr<CloudProviderHandle>;

// One cloud as the registry knows it (CA: one cloudprovider/builder/builder_<name>.go).
struct CloudProviderRegistration {
  std::string name;  // --cloud-provider's value, e.g. "gke"
  std::vector<ProviderFlag> flags;
  // Checks `options` without I/O. InvalidArgument, with the message for the user (naming the
  // flag), for a missing or bad value. Required.
  std::function<Status(const CloudProviderOptions& options)> validate;
  // Builds the provider. REQUIRES: validate(options) was OK. Errors as the provider meets them
  // (a credential file it cannot read, check_credential_transport's refusal). Required.
  std::function<StatusOr<CloudProviderHandlePtr>(const CloudProviderOptions& options,
                                                  const CloudProviderEnvironment& environment)>
      build;
};

class CloudProviderRegistry {
 public:
  // REQUIRES (checked): a new name; validate and build set; a flag name another provider also
  // declares has the same kind there.
  void Register(CloudProviderRegistration registration);

  // nullptr for a name no provider has.
  const CloudProviderRegistration* Find(std::string_view name) const;
  // Registered names, sorted.
  std::vector<std::string> Names() const;
  // Every provider's flags, each name once, in registration order (the first help text wins):
  // what a command that builds providers offers.
  std::vector<ProviderFlag> AllFlags() const;

 private:
  std::map<std::string, CloudProviderRegistration, std::less<>> providers_;
  std::vector<ProviderFlag> flags_;
};

// CA's error for a --cloud-provider no provider has: "Unknown cloud provider: NAME"
// (cloudprovider/builder/cloud_provider_builder.go, NewCloudProvider).
std::string UnknownCloudProviderMessage(std::string_view name);

// Flags in `options.flags` that `registration` does not declare, each as "--name" (flags of
// another provider given with this one); empty when there are none.
std::vector<std::string> ForeignFlags(const CloudProviderRegistration& registration,
                                      const CloudProviderOptions& options);

}  // namespace tidepool::cloud
