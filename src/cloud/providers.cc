#include "cloud/providers.h"

#include "cloud/gke/live/gke_provider_factory.h"

namespace tidepool::cloud {

CloudProviderRegistry NewCloudProviderRegistry() {
  CloudProviderRegistry registry;
  registry.Register(gke::live::GkeProviderRegistration());
  return registry;
}

}  // namespace tidepool::cloud
