#include "runtime/client_files.h"

#include <filesystem>
#include <sstream>

#include "common/base64.h"
#include "common/private_file.h"

namespace tidepool::runtime {

Status WriteKubeconfig(const std::string& path, const std::string& server,
                       const std::string& ca_pem, const std::string& token) {
  std::ostringstream out;
  out << "apiVersion: v1\n"
         "kind: Config\n"
         "clusters:\n"
         "- name: tidepool\n"
         "  cluster:\n"
         "    server: "
      << server << "\n";
  if (!ca_pem.empty()) out << "    certificate-authority-data: " << Base64Encode(ca_pem) << "\n";
  out << "contexts:\n"
         "- name: tidepool\n"
         "  context:\n"
         "    cluster: tidepool\n"
         "    user: tidepool\n"
         "    namespace: default\n"
         "current-context: tidepool\n"
         "preferences: {}\n"
         "users:\n"
         "- name: tidepool\n";
  if (token.empty()) {
    out << "  user: {}\n";
  } else {
    out << "  user:\n"
           "    token: "
        << token << "\n";
  }
  Status s = WritePrivateFile(path, out.str());
  if (!s.ok()) return UnavailableError("--kubeconfig " + path + ": " + std::string(s.message()));
  return OkStatus();
}

Status WriteGcloudConfig(const GcloudConfig& c) {
  const std::filesystem::path root = std::filesystem::absolute(c.dir);
  auto fail = [&](const Status& s) {
    return UnavailableError("--gcloud-config " + c.dir + ": " + std::string(s.message()));
  };
  const std::string token_file = (root / "access-token").string();
  if (Status s = WritePrivateFile(token_file, c.token + "\n"); !s.ok()) return fail(s);
  if (Status s = WritePrivateFile((root / "active_config").string(), "default"); !s.ok()) {
    return fail(s);
  }
  std::ostringstream cfg;
  cfg << "# Written by tidepool up: gcloud talks to the emulated GKE at " << c.api_url << "\n"
      << "[core]\n"
      << "project = " << c.project << "\n"
      << "disable_usage_reporting = true\n";
  if (!c.ca_pem.empty()) {
    const std::string ca_file = (root / "ca.crt").string();
    if (Status s = WritePrivateFile(ca_file, c.ca_pem); !s.ok()) return fail(s);
    cfg << "custom_ca_certs_file = " << ca_file << "\n";
  }
  cfg << "[auth]\n"
      << "access_token_file = " << token_file << "\n"
      << "[api_endpoint_overrides]\n"
      << "container = " << c.api_url << "/\n"
      << "serviceusage = " << c.api_url << "/\n"
      << "compute = " << c.api_url << "/compute/v1/\n"
      << "[compute]\n"
      << "zone = " << c.zone << "\n"
      << "[component_manager]\n"
      << "disable_update_check = true\n"
      << "[survey]\n"
      << "disable_prompts = true\n";
  const std::string cfg_file = (root / "configurations" / "config_default").string();
  if (Status s = WritePrivateFile(cfg_file, cfg.str()); !s.ok()) return fail(s);
  return OkStatus();
}

Status WriteAwsConfig(const AwsConfig& c) {
  const std::filesystem::path root = std::filesystem::absolute(c.dir);
  auto fail = [&](const Status& s) {
    return UnavailableError("--aws-config " + c.dir + ": " + std::string(s.message()));
  };
  std::ostringstream cfg;
  cfg << "# Written by tidepool up: the aws CLI talks to the emulated AWS at " << c.api_url << "\n"
      << "[default]\n"
      << "region = " << c.region << "\n"
      << "output = json\n"
      << "endpoint_url = " << c.api_url << "\n";
  if (!c.ca_pem.empty()) {
    const std::string ca_file = (root / "ca.crt").string();
    if (Status s = WritePrivateFile(ca_file, c.ca_pem); !s.ok()) return fail(s);
    cfg << "ca_bundle = " << ca_file << "\n";
  }
  if (Status s = WritePrivateFile((root / "config").string(), cfg.str()); !s.ok()) return fail(s);
  const std::string credentials = "[default]\naws_access_key_id = " + c.access_key_id +
                                  "\naws_secret_access_key = " + c.secret_access_key + "\n";
  if (Status s = WritePrivateFile((root / "credentials").string(), credentials); !s.ok()) {
    return fail(s);
  }
  if (!c.web_identity_token.empty()) {
    Status s = WritePrivateFile((root / "web-identity-token").string(), c.web_identity_token);
    if (!s.ok()) return fail(s);
  }
  return OkStatus();
}

}  // namespace tidepool::runtime
