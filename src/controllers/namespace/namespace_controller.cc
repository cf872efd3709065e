#include "controllers/namespace/namespace_controller.h"

#include <algorithm>
#include <map>
#include <vector>

#include "controllers/api_discovery.h"
#include "controllers/object_json.h"

namespace tidepool::controllers::ns {
namespace {

using json = nlohmann::json;

constexpr char kFinalizer[] = "kubernetes";

bool HasFinalizer(const json& ns) {
  const json& finalizers = Member(Member(ns, "spec"), "finalizers");
  if (!finalizers.is_array()) return false;
  return std::any_of(finalizers.begin(), finalizers.end(),
                     [](const json& f) { return Str(f) == kFinalizer; });
}

bool BeingDeleted(const json& ns) { return !Member(Meta(ns), "deletionTimestamp").is_null(); }

// "pods." / "deployments.apps": schema.GroupResource's String().
std::string GroupResource(const ApiResource& r) { return r.resource + "." + r.group; }

// kcm's conditions, in its order, from what the deletion found.
json Conditions(const std::map<std::string, int>& remaining,
                const std::map<std::string, int>& finalizers) {
  auto condition = [](const char* type, bool status, const char* reason, std::string message) {
    return json{{"type", type},
                {"status", status ? "True" : "False"},
                {"reason", reason},
                {"message", std::move(message)}};
  };
  auto join = [](const std::map<std::string, int>& counts, const char* middle) {
    std::string out;
    for (const auto& [what, n] : counts) {  // sorted, as kcm sorts them
      if (!out.empty()) out += ", ";
      out += what + middle + std::to_string(n) + " resource instances";
    }
    return out;
  };
  json out = json::array();
  out.push_back(condition("NamespaceDeletionDiscoveryFailure", false, "ResourcesDiscovered",
                          "All resources successfully discovered"));
  out.push_back(condition("NamespaceDeletionGroupVersionParsingFailure", false,
                          "ParsedGroupVersions", "All legacy kube types successfully parsed"));
  out.push_back(condition("NamespaceDeletionContentFailure", false, "ContentDeleted",
                          "All content successfully deleted, may be waiting on finalization"));
  out.push_back(remaining.empty()
                    ? condition("NamespaceContentRemaining", false, "ContentRemoved",
                                "All content successfully removed")
                    : condition("NamespaceContentRemaining", true, "SomeResourcesRemain",
                                "Some resources are remaining: " + join(remaining, " has ")));
  out.push_back(finalizers.empty()
                    ? condition("NamespaceFinalizersRemaining", false, "ContentHasNoFinalizers",
                                "All content-preserving finalizers finished")
                    : condition("NamespaceFinalizersRemaining", true, "SomeFinalizersRemain",
                                "Some content in the namespace has finalizers remaining: " +
                                    join(finalizers, " in ")));
  return out;
}

// The old conditions' transition times where a condition's status did not change.
void KeepTransitionTimes(const json& old_conditions, json& conditions, const std::string& now) {
  for (json& c : conditions) {
    c["lastTransitionTime"] = now;
    if (!old_conditions.is_array()) continue;
    for (const json& o : old_conditions) {
      if (Str(Member(o, "type")) == c["type"] && Str(Member(o, "status")) == c["status"] &&
          !Member(o, "lastTransitionTime").is_null()) {
        c["lastTransitionTime"] = Member(o, "lastTransitionTime");
      }
    }
  }
}

}  // namespace

NamespaceController::NamespaceController(const client::RestClient& client, const Clock& clock,
                                         NamespaceControllerOptions options, log::Logger* logger,
                                         client::SharedInformerFactory* informers,
                                         TimerService* executor)
    : client_(client),
      clock_(clock),
      options_(options),
      log_(logger),
      executor_(executor),
      queue_(
          clock, [this](const std::string& name) { return Sync(name); },
          [this] { return HasSynced(); }, std::chrono::milliseconds(50), executor) {
  namespaces_ = client::MakeInformer(
      informers, client_, clock_,
      client::DecodingInformerOptions("namespace-controller", "/api/v1/namespaces", options_.seed),
      logger);
  auto on = [this](const client::ObjectRef& o) {
    if (BeingDeleted(*o)) queue_.Add(Str(Member(Meta(*o), "name")));
  };
  namespaces_->AddEventHandlers(
      {[on](const client::ObjectRef& o, bool) { on(o); },
       [on](const client::ObjectRef&, const client::ObjectRef& o) { on(o); }, nullptr});
}

NamespaceController::~NamespaceController() { Stop(); }

void NamespaceController::Start() {
  if (executor_ == nullptr) namespaces_->Start();  // with one, a driver feeds it
  queue_.Start();
}

void NamespaceController::Stop() {
  queue_.Stop();
  namespaces_->Stop();
}

bool NamespaceController::HasSynced() const { return namespaces_->HasSynced(); }

std::optional<TimePoint> NamespaceController::Sync(const std::string& name) {
  // The informer caches metadata stubs; the deleter reads the namespace itself, as kcm's does.
  auto got = client_.GetResult("/api/v1/namespaces/" + name);
  if (got.http_status == 404) return std::nullopt;
  const TimePoint again = clock_.Now() + options_.retry_after;
  if (!got.ok()) return again;
  const json& ns = got.body;
  if (!BeingDeleted(ns) || !HasFinalizer(ns)) return std::nullopt;
  auto left = DeleteContents(name, ns);
  if (!left.ok()) {
    if (log_ != nullptr) {
      log_->Warning("namespace " + name + ": " + std::string(left.status().message()));
    }
    return again;
  }
  if (*left) return again;
  if (Status s = Finalize(ns); !s.ok()) {
    if (log_ != nullptr) log_->Warning("namespace " + name + ": " + std::string(s.message()));
    return again;
  }
  return std::nullopt;
}

StatusOr<bool> NamespaceController::DeleteContents(const std::string& ns,
                                                   const json& namespace_object) {
  TIDEPOOL_ASSIGN_OR_RETURN(std::vector<ApiResource> resources,
                            DiscoverApiResources(client_, /*preferred_only=*/true));
  std::map<std::string, int> remaining;   // group/resource -> objects left
  std::map<std::string, int> finalizers;  // finalizer -> objects holding it
  for (const ApiResource& r : resources) {
    if (!r.namespaced || !r.Can("delete") || !r.Can("list")) continue;
    const std::string path = r.CollectionPath(ns);
    if (r.Can("deletecollection")) {
      (void)client_.DeleteResult(path);
    } else if (auto list = client_.List(path); list.ok()) {
      for (const json& o : Member(*list, "items")) {
        (void)client_.DeleteResult(path + "/" + Str(Member(Meta(o), "name")));
      }
    }
    TIDEPOOL_ASSIGN_OR_RETURN(json left, client_.List(path));
    const json& items = Member(left, "items");
    if (!items.is_array() || items.empty()) continue;
    remaining[GroupResource(r)] = static_cast<int>(items.size());
    for (const json& o : items) {
      const json& f = Member(Meta(o), "finalizers");
      if (!f.is_array()) continue;
      for (const json& name : f) ++finalizers[Str(name)];
    }
  }
  json updated = namespace_object;
  json conditions = Conditions(remaining, finalizers);
  KeepTransitionTimes(Member(Member(namespace_object, "status"), "conditions"), conditions,
                      FormatRfc3339(clock_.Now()));
  if (Member(Member(namespace_object, "status"), "conditions") != conditions) {
    updated["status"]["conditions"] = conditions;
    TIDEPOOL_RETURN_IF_ERROR(
        client_.Update("/api/v1/namespaces/" + ns + "/status", updated).status());
  }
  return !remaining.empty();
}

Status NamespaceController::Finalize(const json& namespace_object) {
  json updated = namespace_object;
  json kept = json::array();
  for (const json& f : Member(Member(namespace_object, "spec"), "finalizers")) {
    if (Str(f) != kFinalizer) kept.push_back(f);
  }
  updated["spec"]["finalizers"] = kept;
  updated["metadata"].erase("resourceVersion");  // the status write came after the read
  const std::string name = Str(Member(Meta(namespace_object), "name"));
  return client_.Update("/api/v1/namespaces/" + name + "/finalize", updated).status();
}

}  // namespace tidepool::controllers::ns
