#include "common/private_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tidepool {
namespace {

std::string Dir() {
  const std::string d = std::filesystem::temp_directory_path().string() + "/private_file_test_" +
                        std::to_string(::getpid());
  std::filesystem::remove_all(d);
  return d;
}

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(PrivateFileTest, ANewFileIsOwnerOnlyAndItsFoldersToo) {
  const std::string d = Dir();
  const std::string path = d + "/a/b/kubeconfig";
  ASSERT_TRUE(WritePrivateFile(path, "token: x\n").ok());
  EXPECT_EQ(Read(path), "token: x\n");
  EXPECT_EQ(ModeOf(path), 0600u);
  EXPECT_EQ(ModeOf(d + "/a/b"), 0700u);
  std::filesystem::remove_all(d);
}

TEST(PrivateFileTest, AnExistingWorldReadableFileIsReplacedByAPrivateOne) {
  const std::string d = Dir();
  std::filesystem::create_directories(d);
  const std::string path = d + "/access-token";
  std::ofstream(path) << "old\n";
  ::chmod(path.c_str(), 0644);
  ASSERT_TRUE(WritePrivateFile(path, "new\n").ok());
  EXPECT_EQ(Read(path), "new\n");
  EXPECT_EQ(ModeOf(path), 0600u);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp." + std::to_string(::getpid())));
  std::filesystem::remove_all(d);
}

TEST(PrivateFileTest, AnUnwritableFolderIsAnErrorNamingThePath) {
  Status s = WritePrivateFile("/proc/tidepool-no/such/file", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("/proc/tidepool-no"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tidepool
