#include "controllers/history/controller_history.h"

#include <algorithm>
#include <tuple>

#include "apiserver/json_io.h"
#include "controllers/controller_ref.h"
#include "controllers/object_json.h"

namespace tidepool::controllers::history {

using nlohmann::json;

namespace {

constexpr size_t kMaxCreateAttempts = 100;  // kcm's loop has no bound; a guard against a bug
constexpr int kUpdateAttempts = 5;          // retry.DefaultBackoff's steps

std::string RevisionsPath(const std::string& ns, const std::string& name = "") {
  return client::ResourcePath("apps", "v1", "controllerrevisions", ns, name);
}

uint32_t Fnv32(std::string_view s, bool one_a) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) {
    if (one_a) {
      h ^= c;
      h *= 16777619u;
    } else {
      h *= 16777619u;
      h ^= c;
    }
  }
  return h;
}

// The hash label as strconv.ParseInt(.., 10, 32) reads it, when it does.
std::optional<int64_t> NumericHash(const json& cr) {
  const std::string h = Str(Member(Member(Meta(cr), "labels"), kHashLabel));
  if (h.empty() || h.size() > 11) return std::nullopt;
  size_t i = h[0] == '-' || h[0] == '+' ? 1 : 0;
  if (i == h.size()) return std::nullopt;
  for (size_t k = i; k < h.size(); ++k) {
    if (h[k] < '0' || h[k] > '9') return std::nullopt;
  }
  const int64_t v = std::stoll(h);
  if (v < INT32_MIN || v > INT32_MAX) return std::nullopt;
  return v;
}

}  // namespace

std::string SafeEncode(uint32_t sum) {
  static constexpr std::string_view kAlphanums = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (char d : std::to_string(sum))
    out += kAlphanums[static_cast<unsigned char>(d) % kAlphanums.size()];
  return out;
}

std::string ComputeHash(const json& pod_template, std::optional<int32_t> collision_count) {
  std::string text = apiserver::json_io::Dump(pod_template);
  if (collision_count.has_value()) {
    const uint32_t c = static_cast<uint32_t>(*collision_count);
    const char bytes[8] = {static_cast<char>(c & 0xff),
                           static_cast<char>((c >> 8) & 0xff),
                           static_cast<char>((c >> 16) & 0xff),
                           static_cast<char>((c >> 24) & 0xff),
                           0,
                           0,
                           0,
                           0};
    text.append(bytes, 8);
  }
  return SafeEncode(Fnv32(text, /*one_a=*/true));
}

json TemplatePatch(const json& parent) {
  json tmpl = Member(Member(parent, "spec"), "template");
  if (!tmpl.is_object()) tmpl = json::object();
  tmpl["$patch"] = "replace";
  return {{"spec", {{"template", std::move(tmpl)}}}};
}

std::string HashRevision(const json& data, std::optional<int32_t> probe) {
  std::string text = data.is_null() ? "" : apiserver::json_io::GoMarshal(data);
  if (probe.has_value()) text += std::to_string(*probe);
  return SafeEncode(Fnv32(text, /*one_a=*/false));
}

std::string RevisionName(std::string_view prefix, std::string_view hash) {
  return std::string(prefix.substr(0, 223)) + "-" + std::string(hash);
}

json NewRevision(const json& parent, const json& controller_ref, const json& template_labels,
                 json data, int64_t revision, std::optional<int32_t> collision_count) {
  const std::string hash = HashRevision(data, collision_count);
  json labels = template_labels.is_object() ? template_labels : json::object();
  labels[kHashLabel] = hash;
  json meta = {{"name", RevisionName(Str(Member(Meta(parent), "name")), hash)},
               {"namespace", Member(Meta(parent), "namespace")},
               {"labels", std::move(labels)},
               {"ownerReferences", json::array({controller_ref})}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "ControllerRevision"},
          {"metadata", std::move(meta)},
          {"data", std::move(data)},
          {"revision", revision}};
}

int64_t RevisionOf(const json& cr) {
  const json& r = Member(cr, "revision");
  return r.is_number_integer() ? r.get<int64_t>() : 0;
}

void SortByRevision(std::vector<client::ObjectRef>* revisions) {
  auto key = [](const client::ObjectRef& cr) {
    const std::optional<TimePoint> t = TimeOf(Member(Meta(*cr), "creationTimestamp"));
    return std::make_tuple(RevisionOf(*cr), t.value_or(TimePoint{}),
                           Str(Member(Meta(*cr), "name")));
  };
  std::stable_sort(
      revisions->begin(), revisions->end(),
      [&](const client::ObjectRef& a, const client::ObjectRef& b) { return key(a) < key(b); });
}

