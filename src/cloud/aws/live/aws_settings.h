// File: aws_settings.h
//
// What an AWS SDK resolves before its first call, from the environment and the shared config
// and credentials files, as the AWS SDKs document it ("AWS SDKs and Tools Reference Guide":
// shared config files, environment variables, service-specific endpoints):
//
//   profile      $AWS_PROFILE, else "default"
//   files        $AWS_CONFIG_FILE (else ~/.aws/config; sections "[default]" and
//                "[profile NAME]") and $AWS_SHARED_CREDENTIALS_FILE (else ~/.aws/credentials;
//                sections "[NAME]"); a missing file is no settings, an unreadable one an error
//   region       $AWS_REGION, $AWS_DEFAULT_REGION, the profile's `region`; else empty (the
//                caller may ask the instance metadata service)
//   endpoints    per service: $AWS_ENDPOINT_URL_<SERVICE> (AUTO_SCALING, EC2, EKS, STS),
//                $AWS_ENDPOINT_URL, the profile's `endpoint_url`; none of them when
//                $AWS_IGNORE_CONFIGURED_ENDPOINT_URLS or the profile's
//                `ignore_configured_endpoint_urls` is true; else AWS's regional endpoint
//                https://<prefix>.<region>.amazonaws.com (".com.cn" in China regions)
//   credentials  in the SDKs' order: $AWS_ACCESS_KEY_ID + $AWS_SECRET_ACCESS_KEY
//                (+ $AWS_SESSION_TOKEN); web identity from $AWS_ROLE_ARN +
//                $AWS_WEB_IDENTITY_TOKEN_FILE (+ $AWS_ROLE_SESSION_NAME), IRSA; the credentials
//                file's (then the config file's) aws_access_key_id / aws_secret_access_key /
//                aws_session_token for the profile; the profile's role_arn +
//                web_identity_token_file (+ role_session_name). static_keys is set for the
//                first or third, web_identity for the second or fourth (static keys win when
//                both are set: the caller tries them first)
//   CA bundle    $AWS_CA_BUNDLE, else the profile's ca_bundle: a PEM file of the CAs to trust
//                (e.g. `tidepool up --aws-config` over HTTPS); empty: the system's
//   metadata     $AWS_EC2_METADATA_DISABLED=true turns IMDS off;
//                $AWS_EC2_METADATA_SERVICE_ENDPOINT overrides http://169.254.169.254
//
// INI as the SDKs read it: '#' and ';' start comments, `key = value` with spaces trimmed, keys
// case-sensitive, nested `services`-style sub-sections ignored.
//
// Pure: the environment and files come through AwsSettingsSource. Thread-safe (no state).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/status_or.h"

namespace tidepool::cloud::aws::live {

// The four services the provider calls, by their SigV4 signing names.
enum class AwsService { kAutoScaling, kEc2, kEks, kSts };
std::string_view SigningName(AwsService service);  // "autoscaling", "ec2", "eks", "sts"

struct AwsStaticKeys {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty: none
};

struct AwsWebIdentity {
  std::string role_arn;
  std::string token_file;
  std::string session_name;  // empty: the SDK's default, chosen by the caller
};

struct AwsSettings {
  std::string profile;
  std::string region;  // empty: unknown
  // Configured endpoint overrides by service; absent: the regional default (EndpointFor).
  std::map<AwsService, std::string> endpoints;
  // Signing regions that differ from `region`, by service (CA's ServiceOverride SigningRegion).
  std::map<AwsService, std::string> signing_regions;
  std::optional<AwsStaticKeys> static_keys;
  std::optional<AwsWebIdentity> web_identity;
  std::string ca_bundle;  // a PEM file's path; empty: the system's CAs
  bool imds_disabled = false;
  std::string imds_endpoint = "http://169.254.169.254";

  // The endpoint to call for `service` ("https://autoscaling.us-west-2.amazonaws.com"), no
  // trailing '/'. REQUIRES: region known or the service's endpoint configured.
  std::string EndpointFor(AwsService service) const;
  // The region requests to `service` are signed for.
  std::string SigningRegionFor(AwsService service) const;
};

struct AwsSettingsSource {
  // The environment variable's value, nullopt when unset. Empty function: std::getenv.
  std::function<std::optional<std::string>(const std::string&)> getenv;
  // A file's content; NotFound when it does not exist. Empty function: the file system.
  std::function<StatusOr<std::string>(const std::string&)> read_file;
};

// Resolves the settings. Errors: an unreadable (not missing) file, a profile named by
// $AWS_PROFILE that neither file has, half a key pair.
StatusOr<AwsSettings> ResolveAwsSettings(const AwsSettingsSource& source = {});

// INI sections of a shared file: section name -> key -> value.
using IniSections = std::map<std::string, std::map<std::string, std::string>>;
IniSections ParseIni(std::string_view text);

}  // namespace tidepool::cloud::aws::live
