// File: repository_manifests.h
//
// Every Kubernetes manifest of the repository, for tests that check a code path against the
// objects users actually write: examples/**.yaml, and the YAML here-documents of
// tests/e2e/*.sh (`<<'YAML'` or `<<YAML` ... `YAML`). Documents without kind and apiVersion
// are skipped.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/codec/yaml.h"

namespace tidepool::testing {

inline std::vector<nlohmann::json> RepositoryManifests(const std::filesystem::path& root) {
  std::vector<nlohmann::json> out;
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  auto add = [&out](std::string_view text) {
    auto docs = api::codec::ParseYamlDocuments(text);
    if (!docs.ok()) return;
    for (nlohmann::json& d : *docs) {
      if (d.is_object() && d.contains("kind") && d.contains("apiVersion")) out.push_back(std::move(d));
    }
  };
  for (const auto& e : std::filesystem::recursive_directory_iterator(root / "examples")) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") add(read(e.path()));
  }
  for (const auto& e : std::filesystem::directory_iterator(root / "tests" / "e2e")) {
    if (!e.is_regular_file() || e.path().extension() != ".sh") continue;
    std::istringstream in(read(e.path()));
    std::string line, doc;
    bool inside = false;
    while (std::getline(in, line)) {
      if (!inside && (line.find("<<'YAML'") != std::string::npos ||
                      line.find("<<YAML") != std::string::npos)) {
        inside = true;
        doc.clear();
      } else if (inside && line == "YAML") {
        inside = false;
        add(doc);
      } else if (inside) {
        doc += line + "\n";
      }
    }
  }
  return out;
}

}  // namespace tidepool::testing
