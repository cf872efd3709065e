// Fuzz target: the generic object path, everything the API server does with an object of any
// kind besides storing it: strict field validation (schema/), defaulting and validation
// (admission.h), the stored view (stored_view.h) that printers, selectors and watch filters
// read, the Table printers (printers/) and field selectors' values (selectors/fields.h).
// Input: a JSON text. An object whose apiVersion/kind is served goes through that resource;
// anything else goes through every resource (so printers see every shape).
// Oracles: nothing throws; BuildTableText is byte-identical to BuildTable(...).dump(...)
// (printers.h's contract).
#include <nlohmann/json.hpp>

#include "api/field_error.h"
#include "apiserver/admission.h"
#include "apiserver/json_io.h"
#include "apiserver/printers/printers.h"
#include "apiserver/resources.h"
#include "apiserver/schema/schema.h"
#include "apiserver/selectors/fields.h"
#include "apiserver/stored_view.h"
#include "common/clock.h"
#include "fuzz/fuzz_support.h"

namespace apiserver = tidepool::apiserver;
using tidepool::fuzz::Check;

namespace {

constexpr const char* kFields[] = {
    "metadata.name",       "metadata.namespace",    "spec.nodeName",
    "spec.restartPolicy",  "spec.schedulerName",    "spec.serviceAccountName",
    "spec.hostNetwork",    "status.phase",          "status.podIP",
    "status.podIPs",       "status.nominatedNodeName", "spec.unschedulable",
    "involvedObject.kind", "involvedObject.name",   "reason",
    "source",              "type",                  "status.successful",
    "status.replicas",     "regarding.name",        "reportingController"};

void Exercise(const apiserver::Resource& r, const nlohmann::json& object, bool typed) {
  const tidepool::TimePoint now = tidepool::SimulatedClock::kDefaultStart;
  if (typed) {
    const auto& schema = apiserver::schema::Schema::Builtin();
    const std::string api_version = r.GroupVersion();
    (void)schema.UnknownFields(api_version, r.kind, object);
    nlohmann::json dropped = object;
    (void)schema.DropUnknownFields(api_version, r.kind, dropped);
    nlohmann::json defaulted = object;
    apiserver::ApplyDefaults(r, defaulted);
    tidepool::api::FieldErrors errors;
    (void)apiserver::Validate(r, defaulted, nullptr, &errors);
    (void)apiserver::Validate(r, defaulted, &object, &errors);
  }
  const nlohmann::json view = apiserver::StoredView(r, object);
  (void)apiserver::printers::Cells(r.group, r.resource, view, now);
  const std::string text = apiserver::json_io::Dump(view);
  for (auto include : {apiserver::printers::IncludeObject::kNone,
                       apiserver::printers::IncludeObject::kMetadata,
                       apiserver::printers::IncludeObject::kObject}) {
    const std::string fast = apiserver::printers::BuildTableText(
        r.group, r.resource, {{&view, text}}, "7", now, include, true);
    const std::string slow =
        apiserver::printers::BuildTable(r.group, r.resource, {&view}, "7", now, include, true)
            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    Check(fast == slow, "BuildTableText != BuildTable().dump()", fast + "\n" + slow);
  }
  for (const char* f : kFields) {
    (void)apiserver::selectors::FieldValue(r.group, r.resource, view, f);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed = apiserver::json_io::Parse(tidepool::fuzz::AsText(data, size));
  if (!parsed.ok()) return 0;
  const nlohmann::json& object = *parsed;
  const apiserver::Resource* r = nullptr;
  if (object.is_object()) {
    auto av = object.find("apiVersion");
    auto kind = object.find("kind");
    if (av != object.end() && av->is_string() && kind != object.end() && kind->is_string()) {
      r = apiserver::FindResourceByKind(av->get_ref<const std::string&>(),
                                        kind->get_ref<const std::string&>());
    }
  }
  if (r != nullptr) {
    Exercise(*r, object, true);
  } else {
    for (const apiserver::Resource& each : apiserver::Resources()) Exercise(each, object, false);
  }
  return 0;
}
