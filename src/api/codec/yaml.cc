#include "api/codec/yaml.h"

#include <libfyaml.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

namespace tidepool::api::codec {
namespace {

using nlohmann::json;

// Guards against alias bombs ("billion laughs"): libfyaml copies a node for every alias it
// resolves, so a few hundred bytes can otherwise expand to billions of nodes. Nodes written
// literally are bounded by the input's size and are not counted.
constexpr int64_t kMaxAliasExpansionNodes = 1'000'000;
// The parser itself stops at 64 levels; aliases can nest documents deeper than that. Converting
// (and later copying and dumping) JSON is recursive, so the depth stays bounded.
constexpr int kMaxExpandedDepth = 1000;

struct DiagDeleter {
  void operator()(fy_diag* d) const { fy_diag_destroy(d); }
};
struct ParserDeleter {
  void operator()(fy_parser* p) const { fy_parser_destroy(p); }
};
struct DocumentDeleter {
  void operator()(fy_document* d) const { fy_document_destroy(d); }
};
using DiagPtr = std::unique_ptr<fy_diag, DiagDeleter>;
using ParserPtr = std::unique_ptr<fy_parser, ParserDeleter>;
using DocumentPtr = std::unique_ptr<fy_document, DocumentDeleter>;

// Collected errors are read through fy_diag_errors_iterate; nothing must reach stderr.
void DiscardOutput(fy_diag* /*diag*/, void* /*user*/, const char* /*buf*/, size_t /*len*/) {}

// "yaml: line L, column C: message" from 1-based coordinates, or "yaml: message" when there is
// no position.
Status YamlError(int line, int column, std::string_view message) {
  if (line <= 0 || column <= 0) {
    return InvalidArgumentError("yaml: " + std::string(message));
  }
  return InvalidArgumentError("yaml: line " + std::to_string(line) + ", column " +
                              std::to_string(column) + ": " + std::string(message));
}

// The input must be UTF-8, as YAML streams are for the YAML library kube's tools decode with
// (go-yaml's reader, whose texts these are): libfyaml 0.8 itself never returns on some invalid
// input, e.g. "%\xcd" (a directive ending in a truncated sequence; found by the yaml fuzz
// target). Columns count characters, 1-based, as the parser's do.
Status CheckUtf8(std::string_view text) {
  int line = 1;
  int column = 1;
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

// The first error the parser reported, or a generic one if it reported none (libfyaml sets its
// stream error flag without a message for a few failures).
Status FirstDiagError(fy_diag* diag) {
  void* iter = nullptr;
  while (fy_diag_error* e = fy_diag_errors_iterate(diag, &iter)) {
    if (e->type >= FYET_ERROR) {
      return YamlError(e->line, e->column, e->msg != nullptr ? e->msg : "parse error");
    }
  }
  return InvalidArgumentError("yaml: invalid document");
}

// The position of a node: its own token for scalars and aliases, the first scalar inside it
// for collections (libfyaml 0.7 has no public start mark for collection nodes). 0-based.
std::optional<fy_mark> NodeMark(fy_node* n) {
  if (n == nullptr) {
    return std::nullopt;
  }
  switch (fy_node_get_type(n)) {
    case FYNT_SCALAR: {
      fy_token* t = fy_node_get_scalar_token(n);
      const fy_mark* m = t != nullptr ? fy_token_start_mark(t) : nullptr;
      if (m != nullptr) {
        return *m;
      }
      return std::nullopt;
    }
    case FYNT_SEQUENCE: {
      void* iter = nullptr;
      while (fy_node* c = fy_node_sequence_iterate(n, &iter)) {
        if (auto m = NodeMark(c)) {
          return m;
        }
      }
      return std::nullopt;
    }
    case FYNT_MAPPING: {
      void* iter = nullptr;
      while (fy_node_pair* p = fy_node_mapping_iterate(n, &iter)) {
        if (auto m = NodeMark(fy_node_pair_key(p))) {
          return m;
        }
        if (auto m = NodeMark(fy_node_pair_value(p))) {
          return m;
        }
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

Status NodeError(fy_node* n, std::string_view message) {
  if (auto m = NodeMark(n)) {
    return YamlError(m->line + 1, m->column + 1, message);
  }
  return YamlError(0, 0, message);
}

std::string_view ScalarText(fy_node* n) {
  size_t len = 0;
  const char* s = fy_node_get_scalar(n, &len);
  return s != nullptr ? std::string_view(s, len) : std::string_view();
}

std::string_view NodeTag(fy_node* n) {
  size_t len = 0;
  const char* t = fy_node_get_tag(n, &len);
  return t != nullptr ? std::string_view(t, len) : std::string_view();
}

// ---- YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution) ----

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsNullText(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

std::optional<bool> BoolFromText(std::string_view s) {
  if (s == "true" || s == "True" || s == "TRUE") {
    return true;
  }
  if (s == "false" || s == "False" || s == "FALSE") {
    return false;
  }
  return std::nullopt;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool MatchesFloat(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
    ++i;
  }
  size_t int_digits = 0;
  while (i < s.size() && IsDigit(s[i])) {
    ++i;
    ++int_digits;
  }
  size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) {
      ++i;
      ++frac_digits;
    }
  }
  if (int_digits == 0 && frac_digits == 0) {
    return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
      ++i;
    }
    size_t exp_digits = 0;
    while (i < s.size() && IsDigit(s[i])) {
      ++i;
      ++exp_digits;
    }
    if (exp_digits == 0) {
      return false;
    }
  }
  return i == s.size();
}

// A finite double, or nullopt (out of range, or not a float per the core schema).
std::optional<double> DoubleFromText(std::string_view s) {
  if (!MatchesFloat(s)) {
    return std::nullopt;
  }
  std::string_view digits = s;
  if (!digits.empty() && digits.front() == '+') {
    digits.remove_prefix(1);  // from_chars takes no '+'
  }
  double d = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), d);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) {
    return std::nullopt;  // e.g. 1e999: JSON has no infinity
  }
  return d;
}

// Unsigned magnitude in `base`; nullopt on overflow or a bad digit.
std::optional<uint64_t> ParseMagnitude(std::string_view digits, int base) {
  if (digits.empty()) {
    return std::nullopt;
  }
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) {
    return std::nullopt;
  }
  return v;
}

// [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+. An integer beyond 64 bits becomes a double, as in
// nlohmann's JSON parser; nullopt if `s` is not an integer.
std::optional<json> IntegerFromText(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
    auto v = ParseMagnitude(s.substr(2), s[1] == 'o' ? 8 : 16);
    if (!v) {
      return std::nullopt;
    }
    if (*v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return json(static_cast<int64_t>(*v));
    }
    return json(*v);
  }
  bool negative = false;
  std::string_view digits = s;
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) {
    negative = digits.front() == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) {
    return std::nullopt;
  }
  for (char c : digits) {
    if (!IsDigit(c)) {
      return std::nullopt;
    }
  }
  auto magnitude = ParseMagnitude(digits, 10);
  if (!magnitude) {
    if (auto d = DoubleFromText(s)) {
      return json(*d);
    }
    return std::nullopt;
  }
  constexpr uint64_t kMaxInt64 = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (!negative) {
    if (*magnitude <= kMaxInt64) {
      return json(static_cast<int64_t>(*magnitude));
    }
    return json(*magnitude);
  }
  if (*magnitude <= kMaxInt64) {
    return json(-static_cast<int64_t>(*magnitude));
  }
  if (*magnitude == kMaxInt64 + 1) {
    return json(std::numeric_limits<int64_t>::min());
  }
  return json(-static_cast<double>(*magnitude));
}

