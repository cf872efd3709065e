#include "api/meta.h"

#include <charconv>
#include <cstdint>

namespace tidepool::api {

std::string ObjectKey(const ObjectMeta& meta) {
  if (meta.namespace_.empty()) {
    return meta.name;
  }
  return meta.namespace_ + "/" + meta.name;
}

bool ResourceVersionOlder(std::string_view a, std::string_view b) {
  uint64_t x = 0, y = 0;
  const auto pa = std::from_chars(a.data(), a.data() + a.size(), x);
  const auto pb = std::from_chars(b.data(), b.data() + b.size(), y);
  return pa.ec == std::errc() && pb.ec == std::errc() && pa.ptr == a.data() + a.size() &&
         pb.ptr == b.data() + b.size() && x < y;
}

const OwnerReference* ControllerOf(const ObjectMeta& meta) {
  for (const auto& ref : meta.owner_references) {
    if (ref.controller.value_or(false)) {
      return &ref;
    }
  }
  return nullptr;
}

}  // namespace tidepool::api
