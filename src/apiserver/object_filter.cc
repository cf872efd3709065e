#include "apiserver/object_filter.h"

#include <string>
#include <utility>

namespace tidepool::apiserver {

using nlohmann::json;

StatusOr<ObjectFilter> ObjectFilter::Parse(const Resource& r, std::string_view label_selector,
                                           std::string_view field_selector) {
  ObjectFilter f;
  f.resource_ = &r;
  if (!label_selector.empty()) {
    TIDEPOOL_ASSIGN_OR_RETURN(selectors::LabelSelector sel,
                              selectors::LabelSelector::Parse(label_selector));
    if (!sel.Empty()) f.labels_ = std::move(sel);
  }
  if (!field_selector.empty()) {
    TIDEPOOL_ASSIGN_OR_RETURN(selectors::FieldSelector sel,
                              selectors::FieldSelector::Parse(field_selector));
    TIDEPOOL_RETURN_IF_ERROR(sel.Validate(r.group, r.resource));
    if (!sel.Empty()) f.fields_ = std::move(sel);
  }
  return f;
}

bool ObjectFilter::Matches(const json& view) const {
  if (labels_) {
    const json* labels = nullptr;
    if (view.is_object()) {
      const auto meta = view.find("metadata");
      if (meta != view.end() && meta->is_object()) {
        const auto l = meta->find("labels");
        if (l != meta->end()) labels = &*l;
      }
    }
    if (!labels_->Matches(labels != nullptr ? *labels : json())) return false;
  }
  return !fields_ || fields_->Matches(resource_->group, resource_->resource, view);
}

std::optional<ObjectFilter::Seen> ObjectFilter::Select(const WatchEvent& e) const {
  const std::string_view type = EventTypeName(e.type);
  if (Empty()) return Seen{type, e.object.get(), false};
  const bool now_in = Matches(e.object->view);
  if (e.type == EventType::kModified) {
    const bool was_in = e.old_object != nullptr && Matches(e.old_object->view);
    if (now_in && !was_in) return Seen{"ADDED", e.object.get(), false};
    if (!now_in && was_in) return Seen{"DELETED", e.old_object.get(), true};
  }
  if (!now_in) return std::nullopt;
  return Seen{type, e.object.get(), false};
}

json AtRevision(const StoredObject& object, int64_t resource_version) {
  json obj = object.Parse();
  if (obj.is_object() && obj.contains("metadata") && obj["metadata"].is_object()) {
    obj["metadata"]["resourceVersion"] = std::to_string(resource_version);
  }
  return obj;
}

}  // namespace tidepool::apiserver
