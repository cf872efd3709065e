#include "apiserver/storage/backend.h"

#include <gtest/gtest.h>

namespace tidepool::apiserver::storage {
namespace {

TEST(MemoryBackendTest, StoresNothingAndIsDurableAtOnce) {
  std::unique_ptr<Backend> backend = NewMemoryBackend();
  auto empty = backend->Load();
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->revision, 0);
  EXPECT_TRUE(empty->records.empty());

  uint64_t t1 = backend->Put("/pods/default/a", 1, "{}");
  uint64_t t2 = backend->Delete("/pods/default/a", 2);
  EXPECT_GT(t1, 0u);
  EXPECT_GT(t2, t1);
  EXPECT_TRUE(backend->Wait(t1).ok());
  EXPECT_TRUE(backend->Wait(t2).ok());
  EXPECT_TRUE(backend->Wait(0).ok());

  auto after = backend->Load();
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->records.empty());
  EXPECT_TRUE(backend->Close().ok());
  EXPECT_TRUE(backend->Close().ok());
}

}  // namespace
}  // namespace tidepool::apiserver::storage
