// File: aws_provider_factory.cc
#include "cloud/aws/live/aws_provider_factory.h"

#include <cstdlib>
#include <memory>
#include <set>
#include <utility>

#include "client/http/http_client.h"
#include "cloud/aws/aws_catalog.h"
#include "cloud/aws/live/aws_cloud_provider.h"
#include "cloud/node_group_spec.h"
#include "common/private_file.h"
#include "common/stop_signal.h"

namespace tidepool::cloud::aws::live {
namespace {

constexpr AwsService kServices[] = {AwsService::kAutoScaling, AwsService::kEc2, AwsService::kEks,
                                    AwsService::kSts};

Status Validate(const CloudProviderOptions& o) {
  TIDEPOOL_RETURN_IF_ERROR(ParseNodeGroupSpecs(o.node_groups).status());
  StatusOr<std::map<std::string, std::string>> tags =
      ParseAsgAutoDiscovery(o.node_group_auto_discovery);
  if (!tags.ok()) {
    return InvalidArgumentError("--node-group-auto-discovery: " +
                                std::string(tags.status().message()));
  }
  return OkStatus();
}

// CA's [ServiceOverride "N"] sections applied to `settings` (for its region).
Status ApplyCloudConfig(const std::string& path, AwsSettings& settings) {
  StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) {
    return Status(text.status().code(), "Couldn't open cloud provider configuration " + path);
  }
  std::set<std::string> seen;
  for (const auto& [section, keys] : ParseIni(*text)) {
    if (section.rfind("ServiceOverride", 0) != 0) continue;
    auto get = [&](const char* k) {
      auto it = keys.find(k);
      return it == keys.end() ? std::string() : it->second;
    };
    // CA: validateOverrides.
    if (get("Service").empty()) {
      return InvalidArgumentError("service name is missing [Service is \"\"] in override " +
                                  section);
    }
    if (get("Region").empty()) {
      return InvalidArgumentError("service region is missing [Region is \"\"] in override " +
                                  section);
    }
    if (get("URL").empty()) {
      return InvalidArgumentError("url is missing [URL is \"\"] in override " + section);
    }
    if (get("SigningRegion").empty()) {
      return InvalidArgumentError("signingRegion is missing [SigningRegion is \"\"] in override " +
                                  section);
    }
    if (!seen.insert(get("Service") + "_" + get("Region")).second) {
      return InvalidArgumentError("duplicate entry found for service override [" + section + "] (" +
                                  get("Service") + " in " + get("Region") + ")");
    }
    if (get("Region") != settings.region) continue;
    for (AwsService s : kServices) {
      if (SigningName(s) != get("Service")) continue;
      settings.endpoints[s] = get("URL");
      if (get("SigningRegion") != settings.region) {
        settings.signing_regions[s] = get("SigningRegion");
      }
    }
  }
  return OkStatus();
}

class LiveAws final : public CloudProviderHandle {
 public:
  static StatusOr<CloudProviderHandlePtr> Build(const CloudProviderOptions& o,
                                                const CloudProviderEnvironment& env) {
    auto aws = std::unique_ptr<LiveAws>(new LiveAws());
    TIDEPOOL_ASSIGN_OR_RETURN(AwsSettings settings, ResolveAwsSettings());
    client::http::HttpClientOptions http_options;
    if (!settings.ca_bundle.empty()) {
      StatusOr<std::string> pem = ReadFile(settings.ca_bundle);
      if (!pem.ok())
        return Status(pem.status().code(), "ca_bundle " + settings.ca_bundle + ": cannot read");
      http_options.tls.ca_pem = std::move(*pem);
    }
    aws->http_ = std::make_unique<client::http::HttpClient>(std::move(http_options));
    if (settings.region.empty()) {
      StatusOr<std::string> region = ImdsRegion(settings, *aws->http_);
      if (!region.ok()) {
        return FailedPreconditionError(
            "MissingRegion: could not find region configuration (set AWS_REGION): " +
            std::string(region.status().message()));
      }
      settings.region = *region;
    }
    if (!o.cloud_config.empty())
      TIDEPOOL_RETURN_IF_ERROR(ApplyCloudConfig(o.cloud_config, settings));
    if (env.check_credential_transport) {
      for (AwsService s : kServices) {
        TIDEPOOL_RETURN_IF_ERROR(env.check_credential_transport(
            "AWS " + std::string(SigningName(s)) + " endpoint", settings.EndpointFor(s), true));
      }
    }
    AwsClientOptions client_options;
    if (const char* attempts = std::getenv("AWS_MAX_ATTEMPTS"); attempts != nullptr) {
      try {
        client_options.max_retries = std::stoi(attempts);
      } catch (...) {
        return InvalidArgumentError(std::string("AWS_MAX_ATTEMPTS: not an integer: ") + attempts);
      }
    }
    client_options.sleep = [handle = aws.get()](Duration d) { return handle->stop_.SleepFor(d); };
    TIDEPOOL_ASSIGN_OR_RETURN(aws->credentials_,
                              DefaultCredentialSource(settings, *aws->http_, *env.clock));
    // The first credentials now: a chain that cannot give any fails the start (as CA's first
    // refresh does), and the log says where they came from.
    StatusOr<AwsCredentials> first = aws->credentials_->Get();
    if (!first.ok()) {
      return Status(first.status().code(),
                    "AWS credentials: " + std::string(first.status().message()));
    }
    if (env.logger != nullptr) {
      env.logger->Info("AWS region " + settings.region + ", credentials from " + first->source +
                       " (" + first->access_key_id + ")");
    }
    aws->client_ = std::make_unique<AwsClient>(std::move(settings), *aws->http_, *aws->credentials_,
                                               std::move(client_options));
    AwsProviderOptions options;
    TIDEPOOL_ASSIGN_OR_RETURN(options.node_groups, ParseNodeGroupSpecs(o.node_groups));
    TIDEPOOL_ASSIGN_OR_RETURN(options.discovery,
                              ParseAsgAutoDiscovery(o.node_group_auto_discovery));
    options.catalog = AwsCatalog();
    options.logger = env.logger;
    if (options.node_groups.empty() && options.discovery.empty() && env.logger != nullptr) {
      env.logger->Warning(
          "No node groups: pass --nodes=MIN:MAX:ASG or --node-group-auto-discovery=asg:tag=...");
    }
    aws->provider_ =
        std::make_unique<AwsCloudProvider>(std::move(options), *aws->client_, *env.clock);
    return CloudProviderHandlePtr(std::move(aws));
  }

  CloudProvider& provider() override { return *provider_; }
  void Stop() override { stop_.Stop(); }

 private:
  LiveAws() = default;

  std::unique_ptr<client::http::HttpClient> http_;
  CredentialSourcePtr credentials_;
  std::unique_ptr<AwsClient> client_;
  std::unique_ptr<AwsCloudProvider> provider_;
  StopSignal stop_;  // cuts the retryer's waits short
};

}  // namespace

CloudProviderRegistration AwsProviderRegistration() {
  return CloudProviderRegistration{"aws", {}, &Validate, &LiveAws::Build};
}

}  // namespace tidepool::cloud::aws::live
