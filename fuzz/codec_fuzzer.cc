// Fuzz target: api/codec's typed decoders (PodFromJson, NodeFromJson, LabelSelectorFromJson,
// and the storage decoders the scheduler's informers run: PersistentVolumeClaimFromJson,
// PersistentVolumeFromJson, StorageClassFromJson).
// Input: a JSON text (a Pod, a Node, a Deployment or PodDisruptionBudget for the selector, or
// anything else); the text is parsed as the API server parses bodies (json_io::Parse) and every
// decoder is run on it (the selector decoder on spec.selector too).
// Oracles (json_codec.h's contract): nothing throws; a decoded pod or node survives
// encode -> decode unchanged (PodFromJson(PodToJson(p)) == p).
#include <nlohmann/json.hpp>

#include "api/codec/json_codec.h"
#include "apiserver/json_io.h"
#include "fuzz/fuzz_support.h"

namespace codec = tidepool::api::codec;
using tidepool::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parsed = tidepool::apiserver::json_io::Parse(tidepool::fuzz::AsText(data, size));
  if (!parsed.ok()) return 0;
  const nlohmann::json& j = *parsed;

  if (auto pod = codec::PodFromJson(j); pod.ok()) {
    const nlohmann::json encoded = codec::PodToJson(*pod);
    auto again = codec::PodFromJson(encoded);
    Check(again.ok(), "PodFromJson(PodToJson(p)) failed",
          again.ok() ? "" : again.status().message());
    Check(*again == *pod, "PodFromJson(PodToJson(p)) != p", encoded.dump());
  }
  if (auto node = codec::NodeFromJson(j); node.ok()) {
    const nlohmann::json encoded = codec::NodeToJson(*node);
    auto again = codec::NodeFromJson(encoded);
    Check(again.ok(), "NodeFromJson(NodeToJson(n)) failed",
          again.ok() ? "" : again.status().message());
    Check(*again == *node, "NodeFromJson(NodeToJson(n)) != n", encoded.dump());
  }
  (void)codec::LabelSelectorFromJson(j);
  (void)codec::PersistentVolumeClaimFromJson(j);
  (void)codec::PersistentVolumeFromJson(j);
  (void)codec::StorageClassFromJson(j);
  if (j.is_object()) {
    auto spec = j.find("spec");
    if (spec != j.end() && spec->is_object()) {
      auto selector = spec->find("selector");
      if (selector != spec->end()) (void)codec::LabelSelectorFromJson(*selector);
    }
  }
  return 0;
}
