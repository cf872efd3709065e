#include "apiserver/json_io.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/serializer.hpp>
#include <nlohmann/json.hpp>

namespace tidepool::apiserver::json_io {
namespace {

using json = nlohmann::json;
using boost::json::error_code;
using boost::json::string_view;

// What TreeBuilder::DropManagedFields leaves out (see ParseWithoutManagedFields), removed from
// a tree built otherwise.
void DropManagedFieldsOf(json& root) {
  const auto drop = [](json& object) {
    if (!object.is_object()) return;
    if (auto m = object.find("metadata"); m != object.end() && m->is_object()) {
      m->erase("managedFields");
    }
  };
  if (!root.is_object()) return;
  drop(root);
  if (auto o = root.find("object"); o != root.end()) drop(*o);
  if (auto items = root.find("items"); items != root.end() && items->is_array()) {
    for (json& item : *items) drop(item);
  }
}

// basic_parser's handler: builds the nlohmann tree as the text is read. Containers being
// filled are on `stack_` (pointers stay valid: a container's parent does not grow while the
// container is on the stack); keys, strings and numbers may arrive in parts and are gathered
// in buffers first.
class TreeBuilder {
 public:
  static constexpr size_t max_object_size = std::numeric_limits<size_t>::max();
  static constexpr size_t max_array_size = std::numeric_limits<size_t>::max();
  static constexpr size_t max_key_size = std::numeric_limits<size_t>::max();
  static constexpr size_t max_string_size = std::numeric_limits<size_t>::max();

  json& root() { return root_; }
  // The managedFields of the document's ObjectMetas (ParseWithoutManagedFields) are skipped,
  // never built.
  void DropManagedFields() { drop_managed_fields_ = true; }
  // With a list, the path of every repeated key is appended to it (schema.h's path form).
  void TrackDuplicates(std::vector<std::string>* out) { duplicates_ = out; }

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }

  bool on_object_begin(error_code&) {
    if (SkipBegin()) return true;
    const Frame frame = drop_managed_fields_ ? ChildFrame(/*object=*/true) : Frame::kOther;
    stack_.push_back(Insert(json::object()));
    if (drop_managed_fields_) frames_.push_back(frame);
    if (duplicates_ != nullptr) paths_.push_back(std::move(child_path_));
    return true;
  }
  bool on_object_end(size_t, error_code&) {
    if (SkipEnd()) return true;
    stack_.pop_back();
    if (drop_managed_fields_) frames_.pop_back();
    if (duplicates_ != nullptr) paths_.pop_back();
    return true;
  }
  bool on_array_begin(error_code&) {
    if (SkipBegin()) return true;
    const Frame frame = drop_managed_fields_ ? ChildFrame(/*object=*/false) : Frame::kOther;
    stack_.push_back(Insert(json::array()));
    if (drop_managed_fields_) frames_.push_back(frame);
    if (duplicates_ != nullptr) paths_.push_back(std::move(child_path_));
    return true;
  }
  bool on_array_end(size_t, error_code&) {
    if (SkipEnd()) return true;
    stack_.pop_back();
    if (drop_managed_fields_) frames_.pop_back();
    if (duplicates_ != nullptr) paths_.pop_back();
    return true;
  }

  bool on_key_part(string_view s, size_t, error_code&) {
    key_.append(s.data(), s.size());
    return true;
  }
  bool on_key(string_view s, size_t, error_code&) {
    key_.append(s.data(), s.size());
    if (skipping_ >= 0) {
      key_.clear();
    } else if (drop_managed_fields_ && frames_.back() == Frame::kMeta && key_ == "managedFields") {
      key_.clear();
      skipping_ = 0;  // the value that follows
    }
    return true;
  }
  bool on_string_part(string_view s, size_t, error_code&) {
    text_.append(s.data(), s.size());
    return true;
  }
  bool on_string(string_view s, size_t, error_code&) {
    if (SkipScalar()) return true;
    if (text_.empty()) {
      Insert(json(std::string(s.data(), s.size())));
    } else {
      text_.append(s.data(), s.size());
      Insert(json(std::move(text_)));
      text_.clear();
    }
    return true;
  }

