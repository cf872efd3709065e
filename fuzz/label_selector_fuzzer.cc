// Fuzz target: apiserver/selectors LabelSelector::Parse (the labelSelector query parameter).
// Input: any bytes, as the parameter's decoded value.
// Oracles: a parsed selector's String() parses back to the same requirements (labels.h: they
// come out sorted, values sorted and unique), and matching labels does not crash.
#include <nlohmann/json.hpp>

#include "apiserver/selectors/labels.h"
#include "fuzz/fuzz_support.h"

using tidepool::apiserver::selectors::LabelSelector;
using tidepool::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto s = LabelSelector::Parse(tidepool::fuzz::AsText(data, size));
  if (!s.ok()) return 0;
  const std::string text = s->String();
  auto again = LabelSelector::Parse(text);
  Check(again.ok(), "Parse(String(s)) failed", text);
  Check(again->requirements() == s->requirements(), "Parse(String(s)) != s", text);
  static const nlohmann::json kLabels = {
      {"app", "web"}, {"tier", "frontend"}, {"version", "3"}, {"example.com/x", ""}};
  (void)s->Matches(kLabels);
  (void)s->Matches(nlohmann::json());
  (void)s->Matches(nlohmann::json::object());
  return 0;
}
