#include "cloud/gke/live/gke_provider_factory.h"

#include <memory>
#include <utility>

#include "client/http/http_client.h"
#include "cloud/gke/live/gke_cloud_provider.h"
#include "cloud/gke/live/http_transport.h"
#include "cloud/gke/live/token_source.h"
#include "cloud/node_group_spec.h"

namespace tidepool::cloud::gke::live {
namespace {

using Kind = ProviderFlag::Kind;

std::vector<ProviderFlag> Flags() {
  return {
      {"project", "GCP project of the cluster", Kind::kValue},
      {"location", "Zone or region of the cluster", Kind::kValue},
      {"cluster-name", "Autoscaled cluster name", Kind::kValue},
      {"gke-api-endpoint",
       "GKE (container) API endpoint, ending in '/' (default: https://container.googleapis.com/)",
       Kind::kValue},
      {"compute-api-endpoint",
       "Compute Engine API endpoint, ending in '/' (default: "
       "https://compute.googleapis.com/compute/v1/)",
       Kind::kValue},
      {"gcp-token-file", "Read the OAuth access token from this file (re-read when it changes)",
       Kind::kValue},
      {"gcp-credentials-file",
       "Service-account JSON key (default: $GOOGLE_APPLICATION_CREDENTIALS; without either, the "
       "GCE metadata server)",
       Kind::kValue},
      {"gcp-no-auth", "Send no OAuth token to the cloud APIs", Kind::kSwitch},
  };
}

Status Validate(const CloudProviderOptions& o) {
  if (!o.cloud_config.empty()) {
    return InvalidArgumentError(
        "--cloud-config: the gke provider reads no configuration file; its settings are flags "
        "(--project, --location, --cluster-name, --gke-api-endpoint, --gcp-token-file, ...)");
  }
  if (!o.node_group_auto_discovery.empty()) {
    return InvalidArgumentError(
        "--node-group-auto-discovery: the gke provider discovers the node pools with GKE "
        "autoscaling on; name others with --nodes=MIN:MAX:POOL");
  }
  if (o.Flag("project").empty() || o.Flag("location").empty() || o.Flag("cluster-name").empty()) {
    return InvalidArgumentError(
        "--cloud-provider=gke needs --project, --location and --cluster-name");
  }
  return ParseNodeGroupSpecs(o.node_groups).status();
}

// The provider and what it uses, destroyed in reverse order.
class LiveGke final : public CloudProviderHandle {
 public:
  // Connects nothing: the provider calls the APIs from its first Refresh().
  static StatusOr<CloudProviderHandlePtr> Build(const CloudProviderOptions& o,
                                                const CloudProviderEnvironment& env) {
    const bool auth = !o.Switch("gcp-no-auth");
    for (const char* flag : {"gke-api-endpoint", "compute-api-endpoint"}) {
      if (env.check_credential_transport) {
        TIDEPOOL_RETURN_IF_ERROR(
            env.check_credential_transport("--" + std::string(flag), o.Flag(flag), auth));
      }
    }
    auto gke = std::unique_ptr<LiveGke>(new LiveGke());
    if (auth) {
      TIDEPOOL_ASSIGN_OR_RETURN(
          gke->tokens_, DefaultTokenSource(o.Flag("gcp-token-file"),
                                           o.Flag("gcp-credentials-file"), gke->transport_,
                                           *env.clock));
    }
    GkeProviderOptions options;
    options.project = o.Flag("project");
    options.location = o.Flag("location");
    options.cluster = o.Flag("cluster-name");
    if (!o.Flag("gke-api-endpoint").empty()) {
      options.container_endpoint = o.Flag("gke-api-endpoint");
    }
    if (!o.Flag("compute-api-endpoint").empty()) {
      options.compute_endpoint = o.Flag("compute-api-endpoint");
    }
    options.logger = env.logger;
    TIDEPOOL_ASSIGN_OR_RETURN(options.node_groups, ParseNodeGroupSpecs(o.node_groups));
    gke->provider_ = std::make_unique<GkeCloudProvider>(std::move(options), gke->transport_,
                                                        gke->tokens_.get(), *env.clock);
    return CloudProviderHandlePtr(std::move(gke));
  }

  CloudProvider& provider() override { return *provider_; }
  void Stop() override { provider_->Stop(); }

 private:
  LiveGke() = default;

  client::http::HttpClient http_;
  HttpClientTransport transport_{http_};
  TokenSourcePtr tokens_;  // null with --gcp-no-auth
  std::unique_ptr<GkeCloudProvider> provider_;
};

}  // namespace

CloudProviderRegistration GkeProviderRegistration() {
  return CloudProviderRegistration{"gke", Flags(), &Validate, &LiveGke::Build};
}

}  // namespace tidepool::cloud::gke::live
