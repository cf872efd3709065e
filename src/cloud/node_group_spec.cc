#include "cloud/node_group_spec.h"

#include <charconv>
#include <limits>

namespace tidepool::cloud {
namespace {

// Go's strconv.Atoi: an optional sign, then decimal digits and nothing else. Go's int has 64
// bits; a size beyond 2^31-1 is refused here as not an integer (tidepool's sizes are int).
bool Atoi(std::string_view s, int* out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (s.empty() || s[0] == '+') return false;
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return false;
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) return false;
  *out = static_cast<int>(v);
  return true;
}

}  // namespace

StatusOr<NodeGroupSpec> ParseNodeGroupSpec(std::string_view value) {
  const size_t first = value.find(':');
  const size_t second = first == std::string_view::npos ? first : value.find(':', first + 1);
  if (second == std::string_view::npos) {
    return InvalidArgumentError("wrong nodes configuration: " + std::string(value));
  }
  const std::string_view min = value.substr(0, first);
  const std::string_view max = value.substr(first + 1, second - first - 1);
  NodeGroupSpec spec;
  if (!Atoi(min, &spec.min_size)) {
    return InvalidArgumentError("failed to set min size: " + std::string(min) +
                                ", expected integer");
  }
  if (!Atoi(max, &spec.max_size)) {
    return InvalidArgumentError("failed to set max size: " + std::string(max) +
                                ", expected integer");
  }
  spec.name = std::string(value.substr(second + 1));
  if (spec.min_size < 0) {
    return InvalidArgumentError("invalid node group spec: min size must be >= 0");
  }
  if (spec.max_size < spec.min_size) {
    return InvalidArgumentError(
        "invalid node group spec: max size must be greater or equal to min size");
  }
  if (spec.name.empty()) {
    return InvalidArgumentError("invalid node group spec: name must not be blank");
  }
  return spec;
}

std::string NodeGroupSpecString(const NodeGroupSpec& spec) {
  return std::to_string(spec.min_size) + ":" + std::to_string(spec.max_size) + ":" + spec.name;
}

StatusOr<std::vector<NodeGroupSpec>> ParseNodeGroupSpecs(const std::vector<std::string>& values) {
  std::vector<NodeGroupSpec> groups;
  for (const std::string& value : values) {
    StatusOr<NodeGroupSpec> spec = ParseNodeGroupSpec(value);
    if (!spec.ok()) {
      return InvalidArgumentError("--nodes: failed to parse node group spec: " +
                                  std::string(spec.status().message()));
    }
    groups.push_back(std::move(*spec));
  }
  return groups;
}

}  // namespace tidepool::cloud