  bool on_number_part(string_view s, error_code&) {
    text_.append(s.data(), s.size());
    return true;
  }
  // nlohmann keeps a number without fraction or exponent as unsigned when it has no minus sign
  // and as signed otherwise ("-0" included), as long as it fits; everything else is a double.
  bool on_int64(int64_t i, string_view s, error_code&) {
    if (SkipScalar()) return true;
    const bool minus = text_.empty() ? (!s.empty() && s[0] == '-') : text_[0] == '-';
    text_.clear();
    if (minus) {
      Insert(json(static_cast<json::number_integer_t>(i)));
    } else {
      Insert(json(static_cast<json::number_unsigned_t>(i)));
    }
    return true;
  }
  bool on_uint64(uint64_t u, string_view, error_code&) {
    if (SkipScalar()) return true;
    text_.clear();
    Insert(json(static_cast<json::number_unsigned_t>(u)));
    return true;
  }
  // The value is read again from the text with from_chars (correctly rounded, as strtod in
  // nlohmann), whatever rounding Boost's own conversion applied. Beyond a double's range
  // nlohmann refuses the text (as Go's encoding/json does); below it, it keeps strtod's 0.
  bool on_double(double d, string_view s, error_code& ec) {
    text_.append(s.data(), s.size());
    double v = d;
    const auto r = std::from_chars(text_.data(), text_.data() + text_.size(), v);
    text_.clear();
    if (r.ec == std::errc::result_out_of_range) {
      if (!std::isfinite(d)) {
        ec = boost::json::error::exponent_overflow;  // refused, skipped or not
        return false;
      }
      v = d;
    }
    if (SkipScalar()) return true;
    Insert(json(static_cast<json::number_float_t>(v)));
    return true;
  }
  bool on_bool(bool b, error_code&) {
    if (SkipScalar()) return true;
    Insert(json(b));
    return true;
  }
  bool on_null(error_code&) {
    if (SkipScalar()) return true;
    Insert(json(nullptr));
    return true;
  }
  bool on_comment_part(string_view, error_code&) { return true; }
  bool on_comment(string_view, error_code&) { return true; }

 private:
  // Places a value in the container being filled (or as the root) and returns it.
  json* Insert(json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json* top = stack_.back();
    if (top->is_array()) {
      auto& a = top->get_ref<json::array_t&>();
      if (duplicates_ != nullptr) {
        child_path_ = paths_.back() + "[" + std::to_string(a.size()) + "]";
      }
      a.push_back(std::move(v));
      return &a.back();
    }
    auto& o = top->get_ref<json::object_t&>();
    if (duplicates_ != nullptr) {
      child_path_ = paths_.back().empty() ? key_ : paths_.back() + "." + key_;
    }
    // A repeated key keeps its last value, as nlohmann's parser.
    auto [it, inserted] = o.insert_or_assign(std::move(key_), std::move(v));
    key_.clear();
    if (!inserted && duplicates_ != nullptr) duplicates_->push_back(child_path_);
    return &it->second;
  }

  // Skipping a dropped value: a container of it begins (true: not built), ends, or a scalar of
  // it is read (its text forgotten).
  bool SkipBegin() {
    if (skipping_ < 0) return false;
    ++skipping_;
    return true;
  }
  bool SkipEnd() {
    if (skipping_ <= 0) return false;
    if (--skipping_ == 0) skipping_ = -1;  // the dropped value ended
    return true;
  }
  bool SkipScalar() {
    if (skipping_ < 0) return false;
    if (skipping_ == 0) skipping_ = -1;  // the dropped value was this scalar
    text_.clear();
    return true;
  }

  // Where a container sits (when dropping): an object whose "metadata" is an ObjectMeta (the
  // root, the root's "object", an element of the root's "items"), the root's "items", such an
  // ObjectMeta, or anything else.
  enum class Frame : uint8_t { kTop, kItems, kMeta, kOther };
  // The frame of a container that begins now, as the value of key_ (or an array element).
  Frame ChildFrame(bool object) const {
    if (frames_.empty()) return object ? Frame::kTop : Frame::kOther;
    const bool at_root = frames_.size() == 1;
    switch (frames_.back()) {
      case Frame::kTop:
        if (object && key_ == "metadata") return Frame::kMeta;
        if (object && at_root && key_ == "object") return Frame::kTop;
        if (!object && at_root && key_ == "items") return Frame::kItems;
        return Frame::kOther;
      case Frame::kItems:
        return object ? Frame::kTop : Frame::kOther;
      default:
        return Frame::kOther;
    }
  }

