#include "api/codec/yaml.h"

#include <yaml.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/codec/yaml_scalar.h"

namespace tidepool::api::codec {
namespace {

using nlohmann::json;

// No document may nest deeper than this many collections, as written or with its aliases
// expanded: the same limit as the JSON decoder (json_codec.cc kMaxJsonDepth), because
// everything downstream (decoding, copying, dumping) walks the tree recursively.
constexpr size_t kMaxDepth = 1000;
// Guards against alias bombs ("billion laughs"): every alias is expanded into a copy of its
// anchor's value, so a few hundred bytes could otherwise expand to billions of nodes, or a
// long string copied millions of times. Nodes and text written literally are bounded by the
// input's size and are not counted.
constexpr int64_t kMaxAliasExpansionNodes = 1'000'000;
constexpr int64_t kMaxAliasExpansionBytes = int64_t{64} << 20;

// "yaml: line L, column C: message" from 1-based coordinates, or "yaml: message" when there is
// no position (line 0).
Status YamlError(size_t line, size_t column, std::string_view message) {
  if (line == 0 || column == 0) {
    return InvalidArgumentError("yaml: " + std::string(message));
  }
  return InvalidArgumentError("yaml: line " + std::to_string(line) + ", column " +
                              std::to_string(column) + ": " + std::string(message));
}

// An error at a libyaml mark (0-based line and column, columns counting characters).
Status MarkError(const yaml_mark_t& mark, std::string_view message) {
  return YamlError(mark.line + 1, mark.column + 1, message);
}

// The input must be UTF-8, as it is for go-yaml (whose reader, ported from libyaml's, has these
// texts). libyaml's reader checks the same, but only as far as it has read when a parse error
// stops it; checking first reports the bad byte whatever follows it. Columns count characters,
// 1-based, as libyaml's marks do.
Status CheckUtf8(std::string_view text) {
  size_t line = 1;
  size_t column = 1;
  size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    size_t len = 1;
    uint32_t cp = b;
    if (b >= 0x80) {
      if ((b & 0xE0) == 0xC0) {
        len = 2;
        cp = b & 0x1F;
      } else if ((b & 0xF0) == 0xE0) {
        len = 3;
        cp = b & 0x0F;
      } else if ((b & 0xF8) == 0xF0) {
        len = 4;
        cp = b & 0x07;
      } else {
        return YamlError(line, column, "invalid leading UTF-8 octet");
      }
      if (text.size() - i < len) return YamlError(line, column, "incomplete UTF-8 octet sequence");
      for (size_t k = 1; k < len; ++k) {
        const auto t = static_cast<unsigned char>(text[i + k]);
        if ((t & 0xC0) != 0x80) return YamlError(line, column, "invalid trailing UTF-8 octet");
        cp = cp << 6 | (t & 0x3F);
      }
      if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000)) {
        return YamlError(line, column, "invalid length of a UTF-8 sequence");
      }
      if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
        return YamlError(line, column, "invalid Unicode character");
      }
    }
    if (b == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += len;
  }
  return OkStatus();
}

// The 1-based line and column of the byte at `offset` of (valid UTF-8) `text`, counted as
// CheckUtf8 counts them.
std::pair<size_t, size_t> PositionOf(std::string_view text, size_t offset) {
  size_t line = 1;
  size_t column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b == '\n') {
      ++line;
      column = 1;
    } else if ((b & 0xC0) != 0x80) {  // not a continuation byte
      ++column;
    }
  }
  return {line, column};
}

// The error that stopped libyaml, with its own problem text (go-yaml prints the same words).
// Reader errors (e.g. "control characters are not allowed") carry a byte offset instead of a
// mark.
Status ParserError(const yaml_parser_t& parser, std::string_view text) {
  const char* problem =
      parser.problem != nullptr ? parser.problem : "unknown problem parsing YAML content";
  switch (parser.error) {
    case YAML_MEMORY_ERROR:
      return ResourceExhaustedError("yaml: out of memory");
    case YAML_READER_ERROR: {
      auto [line, column] = PositionOf(text, parser.problem_offset);
      return YamlError(line, column, problem);
    }
    default:
      return MarkError(parser.problem_mark, problem);
  }
}

constexpr std::string_view kTagMerge = "tag:yaml.org,2002:merge";

std::string_view View(const yaml_char_t* s) {
  return s != nullptr ? std::string_view(reinterpret_cast<const char*>(s)) : std::string_view();
}

