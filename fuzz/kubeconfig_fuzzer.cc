// Fuzz target: client/config.h ParseKubeconfig (`tidepool autoscale --kubeconfig`).
// Input: "<kubeconfig>[\n%%\n<context>]". Relative file references (certificate-authority,
// tokenFile, ...) resolve against an empty temporary directory.
// Oracle: nothing crashes; an error is a Status.
#include <cstdlib>
#include <string>

#include "client/config.h"
#include "fuzz/fuzz_support.h"

namespace {

const std::string& EmptyDir() {
  static const std::string kDir = [] {
    char tmpl[] = "/tmp/tidepool-fuzz-kubeconfig-XXXXXX";
    const char* dir = mkdtemp(tmpl);
    return std::string(dir != nullptr ? dir : "/nonexistent");
  }();
  return kDir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = tidepool::fuzz::Sections(tidepool::fuzz::AsText(data, size), "\n%%\n", 2);
  const std::string context = parts.size() > 1 ? std::string(parts[1]) : "";
  (void)tidepool::client::ParseKubeconfig(parts[0], EmptyDir(), context);
  return 0;
}
