// Fuzz target: JSON request bodies (apiserver/json_io.h Parse and Dump; api/codec ParseJson and
// DumpJson).
// Input: any bytes, as a request body.
// Oracles (json_io.h's contract): Parse accepts exactly what nlohmann::json::parse accepts (but
// for text with a NUL byte, which nlohmann takes as the end of the input) and builds the same tree; Dump writes nlohmann's dump(-1, ' ', false, replace) byte for byte; the
// dump parses back to the same tree. ParseJson and DumpJson must not crash.
#include <nlohmann/json.hpp>

#include "api/codec/json_codec.h"
#include "apiserver/json_io.h"
#include "fuzz/fuzz_support.h"

using tidepool::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = tidepool::fuzz::AsText(data, size);
  auto ours = tidepool::apiserver::json_io::Parse(text);
  // Deeper nesting than json_io::kMaxDepth is refused by design; it needs more bytes.
  if (size < tidepool::apiserver::json_io::kMaxDepth) {
    nlohmann::json ref = nlohmann::json::parse(text.begin(), text.end(), nullptr,
                                               /*allow_exceptions=*/false);
    const bool has_nul = text.find('\0') != std::string_view::npos;
    Check(has_nul || ours.ok() == !ref.is_discarded(),
          "json_io::Parse and nlohmann disagree on acceptance",
          ours.ok() ? "json_io accepted" : ours.status().message());
    if (ours.ok() && !ref.is_discarded()) {
      Check(*ours == ref, "json_io::Parse and nlohmann built different trees");
      const std::string dumped = tidepool::apiserver::json_io::Dump(*ours);
      Check(dumped == ref.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
            "json_io::Dump differs from nlohmann's dump", dumped);
      auto again = tidepool::apiserver::json_io::Parse(dumped);
      Check(again.ok() && *again == *ours, "Parse(Dump(v)) != v", dumped);
    }
  }
  auto codec = tidepool::api::codec::ParseJson(text);
  if (codec.ok()) (void)tidepool::api::codec::DumpJson(*codec);
  return 0;
}