constexpr std::string_view kTagStr = "tag:yaml.org,2002:str";
constexpr std::string_view kTagNull = "tag:yaml.org,2002:null";
constexpr std::string_view kTagBool = "tag:yaml.org,2002:bool";
constexpr std::string_view kTagInt = "tag:yaml.org,2002:int";
constexpr std::string_view kTagFloat = "tag:yaml.org,2002:float";

// Types a scalar: explicit core tags first, then plain-scalar resolution; quoted and block
// scalars are strings.
Status ScalarToJson(fy_node* n, json* out) {
  std::string_view text = ScalarText(n);
  std::string_view tag = NodeTag(n);
  auto mismatch = [&](std::string_view what) {
    return NodeError(n, "cannot decode \"" + std::string(text) + "\" as " + std::string(what));
  };
  if (tag == kTagStr || tag == "!") {
    *out = std::string(text);
    return OkStatus();
  }
  if (tag == kTagNull) {
    if (!IsNullText(text)) {
      return mismatch("!!null");
    }
    *out = nullptr;
    return OkStatus();
  }
  if (tag == kTagBool) {
    auto b = BoolFromText(text);
    if (!b) {
      return mismatch("!!bool");
    }
    *out = *b;
    return OkStatus();
  }
  if (tag == kTagInt) {
    auto i = IntegerFromText(text);
    if (!i) {
      return mismatch("!!int");
    }
    *out = std::move(*i);
    return OkStatus();
  }
  if (tag == kTagFloat) {
    if (auto d = DoubleFromText(text)) {
      *out = *d;
      return OkStatus();
    }
    return mismatch("!!float");
  }
  // Untagged, or a tag outside the core schema (ignored).
  if (fy_node_get_style(n) != FYNS_PLAIN) {
    *out = std::string(text);
    return OkStatus();
  }
  if (IsNullText(text)) {
    *out = nullptr;
  } else if (auto b = BoolFromText(text)) {
    *out = *b;
  } else if (auto i = IntegerFromText(text)) {
    *out = std::move(*i);
  } else if (auto d = DoubleFromText(text)) {
    *out = *d;
  } else {
    *out = std::string(text);
  }
  return OkStatus();
}

