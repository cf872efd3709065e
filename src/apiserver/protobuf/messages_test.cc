// File: messages_test.cc
//
// Invariants of the message tables: every message a kind reaches has distinct field numbers and
// JSON names, message fields name their message, inline fields are unnamed structs, and the kind
// list resolves through FindKind.
#include "apiserver/protobuf/messages.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace tidepool::apiserver::protobuf {
namespace {

// Every message reachable from the kinds, each once.
std::vector<const MessageSpec*> Reachable() {
  std::vector<const MessageSpec*> out;
  std::set<const MessageSpec*> seen;
  std::vector<const MessageSpec*> todo;
  for (const KindSpec& k : Kinds()) todo.push_back(k.message);
  while (!todo.empty()) {
    const MessageSpec* m = todo.back();
    todo.pop_back();
    if (m == nullptr || !seen.insert(m).second) continue;
    out.push_back(m);
    for (const FieldSpec& f : m->fields) {
      if (f.message != nullptr) todo.push_back(f.message);
    }
  }
  return out;
}

TEST(MessagesTest, FieldsAreWellFormed) {
  const std::vector<const MessageSpec*> messages = Reachable();
  EXPECT_GT(messages.size(), 150u);
  for (const MessageSpec* m : messages) {
    SCOPED_TRACE(m->name);
    std::set<uint32_t> numbers;
    std::set<std::string> names;
    for (const FieldSpec& f : m->fields) {
      SCOPED_TRACE(f.go);
      EXPECT_GT(f.number, 0u);
      EXPECT_TRUE(numbers.insert(f.number).second) << "duplicate field number " << f.number;
      EXPECT_EQ(f.kind == Kind::kMessage, f.message != nullptr);
      EXPECT_NE(std::string(f.go), "");
      if ((f.flags & kInline) != 0) {
        EXPECT_EQ(std::string(f.json), "");
        EXPECT_EQ(f.kind, Kind::kMessage);
        EXPECT_EQ(f.presence, Presence::kAlways);
      } else {
        EXPECT_TRUE(names.insert(f.json).second) << "duplicate JSON name " << f.json;
        EXPECT_NE(std::string(f.json), "");
      }
      if ((f.flags & kRepeated) != 0) {
        EXPECT_EQ(f.presence, Presence::kOmitEmpty);
      }
    }
  }
}

TEST(MessagesTest, KindsResolve) {
  for (const KindSpec& k : Kinds()) {
    SCOPED_TRACE(k.kind);
    const std::string v = k.api_version;
    EXPECT_EQ(FindKind(v == "*/v1" ? "v1" : v, k.kind), k.message);
    const std::string first = k.message->fields.empty() ? "" : k.message->fields[0].json;
    if (std::string(k.kind) != "DeleteOptions") {
      EXPECT_EQ(first, "metadata");
    }
  }
  EXPECT_NE(FindKind("policy/v1", "DeleteOptions"), nullptr);
  EXPECT_EQ(FindKind("policy/v1beta1", "DeleteOptions"), nullptr);
  EXPECT_EQ(FindKind("apps/v1beta2", "Deployment"), nullptr);
  EXPECT_EQ(FindKind("v1", "Deployment"), nullptr);
}

}  // namespace
}  // namespace tidepool::apiserver::protobuf