  bool drop_managed_fields_ = false;
  std::vector<Frame> frames_;  // per container on stack_ (when dropping)
  int skipping_ = -1;       // -1, or the nesting inside the dropped value (0: before it)
  json root_;
  std::vector<json*> stack_;
  std::string key_;
  std::string text_;
  std::vector<std::string>* duplicates_ = nullptr;
  std::vector<std::string> paths_;  // the path of each container on stack_ (when tracking)
  std::string child_path_;          // the path of the value Insert placed last
};

// What a byte asks of a JSON string writer: kEscape for the control characters, '"' and '\\'
// (RFC 8259 §7), kNotAscii from 0x80.
constexpr unsigned kEscape = 1;
constexpr unsigned kNotAscii = 2;
constexpr auto kByteClass = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c) {
    if (c < 0x20 || c == '"' || c == '\\') t[c] = kEscape;
    if (c >= 0x80) t[c] = kNotAscii;
  }
  return t;
}();

// Eight bytes of `p` as one word.
uint64_t Word(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof(w));
  return w;
}

// Bit 7 of a byte of the result is set where the byte of `w` is below `n` (n <= 0x80), for
// words whose bytes are all ASCII; exact as a test for "any byte" (the classic SWAR "has less").
constexpr uint64_t kOnes = ~uint64_t{0} / 255;
uint64_t BytesBelow(uint64_t w, uint8_t n) { return (w - kOnes * n) & ~w & (kOnes * 0x80); }
uint64_t BytesEqual(uint64_t w, uint8_t c) { return BytesBelow(w ^ (kOnes * c), 1); }

unsigned ClassifyWord(uint64_t w) {
  unsigned flags = (w & (kOnes * 0x80)) != 0 ? kNotAscii : 0;
  if ((BytesBelow(w, 0x20) | BytesEqual(w, '"') | BytesEqual(w, '\\')) != 0) flags |= kEscape;
  return flags;
}

// The union of kByteClass over `s`: eight bytes at a time, the last eight overlapping; shorter
// strings a byte at a time. (A word with a non-ASCII byte may report kEscape wrongly; that
// string goes to nlohmann's writer, which decides by itself.)
unsigned Classify(std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  unsigned flags = 0;
  if (n < 8) {
    for (size_t i = 0; i < n; ++i) flags |= kByteClass[static_cast<unsigned char>(p[i])];
    return flags;
  }
  for (size_t i = 0; i + 8 <= n; i += 8) flags |= ClassifyWord(Word(p + i));
  return flags | ClassifyWord(Word(p + n - 8));
}

// Writes the tree depth first into a local buffer (flushed into *out when full), strings
// that need escapes through Boost.JSON's serializer (reset for each), others copied.
class Writer {
 public:
  Writer(std::string* out, const json* mark, size_t* mark_at, RawNode raw = {})
      : out_(out), mark_(mark), mark_at_(mark_at), raw_(raw) {}
  ~Writer() { Flush(); }

  void Value(const json& v) {
    if (&v == mark_ && mark_at_ != nullptr) *mark_at_ = out_->size() + used_;
    if (&v == raw_.node) {
      Put(raw_.text);
      return;
    }
    switch (v.type()) {
      case json::value_t::object: {
        Put('{');
        bool first = true;
        for (const auto& [k, x] : v.get_ref<const json::object_t&>()) {
          if (!first) Put(',');
          first = false;
          String(k);
          Put(':');
          Value(x);
        }
        Put('}');
        return;
      }
      case json::value_t::array: {
        Put('[');
        bool first = true;
        for (const json& x : v.get_ref<const json::array_t&>()) {
          if (!first) Put(',');
          first = false;
          Value(x);
        }
        Put(']');
        return;
      }
      case json::value_t::string:
        String(v.get_ref<const json::string_t&>());
        return;
      case json::value_t::boolean:
        Put(v.get<bool>() ? std::string_view("true") : std::string_view("false"));
        return;
      case json::value_t::null:
        Put("null");
        return;
      case json::value_t::number_integer:
        Integer(v.get<json::number_integer_t>());
        return;
      case json::value_t::number_unsigned:
        Integer(v.get<json::number_unsigned_t>());
        return;
      default:  // doubles (rare in Kubernetes objects), binary, discarded: nlohmann's text
        Put(v.dump(-1, ' ', false, json::error_handler_t::replace));
        return;
    }
  }

 private:
  static constexpr size_t kBuffer = 16384;

  void Flush() {
    out_->append(buf_, used_);
    used_ = 0;
  }
  void Put(char c) {
    if (used_ == kBuffer) Flush();
    buf_[used_++] = c;
  }
  void Put(std::string_view s) {
    if (s.size() > kBuffer - used_) {
      Flush();
      if (s.size() > kBuffer) {
        out_->append(s);
        return;
      }
    }
    std::memcpy(buf_ + used_, s.data(), s.size());
    used_ += s.size();
  }

