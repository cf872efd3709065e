// File: json_text.h
//
// Reading JSON text without parsing it into a tree: the store keeps every object's compact
// JSON text (ObjectStore), and some answers only need a slice of it (a Table row's
// PartialObjectMetadata is the object's "metadata" text; a create writes its resourceVersion
// into the text it serialized outside the store's lock). Pure functions; nothing throws.
#pragma once

#include <optional>
#include <string_view>

namespace tidepool::apiserver::json_text {

// The text of the top-level member `key` of the JSON object `text` (the member's value, e.g.
// `{"name":"a"}` for "metadata"), or nullopt when `text` is not an object or has no such
// member. `key` is compared with the member name as written (no escapes are decoded), which is
// exact for names without escapes. Malformed text gives nullopt or a truncated slice; never reads
// past `text`.
std::optional<std::string_view> TopLevelMember(std::string_view text, std::string_view key);

}  // namespace tidepool::apiserver::json_text
