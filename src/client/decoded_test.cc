#include "client/decoded.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

namespace tidepool::client {
namespace {

using nlohmann::json;

ObjectRef PodObject(const std::string& name) {
  return std::make_shared<const json>(
      json{{"apiVersion", "v1"},
           {"kind", "Pod"},
           {"metadata", {{"name", name}, {"namespace", "default"}, {"uid", "uid-" + name}}},
           {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "i"}}})}}}});
}

TEST(DecodedTest, OneObjectIsDecodedOnceAndEveryReaderSharesIt) {
  const ObjectRef a = PodObject("a");
  auto first = DecodedPod(a);
  auto again = DecodedPod(a);
  ASSERT_TRUE(first.ok() && again.ok());
  EXPECT_EQ(first->get(), again->get());
  EXPECT_EQ((*first)->meta.name, "a");
  // An equal object that is another object is decoded for itself.
  const ObjectRef a2 = PodObject("a");
  auto other = DecodedPod(a2);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->get(), first->get());
  EXPECT_EQ(**other, **first);
  // Interleaved readers of two objects still get each its own decode.
  EXPECT_EQ(DecodedPod(a)->get(), first->get());
  EXPECT_EQ(DecodedPod(a2)->get(), other->get());
}

TEST(DecodedTest, AnObjectThatDiedIsNeverMistakenForANewOneAtItsAddress) {
  std::vector<std::string> names;
  for (int i = 0; i < 500; ++i) {
    const std::string name = "p" + std::to_string(i);
    ObjectRef obj = PodObject(name);  // freed at the end of each turn: addresses are reused
    auto pod = DecodedPod(obj);
    ASSERT_TRUE(pod.ok());
    EXPECT_EQ((*pod)->meta.name, name);
  }
}

TEST(DecodedTest, ErrorsAreTheCodecsAndNodesHaveTheirOwnTable) {
  const ObjectRef bad = std::make_shared<const json>(
      json{{"kind", "Pod"}, {"metadata", {{"name", "x"}}}, {"spec", {{"containers", 3}}}});
  auto pod = DecodedPod(bad);
  EXPECT_FALSE(pod.ok());
  EXPECT_EQ(DecodedPod(bad).status().message(), pod.status().message());
  const ObjectRef node = std::make_shared<const json>(
      json{{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "n1"}}}});
  auto n = DecodedNode(node);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ((*n)->meta.name, "n1");
  EXPECT_EQ(DecodedNode(node)->get(), n->get());
}

TEST(DecodedTest, ReadersOnManyThreadsAgree) {
  std::vector<ObjectRef> objects;
  for (int i = 0; i < 64; ++i) objects.push_back(PodObject("p" + std::to_string(i)));
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round) {
        for (size_t i = 0; i < objects.size(); ++i) {
          auto pod = DecodedPod(objects[(i + t * 7) % objects.size()]);
          const std::string want = "p" + std::to_string((i + t * 7) % objects.size());
          if (!pod.ok() || (*pod)->meta.name != want) ++wrong[t];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace tidepool::client
