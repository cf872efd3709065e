// Fuzz target: apiserver/patch, the four patch formats and managed fields.
// Input: "<live object JSON>\n%%\n<patch>[\n%%\n<manager>[ force]]". The live object is the
// stored object (null or unparsable: a server-side apply create); the patch is parsed as JSON
// for JSON merge patch, JSON patch and strategic merge patch (apiVersion and kind from the live
// object), and as YAML (its first document) for server-side apply as manager (default
// "kubectl"). Every result then goes through UpdateManagedFields, and every managedFields
// entry's fieldsV1 through FieldSet::FromFieldsV1, as the API server does.
// Oracles: nothing throws; every result is dumpable; a result's FieldSet round-trips through
// ToFieldsV1.
#include <nlohmann/json.hpp>

#include "api/codec/yaml.h"
#include "apiserver/json_io.h"
#include "apiserver/patch/field_set.h"
#include "apiserver/patch/json_patch.h"
#include "apiserver/patch/server_side_apply.h"
#include "apiserver/patch/strategic_merge_patch.h"
#include "common/clock.h"
#include "fuzz/fuzz_support.h"

namespace patch = tidepool::apiserver::patch;
using nlohmann::json;
using tidepool::fuzz::Check;

namespace {

std::string StringMember(const json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

void CheckManagedFields(const json& object) {
  if (!object.is_object()) return;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return;
  auto mf = meta->find("managedFields");
  if (mf == meta->end() || !mf->is_array()) return;
  for (const json& entry : *mf) {
    if (!entry.is_object()) continue;
    auto f = entry.find("fieldsV1");
    if (f == entry.end()) continue;
    auto set = patch::FieldSet::FromFieldsV1(*f);
    if (!set.ok()) continue;
    auto again = patch::FieldSet::FromFieldsV1(set->ToFieldsV1());
    Check(again.ok() && *again == *set, "FieldSet round trip through ToFieldsV1 failed",
          f->dump());
    (void)set->IterationOrder();
  }
}

void Finish(const json& old, const json& result, tidepool::TimePoint now) {
  (void)tidepool::apiserver::json_io::Dump(result);
  json updated = patch::UpdateManagedFields(old, result, "fuzz", now);
  CheckManagedFields(updated);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = tidepool::fuzz::Sections(tidepool::fuzz::AsText(data, size), "\n%%\n", 3);
  if (parts.size() < 2) return 0;
  const tidepool::TimePoint now = tidepool::SimulatedClock::kDefaultStart;
  // The patch functions take any document; server-side apply and UpdateManagedFields are only
  // ever given a stored object or null, as the API server does.
  auto doc_or = tidepool::apiserver::json_io::Parse(parts[0]);
  const json doc = doc_or.ok() ? *doc_or : json();
  const json live = doc.is_object() ? doc : json();
  CheckManagedFields(live);
  const std::string api_version = StringMember(live, "apiVersion");
  const std::string kind = StringMember(live, "kind");

  if (auto p = tidepool::apiserver::json_io::Parse(parts[1]); p.ok()) {
    if (auto r = patch::MergePatch(doc, *p); r.ok()) Finish(live, *r, now);
    if (auto r = patch::JsonPatch(doc, *p); r.ok()) Finish(live, *r, now);
    if (auto r = patch::StrategicMergePatch(doc, *p, api_version, kind); r.ok()) {
      Finish(live, *r, now);
    }
  }
  std::string manager = "kubectl";
  bool force = false;
  if (parts.size() > 2) {
    std::string_view m = parts[2];
    if (m.size() >= 6 && m.substr(m.size() - 6) == " force") {
      force = true;
      m.remove_suffix(6);
    }
    manager = std::string(m);
  }
  if (auto docs = tidepool::api::codec::ParseYamlDocuments(parts[1]); docs.ok() && !docs->empty()) {
    std::vector<patch::ApplyConflict> conflicts;
    if (auto r = patch::ServerSideApply(live, docs->front(), manager, force, now, &conflicts);
        r.ok()) {
      Finish(live, *r, now);
    }
  }
  return 0;
}