  template <typename T>
  void Integer(T i) {
    char digits[24];
    const auto r = std::to_chars(digits, digits + sizeof(digits), i);
    Put(std::string_view(digits, static_cast<size_t>(r.ptr - digits)));
  }

  void String(std::string_view s) {
    const unsigned flags = Classify(s);
    if ((flags & kNotAscii) != 0) {
      // Not ASCII: nlohmann's own writer, which also replaces invalid UTF-8 with U+FFFD
      // (error_handler_t::replace); Boost's writes such bytes unchecked.
      Put(json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace));
      return;
    }
    if (flags == 0) {
      Put('"');
      Put(s);
      Put('"');
      return;
    }
    sr_.reset(string_view(s.data(), s.size()));
    while (!sr_.done()) {
      if (used_ == kBuffer) Flush();
      used_ += sr_.read(buf_ + used_, kBuffer - used_).size();
    }
  }

  std::string* out_;
  const json* mark_;
  size_t* mark_at_;
  RawNode raw_;
  boost::json::serializer sr_;
  size_t used_ = 0;
  char buf_[kBuffer];
};

// The deepest nesting of arrays and objects in a JSON text (brackets outside strings).
size_t MaxNesting(std::string_view text) {
  size_t depth = 0;
  size_t max = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      max = std::max(max, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return max;
}

}  // namespace

namespace {

StatusOr<json> ParseWith(std::string_view text, std::vector<std::string>* duplicate_paths,
                         bool drop_managed_fields) {
  boost::json::parse_options opt;
  opt.max_depth = kMaxDepth;
  boost::json::basic_parser<TreeBuilder> p(opt);
  p.handler().TrackDuplicates(duplicate_paths);
  if (drop_managed_fields) p.handler().DropManagedFields();
  error_code ec;
  const size_t n = p.write_some(/*more=*/false, text.data(), text.size(), ec);
  if (!ec && n != text.size()) ec = boost::json::error::extra_data;
  if (ec == boost::json::error::exponent_overflow &&
      text.find('\0') == std::string_view::npos && MaxNesting(text) <= kMaxDepth) {
    // Boost refuses an exponent beyond its int range ("1e-99999999999999999999"), which strtod,
    // and so nlohmann, reads as 0 (or as infinity, which nlohmann refuses): let nlohmann read
    // such a text (found by the json fuzz target).
    json v = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (!v.is_discarded()) {
      if (drop_managed_fields) DropManagedFieldsOf(v);
      return v;
    }
  }
  if (ec) {
    return Status(StatusCode::kInvalidArgument,
                  ec.message() + " at byte " + std::to_string(n));
  }
  return std::move(p.handler().root());
}

}  // namespace

StatusOr<json> Parse(std::string_view text) { return ParseWith(text, nullptr, false); }

StatusOr<json> Parse(std::string_view text, std::vector<std::string>* duplicate_paths) {
  return ParseWith(text, duplicate_paths, false);
}

StatusOr<json> ParseWithoutManagedFields(std::string_view text) {
  return ParseWith(text, nullptr, true);
}

void Dump(const json& value, std::string* out, const json* mark, size_t* mark_at) {
  if (mark_at != nullptr) *mark_at = std::string::npos;
  Writer w(out, mark, mark_at);
  w.Value(value);
}  // ~Writer flushes

void Dump(const json& value, std::string* out, const json* mark, size_t* mark_at, RawNode raw) {
  if (mark_at != nullptr) *mark_at = std::string::npos;
  Writer w(out, mark, mark_at, raw);
  w.Value(value);
}

void AppendString(std::string_view s, std::string* out) {
  const unsigned flags = Classify(s);
  if (flags == 0) {
    out->push_back('"');
    out->append(s);
    out->push_back('"');
  } else if ((flags & kNotAscii) != 0) {
    out->append(json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace));
  } else {
    out->append(boost::json::serialize(string_view(s.data(), s.size())));
  }
}

std::string Dump(const json& value) {
  std::string out;
  Dump(value, &out);
  return out;
}

std::string GoMarshal(const json& value) {
  const std::string compact = Dump(value);
  std::string out;
  out.reserve(compact.size());
  for (size_t i = 0; i < compact.size(); ++i) {
    const char c = compact[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xe2' && i + 2 < compact.size() && compact[i + 1] == '\x80' &&
               (compact[i + 2] == '\xa8' || compact[i + 2] == '\xa9')) {
      out += compact[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace tidepool::apiserver::json_io
