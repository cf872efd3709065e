// File: internal.h
//
// Helpers shared by the printers (not part of the library's API): lenient JSON field access
// with Go zero-value semantics, RFC 3339 timestamps, the Name / Age cells, and the label and
// selector formatting of apimachinery's labels.FormatLabels / metav1.FormatLabelSelector.
// Nothing here throws.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apiserver/printers/printers.h"
#include "common/clock.h"

namespace tidepool::apiserver::printers::internal {

// ---- Lenient JSON access -------------------------------------------------------------------
// `Field(j, "a")` is the member "a" of object `j`, or nullptr when `j` is not an object or has no
// such member. The readers turn nullptr or a value of the wrong type into the Go zero value.

const nlohmann::json* Field(const nlohmann::json* j, std::string_view key);
const nlohmann::json* Field(const nlohmann::json& j, std::string_view key);
// Field(Field(Field(j, a), b), c)...
template <typename... Keys>
const nlohmann::json* Path(const nlohmann::json* j, std::string_view first, Keys... rest) {
  const nlohmann::json* p = Field(j, first);
  ((p = Field(p, rest)), ...);
  return p;
}
template <typename... Keys>
const nlohmann::json* Path(const nlohmann::json& j, std::string_view first, Keys... rest) {
  return Path(&j, first, rest...);
}

// The string value, or "" when absent or not a string.
std::string Str(const nlohmann::json* j);
// The integer value (an integral JSON number, including 3.0), or `def` when absent or not one.
int64_t Int(const nlohmann::json* j, int64_t def = 0);
// Int() for an int32 field: a value outside int32 (which Go would refuse to decode) reads as 0.
int64_t Int32(const nlohmann::json* j);
// true iff present and a JSON number (any kind).
bool IsNumber(const nlohmann::json* j);
// The boolean value, or false.
bool Bool(const nlohmann::json* j);
// true iff present and a non-empty array / object.
bool NonEmptyArray(const nlohmann::json* j);
// Number of elements of an array or members of an object; 0 for anything else.
int64_t Size(const nlohmann::json* j);
// Each element of an array (nothing for anything else).
template <typename Fn>
void ForEach(const nlohmann::json* j, Fn&& fn) {
  if (j == nullptr || !j->is_array()) {
    return;
  }
  for (const auto& e : *j) {
    fn(e);
  }
}

// The first element of array `list` whose "type" member is `type` (status.conditions,
// status.addresses), or nullptr when there is none or `list` is not an array.
const nlohmann::json* FirstOfType(const nlohmann::json* list, std::string_view type);

// ---- Time ------------------------------------------------------------------------------------

// An RFC 3339 instant as Go's time.Parse(time.RFC3339, ...) accepts it: "2026-01-01T00:00:00Z",
// "2026-01-01T09:00:00+09:00", "2026-01-01T00:00:00.123456Z".
struct Timestamp {
  int64_t unix_seconds = 0;
  int32_t nanos = 0;  // [0, 1e9)
};
std::optional<Timestamp> ParseRfc3339(std::string_view text);

// A metav1.Time / metav1.MicroTime field: nullopt when absent, null, unparseable, Go's zero time
// (0001-01-01T00:00:00Z, which is what IsZero() tests) or outside TimePoint's range.
std::optional<TimePoint> TimeField(const nlohmann::json* j);

// to - from, saturated at Duration's limits instead of overflowing (TimePoint spans 1678-2262).
Duration Elapsed(TimePoint from, TimePoint to);

// printers.go translateTimestampSince: "<unknown>" for a zero time, else HumanDuration(now - t).
std::string Since(const nlohmann::json* j, TimePoint now);

// Go's t.UTC().Format(time.RFC3339) of a metav1.Time field; the zero time prints as
// "0001-01-01T00:00:00Z". Used by the default table convertor's "Created At".
std::string Rfc3339Utc(const nlohmann::json* j);

// ---- Cells most rows share ----------------------------------------------------------------

// metadata.name, the "Name" cell.
std::string Name(const nlohmann::json& object);
// Since(metadata.creationTimestamp, now), the "Age" cell.
std::string Age(const nlohmann::json& object, TimePoint now);
// Go's strings.Join.
std::string Join(const std::vector<std::string>& parts, std::string_view sep);

// ---- Labels and selectors --------------------------------------------------------------------

// labels.FormatLabels: "k1=v1,k2=v2" sorted by key; "<none>" when empty or not an object.
std::string FormatLabels(const nlohmann::json* labels);

// metav1.LabelSelectorAsSelector(selector).String(), or nullopt when the conversion fails (an
// unknown operator, a wrong value count, an invalid key or value). A missing selector converts to
// labels.Nothing() and an empty one to labels.Everything(), both of which print as "".
std::optional<std::string> SelectorString(const nlohmann::json* selector);

// metav1.FormatLabelSelector: SelectorString, "<none>" when empty, "<error>" when invalid.
std::string FormatLabelSelector(const nlohmann::json* selector);

// ---- Misc --------------------------------------------------------------------------------------

// Go's strings.TrimSpace for ASCII white space (and U+0085 / U+00A0).
std::string TrimSpace(std::string_view s);
std::string ToLower(std::string_view s);

// resource.Quantity.String() of a stored quantity (a string, or a number as YAML gives it):
// the canonical form ("1024Mi" -> "1Gi"); `absent` when missing or null; the value as it is
// when it does not parse (the decoder would have refused it before storage).
std::string QuantityString(const nlohmann::json* q, std::string_view absent = "0");

// printers.go layoutContainerCells: container names and images, each comma-joined.
struct ContainerCells {
  std::string names;
  std::string images;
};
ContainerCells LayoutContainers(const nlohmann::json* containers);

// metav1.ObjectMeta swagger docs used by most column definitions.
extern const char* const kNameDescription;
extern const char* const kCreationTimestampDescription;
// {"Name", string, format name} and {"Age", string}, as nearly every printer starts and ends.
Column NameColumn();
Column AgeColumn();

}  // namespace tidepool::apiserver::printers::internal
