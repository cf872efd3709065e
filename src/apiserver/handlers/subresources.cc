#include <algorithm>

#include "apiserver/admission.h"
#include "apiserver/binding.h"
#include "apiserver/crd/registry.h"
#include "apiserver/deletion.h"
#include "apiserver/eviction.h"
#include "apiserver/handlers/handler.h"
#include "apiserver/patch/json_patch.h"
#include "apiserver/patch/server_side_apply.h"
#include "apiserver/scale.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

// ---- pods/log -----------------------------------------------------------------------------------

// The container whose log a request for pod `p` (named `pod`) reads into `container`:
// ?container=, else the pod's default-container annotation, else its only container. An error
// when none is named, the name is not the pod's, or the container has not started.
std::optional<ApiError> LogContainer(const json& p, const http::HttpRequest& req,
                                     const std::string& pod, std::string& container) {
  std::vector<std::string> names;
  const json* spec = Member(p, "spec");
  if (const json* cs = spec ? Member(*spec, "containers") : nullptr; cs && cs->is_array()) {
    for (const json& c : *cs) names.push_back(c.value("name", ""));
  }
  container = req.Query("container");
  if (container.empty()) {
    const json* meta = Member(p, "metadata");
    const json* ann = meta ? Member(*meta, "annotations") : nullptr;
    if (ann && ann->contains("kubectl.kubernetes.io/default-container")) {
      container = (*ann)["kubectl.kubernetes.io/default-container"].get<std::string>();
    } else if (names.size() == 1) {
      container = names[0];
    } else {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : " ") + n;
      return ApiError{
          400, "BadRequest",
          "a container name must be specified for pod " + pod + ", choose one of: [" + list + "]",
          json()};
    }
  }
  if (std::find(names.begin(), names.end(), container) == names.end()) {
    return ApiError{400, "BadRequest", "container " + container + " is not valid for pod " + pod,
                    json()};
  }
  // A container that has not started has no log yet.
  bool started = false;
  const json* status = Member(p, "status");
  if (const json* cs = status ? Member(*status, "containerStatuses") : nullptr;
      cs && cs->is_array()) {
    for (const json& c : *cs) {
      if (c.value("name", "") != container) continue;
      const json* st = Member(c, "state");
      started = st && (st->contains("running") || st->contains("terminated"));
      if (!started && st && st->contains("waiting")) {
        return ApiError{
            400, "BadRequest",
            "container \"" + container + "\" in pod \"" + pod +
                "\" is waiting to start: " + (*st)["waiting"].value("reason", "ContainerCreating"),
            json()};
      }
    }
  }
  if (!started) {
    return ApiError{400, "BadRequest",
                    "container \"" + container + "\" in pod \"" + pod +
                        "\" is waiting to start: ContainerCreating",
                    json()};
  }
  return std::nullopt;
}

// ---- pods/eviction and pods/binding -------------------------------------------------------------

// DeleteOptions.dryRun names "All": the request is a dry run (as ?dryRun=All).
bool DryRunAll(const json& options) {
  const json* d = Member(options, "dryRun");
  if (d == nullptr || !d->is_array()) return false;
  for (const json& v : *d) {
    if (v.is_string() && v.get<std::string>() == "All") return true;
  }
  return false;
}

// The Status an accepted eviction or binding answers (201 Success).
void SendCreatedStatus(http::ResponseWriter& w) {
  SendJson(w, 201,
           {{"kind", "Status"},
            {"apiVersion", "v1"},
            {"metadata", json::object()},
            {"status", "Success"},
            {"code", 201}});
}

// ---- scale --------------------------------------------------------------------------------------

// ValidateScale's refusal: 422 Invalid on Scale.autoscaling.
ApiError InvalidScale(const std::string& name, const api::FieldErrors& errors) {
  ApiError e;
  e.code = 422;
  e.reason = "Invalid";
  e.message = "Scale.autoscaling \"" + name + "\" is invalid: " + api::AggregateMessage(errors);
  json causes = json::array();
  for (const api::FieldError& f : errors) {
    std::string full = f.ToString();
    full = full.substr(std::min(full.size(), f.field.size() + 2));
    causes.push_back({{"reason", CauseReason(f.type)}, {"message", full}, {"field", f.field}});
  }
  e.details = {{"name", name}, {"group", "autoscaling"}, {"kind", "Scale"}, {"causes", causes}};
  return e;
}

}  // namespace

