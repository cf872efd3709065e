// File: handlers/handler.h
//
// The ApiServer's resource handlers (internal to apiserver/): api_server.cc parses a request's
// path into an ApiServer::Request and routes it by verb and subresource to one handler here,
// which answers it on the ResponseWriter. One file a verb group:
//   - read.cc: GET of an item, list and watch of a collection (Tables, protobuf, selectors);
//   - create.cc: POST of a collection;
//   - delete.cc: DELETE of an item (namespaces with their contents) and deletecollection;
//   - update_patch.cc: PUT and PATCH of an item or its status (strategic merge, JSON merge,
//     JSON patch, server-side apply; a PUT or an apply of an absent object creates it);
//   - subresources.cc: pods/log, pods/eviction, pods/binding and the scale subresource;
//   - common.cc: what they share (below): kube's Status errors, request body decoding, query
//     parameters, selectors, and the answers of one request (Context).
// Every answer is written exactly once, errors as metav1.Status JSON (api_server.h tells which
// answers may be protobuf).
//
// Threads: a handler runs on the request's connection thread; it shares only the ObjectStore
// and PodLogs (both thread-safe) with other requests. Errors: none thrown; every failure is an
// answer (FromStatus maps a Status to kube's code and reason).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/field_error.h"
#include "apiserver/api_server.h"
#include "apiserver/deletion.h"
#include "apiserver/json_members.h"
#include "apiserver/object_filter.h"
#include "apiserver/printers/printers.h"

namespace tidepool::apiserver::crd {
class Registry;
}

namespace tidepool::apiserver {

// One request whose path named a resource (api_server.cc parses it).
struct ApiServer::Request {
  const http::HttpRequest* http = nullptr;
  // Who asks (authn/user.h), authenticated once by the router.
  authn::UserInfo user;
  const Resource* resource = nullptr;
  std::string ns;           // from the URL
  std::string name;         // item name, empty for collections
  std::string subresource;  // "status", "log", ...
  // Warning headers.
  std::vector<std::pair<std::string, std::string>> warnings;

