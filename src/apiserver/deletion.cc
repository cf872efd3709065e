#include "apiserver/deletion.h"

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "apiserver/json_members.h"

namespace tidepool::apiserver {
namespace {

using nlohmann::json;

std::optional<int64_t> Int(const json& j, std::string_view key) {
  const json* x = Member(j, key);
  if (x == nullptr || !x->is_number_integer()) return std::nullopt;
  return x->get<int64_t>();
}

bool IsPods(const Resource& r) { return r.group.empty() && r.resource == "pods"; }

// Go's %#v of a *T: "(*int64)(nil)" or an address (any address: none is meaningful here).
std::string GoPointer(const char* type, bool set) {
  return std::string("(*") + type + ")(" + (set ? "0xc000010000" : "nil") + ")";
}

// %#v of the DeleteOptions, the value kube's field error quotes.
std::string GoDeleteOptions(const DeleteOptions& o) {
  return "v1.DeleteOptions{TypeMeta:v1.TypeMeta{Kind:\"\", APIVersion:\"\"}, GracePeriodSeconds:" +
         GoPointer("int64", o.grace_period_seconds.has_value()) +
         ", Preconditions:" +
         GoPointer("v1.Preconditions",
                   o.precondition_uid.has_value() || o.precondition_resource_version.has_value()) +
         ", OrphanDependents:" + GoPointer("bool", o.orphan_dependents.has_value()) +
         ", PropagationPolicy:" +
         GoPointer("v1.DeletionPropagation", o.propagation_policy.has_value()) +
         ", DryRun:" + (o.dry_run ? "[]string{\"All\"}" : "[]string(nil)") +
         ", IgnoreStoreReadErrorWithClusterBreakingPotential:(*bool)(nil)}";
}

// BeforeDelete's early precondition check (Conflict on "<Kind>.<group>").
Status CheckPreconditions(const Resource& r, const json& meta, std::string_view name,
                          const DeleteOptions& o, int64_t resource_version) {
  const std::string on = "Operation cannot be fulfilled on " + r.kind +
                         (r.group.empty() ? "" : "." + r.group) + " \"" + std::string(name) +
                         "\": ";
  const std::string uid = meta.value("uid", "");
  if (o.precondition_uid && *o.precondition_uid != uid) {
    return Status(StatusCode::kAborted,
                  on + "the UID in the precondition (" + *o.precondition_uid +
                      ") does not match the UID in record (" + uid +
                      "). The object might have been deleted and then recreated");
  }
  const std::string rv = std::to_string(resource_version);
  if (o.precondition_resource_version && *o.precondition_resource_version != rv) {
    return Status(StatusCode::kAborted,
                  on + "the ResourceVersion in the precondition (" +
                      *o.precondition_resource_version +
                      ") does not match the ResourceVersion in record (" + rv +
                      "). The object might have been modified");
  }
  return Status::Ok();
}

std::vector<std::string> Finalizers(const json& meta) {
  std::vector<std::string> out;
  if (const json* f = Member(meta, "finalizers"); f != nullptr && f->is_array()) {
    for (const json& x : *f) {
      if (x.is_string()) out.push_back(x.get<std::string>());
    }
  }
  return out;
}

// shouldOrphanDependents / shouldDeleteDependents, in their order of precedence.
bool ShouldOrphan(GcPolicy policy, const std::vector<std::string>& finalizers,
                  const DeleteOptions& o) {
  if (policy == GcPolicy::kUnsupported) return false;
  if (o.orphan_dependents) return *o.orphan_dependents;
  if (o.propagation_policy) {
    if (*o.propagation_policy == "Orphan") return true;
    if (*o.propagation_policy == "Background" || *o.propagation_policy == "Foreground") return false;
  }
  for (const std::string& f : finalizers) {
    if (f == kOrphanFinalizer) return true;
    if (f == kForegroundFinalizer) return false;
  }
  return policy == GcPolicy::kOrphanDependents;
}

bool ShouldDeleteDependents(GcPolicy policy, const std::vector<std::string>& finalizers,
                            const DeleteOptions& o) {
  if (policy == GcPolicy::kUnsupported) return false;
  if (o.orphan_dependents) return false;
  if (o.propagation_policy) {
    if (*o.propagation_policy == "Foreground") return true;
    if (*o.propagation_policy == "Background" || *o.propagation_policy == "Orphan") return false;
  }
  for (const std::string& f : finalizers) {
    if (f == kForegroundFinalizer) return true;
    if (f == kOrphanFinalizer) return false;
  }
  return false;
}

// deletionFinalizersForGarbageCollection: the GC's two finalizers as the options say; the
// others kept in order. Writes them only when the set changes.
void UpdateGcFinalizers(const Resource& r, json& meta, const DeleteOptions& o) {
  const std::vector<std::string> old = Finalizers(meta);
  const GcPolicy policy = DefaultGarbageCollectionPolicy(r);
  std::vector<std::string> next;
  for (const std::string& f : old) {
    if (f != kOrphanFinalizer && f != kForegroundFinalizer) next.push_back(f);
  }
  if (ShouldOrphan(policy, old, o)) next.emplace_back(kOrphanFinalizer);
  if (ShouldDeleteDependents(policy, old, o)) next.emplace_back(kForegroundFinalizer);
  std::vector<std::string> a = old, b = next;
  std::sort(a.begin(), a.end());
  a.erase(std::unique(a.begin(), a.end()), a.end());
  std::sort(b.begin(), b.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  if (a == b) return;
  if (next.empty()) {
    meta.erase("finalizers");
  } else {
    meta["finalizers"] = next;
  }
}

// The pod strategy's CheckGracefulDelete: the grace period this deletion gets.
int64_t PodGracePeriod(const json& pod, const DeleteOptions& o) {
  int64_t period = 30;
  if (o.grace_period_seconds) {
    period = *o.grace_period_seconds;
  } else if (const json* spec = Member(pod, "spec")) {
    if (auto t = Int(*spec, "terminationGracePeriodSeconds")) period = *t;
  }
  const std::string phase = Str(pod, "status", "phase");
  if (Str(pod, "spec", "nodeName").empty() || phase == "Succeeded" || phase == "Failed") period = 0;
  if (period < 0) period = 1;
  return period;
}

// What the deletion's read-modify-write decided.
enum class Decision { kUpdate, kDeleteNow, kAlreadyDeleting };

}  // namespace

DeleteOptions DeleteOptionsFromJson(const json& options) {
  DeleteOptions o;
  o.grace_period_seconds = Int(options, "gracePeriodSeconds");
  if (const json* p = Member(options, "propagationPolicy"); p != nullptr && p->is_string()) {
    o.propagation_policy = p->get<std::string>();
  }
  if (const json* p = Member(options, "orphanDependents"); p != nullptr && p->is_boolean()) {
    o.orphan_dependents = p->get<bool>();
  }
  if (const json* pre = Member(options, "preconditions"); pre != nullptr && pre->is_object()) {
    if (const json* u = Member(*pre, "uid"); u != nullptr && u->is_string()) {
      o.precondition_uid = u->get<std::string>();
    }
    if (const json* v = Member(*pre, "resourceVersion"); v != nullptr && v->is_string()) {
      o.precondition_resource_version = v->get<std::string>();
    }
  }
  if (const json* d = Member(options, "dryRun"); d != nullptr && d->is_array()) {
    for (const json& v : *d) {
      if (v.is_string() && v.get<std::string>() == "All") o.dry_run = true;
    }
  }
  return o;
}

std::string ValidateDeleteOptions(const DeleteOptions& o) {
  std::vector<std::string> errs;
  const std::string value = ": Invalid value: " + GoDeleteOptions(o) + ": ";
  if (o.orphan_dependents && o.propagation_policy) {
    errs.push_back(value + "OrphanDependents and DeletionPropagation cannot be both set");
  }
  if (o.propagation_policy && *o.propagation_policy != "Foreground" &&
      *o.propagation_policy != "Background" && *o.propagation_policy != "Orphan") {
    errs.push_back(value +
                   "DeletionPropagation need to be one of \"Foreground\", \"Background\", "
                   "\"Orphan\" or nil");
  }
  if (errs.empty()) return "";
  std::string msg = "DeleteOptions.meta.k8s.io \"\" is invalid: ";
  if (errs.size() == 1) return msg + errs[0];
  msg += "[";
  for (size_t i = 0; i < errs.size(); ++i) msg += (i ? ", " : "") + errs[i];
  return msg + "]";
}

GcPolicy DefaultGarbageCollectionPolicy(const Resource& r) {
  if (r.resource == "events" && (r.group.empty() || r.group == "events.k8s.io")) {
    return GcPolicy::kUnsupported;
  }
  // jobStrategy: OrphanDependents for batch/v1, "for backwards compatibility".
  if (r.group == "batch" && r.version == "v1" && r.resource == "jobs") {
    return GcPolicy::kOrphanDependents;
  }
  return GcPolicy::kDeleteDependents;
}

bool ReturnsDeletedObject(const Resource& r) {
  if (r.custom != nullptr) return false;
  if (r.group.empty()) {
    static const std::set<std::string, std::less<>> kCore = {
        "pods",           "services",          "serviceaccounts",       "podtemplates",
        "resourcequotas", "persistentvolumes", "persistentvolumeclaims"};
    return kCore.count(r.resource) != 0;
  }
  if (r.group == "storage.k8s.io") {
    return r.resource == "storageclasses" || r.resource == "csidrivers" ||
           r.resource == "csinodes" || r.resource == "volumeattachments";
  }
  return false;
}

StatusOr<DeleteResult> DeleteObject(ObjectStore& store, const Resource& r, std::string_view ns,
                                    std::string_view name, const DeleteOptions& options,
                                    TimePoint now, const std::string& origin) {
  if (std::string invalid = ValidateDeleteOptions(options); !invalid.empty()) {
    return Status(StatusCode::kInvalidArgument, invalid);
  }
  const ObjectStore::WriteOptions wopts{origin, options.dry_run};
  Decision decision = Decision::kUpdate;
  bool pending_finalizers = false;
  int64_t last_graceful = 0;
  auto up = store.Update(
      r, ns, name,
      [&](const StoredObject* cur) -> StatusOr<json> {
        json obj = cur->Parse();
        json& meta = obj["metadata"];
        TIDEPOOL_RETURN_IF_ERROR(
            CheckPreconditions(r, meta, name, options, cur->resource_version));
        const json* ts = Member(meta, "deletionTimestamp");
        const bool deleting = ts != nullptr && ts->is_string();
        const std::optional<int64_t> cur_grace = Int(meta, "deletionGracePeriodSeconds");
        bool graceful = false;
        if (IsPods(r)) {
          // rest.BeforeDelete with the pod strategy.
          if (deleting && cur_grace && *cur_grace > 0) {
            if (!options.grace_period_seconds) {
              decision = Decision::kAlreadyDeleting;
              return Status(StatusCode::kCancelled, "");
            }
            // A negative grace period is 1 s on the delete path.
            const int64_t g = std::max<int64_t>(*options.grace_period_seconds, 0) ==
                                      *options.grace_period_seconds
                                  ? *options.grace_period_seconds
                                  : 1;
            if (g >= *cur_grace) {
              decision = Decision::kAlreadyDeleting;
              return Status(StatusCode::kCancelled, "");
            }
            auto at = ParseRfc3339(ts->get<std::string>());
            const TimePoint base = at.ok() ? *at - std::chrono::seconds(*cur_grace) : now;
            meta["deletionTimestamp"] = FormatRfc3339(base + std::chrono::seconds(g));
            meta["deletionGracePeriodSeconds"] = g;
            graceful = true;
            last_graceful = g;
          } else if (!deleting) {
            const int64_t g = PodGracePeriod(obj, options);
            meta["deletionTimestamp"] = FormatRfc3339(now + std::chrono::seconds(g));
            meta["deletionGracePeriodSeconds"] = g;
            graceful = true;
            last_graceful = g;
          }
        }
        UpdateGcFinalizers(r, meta, options);
        pending_finalizers = !Finalizers(meta).empty();
        if (graceful && (pending_finalizers || last_graceful > 0)) return obj;
        if (!pending_finalizers) {
          decision = Decision::kDeleteNow;
          return Status(StatusCode::kCancelled, "");
        }
        // markAsDeleting: deletionTimestamp now (an earlier one kept), grace period 0.
        bool later = !deleting;
        if (deleting) {
          auto at = ParseRfc3339(ts->get<std::string>());
          later = !at.ok() || *at > now;
        }
        if (later) meta["deletionTimestamp"] = FormatRfc3339(now);
        meta["deletionGracePeriodSeconds"] = 0;
        return obj;
      },
      wopts);
  if (decision == Decision::kAlreadyDeleting) {
    TIDEPOOL_ASSIGN_OR_RETURN(ObjectPtr cur, store.Get(r, ns, name));
    return DeleteResult{cur, false};
  }
  if (decision == Decision::kUpdate) {
    if (!up.ok()) return up.status();
    if (up->deleted) return DeleteResult{up->object, true};
    if (pending_finalizers || last_graceful > 0) return DeleteResult{up->object, false};
    // A pod's graceless deletion that had nothing pending (not reached: kDeleteNow first).
  }
  TIDEPOOL_ASSIGN_OR_RETURN(
      ObjectPtr last, store.Delete(r, ns, name, wopts, options.precondition_uid,
                                   options.precondition_resource_version));
  return DeleteResult{last, true};
}

}  // namespace tidepool::apiserver
