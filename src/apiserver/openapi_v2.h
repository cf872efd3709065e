// File: openapi_v2.h
//
// GET /openapi/v2: the Swagger 2.0 document of every served resource, in the shape
// kube-apiserver 1.32 serves it (kube-openapi's builder and handler), for the clients that
// still read it (swagger tooling, client generators, kubectl's test-cmd `run_swagger_tests`):
//   - "paths": per resource, as kube's endpoint installer describes its routes: the collection
//     (list with its query parameters, create, deletecollection), for a namespaced resource
//     also the list across namespaces, the object (read, replace, partially update, delete),
//     and the status and scale subresources; each operation with kube's description,
//     operationId (listCoreV1NamespacedPod), tags (core_v1), consumes/produces,
//     x-kubernetes-action and x-kubernetes-group-version-kind, and its parameters with kube's
//     texts, written inline where kube refers to shared "#/parameters/..." entries (the same
//     parameters, by value). Only the verbs the registry serves appear. Not described: the
//     deprecated /watch/ paths, and pods' log, binding, eviction, exec/attach/proxy routes.
//   - "definitions": the kinds, their lists and everything they reference, from the same
//     generated schemas as /openapi/v3 (schema/openapi.h), rewritten into Swagger 2.0's form
//     ("#/definitions/..." references with their description beside them, quantities and
//     int-or-strings as strings); a custom resource's from its definition, with its list kind
//     as apiextensions-apiserver builds it.
//   - "securityDefinitions"/"security": kube's BearerToken.
// Served as application/json, and as gnostic protobuf (protobuf/openapi_v2.h) for
// Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf (what client-go's
// OpenAPISchema() asks for; kubectl validates a `kind: List` manifest's items against it) or
// its .v1.0+protobuf spelling, answered as the latter, as kube-openapi's handler does.
// The built-in definitions carry x-kubernetes-patch-strategy / patch-merge-key and
// x-kubernetes-list-type / list-map-keys / map-type from the table the server's patches use
// (patch/patch_schema.h): kubectl's client-side apply computes its strategic merge patches from
// this document once it can read it, and must merge lists by the keys the server merges by.
// Fields that table does not list carry none (their lists are replaced whole, as the server
// does).
//
// Thread-safe: the document of the built-in resources is made once, on first use.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "apiserver/discovery.h"
#include "apiserver/http/server.h"

namespace tidepool::apiserver {

struct OpenApiV2Document {
  std::string json;      // the document's text
  std::string protobuf;  // the same document as gnostic's openapi.v2.Document
  std::string etag;      // a hash of the text, unquoted
};

// A query parameter as kube's OpenAPI documents describe it, in Swagger 2.0's form
// ({"uniqueItems": true, "type", "description", "name", "in": "query"}) with kube's text:
// labelSelector, fieldSelector, watch, allowWatchBookmarks, resourceVersion,
// resourceVersionMatch, timeoutSeconds, limit, continue, pretty, dryRun, fieldManager,
// patchFieldManager (fieldManager as a PATCH describes it), fieldValidation, force,
// gracePeriodSeconds, orphanDependents, propagationPolicy. Null for another name.
nlohmann::json KubeQueryParameter(std::string_view name);

// The document for the built-in resources and `custom`.
std::shared_ptr<const OpenApiV2Document> OpenApiV2(const CustomResourceList& custom);

// Answers GET /openapi/v2 as kube-openapi's handler does: the media ranges of Accept (none:
// */*) by q-value, the first that application/json or one of the protobuf types matches wins;
// the document in that form with `Etag: "<etag>"` and `Vary: Accept`, or 304 with no body
// when If-None-Match names that ETag. False, with nothing sent, when no range matches (the
// caller answers 404).
bool ServeOpenApiV2(const http::HttpRequest& req, http::ResponseWriter& w,
                    const CustomResourceList& custom);

}  // namespace tidepool::apiserver
