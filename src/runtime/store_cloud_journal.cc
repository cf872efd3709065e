#include "runtime/store_cloud_journal.h"

#include <nlohmann/json.hpp>

namespace tidepool::runtime {
namespace {

using nlohmann::json;

constexpr char kOrigin[] = "cloud";

StatusOr<const apiserver::Resource*> ResourceOf(std::string_view kind) {
  const apiserver::Resource* r =
      apiserver::FindInternalResource(apiserver::kInternalCloudGroup, kind);
  if (r == nullptr) {
    return InvalidArgumentError("cloud journal: no internal resource for kind \"" +
                                std::string(kind) + "\"");
  }
  return r;
}

}  // namespace

Status StoreCloudJournal::Put(std::string_view kind, std::string_view name,
                              std::string_view text) {
  TIDEPOOL_ASSIGN_OR_RETURN(const apiserver::Resource* r, ResourceOf(kind));
  json state = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (state.is_discarded()) {
    return InvalidArgumentError("cloud journal: record " + std::string(kind) + "/" +
                                std::string(name) + " is not JSON");
  }
  auto result = store_.Update(
      *r, "", name,
      [&](const apiserver::StoredObject* cur) -> StatusOr<json> {
        json next = {{"metadata", {{"name", std::string(name)}}}, {"state", state}};
        if (cur != nullptr) {
          // uid and creationTimestamp stay the first write's, as for any stored object.
          next["metadata"] = cur->Parse().value("metadata", json::object());
        }
        return next;
      },
      {kOrigin, false}, /*allow_create=*/true);
  return result.status();
}

Status StoreCloudJournal::Delete(std::string_view kind, std::string_view name) {
  TIDEPOOL_ASSIGN_OR_RETURN(const apiserver::Resource* r, ResourceOf(kind));
  auto result = store_.Delete(*r, "", name, {kOrigin, false});
  if (!result.ok() && result.status().code() == StatusCode::kNotFound) return OkStatus();
  return result.status();
}

StatusOr<std::vector<cloud::CloudRecord>> StoreCloudJournal::List(std::string_view kind) const {
  TIDEPOOL_ASSIGN_OR_RETURN(const apiserver::Resource* r, ResourceOf(kind));
  std::vector<cloud::CloudRecord> out;
  for (const apiserver::ObjectPtr& o : store_.List(*r, "").items) {
    json obj = o->Parse();
    const json& meta = obj.contains("metadata") ? obj["metadata"] : json::object();
    cloud::CloudRecord rec;
    rec.name = meta.is_object() && meta.contains("name") && meta["name"].is_string()
                   ? meta["name"].get<std::string>()
                   : "";
    rec.json = obj.contains("state") ? obj["state"].dump() : "null";
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace tidepool::runtime
