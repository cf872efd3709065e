#include "api/resource_list.h"

namespace tidepool::api {

namespace {

// v1helper.IsPrefixedNativeResource: the name contains "kubernetes.io/" anywhere.
bool IsPrefixedNativeResource(std::string_view name) {
  return name.find("kubernetes.io/") != std::string_view::npos;
}

}  // namespace

bool IsNativeResource(std::string_view name) {
  return name.find('/') == std::string_view::npos || IsPrefixedNativeResource(name);
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
  return IsExtendedResource(name) || IsHugePageResource(name) || IsPrefixedNativeResource(name) ||
         name.starts_with("attachable-volumes-");
}

Quantity Get(const ResourceList& list, std::string_view name) {
  auto it = list.find(name);
  return it == list.end() ? Quantity() : it->second;
}

}  // namespace tidepool::api
