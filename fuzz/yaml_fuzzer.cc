// Fuzz target: api/codec/yaml.h ParseYamlDocuments (manifests, scenario files, kubeconfigs,
// server-side apply bodies).
// Input: any bytes, as a YAML stream.
// Oracles: nothing throws or crashes; every document it returns can be dumped as JSON, and that
// JSON text, read as YAML, is the same document (a JSON text is YAML, and the typing of its
// numbers agrees with encoding/json's) unless it holds characters YAML folds or refuses, or a
// key longer than YAML's simple keys may be.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "api/codec/json_codec.h"
#include "api/codec/yaml.h"
#include "fuzz/fuzz_support.h"

namespace {

// Whether `text` holds a character that YAML reads as a line break (NEL, LS, PS: folded to a
// space inside a quoted scalar) or refuses as not printable (DEL, the C1 controls, the byte
// order mark, U+FFFE and U+FFFF); nlohmann writes them unescaped.
bool HasYamlHostileCharacter(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    const auto next = [&](size_t k) {
      return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0;
    };
    if (b == 0x7F) return true;
    if (b == 0xC2 && next(1) >= 0x80 && next(1) <= 0x9F) return true;
    if (b == 0xE2 && next(1) == 0x80 && (next(2) == 0xA8 || next(2) == 0xA9)) return true;
    if (b == 0xEF && next(1) == 0xBB && next(2) == 0xBF) return true;
    if (b == 0xEF && next(1) == 0xBF && (next(2) == 0xBE || next(2) == 0xBF)) return true;
  }
  return false;
}

// Whether `doc` has a mapping key whose JSON text is near YAML's limit for a simple (implicit)
// key, 1024 characters from the key's start to its ':': libyaml and go-yaml (sigs.k8s.io/yaml,
// kube's YAML decoder) both stop treating a longer one as a key, so such a JSON text is not the
// same document as YAML for either of them.
bool HasOverlongKey(const nlohmann::json& doc) {
  if (doc.is_object()) {
    for (const auto& [key, value] : doc.items()) {
      if (nlohmann::json(key).dump().size() >= 1000 || HasOverlongKey(value)) return true;
    }
  } else if (doc.is_array()) {
    for (const nlohmann::json& v : doc) {
      if (HasOverlongKey(v)) return true;
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto docs = tidepool::api::codec::ParseYamlDocuments(tidepool::fuzz::AsText(data, size));
  if (!docs.ok()) return 0;
  for (const nlohmann::json& d : *docs) {
    const std::string text = tidepool::api::codec::DumpJson(d);
    if (HasYamlHostileCharacter(text) || HasOverlongKey(d)) continue;
    auto again = tidepool::api::codec::ParseYamlDocuments(text);
    tidepool::fuzz::Check(again.ok() && again->size() == 1 && (*again)[0] == d,
                          "the JSON text of a document, read as YAML, is that document", text);
  }
  return 0;
}
