// The Priority admission plugin (plugin/pkg/admission/priority, kube-apiserver 1.32).
#include <cstdint>

#include "apiserver/handlers/handler.h"
#include "apiserver/validation/defaults.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

const Resource& PriorityClassResource() {
  static const Resource* r = FindResource("scheduling.k8s.io", "v1", "priorityclasses");
  return *r;
}

// getDefaultPriorityClass: the globalDefault class of the lowest value (more than one can
// exist after a race), or null.
ObjectPtr DefaultClass(const std::vector<ObjectPtr>& classes) {
  ObjectPtr best;
  for (const ObjectPtr& o : classes) {
    const json& v = o->view;
    if (!v.value("globalDefault", false)) continue;
    if (best == nullptr || best->view.value("value", int64_t{0}) > v.value("value", int64_t{0})) {
      best = o;
    }
  }
  return best;
}

ObjectPtr Find(const std::vector<ObjectPtr>& classes, const std::string& name) {
  for (const ObjectPtr& o : classes) {
    if (o->view["metadata"].value("name", "") == name) return o;
  }
  return nullptr;
}

}  // namespace

std::vector<ObjectPtr> PriorityClasses(const ObjectStore& store, const Resource& res,
                                       std::string_view subresource) {
  const Resource& r = StorageOf(res);
  const bool needed =
      subresource.empty() && ((r.group.empty() && r.resource == "pods") ||
                              (r.group == "scheduling.k8s.io" && r.resource == "priorityclasses"));
  if (!needed) return {};
  return store.List(PriorityClassResource(), "").items;
}

std::string AdmissionName(const json& obj, const std::string& name) {
  if (!name.empty()) return name;
  const std::string generate = Str(obj, "metadata", "generateName");
  return generate.empty() ? "Unknown" : generate;
}

ApiError AdmissionForbidden(const Resource& res, const json& obj, const std::string& name,
                            const std::string& why) {
  const std::string shown = AdmissionName(obj, name);
  return {403, "Forbidden", ObjectStore::Qualified(res, shown) + " is forbidden: " + why,
          Details(&res, shown)};
}

std::optional<ApiError> AdmitPodPriority(const Resource& res, const std::vector<ObjectPtr>& classes,
                                         json& pod, const json* old, const std::string& name) {
  json* spec = pod.is_object() ? validation::ObjectMember(&pod, "spec") : nullptr;
  if (spec == nullptr) return std::nullopt;  // validation answers
  if (old != nullptr) {
    // Set on create; kept when an update leaves them out (validation refuses a change).
    const json* old_spec = Member(*old, "spec");
    for (const char* field : {"priority", "preemptionPolicy"}) {
      const json* was = old_spec != nullptr ? Member(*old_spec, field) : nullptr;
      if (was != nullptr && !spec->contains(field)) (*spec)[field] = *was;
    }
    return std::nullopt;
  }
  int64_t priority = 0;  // DefaultPriorityWhenNoDefaultClassExists
  json policy = "PreemptLowerPriority";
  const std::string class_name = Str(*spec, "priorityClassName");
  if (class_name.empty()) {
    if (ObjectPtr d = DefaultClass(classes)) {
      (*spec)["priorityClassName"] = d->view["metadata"].value("name", "");
      priority = d->view.value("value", int64_t{0});
      policy = d->view.value("preemptionPolicy", json());
    }
  } else {
    ObjectPtr pc = Find(classes, class_name);
    if (pc == nullptr) {
      return AdmissionForbidden(res, pod, name,
                                "no PriorityClass with name " + class_name + " was found");
    }
    priority = pc->view.value("value", int64_t{0});
    policy = pc->view.value("preemptionPolicy", json());
  }
  if (const json* given = Member(*spec, "priority");
      given != nullptr && given->is_number_integer() && given->get<int64_t>() != priority) {
    return AdmissionForbidden(
        res, pod, name,
        "the integer value of priority (" + std::to_string(given->get<int64_t>()) +
            ") must not be provided in pod spec; priority admission controller computed " +
            std::to_string(priority) + " from the given PriorityClass name");
  }
  (*spec)["priority"] = priority;
  if (policy.is_string()) {
    if (const json* given = Member(*spec, "preemptionPolicy");
        given != nullptr && given->is_string() && *given != policy) {
      return AdmissionForbidden(
          res, pod, name,
          "the string value of PreemptionPolicy (" + given->get<std::string>() +
              ") must not be provided in pod spec; priority admission controller computed " +
              policy.get<std::string>() + " from the given PriorityClass name");
    }
    (*spec)["preemptionPolicy"] = policy;
  }
  return std::nullopt;
}

std::optional<ApiError> AdmitPriorityClass(const Resource& res,
                                           const std::vector<ObjectPtr>& classes, const json& pc,
                                           bool create) {
  if (!pc.is_object() || !pc.value("globalDefault", false)) return std::nullopt;
  ObjectPtr d = DefaultClass(classes);
  if (d == nullptr) return std::nullopt;
  const std::string name = Str(pc, "metadata", "name");
  const std::string default_name = d->view["metadata"].value("name", "");
  if (!create && default_name == name) return std::nullopt;
  return AdmissionForbidden(res, pc, name,
                            "PriorityClass " + default_name +
                                " is already marked as default. Only one default can exist");
}

}  // namespace tidepool::apiserver::handlers
