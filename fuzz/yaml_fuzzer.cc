// Fuzz target: api/codec/yaml.h ParseYamlDocuments (manifests, scenario files, kubeconfigs,
// server-side apply bodies).
// Input: any bytes, as a YAML stream.
// Oracle: nothing throws or crashes; every document it returns can be dumped as JSON.
#include <nlohmann/json.hpp>

#include "api/codec/json_codec.h"
#include "api/codec/yaml.h"
#include "fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto docs = tidepool::api::codec::ParseYamlDocuments(tidepool::fuzz::AsText(data, size));
  if (!docs.ok()) return 0;
  for (const nlohmann::json& d : *docs) (void)tidepool::api::codec::DumpJson(d);
  return 0;
}