bool EqualRevision(const json& a, const json& b) {
  const std::optional<int64_t> ha = NumericHash(a), hb = NumericHash(b);
  if (ha.has_value() && hb.has_value() && *ha != *hb) return false;
  return Member(a, "data") == Member(b, "data");
}

json TemplateOf(const json& cr) {
  json tmpl = Member(Member(Member(cr, "data"), "spec"), "template");
  if (tmpl.is_object()) tmpl.erase("$patch");
  return tmpl;
}

History::History(const client::RestClient& client, const Clock& clock,
                 client::SharedInformerFactory* informers, uint64_t seed, log::Logger* logger,
                 Handler on_change)
    : client_(client) {
  client::InformerOptions options;
  options.path = "/apis/apps/v1/controllerrevisions";
  options.name = "controllerrevisions";
  options.seed = seed;
  revisions_ = client::MakeInformer(informers, client_, clock, options, logger);
  // kcm's addHistory / updateHistory / deleteHistory: an update that changes nothing (a
  // relist) is skipped; one that moves the revision to another controller tells the old one too.
  revisions_->AddEventHandlers(
      {[this, on_change](const client::ObjectRef& o, bool) {
         Index(o);
         if (on_change) on_change(*o);
       },
       [this, on_change](const client::ObjectRef& old_obj, const client::ObjectRef& o) {
         if (old_obj != nullptr && Str(Member(Meta(*old_obj), "resourceVersion")) ==
                                       Str(Member(Meta(*o), "resourceVersion"))) {
           return;
         }
         Index(o);
         if (!on_change) return;
         on_change(*o);
         const json* before = old_obj != nullptr ? ControllerOf(*old_obj) : nullptr;
         const json* now = ControllerOf(*o);
         if (before != nullptr &&
             (now == nullptr || Member(*before, "uid") != Member(*now, "uid"))) {
           on_change(*old_obj);
         }
       },
       [this, on_change](const client::ObjectRef& o, bool) {
         Unindex(client::Informer::KeyOf(*o));
         if (on_change) on_change(*o);
       }});
}

void History::Index(const client::ObjectRef& cr) {
  const std::string key = client::Informer::KeyOf(*cr);
  std::string owner;
  if (const json* ref = ControllerOf(*cr)) owner = Str(Member(*ref, "uid"));
  const std::string ns = Str(Member(Meta(*cr), "namespace"));
  std::lock_guard<std::mutex> lock(mu_);
  UnindexLocked(key);
  owner_of_[key] = owner;
  if (owner.empty()) {
    orphans_[ns].insert(key);
  } else {
    by_owner_[owner].insert(key);
  }
}

void History::Unindex(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  UnindexLocked(key);
}

void History::UnindexLocked(const std::string& key) {
  auto it = owner_of_.find(key);
  if (it == owner_of_.end()) return;
  const bool orphan = it->second.empty();
  auto& index = orphan ? orphans_ : by_owner_;
  const std::string bucket = orphan ? key.substr(0, key.find('/')) : it->second;
  if (auto b = index.find(bucket); b != index.end()) {
    b->second.erase(key);
    if (b->second.empty()) index.erase(b);
  }
  owner_of_.erase(it);
}

