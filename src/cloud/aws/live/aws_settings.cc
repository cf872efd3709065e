// File: aws_settings.cc
#include "cloud/aws/live/aws_settings.h"

#include <cstdlib>
#include <sstream>

#include "common/private_file.h"
#include "common/strings.h"

namespace tidepool::cloud::aws::live {
namespace {

std::optional<std::string> Env(const AwsSettingsSource& src, const std::string& name) {
  if (src.getenv) return src.getenv(name);
  const char* v = std::getenv(name.c_str());
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

// Set and not empty.
std::string EnvValue(const AwsSettingsSource& src, const std::string& name) {
  return Env(src, name).value_or("");
}

StatusOr<std::string> ReadFile(const AwsSettingsSource& src, const std::string& path) {
  return src.read_file ? src.read_file(path) : ::tidepool::ReadFile(path);
}

// A shared file's sections, or none when it does not exist.
StatusOr<IniSections> ReadIni(const AwsSettingsSource& src, const std::string& path) {
  StatusOr<std::string> text = ReadFile(src, path);
  if (!text.ok()) {
    if (text.status().code() == StatusCode::kNotFound) return IniSections{};
    return text.status();
  }
  return ParseIni(*text);
}

bool IsTrue(std::string_view v) { return v == "true" || v == "TRUE" || v == "True"; }

std::string EnvSuffix(AwsService s) {
  switch (s) {
    case AwsService::kAutoScaling:
      return "AUTO_SCALING";
    case AwsService::kEc2:
      return "EC2";
    case AwsService::kEks:
      return "EKS";
    case AwsService::kSts:
      return "STS";
  }
  return "";
}

}  // namespace

std::string_view SigningName(AwsService service) {
  switch (service) {
    case AwsService::kAutoScaling:
      return "autoscaling";
    case AwsService::kEc2:
      return "ec2";
    case AwsService::kEks:
      return "eks";
    case AwsService::kSts:
      return "sts";
  }
  return "";
}

std::string AwsSettings::EndpointFor(AwsService service) const {
  if (auto it = endpoints.find(service); it != endpoints.end()) {
    std::string url = it->second;
    while (!url.empty() && url.back() == '/') url.pop_back();
    return url;
  }
  const std::string suffix = region.rfind("cn-", 0) == 0 ? ".amazonaws.com.cn" : ".amazonaws.com";
  return "https://" + std::string(SigningName(service)) + "." + region + suffix;
}

std::string AwsSettings::SigningRegionFor(AwsService service) const {
  auto it = signing_regions.find(service);
  return it == signing_regions.end() ? region : it->second;
}

IniSections ParseIni(std::string_view text) {
  IniSections out;
  std::string section;
  bool in_section = false;
  std::istringstream in{std::string(text)};
  std::string raw;
  while (std::getline(in, raw)) {
    // A line that starts with whitespace continues a nested value (e.g. `services` blocks,
    // s3 = ...): not a setting of the section.
    const bool indented = !raw.empty() && (raw[0] == ' ' || raw[0] == '\t');
    std::string line = TrimSpace(raw);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = TrimSpace(std::string_view(line).substr(1, line.size() - 2));
      in_section = true;
      out[section];
      continue;
    }
    if (!in_section || indented) continue;
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string value = TrimSpace(std::string_view(line).substr(eq + 1));
    // An inline comment needs whitespace before it (the CLI's rule).
    for (const char* mark : {" #", " ;", "\t#", "\t;"}) {
      if (size_t c = value.find(mark); c != std::string::npos)
        value = TrimSpace(value.substr(0, c));
    }
    out[section][TrimSpace(std::string_view(line).substr(0, eq))] = value;
  }
  return out;
}

StatusOr<AwsSettings> ResolveAwsSettings(const AwsSettingsSource& src) {
  AwsSettings s;
  const std::string env_profile = EnvValue(src, "AWS_PROFILE");
  s.profile = env_profile.empty() ? "default" : env_profile;
  const std::string home = EnvValue(src, "HOME");
  std::string config_path = EnvValue(src, "AWS_CONFIG_FILE");
  if (config_path.empty()) config_path = home + "/.aws/config";
  std::string creds_path = EnvValue(src, "AWS_SHARED_CREDENTIALS_FILE");
  if (creds_path.empty()) creds_path = home + "/.aws/credentials";
  TIDEPOOL_ASSIGN_OR_RETURN(IniSections config, ReadIni(src, config_path));
  TIDEPOOL_ASSIGN_OR_RETURN(IniSections creds, ReadIni(src, creds_path));

  const std::string config_section = s.profile == "default" ? "default" : "profile " + s.profile;
  const auto config_it = config.find(config_section);
  const auto creds_it = creds.find(s.profile);
  if (!env_profile.empty() && config_it == config.end() && creds_it == creds.end()) {
    // botocore's ProfileNotFound text.
    return NotFoundError("The config profile (" + s.profile + ") could not be found");
  }
  static const std::map<std::string, std::string> kEmpty;
  const auto& profile = config_it == config.end() ? kEmpty : config_it->second;
  const auto& profile_creds = creds_it == creds.end() ? kEmpty : creds_it->second;
  auto setting = [&](const std::string& key) -> std::string {
    if (auto it = profile.find(key); it != profile.end()) return it->second;
    return "";
  };

  // Region.
  for (const char* var : {"AWS_REGION", "AWS_DEFAULT_REGION"}) {
    if (s.region.empty()) s.region = EnvValue(src, var);
  }
  if (s.region.empty()) s.region = setting("region");

  // Endpoints.
  const bool ignore = IsTrue(EnvValue(src, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")) ||
                      IsTrue(setting("ignore_configured_endpoint_urls"));
  if (!ignore) {
    const std::string global = !EnvValue(src, "AWS_ENDPOINT_URL").empty()
                                   ? EnvValue(src, "AWS_ENDPOINT_URL")
                                   : setting("endpoint_url");
    for (AwsService svc :
         {AwsService::kAutoScaling, AwsService::kEc2, AwsService::kEks, AwsService::kSts}) {
      std::string url = EnvValue(src, "AWS_ENDPOINT_URL_" + EnvSuffix(svc));
      if (url.empty()) url = global;
      if (!url.empty()) s.endpoints[svc] = url;
    }
  }

  // Static keys: the environment's pair, else the profile's.
  const std::string env_key = EnvValue(src, "AWS_ACCESS_KEY_ID");
  const std::string env_secret = EnvValue(src, "AWS_SECRET_ACCESS_KEY");
  if (!env_key.empty() || !env_secret.empty()) {
    if (env_key.empty() || env_secret.empty()) {
      return InvalidArgumentError(
          "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together");
    }
    s.static_keys = AwsStaticKeys{env_key, env_secret, EnvValue(src, "AWS_SESSION_TOKEN")};
  } else {
    for (const auto* section : {&profile_creds, &profile}) {
      auto get = [&](const char* k) {
        auto it = section->find(k);
        return it == section->end() ? std::string() : it->second;
      };
      if (get("aws_access_key_id").empty() && get("aws_secret_access_key").empty()) continue;
      if (get("aws_access_key_id").empty() || get("aws_secret_access_key").empty()) {
        // botocore's PartialCredentialsError.
        return InvalidArgumentError(
            "Partial credentials found in profile " + s.profile + ", missing: " +
            (get("aws_access_key_id").empty() ? "aws_access_key_id" : "aws_secret_access_key"));
      }
      s.static_keys = AwsStaticKeys{get("aws_access_key_id"), get("aws_secret_access_key"),
                                    get("aws_session_token")};
      break;
    }
  }

  // Web identity (IRSA).
  AwsWebIdentity wi{EnvValue(src, "AWS_ROLE_ARN"), EnvValue(src, "AWS_WEB_IDENTITY_TOKEN_FILE"),
                    EnvValue(src, "AWS_ROLE_SESSION_NAME")};
  if (!wi.role_arn.empty() && !wi.token_file.empty()) {
    // The environment's web identity comes before the shared files' keys (the SDKs' chain).
    if (env_key.empty()) s.static_keys.reset();
  } else {
    wi = AwsWebIdentity{setting("role_arn"), setting("web_identity_token_file"),
                        setting("role_session_name")};
  }
  if (!wi.role_arn.empty() && !wi.token_file.empty()) s.web_identity = wi;

  s.ca_bundle = EnvValue(src, "AWS_CA_BUNDLE");
  if (s.ca_bundle.empty()) s.ca_bundle = setting("ca_bundle");
  s.imds_disabled = IsTrue(EnvValue(src, "AWS_EC2_METADATA_DISABLED"));
  if (std::string e = EnvValue(src, "AWS_EC2_METADATA_SERVICE_ENDPOINT"); !e.empty()) {
    while (!e.empty() && e.back() == '/') e.pop_back();
    s.imds_endpoint = e;
  }
  return s;
}

}  // namespace tidepool::cloud::aws::live
