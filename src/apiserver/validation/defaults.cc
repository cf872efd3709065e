#include "apiserver/validation/defaults.h"

namespace tidepool::apiserver::validation {

json* ObjectMember(json* obj, std::string_view key) {
  if (obj == nullptr || !obj->is_object()) return nullptr;
  auto it = obj->find(key);
  if (it == obj->end()) return &((*obj)[std::string(key)] = json::object());
  if (it->is_null()) *it = json::object();
  return it->is_object() ? &*it : nullptr;
}

void SetDefault(json* obj, std::string_view key, json value) {
  if (obj == nullptr || !obj->is_object()) return;
  auto it = obj->find(key);
  if (it == obj->end()) {
    obj->emplace(std::string(key), std::move(value));
  } else if (it->is_null()) {
    *it = std::move(value);
  }
}

}  // namespace tidepool::apiserver::validation