// Recursive: the depth is bounded by the parser's limit, or by AliasExpansionChecker when the
// document has anchors.
Status NodeToJson(fy_node* n, json* out) {
  if (n == nullptr) {  // e.g. the missing value of "? key"
    *out = nullptr;
    return OkStatus();
  }
  switch (fy_node_get_type(n)) {
    case FYNT_SCALAR:
      if (fy_node_is_alias(n)) {  // resolution replaces every alias; be defensive
        return NodeError(n, "unresolved alias");
      }
      return ScalarToJson(n, out);
    case FYNT_SEQUENCE: {
      *out = json::array();
      void* iter = nullptr;
      while (fy_node* item = fy_node_sequence_iterate(n, &iter)) {
        json v;
        TIDEPOOL_RETURN_IF_ERROR(NodeToJson(item, &v));
        out->push_back(std::move(v));
      }
      return OkStatus();
    }
    case FYNT_MAPPING: {
      *out = json::object();
      void* iter = nullptr;
      while (fy_node_pair* pair = fy_node_mapping_iterate(n, &iter)) {
        fy_node* key = fy_node_pair_key(pair);
        std::string key_text;
        if (key != nullptr) {
          if (fy_node_get_type(key) != FYNT_SCALAR || fy_node_is_alias(key)) {
            return NodeError(key, "mapping keys must be scalars");
          }
          key_text = std::string(ScalarText(key));
        }
        json v;
        TIDEPOOL_RETURN_IF_ERROR(NodeToJson(fy_node_pair_value(pair), &v));
        // libfyaml compares keys as YAML nodes; keys that differ only in style ("1" and 1) are
        // the same JSON key.
        if (!out->emplace(std::move(key_text), std::move(v)).second) {
          return NodeError(key, "duplicate key");
        }
      }
      return OkStatus();
    }
  }
  return NodeError(n, "unsupported node type");
}

// Measures the document with aliases expanded, before libfyaml expands them.
class AliasExpansionChecker {
 public:
  explicit AliasExpansionChecker(int64_t budget) : budget_(budget) {}

  // OK if expanding the document's aliases adds at most the remaining budget of nodes and
  // nests at most kMaxExpandedDepth levels. Cycles and unknown anchors are left for
  // fy_document_resolve to report.
  Status Check(fy_node* root) {
    literal_nodes_ = 0;
    memo_.clear();  // node addresses are reused across documents
    Info info;
    TIDEPOOL_RETURN_IF_ERROR(Measure(root, 1, &info));
    int64_t added = info.nodes - literal_nodes_;
    if (added > budget_) {
      return YamlError(0, 0,
                       "aliases expand to more than " + std::to_string(kMaxAliasExpansionNodes) +
                           " nodes");
    }
    budget_ -= added > 0 ? added : 0;
    return OkStatus();
  }

 private:
  struct Info {
    int64_t nodes = 0;  // saturates beyond the budget
    int height = 0;
  };

  Status Measure(fy_node* n, int depth, Info* out) {
    if (n == nullptr) {
      *out = Info{1, 1};
      return OkStatus();
    }
    if (depth > kMaxExpandedDepth) {
      return NodeError(n, "aliases nest deeper than " + std::to_string(kMaxExpandedDepth) +
                              " levels");
    }
    if (auto it = memo_.find(n); it != memo_.end()) {
      if (it->second.height < 0) {  // an alias to an enclosing node
        *out = Info{1, 1};
      } else {
        *out = it->second;
      }
      return OkStatus();
    }
    memo_[n] = Info{0, -1};  // in progress
    Info info{1, 1};
    switch (fy_node_get_type(n)) {
      case FYNT_SCALAR:
        if (fy_node_is_alias(n)) {
          fy_node* target = fy_node_resolve_alias(n);
          if (target != nullptr) {
            Info t;
            TIDEPOOL_RETURN_IF_ERROR(Measure(target, depth, &t));
            info = t;
          }
        } else {
          ++literal_nodes_;
        }
        break;
      case FYNT_SEQUENCE: {
        ++literal_nodes_;
        void* iter = nullptr;
        while (fy_node* c = fy_node_sequence_iterate(n, &iter)) {
          TIDEPOOL_RETURN_IF_ERROR(Add(c, depth, &info));
        }
        break;
      }
      case FYNT_MAPPING: {
        ++literal_nodes_;
        void* iter = nullptr;
        while (fy_node_pair* p = fy_node_mapping_iterate(n, &iter)) {
          TIDEPOOL_RETURN_IF_ERROR(Add(fy_node_pair_key(p), depth, &info));
          TIDEPOOL_RETURN_IF_ERROR(Add(fy_node_pair_value(p), depth, &info));
        }
        break;
      }
    }
    memo_[n] = info;
    *out = info;
    return OkStatus();
  }