StatusOr<std::vector<client::ObjectRef>> History::Controlled(
    const json& parent, const api::LabelSelector& selector, const json& controller_ref,
    const std::function<Status()>& can_adopt) const {
  const json& m = Meta(parent);
  const std::string ns = Str(Member(m, "namespace")), uid = Str(Member(m, "uid"));
  std::vector<std::string> owned, orphans;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = by_owner_.find(uid); it != by_owner_.end()) {
      owned.assign(it->second.begin(), it->second.end());
    }
    if (auto it = orphans_.find(ns); it != orphans_.end()) {
      orphans.assign(it->second.begin(), it->second.end());
    }
  }
  // ClaimObject, by each object's own controllerRef (the index may lag the informer's cache).
  const bool deleting = !Member(m, "deletionTimestamp").is_null();
  Status failure;
  auto note = [&failure](const Status& s) {
    if (!s.ok() && s.code() != StatusCode::kNotFound && failure.ok()) failure = s;
  };
  std::vector<client::ObjectRef> out;
  for (const std::string& key : owned) {
    client::ObjectRef cr = revisions_->Get(key);
    if (cr == nullptr) continue;
    const json* ref = ControllerOf(*cr);
    if (ref == nullptr || Str(Member(*ref, "uid")) != uid) continue;
    if (!selector.Matches(LabelsOf(Member(Meta(*cr), "labels")))) {
      // No longer selected: released, unless the parent is going (then only ignored).
      if (!deleting) {
        note(ReleaseObject(client_, RevisionsPath(ns, Str(Member(Meta(*cr), "name"))),
                           Str(Member(Meta(*cr), "uid")), uid));
      }
      continue;
    }
    out.push_back(std::move(cr));
  }
  if (!deleting && !selector.Empty()) {
    bool rechecked = false;
    for (const std::string& key : orphans) {
      client::ObjectRef cr = revisions_->Get(key);
      if (cr == nullptr || ControllerOf(*cr) != nullptr) continue;
      if (!Member(Meta(*cr), "deletionTimestamp").is_null()) continue;
      if (!selector.Matches(LabelsOf(Member(Meta(*cr), "labels")))) continue;
      if (!rechecked && can_adopt) {  // RecheckDeletionTimestamp, once, before the first
        TIDEPOOL_RETURN_IF_ERROR(can_adopt());
      }
      rechecked = true;
      const Status adopted = AdoptObject(client_, RevisionsPath(ns, Str(Member(Meta(*cr), "name"))),
                                         Str(Member(Meta(*cr), "uid")), controller_ref);
      note(adopted);
      if (!adopted.ok()) continue;
      json copy = *cr;
      json& refs = copy["metadata"]["ownerReferences"];
      if (!refs.is_array()) refs = json::array();
      refs.push_back(controller_ref);
      out.push_back(std::make_shared<const json>(std::move(copy)));
    }
  }
  if (!failure.ok()) return failure;
  return out;
}

StatusOr<json> History::CreateOrFindEqual(const json& revision) const {
  const json& m = Meta(revision);
  const std::string ns = Str(Member(m, "namespace"));
  StatusOr<json> created = client_.Create(RevisionsPath(ns), revision);
  if (created.ok() || created.status().code() != StatusCode::kAlreadyExists) return created;
  StatusOr<json> existing = client_.Get(RevisionsPath(ns, Str(Member(m, "name"))));
  if (!existing.ok()) return existing.status();
  if (Member(*existing, "data") == Member(revision, "data")) return existing;
  return created;
}

StatusOr<json> History::Create(const json& parent, const json& revision,
                               int32_t* collision_count) const {
  const std::string prefix = Str(Member(Meta(parent), "name"));
  json clone = revision;
  clone["metadata"]["namespace"] = Member(Meta(parent), "namespace");
  for (size_t attempt = 0; attempt < kMaxCreateAttempts; ++attempt) {
    clone["metadata"]["name"] =
        RevisionName(prefix, HashRevision(Member(revision, "data"), *collision_count));
    StatusOr<json> found = CreateOrFindEqual(clone);
    if (found.ok() || found.status().code() != StatusCode::kAlreadyExists) return found;
    ++*collision_count;
  }
  return InternalError("no free ControllerRevision name for " + prefix);
}

StatusOr<json> History::UpdateRevision(const json& cr, int64_t revision) const {
  json clone = cr;
  const std::string path =
      RevisionsPath(Str(Member(Meta(cr), "namespace")), Str(Member(Meta(cr), "name")));
  for (int attempt = 0;; ++attempt) {
    if (RevisionOf(clone) == revision) return clone;
    clone["revision"] = revision;
    StatusOr<json> updated = client_.Update(path, clone);
    if (updated.ok() || updated.status().code() != StatusCode::kAborted ||
        attempt + 1 >= kUpdateAttempts) {
      return updated;
    }
    StatusOr<json> fresh = client_.Get(path);  // a conflict: read the latest and try again
    if (!fresh.ok()) return fresh.status();
    clone = *std::move(fresh);
  }
}

Status History::Delete(const json& cr) const {
  Status s =
      client_
          .Delete(RevisionsPath(Str(Member(Meta(cr), "namespace")), Str(Member(Meta(cr), "name"))))
          .status();
  return s.code() == StatusCode::kNotFound ? OkStatus() : s;
}

}  // namespace tidepool::controllers::history
