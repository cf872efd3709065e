#ifndef TIDEPOOL_TESTING_TEMP_DIR_H_
#define TIDEPOOL_TESTING_TEMP_DIR_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace tidepool::testing {

// A directory that belongs to the running test alone. ctest runs every test
// case as its own process, in parallel, so files under the shared
// ::testing::TempDir() would collide; this one is named after the test and
// the process; the first call in a test creates it empty, later calls in the
// same test return the same directory.
inline std::string TestTempDir() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = "tidepool-" + std::to_string(::getpid());
  if (info != nullptr) name += std::string("-") + info->test_suite_name() + "." + info->name();
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / name;
  static std::string created;
  if (created != dir.string()) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    created = dir.string();
  }
  return dir.string();
}

}  // namespace tidepool::testing

#endif  // TIDEPOOL_TESTING_TEMP_DIR_H_
