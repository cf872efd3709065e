#include "api/meta.h"

namespace tidepool::api {

std::string ObjectKey(const ObjectMeta& meta) {
  if (meta.namespace_.empty()) {
    return meta.name;
  }
  return meta.namespace_ + "/" + meta.name;
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
