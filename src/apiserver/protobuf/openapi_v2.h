// File: openapi_v2.h
//
// A Swagger 2.0 document in gnostic's protobuf form (package openapi.v2, message Document, of
// google/gnostic's openapiv2/OpenAPIv2.proto): what kube-apiserver serves at /openapi/v2 for
// Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf, and what client-go's
// OpenAPISchema() reads (kubectl validates against it, and computes client-side apply's
// strategic merge patches from it).
//
// kube-openapi makes it with gnostic's compiler from the JSON document, so this writes what
// that compiler keeps, field by field in the .proto's numbering:
//   - Document, Info, Paths / PathItem / Operation, ParametersItem (a "$ref" as JsonReference;
//     "in": "body" as BodyParameter; query, path, header and formData as NonBodyParameter's
//     sub-schemas), Responses / Response, Schema (every Swagger 2.0 keyword but xml),
//     Definitions, ParameterDefinitions, SecurityDefinitions (apiKey and basic), security
//     requirements, tags, external docs;
//   - named maps (paths, definitions, properties, responses, ...) as repeated Named* pairs in
//     the JSON object's key order;
//   - every value gnostic keeps as an Any (default, example, enum values, and each "x-..."
//     vendor extension) as Any.yaml holding the value's JSON text (JSON is YAML; kube-openapi
//     reads these with a YAML parser);
//   - proto3 presence: a scalar is written when not its zero value, a message when its key is
//     present, a oneof member always.
// Keys a Swagger 2.0 object does not have are left out (gnostic's compiler would refuse
// them). Nothing throws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tidepool::apiserver::protobuf {

// The encoding of `doc`, a Swagger 2.0 document object.
std::string EncodeOpenApiV2Document(const nlohmann::json& doc);

}  // namespace tidepool::apiserver::protobuf
