// File: negotiation.h
//
// Which encoding a response takes, from the request's Accept header, as kube-apiserver's
// negotiation (apiserver/pkg/endpoints/handlers/negotiation) chooses among the types it
// serves: the media ranges are taken by q-value (highest first, ties in the header's order,
// q=0 never), and the first one served wins. Served here:
//   application/vnd.kubernetes.protobuf       -> kProtobuf (client-go's default Accept is
//                                                "application/vnd.kubernetes.protobuf,
//                                                application/json")
//   application/json, application/*, */*,
//   application/yaml and anything else        -> kJson, as every response was before protobuf
// A range with an "as" parameter (kubectl's Table and PartialObjectMetadata requests, in either
// type) is a transformation this server answers in JSON, so it means kJson. No Accept header,
// or one with nothing served, is kJson.
//
// The caller still answers JSON for a kind the protobuf tables do not know (protobuf/messages.h),
// as kube-apiserver answers JSON for custom resources.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tidepool::apiserver {

enum class ResponseEncoding { kJson, kProtobuf };

// The Content-Type of a protobuf response, and of a protobuf watch stream.
inline constexpr char kProtobufContentType[] = "application/vnd.kubernetes.protobuf";
inline constexpr char kProtobufWatchContentType[] =
    "application/vnd.kubernetes.protobuf;stream=watch";

ResponseEncoding NegotiateResponse(std::string_view accept);

// The media ranges of an Accept header in the order a server tries them: by q-value, highest
// first, ties in the header's order, q=0 dropped; each lower-cased, without its parameters.
std::vector<std::string> AcceptedMediaRanges(std::string_view accept);

}  // namespace tidepool::apiserver