  Status Add(fy_node* child, int depth, Info* parent) {
    Info c;
    TIDEPOOL_RETURN_IF_ERROR(Measure(child, depth + 1, &c));
    // Saturate well above any budget so that the sum cannot overflow.
    constexpr int64_t kCap = int64_t{1} << 50;
    parent->nodes = std::min(kCap, parent->nodes + c.nodes);
    parent->height = std::max(parent->height, c.height + 1);
    if (parent->height > kMaxExpandedDepth) {
      return NodeError(child, "aliases nest deeper than " + std::to_string(kMaxExpandedDepth) +
                                  " levels");
    }
    return OkStatus();
  }

  int64_t budget_;
  int64_t literal_nodes_ = 0;
  std::unordered_map<fy_node*, Info> memo_;
};

bool HasAnchors(fy_document* doc) {
  void* iter = nullptr;
  return fy_document_anchor_iterate(doc, &iter) != nullptr;
}

StatusOr<std::vector<json>> Parse(std::string_view text) {
  fy_diag_cfg diag_cfg;
  fy_diag_cfg_default(&diag_cfg);
  diag_cfg.fp = nullptr;
  diag_cfg.output_fn = DiscardOutput;
  diag_cfg.level = FYET_ERROR;
  diag_cfg.colorize = false;
  DiagPtr diag(fy_diag_create(&diag_cfg));
  if (diag == nullptr) {
    return InternalError("yaml: cannot create a diagnostics object");
  }
  fy_diag_set_collect_errors(diag.get(), true);

  fy_parse_cfg parse_cfg{};
  // No FYPCF_RESOLVE_DOCUMENT: each document is measured (AliasExpansionChecker) and then
  // resolved with fy_document_resolve, which is what that flag would do.
  parse_cfg.flags = static_cast<fy_parse_cfg_flags>(FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2 |
                                                    FYPCF_JSON_NONE);
  parse_cfg.diag = diag.get();  // the parser takes its own reference
  ParserPtr parser(fy_parser_create(&parse_cfg));
  if (parser == nullptr) {
    return InternalError("yaml: cannot create a parser");
  }
  if (text.empty()) {
    return std::vector<json>();
  }
  TIDEPOOL_RETURN_IF_ERROR(CheckUtf8(text));
  // The parser reads `text` in place; it outlives every document below.
  if (fy_parser_set_string(parser.get(), text.data(), text.size()) != 0) {
    return InternalError("yaml: cannot set the parser's input");
  }

  std::vector<json> docs;
  AliasExpansionChecker checker(kMaxAliasExpansionNodes);
  while (true) {
    DocumentPtr doc(fy_parse_load_document(parser.get()));
    if (doc == nullptr) {
      break;
    }
    if (HasAnchors(doc.get())) {  // without anchors, aliases cannot expand anything
      TIDEPOOL_RETURN_IF_ERROR(checker.Check(fy_document_root(doc.get())));
    }
    // Replaces aliases and merge keys; reports aliases to unknown anchors and cycles.
    if (fy_document_resolve(doc.get()) != 0) {
      return FirstDiagError(diag.get());
    }
    json j;
    TIDEPOOL_RETURN_IF_ERROR(NodeToJson(fy_document_root(doc.get()), &j));
    if (!j.is_null()) {
      docs.push_back(std::move(j));
    }
  }
  if (fy_parser_get_stream_error(parser.get())) {
    return FirstDiagError(diag.get());
  }
  // Some failures (e.g. an invalid alias) are collected without setting the stream error flag.
  void* iter = nullptr;
  while (fy_diag_error* e = fy_diag_errors_iterate(diag.get(), &iter)) {
    if (e->type >= FYET_ERROR) {
      return FirstDiagError(diag.get());
    }
  }
  return docs;
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
