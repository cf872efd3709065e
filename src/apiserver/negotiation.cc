#include "apiserver/negotiation.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/strings.h"

namespace tidepool::apiserver {
namespace {

struct MediaRange {
  std::string type;  // lower case, without parameters
  double q = 1.0;
  bool transform = false;  // an "as" parameter
};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// One comma-separated clause: "type/subtype;k=v;q=0.5".
MediaRange ParseRange(std::string_view clause) {
  MediaRange r;
  size_t semi = clause.find(';');
  r.type = Lower(TrimSpace(clause.substr(0, semi)));
  while (semi != std::string_view::npos) {
    const size_t next = clause.find(';', semi + 1);
    const std::string param(clause.substr(
        semi + 1, next == std::string_view::npos ? std::string_view::npos : next - semi - 1));
    const size_t eq = param.find('=');
    const std::string key = Lower(TrimSpace(param.substr(0, eq)));
    const std::string value = eq == std::string::npos ? "" : TrimSpace(param.substr(eq + 1));
    if (key == "q") r.q = std::strtod(value.c_str(), nullptr);
    if (key == "as") r.transform = true;
    semi = next;
  }
  return r;
}

std::vector<MediaRange> SortedRanges(std::string_view accept) {
  std::vector<MediaRange> ranges;
  size_t start = 0;
  while (start <= accept.size()) {
    const size_t comma = accept.find(',', start);
    const std::string_view clause = accept.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    MediaRange r = ParseRange(clause);
    if (!r.type.empty() && r.q > 0) ranges.push_back(std::move(r));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::stable_sort(ranges.begin(), ranges.end(),
                   [](const MediaRange& a, const MediaRange& b) { return a.q > b.q; });
  return ranges;
}

}  // namespace

std::vector<std::string> AcceptedMediaRanges(std::string_view accept) {
  std::vector<std::string> out;
  for (MediaRange& r : SortedRanges(accept)) out.push_back(std::move(r.type));
  return out;
}

ResponseEncoding NegotiateResponse(std::string_view accept) {
  for (const MediaRange& r : SortedRanges(accept)) {
    if (r.transform) return ResponseEncoding::kJson;
    if (r.type == kProtobufContentType) return ResponseEncoding::kProtobuf;
    if (r.type == "application/json" || r.type == "application/*" || r.type == "*/*" ||
        r.type == "application/yaml") {
      return ResponseEncoding::kJson;
    }
  }
  return ResponseEncoding::kJson;
}

}  // namespace tidepool::apiserver
