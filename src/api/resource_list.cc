#include "api/resource_list.h"

namespace tidepool::api {

bool IsNativeResource(std::string_view name) {
  size_t slash = name.find('/');
  if (slash == std::string_view::npos) {
    return true;
  }
  std::string_view domain = name.substr(0, slash);
  return domain == "kubernetes.io" || domain.ends_with(".kubernetes.io");
}

bool IsHugePageResource(std::string_view name) { return name.starts_with("hugepages-"); }

bool IsExtendedResource(std::string_view name) {
  if (IsNativeResource(name) || name.starts_with("requests.")) {
    return false;
  }
  // Must be a qualified name: a non-empty domain prefix and a name part.
  size_t slash = name.find('/');
  return slash != std::string_view::npos && slash > 0 && slash + 1 < name.size();
}

bool IsIntegerResource(std::string_view name) {
  return IsExtendedResource(name) || name == kResourcePods ||
         name.starts_with("attachable-volumes-");
}

bool IsOvercommitAllowed(std::string_view name) {
  return IsNativeResource(name) && !IsHugePageResource(name);
}

bool IsScalarResource(std::string_view name) {
  return IsExtendedResource(name) || IsHugePageResource(name) ||
         name.starts_with("kubernetes.io/") || name.starts_with("attachable-volumes-");
}

Quantity Get(const ResourceList& list, std::string_view name) {
  auto it = list.find(name);
  return it == list.end() ? Quantity() : it->second;
}

}  // namespace tidepool::api
