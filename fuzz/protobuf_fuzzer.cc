// Fuzz target: apiserver/protobuf DecodeObject (application/vnd.kubernetes.protobuf bodies).
// Input: any bytes, as a request body (seeds start with the "k8s\0" magic).
// Oracle: nothing crashes; a decoded object is a JSON object that can be dumped.
#include <nlohmann/json.hpp>

#include "api/codec/json_codec.h"
#include "apiserver/protobuf/decode.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto o = tidepool::apiserver::protobuf::DecodeObject(tidepool::fuzz::AsText(data, size));
  if (!o.ok()) return 0;
  tidepool::fuzz::Check(o->is_object(), "DecodeObject returned a non-object");
  (void)tidepool::api::codec::DumpJson(*o);
  return 0;
}