// The size of a node with its aliases expanded.
struct Extent {
  int64_t nodes = 1;
  size_t depth = 0;  // nested collections: 0 for a scalar, 1 for [a], 2 for [[a]]
  int64_t bytes = 0;  // scalar text, keys included

  void Add(const Extent& child) {
    nodes += child.nodes;
    depth = std::max(depth, child.depth + 1);
    bytes += child.bytes;
  }
};

// A finished node on its way to its parent (or to be the document's root).
struct Node {
  json value;  // a collection's JSON; a scalar's go-yaml value (yaml_scalar.h), not yet JSON
  Extent extent;
  yaml_mark_t mark{};
  bool scalar = false;
  bool merge_key = false;  // "<<" as go-yaml's isMerge sees it
};

// An anchored node, as aliases see it. A collection is not copied when its anchor is defined:
// the anchor points at the array or object that the tree under construction holds. nlohmann
// keeps a collection's elements in a separately allocated array_t / object_t that moves with
// the json value (moving a value, growing a vector or inserting into a map never reallocates
// it), and nothing modifies a collection once its end event has been seen (a value a merge
// replaces is moved to the graveyard, not destroyed), so the pointer stays valid until the
// document's tree is discarded, which clears the anchors first.
struct Anchor {
  bool complete = false;  // false from the collection's start to its end: aliases are cycles
  Extent extent;
  bool scalar = false;
  json scalar_value;  // go-yaml's value
  const json::array_t* array = nullptr;
  const json::object_t* object = nullptr;
};

// A collection being read.
struct Frame {
  json value;  // an array or an object
  Extent extent;
  yaml_mark_t mark{};
  std::string anchor;
  // Mappings: the key (go-yaml's value) whose value comes next.
  bool has_key = false;
  json key;
  yaml_mark_t key_mark{};
  bool key_is_merge = false;
  // Once a merge key has been seen, the keys the mapping writes itself (before that, they are
  // the object's keys): writing one twice is a duplicate, merging over one is not.
  bool merged = false;
  std::unordered_set<std::string> written;
};

// Builds JSON documents from libyaml's events.
class TreeBuilder {
 public:
  Status Handle(const yaml_event_t& e) {
    switch (e.type) {
      case YAML_DOCUMENT_START_EVENT:
        StartDocument();
        return OkStatus();
      case YAML_DOCUMENT_END_EVENT:
        return EndDocument();
      case YAML_SCALAR_EVENT:
        return Scalar(e);
      case YAML_ALIAS_EVENT:
        return Alias(e);
      case YAML_SEQUENCE_START_EVENT:
        return Open(e, json::array(), e.data.sequence_start.anchor);
      case YAML_MAPPING_START_EVENT:
        return Open(e, json::object(), e.data.mapping_start.anchor);
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        return Close();
      default:  // stream start and end
        return OkStatus();
    }
  }

  std::vector<json> TakeDocuments() { return std::move(docs_); }

 private:
  void StartDocument() {
    // Anchors are per document; they point into the trees below, so they go first.
    anchors_.clear();
    graveyard_.clear();
    stack_.clear();
    root_.reset();
    key_error_.reset();
    value_error_.reset();
  }

  // sigs.k8s.io/yaml converts a document to JSON after go-yaml has read all of it: its key
  // errors, then encoding/json's, come after the document's syntax errors.
  Status EndDocument() {
    if (key_error_) return *key_error_;
    if (value_error_) return *value_error_;
    if (root_ && !root_->is_null()) docs_.push_back(std::move(*root_));
    root_.reset();
    return OkStatus();
  }

  Status Scalar(const yaml_event_t& e) {
    const auto& s = e.data.scalar;
    const std::string_view text(reinterpret_cast<const char*>(s.value), s.length);
    const std::string_view tag = View(s.tag);
    const bool plain = s.style == YAML_PLAIN_SCALAR_STYLE;
    StatusOr<json> value = yaml_scalar::ResolveScalar(text, tag, plain);
    if (!value.ok()) return MarkError(e.start_mark, value.status().message());
    Node n;
    n.value = *std::move(value);
    n.extent = Extent{1, 0, static_cast<int64_t>(s.length)};
    n.mark = e.start_mark;
    n.scalar = true;
    n.merge_key = text == "<<" && ((plain && tag.empty()) || tag == "!" || tag == kTagMerge);
    if (s.anchor != nullptr) {
      Anchor& a = anchors_[std::string(View(s.anchor))];
      a = Anchor{true, n.extent, true, n.value, nullptr, nullptr};
    }
    return Deliver(std::move(n));
  }