  std::vector<std::pair<std::string, std::string>> Headers() const { return warnings; }
};

namespace handlers {

struct Context;
using HeaderList = std::vector<std::pair<std::string, std::string>>;

inline constexpr char kJson[] = "application/json";

// ---- Status responses ---------------------------------------------------------------------------

struct ApiError {
  int code = 500;
  std::string reason;  // "NotFound", "" for 500s without one
  std::string message;
  nlohmann::json details;  // null when none
};

nlohmann::json StatusJson(const ApiError& e);
void SendError(http::ResponseWriter& w, const ApiError& e, const HeaderList& headers = {});
void SendJson(http::ResponseWriter& w, int code, const nlohmann::json& j,
              const HeaderList& headers = {});
// {"name", "group", "kind"} of a Status's details.
nlohmann::json Details(const Resource* r, std::string_view name);
// Maps a store / library Status to kube's Status.
ApiError FromStatus(const Status& s, const Resource* r, std::string_view name);
// A FieldError's cause reason ("FieldValueInvalid", ...).
std::string CauseReason(api::FieldError::Type t);
// 422 Invalid: `Kind "name" is invalid: ...` with one cause per error.
ApiError Invalid(const Resource& r, std::string_view name, const api::FieldErrors& errors);
// What kube-apiserver answers when etcd refuses an object over its request limit (1.5 MiB):
// the etcd error is not a metav1.Status, so it is a 500 without a reason.
ApiError EtcdRequestTooLarge();
// Whether `obj` (plus `extra` bytes stored with it) is over etcd's default --max-request-bytes.
bool TooLargeForStorage(const nlohmann::json& obj, size_t extra);
ApiError MethodNotAllowed(const std::string& method);
// "the body of the request was not an object" (400).
ApiError NotAnObject();
// ValidateDeleteOptions' refusal: 422 Invalid on DeleteOptions.meta.k8s.io.
ApiError InvalidDeleteOptions(const Status& s);
// A Warning header's value for `text` (299, quoted).
std::string WarningHeader(const std::string& text);
// fieldValidation=Warn: a Warning header on `r` for each unknown field, then each duplicate.
void WarnFields(ApiServer::Request& r, const std::vector<std::string>& unknown,
                const std::vector<std::string>& duplicates);

// ---- Query parameters ---------------------------------------------------------------------------

// strconv.ParseBool's true values (clients send "true", "1", and Python's "True").
bool QueryBool(const http::HttpRequest& req, std::string_view name);
// Accept asks for a Table.
bool WantsTable(const http::HttpRequest& req);
// ?fieldManager=, else the user agent's program name (kube-apiserver's default).
std::string FieldManager(const http::HttpRequest& req);
printers::IncludeObject IncludeObjectParam(const http::HttpRequest& req);

enum class FieldValidation { kStrict, kWarn, kIgnore };
FieldValidation FieldValidationParam(const http::HttpRequest& req);

// ---- Request bodies -----------------------------------------------------------------------------

// Parses a request body as an object: JSON, YAML (apply patches), or Kubernetes protobuf. With
// `duplicate_paths`, a JSON body's repeated keys are listed there (json_io::Parse).
StatusOr<nlohmann::json> ParseBody(const http::HttpRequest& req,
                                   std::vector<std::string>* duplicate_paths = nullptr);
// The version/kind sniff kube's decoder starts with (json.Unmarshal into an anonymous
// struct{APIVersion, Kind string}): a value of another type there fails the request.
std::optional<ApiError> VersionKindTypeError(const nlohmann::json& obj);
// A create's or PUT's body that does not decode, as kube's transformDecodeError words it: "the
// object provided is unrecognized (must be of type Pod): <why> (<the body's first 30 bytes, in
// hex unless it starts with '{'> ...)".
ApiError UnrecognizedBody(const Resource& r, const Status& why, std::string_view body);
// The typed decode of a create or update body: the first value of a type its field does not
// take is a 400 as kube-apiserver's decoder gives it; then nulls become Go's zero values.
std::optional<ApiError> DecodeTyped(std::string_view api_version, std::string_view kind,
                                    nlohmann::json& obj);
std::optional<ApiError> DecodeTyped(const Resource& res, nlohmann::json& obj);
// rest.BeforeCreate: a created object's uid and creationTimestamp are the server's
// (FillObjectMetaSystemFields), whatever the client sent, and it is not being deleted.
void FillSystemFields(nlohmann::json& obj, std::string uid, TimePoint now);

// The body of a POST (pods/eviction, pods/binding, the review resources), an object; nullopt
// when the request was answered (another verb, or a body that does not parse or is not an
// object).
std::optional<nlohmann::json> PostedObject(Context& c);

// The fields `obj` has that its kind does not: the generated schema's for a built-in kind, the
// definition's structural schema's for a custom resource (crd/strategy.h). Drop... removes them.
std::vector<std::string> UnknownFieldsOf(const Resource& res, const nlohmann::json& obj);
std::vector<std::string> DropUnknownFieldsOf(const Resource& res, nlohmann::json& obj);

// printers::BuildTableText with `res`'s printer: a custom resource's columns, or the built-in's.
std::string TableText(const Resource& res, const std::vector<printers::TableObject>& objects,
                      std::string_view resource_version, TimePoint now,
                      printers::IncludeObject include, bool with_headers,
                      std::string_view continue_token = "",
                      std::optional<int64_t> remaining_items = std::nullopt);

// ---- Selectors ----------------------------------------------------------------------------------

// ?labelSelector= and ?fieldSelector= of a list, watch or deletecollection.
using Filter = ObjectFilter;
StatusOr<Filter> ParseFilter(const http::HttpRequest& req, const Resource& r);
// The objects of `res` in `ns` (every namespace when empty) that `filter` selects.
ObjectStore::ListResult ListMatching(const ObjectStore& store, const Resource& res,
                                     std::string_view ns, const Filter& filter);

// ---- One request --------------------------------------------------------------------------------

// What a handler works with: the server's parts, the request and its writer, and the answers
// every handler gives the same way. Lives for one call of ApiServer::HandleResource.
struct Context {
  Context(const Clock& clock, ObjectStore& store, PodLogs& logs, crd::Registry& crds,
          const ApiServerOptions& options, ApiServer::Request& r, http::ResponseWriter& w);

  const Clock& clock;
  ObjectStore& store;
  crd::Registry& crds;  // the custom resources served
  PodLogs& logs;
  const ApiServerOptions& options;
  ApiServer::Request& r;
  const http::HttpRequest& req;
  const Resource& res;
  http::ResponseWriter& w;
  const std::string& method;
  const ObjectStore::WriteOptions wopts;  // origin "api"; ?dryRun=All
  // Objects (GET, LIST, WATCH, and the object a write answers) go out in protobuf when the
  // client prefers it (negotiation.h) and the kind has a table; errors stay JSON Status (see
  // api_server.h).
  const bool protobuf_out;
  // The server's service-account tokens, and its authenticator of them (authn/user.h).
  const authn::ServiceAccountTokens* tokens = nullptr;
  const authn::BearerAuthenticator* bearer = nullptr;

