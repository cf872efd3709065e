#include "apiserver/patch/go_format.h"

#include <nlohmann/json.hpp>

#include "apiserver/json_io.h"

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

std::string GoJsonEncode(const nlohmann::json& v) { return json_io::GoMarshal(v) + "\n"; }

}  // namespace tidepool::apiserver::patch::internal
