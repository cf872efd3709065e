#include "cloud/providers.h"

#include "cloud/aws/live/aws_provider_factory.h"
#include "cloud/gke/live/gke_provider_factory.h"

namespace tidepool::cloud {

CloudProviderRegistry NewCloudProviderRegistry() {
  CloudProviderRegistry registry;
  registry.Register(gke::live::GkeProviderRegistration());
  registry.Register(aws::live::AwsProviderRegistration());
  return registry;
}

}  // namespace tidepool::cloud
