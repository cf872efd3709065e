#include "apiserver/patch/go_format.h"

#include <nlohmann/json.hpp>

namespace tidepool::apiserver::patch::internal {

std::string GoValue(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return "<nil>";
    case nlohmann::json::value_t::string:
      return v.get<std::string>();
    case nlohmann::json::value_t::array: {
      std::string out = "[";
      bool first = true;
      for (const auto& e : v) {
        if (!first) out += ' ';
        first = false;
        out += GoValue(e);
      }
      return out + "]";
    }
    case nlohmann::json::value_t::object: {
      std::string out = "map[";
      bool first = true;
      for (const auto& [k, e] : v.items()) {
        if (!first) out += ' ';
        first = false;
        out += k;
        out += ':';
        out += GoValue(e);
      }
      return out + "]";
    }
    default:
      return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
}

std::string GoJsonEncode(const nlohmann::json& v) {
  const std::string compact = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(compact.size() + 1);
  for (size_t i = 0; i < compact.size(); ++i) {
    const char c = compact[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xe2' && i + 2 < compact.size() && compact[i + 1] == '\x80' &&
               (compact[i + 2] == '\xa8' || compact[i + 2] == '\xa9')) {
      out += compact[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out + "\n";
}

}  // namespace tidepool::apiserver::patch::internal
