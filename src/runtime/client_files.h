// File: client_files.h
//
// The files `tidepool up` writes for its users' clients, each with mode 0600
// (common/private_file.h), since they may hold the cluster's bearer token (runtime/exposure.h):
//
//   WriteKubeconfig      a kubeconfig with one cluster, context and user, all named "tidepool"
//                        (namespace default): `server`, and when given the CA
//                        (certificate-authority-data, base64 PEM) and the user's `token`.
//   WriteGcloudConfig    a gcloud configuration directory (CLOUDSDK_CONFIG) pointed at
//                        `api_url` (reference cloud-apis.md §2.1): endpoint overrides for
//                        container, serviceusage (each ending in '/') and compute
//                        (<url>/compute/v1/); auth/access_token_file = DIR/access-token holding
//                        the token (gcloud sends it as a Bearer token; gke-gcloud-auth-plugin
//                        hands it to kubectl); with a CA, core/custom_ca_certs_file = DIR/ca.crt
//                        (the HTTPS API's CA, so gcloud verifies it); core/project,
//                        compute/zone; no prompts, surveys or update checks.
//   WriteAwsConfig       an AWS CLI config and credentials file in one directory (DIR/config,
//                        DIR/credentials: use them as AWS_CONFIG_FILE and
//                        AWS_SHARED_CREDENTIALS_FILE): profile default with region, output json,
//                        endpoint_url = `api_url` (botocore's global endpoint setting: every
//                        service, eks, autoscaling, ec2 and sts, goes to tidepool) and, with a
//                        CA, ca_bundle = DIR/ca.crt; the credentials tidepool issued; and
//                        DIR/web-identity-token, a service account token STS exchanges for
//                        temporary credentials (AWS_WEB_IDENTITY_TOKEN_FILE, as IRSA mounts it).
// Errors are Unavailable, naming the path.
#pragma once

#include <string>

#include "common/status.h"

namespace tidepool::runtime {

[[nodiscard]] Status WriteKubeconfig(const std::string& path, const std::string& server,
                                     const std::string& ca_pem, const std::string& token);

struct GcloudConfig {
  std::string dir;      // the CLOUDSDK_CONFIG directory
  std::string api_url;  // "http://127.0.0.1:8080", "https://192.0.2.2:8443" (no trailing '/')
  std::string project;
  std::string zone;
  std::string token;
  std::string ca_pem;   // empty: none (plain HTTP)
};
[[nodiscard]] Status WriteGcloudConfig(const GcloudConfig& config);

struct AwsConfig {
  std::string dir;
  std::string api_url;
  std::string region;
  std::string access_key_id;
  std::string secret_access_key;
  std::string ca_pem;  // empty: none (plain HTTP)
  // A web identity token (IRSA), written as DIR/web-identity-token; empty: none.
  std::string web_identity_token;
};
[[nodiscard]] Status WriteAwsConfig(const AwsConfig& config);

}  // namespace tidepool::runtime
