#include "cloud/registry.h"

#include <algorithm>

#include "common/check.h"

namespace tidepool::cloud {

std::string CloudProviderOptions::Flag(std::string_view name) const {
  auto it = flags.find(name);
  return it == flags.end() ? "" : it->second;
}

bool CloudProviderOptions::Switch(std::string_view name) const { return Flag(name) == "true"; }

void CloudProviderRegistry::Register(CloudProviderRegistration registration) {
  TIDEPOOL_CHECK(!registration.name.empty());
  TIDEPOOL_CHECK(registration.validate && registration.build);
  TIDEPOOL_CHECK(providers_.count(registration.name) == 0);
  for (const ProviderFlag& flag : registration.flags) {
    auto known = std::find_if(flags_.begin(), flags_.end(),
                              [&](const ProviderFlag& f) { return f.name == flag.name; });
    if (known == flags_.end()) {
      flags_.push_back(flag);
    } else {
      TIDEPOOL_CHECK(known->kind == flag.kind);
    }
  }
  std::string name = registration.name;
  providers_.emplace(std::move(name), std::move(registration));
}

const CloudProviderRegistration* CloudProviderRegistry::Find(std::string_view name) const {
  auto it = providers_.find(name);
  return it == providers_.end() ? nullptr : &it->second;
}

std::vector<std::string> CloudProviderRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, r] : providers_) {
    names.push_back(name);
  }
  return names;
}

std::vector<ProviderFlag> CloudProviderRegistry::AllFlags() const { return flags_; }

std::string UnknownCloudProviderMessage(std::string_view name) {
  return "Unknown cloud provider: " + std::string(name);
}

std::vector<std::string> ForeignFlags(const CloudProviderRegistration& registration,
                                      const CloudProviderOptions& options) {
  std::vector<std::string> foreign;
  for (const auto& [name, value] : options.flags) {
    const bool own = std::any_of(registration.flags.begin(), registration.flags.end(),
                                 [&](const ProviderFlag& f) { return f.name == name; });
    if (!own) {
      foreign.push_back("--" + name);
    }
  }
  return foreign;
}

}  // namespace tidepool::cloud