  Status Alias(const yaml_event_t& e) {
    const std::string name(View(e.data.alias.anchor));
    auto it = anchors_.find(name);
    if (it == anchors_.end()) {
      return MarkError(e.start_mark, "unknown anchor '" + name + "' referenced");
    }
    const Anchor& a = it->second;
    if (!a.complete) {
      return MarkError(e.start_mark, "anchor '" + name + "' value contains itself");
    }
    if (stack_.size() + a.extent.depth > kMaxDepth) {
      return MarkError(e.start_mark,
                       "aliases nest deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    TIDEPOOL_RETURN_IF_ERROR(ChargeExpansion(a.extent));
    Node n;
    n.extent = a.extent;
    n.mark = e.start_mark;
    n.scalar = a.scalar;
    if (a.array != nullptr) {
      n.value = json(*a.array);
    } else if (a.object != nullptr) {
      n.value = json(*a.object);
    } else {
      n.value = a.scalar_value;
    }
    return Deliver(std::move(n));
  }

  Status ChargeExpansion(const Extent& extent) {
    expanded_nodes_ += extent.nodes;
    expanded_bytes_ += extent.bytes;
    if (expanded_nodes_ > kMaxAliasExpansionNodes) {
      return YamlError(0, 0, "aliases expand to more than " +
                                 std::to_string(kMaxAliasExpansionNodes) + " nodes");
    }
    if (expanded_bytes_ > kMaxAliasExpansionBytes) {
      return YamlError(0, 0, "aliases expand to more than " +
                                 std::to_string(kMaxAliasExpansionBytes) + " bytes of text");
    }
    return OkStatus();
  }

  bool ExpectingKey() const {
    return !stack_.empty() && stack_.back().value.is_object() && !stack_.back().has_key;
  }

  Status Open(const yaml_event_t& e, json empty, const yaml_char_t* anchor) {
    if (ExpectingKey()) {
      return MarkError(e.start_mark, "mapping keys must be scalars");
    }
    if (stack_.size() >= kMaxDepth) {
      return MarkError(e.start_mark, "exceeded max depth of " + std::to_string(kMaxDepth));
    }
    Frame f;
    f.value = std::move(empty);
    f.extent = Extent{1, 1, 0};
    f.mark = e.start_mark;
    if (anchor != nullptr) {
      f.anchor = std::string(View(anchor));
      anchors_[f.anchor] = Anchor{};  // in progress until Close
    }
    stack_.push_back(std::move(f));
    return OkStatus();
  }

  Status Close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    Node n;
    n.value = std::move(f.value);
    n.extent = f.extent;
    n.mark = f.mark;
    if (!f.anchor.empty()) {
      Anchor& a = anchors_[f.anchor];
      a = Anchor{};
      a.complete = true;
      a.extent = n.extent;
      a.array = n.value.get_ptr<const json::array_t*>();
      a.object = n.value.get_ptr<const json::object_t*>();
    }
    return Deliver(std::move(n));
  }

  // A scalar's JSON value; infinity and NaN are the document's error (reported at its end).
  json JsonValue(json resolved) {
    StatusOr<json> v = yaml_scalar::ToJsonValue(std::move(resolved));
    if (v.ok()) return *std::move(v);
    if (!value_error_) value_error_ = v.status();
    return json(nullptr);
  }

  Status Deliver(Node n) {
    const bool is_key = ExpectingKey();
    if (n.scalar && !is_key) n.value = JsonValue(std::move(n.value));
    if (stack_.empty()) {
      root_ = std::move(n.value);
      return OkStatus();
    }
    Frame& parent = stack_.back();
    parent.extent.Add(n.extent);
    if (parent.value.is_array()) {
      parent.value.get_ref<json::array_t&>().push_back(std::move(n.value));
      return OkStatus();
    }
    if (is_key) {
      if (!n.scalar) {  // an alias of a collection; collections written as keys stop in Open
        return MarkError(n.mark, "mapping keys must be scalars");
      }
      parent.has_key = true;
      parent.key = std::move(n.value);
      parent.key_mark = n.mark;
      parent.key_is_merge = n.merge_key;
      return OkStatus();
    }
    parent.has_key = false;
    if (parent.key_is_merge) return Merge(parent, std::move(n.value));
    return AddPair(parent, std::move(n.value));
  }

  Status AddPair(Frame& parent, json value) {
    StatusOr<std::string> key = yaml_scalar::ToJsonKey(parent.key, value);
    if (!key.ok()) {  // the document's error at its end; until then anchors may point into value
      if (!key_error_) key_error_ = key.status();
      graveyard_.push_back(std::move(value));
      return OkStatus();
    }
    auto& object = parent.value.get_ref<json::object_t&>();
    if (!parent.merged) {
      if (!object.emplace(*std::move(key), std::move(value)).second) {
        return MarkError(parent.key_mark, "duplicate key");
      }
      return OkStatus();
    }
    if (!parent.written.insert(*key).second) {
      return MarkError(parent.key_mark, "duplicate key");
    }
    Assign(object, *std::move(key), std::move(value));
    return OkStatus();
  }

  // Sets object[key], keeping a replaced value alive: anchors may point into it.
  void Assign(json::object_t& object, std::string key, json value) {
    auto [it, inserted] = object.try_emplace(std::move(key));
    if (!inserted) graveyard_.push_back(std::move(it->second));
    it->second = std::move(value);
  }

  // "<<: *base" or "<<: [*a, *b]", as go-yaml v2 merges: at the place the merge key stands, the
  // mapping's keys are set over the ones already there (and later keys are set over them); of
  // a sequence of mappings, an earlier one wins.
  Status Merge(Frame& parent, json source) {
    const bool list = source.is_array() && std::all_of(source.begin(), source.end(),
                                                       [](const json& m) { return m.is_object(); });
    if (!source.is_object() && !list) {
      return MarkError(parent.key_mark,
                       "map merge requires map or sequence of maps as the value");
    }
    auto& object = parent.value.get_ref<json::object_t&>();
    if (!parent.merged) {
      parent.merged = true;
      for (const auto& [k, v] : object) parent.written.insert(k);
    }
    auto merge_one = [&](const json& m) {
      for (const auto& [k, v] : m.get_ref<const json::object_t&>()) Assign(object, k, v);
    };
    if (source.is_object()) {
      merge_one(source);
    } else {
      for (auto it = source.rbegin(); it != source.rend(); ++it) merge_one(*it);
    }
    // Anchors may point inside it (e.g. "<<: {a: &x [1]}"): kept until the document ends.
    graveyard_.push_back(std::move(source));
    return OkStatus();
  }

  std::vector<Frame> stack_;
  std::optional<json> root_;
  std::vector<json> docs_;
  std::unordered_map<std::string, Anchor> anchors_;
  std::vector<json> graveyard_;  // values anchors may point into, no longer in the tree
  std::optional<Status> key_error_;    // the document's first unsupported map key
  std::optional<Status> value_error_;  // the document's first infinity or NaN
  int64_t expanded_nodes_ = 0;  // over the whole stream
  int64_t expanded_bytes_ = 0;
};

// Owns a libyaml parser reading `text` in place.
class Parser {
 public:
  explicit Parser(std::string_view text) {
    ok_ = yaml_parser_initialize(&parser_) != 0;
    if (ok_) {
      yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()),
                                   text.size());
      yaml_parser_set_encoding(&parser_, YAML_UTF8_ENCODING);
    }
  }
  ~Parser() {
    if (ok_) yaml_parser_delete(&parser_);
  }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  bool ok() const { return ok_; }
  yaml_parser_t* get() { return &parser_; }

 private:
  yaml_parser_t parser_{};
  bool ok_ = false;
};

// Owns one event.
class Event {
 public:
  Event() = default;
  ~Event() { yaml_event_delete(&event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  yaml_event_t* get() { return &event_; }

 private:
  yaml_event_t event_{};
};

StatusOr<std::vector<json>> Parse(std::string_view text) {
  if (text.empty()) {
    return std::vector<json>();
  }
  TIDEPOOL_RETURN_IF_ERROR(CheckUtf8(text));
  Parser parser(text);
  if (!parser.ok()) {
    return ResourceExhaustedError("yaml: out of memory");
  }
  TreeBuilder builder;
  while (true) {
    Event event;
    if (yaml_parser_parse(parser.get(), event.get()) == 0) {
      return ParserError(*parser.get(), text);
    }
    if (event.get()->type == YAML_STREAM_END_EVENT) {
      break;
    }
    TIDEPOOL_RETURN_IF_ERROR(builder.Handle(*event.get()));
  }
  return builder.TakeDocuments();
}

}  // namespace

StatusOr<std::vector<json>> ParseYamlDocuments(std::string_view text) {
  try {
    return Parse(text);
  } catch (const json::exception& e) {  // not expected: conversion only builds values
    return InternalError(std::string("yaml: ") + e.what());
  }
}

}  // namespace tidepool::api::codec