  // An object's JSON text as the answer, in protobuf when negotiated and it encodes.
  void SendText(int code, std::string_view text, const HeaderList& headers);
  // A stored object as the answer: a Table for a GET that asks for one, else SendText with the
  // request's warnings.
  void SendObject(int code, const ObjectPtr& o);
  // `s` as kube's Status for this resource and the request's name, with its warnings.
  void Fail(const Status& s);
  // NamespaceLifecycle admission of a namespaced create: a namespace that does not exist is a
  // 404 (`namespaces "x" not found`), one being deleted a 403 ("unable to create new content
  // in namespace x because it is being terminated"); nullopt when the create may go on.
  std::optional<ApiError> NamespaceRefusal(const std::string& ns, const std::string& name) const;
};

// ---- The handlers -------------------------------------------------------------------------------

void HandleGet(Context& c);               // read.cc
void HandleList(Context& c);              // read.cc
void HandleWatch(Context& c);             // read.cc
void HandleCreate(Context& c);            // create.cc
void HandleDelete(Context& c);            // delete.cc
void HandleDeleteCollection(Context& c);  // delete.cc
void HandleUpdatePatch(Context& c);       // update_patch.cc: PUT and PATCH
// DELETE of a namespace: marked (deletionTimestamp, phase Terminating) for the namespace
// controller, removed at once when it has no finalizers. namespaces.cc.
void DeleteNamespace(Context& c, const DeleteOptions& opts);
// PUT of namespaces/<name>/finalize: its spec.finalizers; the namespace goes when it is being
// deleted and none is left. namespaces.cc.
void HandleFinalize(Context& c);
// LimitRanger admission of a pod create (limit_ranger.cc): the namespace's LimitRanges'
// defaults set on its containers (mutating), then their min/max checked (nullopt: admitted;
// else kube's 403).
// Returns whether it set anything.
bool ApplyLimitRanges(Context& c, nlohmann::json& pod, const std::string& ns);
std::optional<ApiError> CheckLimitRanges(Context& c, const nlohmann::json& obj,
                                         const std::string& ns, const std::string& name);
// A new Service's cluster IP and node ports (services.cc); nullopt when allocated (or not
// needed), else the error to answer.
std::optional<ApiError> AllocateService(Context& c, nlohmann::json& svc, const std::string& ns,
                                        const std::string& name);
// ResourceQuota admission of a create of `obj` (quota.cc): nullopt when admitted (the quotas'
// status.used then holds it), else kube's 403.
std::optional<ApiError> AdmitQuota(Context& c, const nlohmann::json& obj, const std::string& ns,
                                   const std::string& name);
// admission.NewForbidden's 403: `<resource> "<name>" is forbidden: <why>`, the name the
// object's, else its generateName, else "Unknown" (priority.cc).
ApiError AdmissionForbidden(const Resource& res, const nlohmann::json& obj, const std::string& name,
                            const std::string& why);
// The storage admission plugins on create (storage.cc), mutating before validation:
// DefaultStorageClass - a PersistentVolumeClaim without a class (no spec.storageClassName, not
// even "", and no volume.beta.kubernetes.io/storage-class annotation) gets the default class:
// of the StorageClasses annotated storageclass.kubernetes.io/is-default-class "true" (or its
// beta key) the newest, then the first by name; none: it stays without one.
// StorageObjectInUseProtection - a new PersistentVolumeClaim gets the finalizer
// kubernetes.io/pvc-protection, a new PersistentVolume kubernetes.io/pv-protection (their
// protection controllers remove them once nothing uses the object).
// `default_class` is DefaultStorageClassName's, read before the write (an apply's admission
// runs under the store's lock).
void AdmitStorageOnCreate(const std::string& default_class, const Resource& res,
                          nlohmann::json& obj);
// The default StorageClass's name as DefaultStorageClass picks it; "" when there is none or
// `res` is not persistentvolumeclaims.
std::string DefaultStorageClassName(const ObjectStore& store, const Resource& res);
// The Priority admission plugin (priority.cc), given the PriorityClasses read before the write
// (PriorityClasses: none unless `res` is pods or priorityclasses and no subresource is
// written; an update's admission runs under the store's lock, which no read may take again).
std::vector<ObjectPtr> PriorityClasses(const ObjectStore& store, const Resource& res,
                                       std::string_view subresource);
// A pod create (`old` null): spec.priority and spec.preemptionPolicy from its
// priorityClassName's PriorityClass, or from the globalDefault class (setting
// priorityClassName), else 0 and PreemptLowerPriority; 403 "no PriorityClass with name <n> was
// found", or when the pod gives another priority or preemptionPolicy. A pod update keeps the
// old values the new object leaves out. nullopt: admitted.
std::optional<ApiError> AdmitPodPriority(const Resource& res, const std::vector<ObjectPtr>& classes,
                                         nlohmann::json& pod, const nlohmann::json* old,
                                         const std::string& name);
// Its validation of a PriorityClass written with globalDefault: true: 403 "PriorityClass <d> is
// already marked as default. Only one default can exist" while another class <d> is.
std::optional<ApiError> AdmitPriorityClass(const Resource& res,
                                           const std::vector<ObjectPtr>& classes,
                                           const nlohmann::json& pc, bool create);
// The ServiceAccount admission plugin (service_accounts.cc) on a pod create, given what
// ReadPodServiceAccount read before the write (nothing unless `res` is pods, no subresource is
// written and the pod is not a mirror pod; an update's admission runs under the store's lock):
// the pod's serviceAccountName ("default" when empty) must name a ServiceAccount of its
// namespace, else 403 "error looking up service account <ns>/<name>: serviceaccount "<name>"
// not found" ("default" is admitted before kcm made it, as kube's plugin waits for it); unless
// automountServiceAccountToken is false (the pod's, else the account's), every container and
// init container without a mount at /var/run/secrets/kubernetes.io/serviceaccount mounts
// (readOnly) the pod's kube-api-access-<5 characters> projected volume (the token, expiring in
// 3607 s; kube-root-ca.crt's ca.crt; the namespace), added when needed; a pod without
// imagePullSecrets gets the account's. Nothing on updates.
struct PodServiceAccount {
  bool needed = false;
  std::string name;
  ObjectPtr account;        // null: not found
  std::string volume_name;  // the name a new volume gets
};
PodServiceAccount ReadPodServiceAccount(ObjectStore& store, const Resource& res,
                                        std::string_view subresource, const nlohmann::json& pod,
                                        const std::string& ns);
std::optional<ApiError> AdmitServiceAccount(const Resource& res, const PodServiceAccount& sa,
                                            nlohmann::json& pod, const nlohmann::json* old,
                                            const std::string& name, const std::string& ns);
void HandleLog(Context& c);               // subresources.cc: pods/log
void HandleEviction(Context& c);          // subresources.cc: pods/eviction
// serviceaccounts/<name>/token (tokens.cc): TokenRequest. The account must exist (404); spec
// validated as kube's (expirationSeconds at least 600: "may not specify a duration less than 10
// minutes"; a metadata name or namespace must match the URL's); audiences default to the
// issuer, expirationSeconds to 3600; a boundObjectRef names an existing Pod (running as the
// account; its node is bound too), Secret or Node, its uid matching; 201 with status.token (a
// JWT, authn/service_account_token.h) and status.expirationTimestamp.
void HandleTokenRequest(Context& c);
void HandleBinding(Context& c);           // subresources.cc: pods/binding
// GET, PUT and PATCH of deployments/scale, replicasets/scale, statefulsets/scale and
// replicationcontrollers/scale (scale.h). subresources.cc.
void HandleScale(Context& c);
// POST of authorization.k8s.io's access and rules reviews and authentication.k8s.io's
// SelfSubjectReview: answered, never stored. reviews.cc.
void HandleReview(Context& c);
// A resource whose only verb is create (the reviews).
bool IsReviewResource(const Resource& r);
// GET / LIST of core/v1 ComponentStatuses (deprecated; computed). component_statuses.cc.
void HandleComponentStatuses(Context& c);
bool IsComponentStatusResource(const Resource& r);
// GET / LIST of metrics.k8s.io's NodeMetrics and PodMetrics, from emulated usage. metrics.cc.
void HandleMetrics(Context& c);
bool IsMetricsResource(const Resource& r);

}  // namespace handlers
}  // namespace tidepool::apiserver
