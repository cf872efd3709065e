// File: pod_json.h
//
// A Pod as JSON text for tests of code that reads objects as the API server stores them
// (printers, stored views): `metadata_members` are the metadata's members as JSON text without
// braces (e.g. R"("name":"p","namespace":"d")"), `spec` and `status` whole JSON objects.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tidepool::testing {

inline nlohmann::json PodJson(std::string_view metadata_members, std::string_view spec,
                              std::string_view status) {
  std::string text = R"({"apiVersion":"v1","kind":"Pod","metadata":{)";
  text += metadata_members;
  text += R"(},"spec":)";
  text += spec;
  text += R"(,"status":)";
  text += status;
  text += "}";
  return nlohmann::json::parse(text);
}

}  // namespace tidepool::testing