std::optional<json> PostedObject(Context& c) {
  if (c.method != "POST") {
    SendError(c.w, MethodNotAllowed(c.method));
    return std::nullopt;
  }
  auto body = ParseBody(c.req);
  if (!body.ok()) {
    c.Fail(body.status());
    return std::nullopt;
  }
  if (!body->is_object()) {
    SendError(c.w, NotAnObject());
    return std::nullopt;
  }
  return std::move(body).value();
}

namespace {

// An integer query parameter; nullopt when absent, an error when it does not parse.
std::optional<ApiError> IntQuery(const http::HttpRequest& req, const char* name,
                                 std::optional<int64_t>& out) {
  if (!req.HasQuery(name)) return std::nullopt;
  try {
    size_t used = 0;
    const std::string v = req.Query(name);
    out = std::stoll(v, &used);
    if (used != v.size()) throw std::invalid_argument(v);
  } catch (...) {
    return ApiError{400, "BadRequest", std::string("invalid ") + name, json()};
  }
  return std::nullopt;
}

// PodLogOptions from the query, with ValidatePodLogOptions' rules and texts (422 on
// PodLogOptions) - or the answer.
std::optional<ApiError> ReadLogOptions(const Context& c, LogReadOptions& o) {
  const http::HttpRequest& req = c.req;
  std::optional<int64_t> since_seconds;
  for (auto [name, field] :
       {std::pair{"tailLines", &o.tail_lines}, std::pair{"limitBytes", &o.limit_bytes},
        std::pair{"sinceSeconds", &since_seconds}}) {
    if (auto e = IntQuery(req, name, *field)) return e;
  }
  std::optional<TimePoint> since_time;
  if (req.HasQuery("sinceTime")) {
    auto t = ParseRfc3339(req.Query("sinceTime"));
    if (!t.ok()) return ApiError{400, "BadRequest", std::string(t.status().message()), json()};
    since_time = *t;
  }
  api::FieldErrors errors;
  if (o.tail_lines && *o.tail_lines < 0) {
    errors.push_back(api::FieldError::InvalidRaw("tailLines", std::to_string(*o.tail_lines),
                                                 "must be greater than or equal to 0"));
  }
  if (o.limit_bytes && *o.limit_bytes < 1) {
    errors.push_back(api::FieldError::InvalidRaw("limitBytes", std::to_string(*o.limit_bytes),
                                                 "must be greater than 0"));
  }
  if (since_seconds && since_time) {
    errors.push_back(api::FieldError::Forbidden(
        "", "at most one of `sinceTime` or `sinceSeconds` may be specified"));
  } else if (since_seconds && *since_seconds < 1) {
    errors.push_back(api::FieldError::InvalidRaw("sinceSeconds", std::to_string(*since_seconds),
                                                 "must be greater than 0"));
  }
  if (!errors.empty()) {
    ApiError e = Invalid(c.res, c.r.name, errors);
    const std::string prefix = "Pod \"";
    e.message = "PodLogOptions \"" + e.message.substr(prefix.size());
    e.details["kind"] = "PodLogOptions";
    return e;
  }
  if (since_seconds) o.since = c.clock.Now() - std::chrono::seconds(*since_seconds);
  if (since_time) o.since = since_time;
  o.timestamps = QueryBool(req, "timestamps");
  return std::nullopt;
}

// ?previous=true: the kubelet serves the last terminated instance of a container that
// restarted, else its 400. Emulated containers print nothing of their own, so a previous
// instance's log is empty.
std::optional<ApiError> PreviousLog(const json& pod, const std::string& name,
                                    const std::string& container) {
  const json* status = Member(pod, "status");
  const json* cs = status ? Member(*status, "containerStatuses") : nullptr;
  if (cs != nullptr && cs->is_array()) {
    for (const json& c : *cs) {
      if (c.value("name", "") != container) continue;
      const json* last = Member(c, "lastState");
      if (last != nullptr && last->is_object() && last->contains("terminated")) {
        return std::nullopt;
      }
    }
  }
  return ApiError{
      400, "BadRequest",
      "previous terminated container \"" + container + "\" in pod \"" + name + "\" not found",
      json()};
}

}  // namespace

