// Fuzz target: sim/scenario.h ParseScenario (`tidepool simulate` scenario files).
// Input: any bytes, as a scenario file. Manifest paths (`apply: x.yaml`) resolve against an
// empty temporary directory, so they are not found.
// Oracle: nothing crashes; an error is a Status.
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_support.h"
#include "sim/scenario.h"

namespace {

const std::string& EmptyDir() {
  static const std::string kDir = [] {
    char tmpl[] = "/tmp/tidepool-fuzz-scenario-XXXXXX";
    const char* dir = mkdtemp(tmpl);
    return std::string(dir != nullptr ? dir : "/nonexistent");
  }();
  return kDir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tidepool::sim::ParseScenario(tidepool::fuzz::AsText(data, size), "fuzz.yaml", EmptyDir());
  return 0;
}