void HandleLog(Context& c) {
  const http::HttpRequest& req = c.req;
  const ApiServer::Request& r = c.r;
  if (c.method != "GET") return SendError(c.w, MethodNotAllowed(c.method));
  LogReadOptions options;
  if (auto e = ReadLogOptions(c, options)) return SendError(c.w, *e);
  auto pod = c.store.Get(c.res, r.ns, r.name);
  if (!pod.ok()) return c.Fail(pod.status());
  const json p = (*pod)->Parse();
  std::string container;
  if (auto e = LogContainer(p, req, r.name, container)) return SendError(c.w, *e);
  http::ResponseWriter& w = c.w;
  if (QueryBool(req, "previous")) {
    if (auto e = PreviousLog(p, r.name, container)) return SendError(c.w, *e);
    return w.Send(200, "text/plain", "");
  }
  if (QueryBool(req, "follow")) {
    if (!w.StartStream(200, "text/plain")) return;
    c.logs.Follow(
        r.ns, r.name, container, options,
        [&](std::string_view chunk) { return w.WriteChunk(chunk); }, [&] { return w.Closed(); });
    w.EndStream();
    return;
  }
  w.Send(200, "text/plain", c.logs.Read(r.ns, r.name, container, options));
}

void HandleBinding(Context& c) {
  std::optional<json> body = PostedObject(c);
  if (!body) return;
  if (auto e = VersionKindTypeError(*body)) return SendError(c.w, *e);
  std::string bad_request;
  const api::FieldErrors errors = ValidateBinding(*body, c.r.name, &bad_request);
  if (!bad_request.empty()) return SendError(c.w, {400, "BadRequest", bad_request, json()});
  if (!errors.empty()) {
    const std::string m = api::AggregateMessage(errors);
    return SendError(c.w, {500,
                           "InternalError",
                           "Internal error occurred: " + m,
                           {{"causes", json::array({{{"message", m}}})}}});
  }
  auto pod = c.store.Get(c.res, c.r.ns, c.r.name);
  if (!pod.ok()) return c.Fail(pod.status());
  auto up = c.store.Update(
      c.res, c.r.ns, c.r.name,
      [&](const StoredObject* cur) -> StatusOr<json> {
        json next = cur->Parse();
        return AssignPod(std::move(next), *body, c.clock.Now());
      },
      c.wopts);
  if (!up.ok()) return c.Fail(up.status());
  SendCreatedStatus(c.w);
}

// The budgets that select the pod (eviction.h), then the pod is deleted as DELETE deletes it,
// with the eviction's options.
void HandleEviction(Context& c) {
  std::optional<json> body = PostedObject(c);
  if (!body) return;
  if (auto e = DecodeTyped("policy/v1", "Eviction", *body)) return SendError(c.w, *e);
  auto pod = c.store.Get(c.res, c.r.ns, c.r.name);
  if (!pod.ok()) return c.Fail(pod.status());
  const json p = (*pod)->Parse();
  // A dry run is asked in the query or in the eviction's deleteOptions (propagateDryRun).
  const json* delete_options = Member(*body, "deleteOptions");
  ObjectStore::WriteOptions eopts = c.wopts;
  if (delete_options != nullptr && DryRunAll(*delete_options)) eopts.dry_run = true;
  bool only_if_unchanged = false;
  std::string budget;
  if (!EvictionIgnoresBudgets(p)) {
    EvictionVerdict v = CheckEvictionBudgets(c.store, p, c.r.ns, eopts.dry_run, c.clock.Now());
    if (!v.allowed) return SendError(c.w, {v.code, v.reason, v.message, v.details});
    only_if_unchanged = v.only_if_unchanged;
    budget = v.pdb_name;
  }
  const std::optional<std::string> rv =
      only_if_unchanged ? std::optional<std::string>(std::to_string((*pod)->resource_version))
                        : std::nullopt;
  // Deleted as DELETE deletes it, with the eviction's options (a precondition on the
  // resourceVersion read when the budget check needs the pod unchanged).
  DeleteOptions o = delete_options != nullptr && delete_options->is_object()
                        ? DeleteOptionsFromJson(*delete_options)
                        : DeleteOptions{};
  if (eopts.dry_run) o.dry_run = true;
  if (rv) o.precondition_resource_version = rv;
  const Status st =
      DeleteObject(c.store, c.res, c.r.ns, c.r.name, o, c.clock.Now(), eopts.origin).status();
  if (st.code() == StatusCode::kInvalidArgument) return SendError(c.w, InvalidDeleteOptions(st));
  if (only_if_unchanged && st.code() == StatusCode::kAborted) {
    // The unready pod changed since it was read (it may be Ready now): the client retries.
    EvictionVerdict v = TooManyRequestsVerdict(budget);
    return SendError(c.w, {v.code, v.reason, v.message, v.details});
  }
  if (!st.ok()) return c.Fail(st);
  SendCreatedStatus(c.w);
}

void HandleScale(Context& c) {
  const http::HttpRequest& req = c.req;
  const Resource& res = c.res;
  const ApiServer::Request& r = c.r;
  const std::string& method = c.method;
  // A ReplicationController's selector is a label map, the apps kinds' a LabelSelector.
  const ScaleSelector selector =
      res.group.empty() ? ScaleSelector::kLabelMap : ScaleSelector::kLabelSelector;
  // A custom resource's Scale is read and written at its definition's paths.
  const crd::ServedVersion::Scale* custom =
      res.custom != nullptr && res.custom->scale ? &*res.custom->scale : nullptr;
  auto scale_of = [&](const json& object) {
    return custom != nullptr ? crd::CustomScaleOf(*custom, object) : ScaleOf(object, selector);
  };
  if (method == "GET") {
    auto o = c.store.Get(res, r.ns, r.name);
    if (!o.ok()) return c.Fail(o.status());
    return SendJson(c.w, 200, scale_of((*o)->Parse()), r.Headers());
  }
  if (method != "PUT" && method != "PATCH") return SendError(c.w, MethodNotAllowed(method));
  auto body = ParseBody(req);
  if (!body.ok()) return c.Fail(body.status());
  const std::string ct = req.Header("content-type");
  const bool merge = ct.find("application/merge-patch+json") == 0 ||
                     ct.find("application/strategic-merge-patch+json") == 0;
  const bool json_patch = ct.find("application/json-patch+json") == 0;
  if (method == "PATCH" && !merge && !json_patch) {
    // Server-side apply of a Scale is not served.
    return SendError(c.w, {415, "UnsupportedMediaType",
                           "the body of the request was in an unknown format - accepted media "
                           "types include: application/json-patch+json, "
                           "application/merge-patch+json, application/strategic-merge-patch+json",
                           json()});
  }
  if (method == "PUT") {
    if (!body->is_object()) {
      return SendError(c.w, NotAnObject());
    }
    if (auto e = VersionKindTypeError(*body)) return SendError(c.w, *e);
  }
  const std::string manager = FieldManager(req);
  std::optional<ApiError> refused;  // set when the mutation refuses with kube's answer
  auto up = c.store.Update(
      res, r.ns, r.name,
      [&](const StoredObject* cur) -> StatusOr<json> {
        const json current = cur->Parse();
        json scale = *body;
        if (method == "PATCH") {
          // A Scale has no lists: a strategic merge patch is a merge patch.
          auto patched = merge ? patch::MergePatch(scale_of(current), *body)
                               : patch::JsonPatch(scale_of(current), *body);
          if (!patched.ok()) return patched.status();
          scale = std::move(patched).value();
        }
        if (!scale.is_object()) {
          return Status(StatusCode::kInvalidArgument, "the body of the request was not an object");
        }
        std::string decode_error;
        api::FieldErrors errors;
        const int32_t replicas = ScaleReplicas(scale, &decode_error, &errors);
        if (!decode_error.empty()) {
          refused = ApiError{400, "BadRequest", decode_error, json()};
          return Status(StatusCode::kInvalidArgument, decode_error);
        }
        if (!errors.empty()) {
          refused = InvalidScale(r.name, errors);
          return Status(StatusCode::kInvalidArgument, refused->message);
        }
        json next = current;
        if (custom != nullptr) {
          crd::SetCustomReplicas(*custom, next, replicas);
        } else {
          next["spec"]["replicas"] = replicas;
        }
        // The Scale's resourceVersion, when set, is a precondition on the object.
        next["metadata"]["resourceVersion"] = Str(scale, "metadata", "resourceVersion");
        ApplyDefaults(res, next);
        api::FieldErrors object_errors;
        TIDEPOOL_RETURN_IF_ERROR(Validate(res, next, &current, &object_errors));
        if (!object_errors.empty()) {
          refused = Invalid(res, r.name, object_errors);
          return Status(StatusCode::kInvalidArgument, refused->message);
        }
        return patch::UpdateManagedFields(current, std::move(next), manager, c.clock.Now(), nullptr,
                                          "scale");
      },
      c.wopts);
  if (refused) return SendError(c.w, *refused, r.Headers());
  if (!up.ok()) return c.Fail(up.status());
  SendJson(c.w, 200, scale_of(up->object->Parse()), r.Headers());
}

}  // namespace tidepool::apiserver::handlers
