// File: type_check.cc
//
// Schema::FindTypeError: the walk that finds the first value whose JSON type its field does not
// take, and the texts Go's decoders give for it (see schema.h, "Types").
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/quantity.h"
#include "apiserver/schema/schema.h"
#include "common/base64.h"

namespace tidepool::apiserver::schema {

namespace {

using Leaf = Schema::Leaf;

// Go's UnmarshalTypeError.Value for a non-number value.
std::string JsonKind(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::string:
      return "string";
    case nlohmann::json::value_t::boolean:
      return "bool";
    case nlohmann::json::value_t::array:
      return "array";
    case nlohmann::json::value_t::object:
      return "object";
    default:
      return "number";
  }
}

// What runtime.DefaultUnstructuredConverter sees: the reflect kind of the decoded value.
std::string UnstructuredKind(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::string:
      return "string";
    case nlohmann::json::value_t::boolean:
      return "bool";
    case nlohmann::json::value_t::array:
      return "slice";
    case nlohmann::json::value_t::object:
      return "map";
    case nlohmann::json::value_t::number_float:
      return "float64";
    default:
      return "int64";
  }
}

// An integral value in [lo, hi]; a double without a fraction counts (see schema.h).
bool IntegralIn(const nlohmann::json& v, int64_t lo, int64_t hi) {
  if (v.is_number_unsigned()) return v.get<uint64_t>() <= static_cast<uint64_t>(hi);
  if (v.is_number_integer()) {
    const int64_t n = v.get<int64_t>();
    return n >= lo && n <= hi;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    return std::isfinite(d) && std::trunc(d) == d && d >= static_cast<double>(lo) &&
           d <= static_cast<double>(hi);
  }
  return false;
}

// "number 1.5": the literal as Go's error prints it (here, as the number is written back).
std::string NumberValue(const nlohmann::json& v) { return "number " + v.dump(); }

}  // namespace

class TypeChecker {
 public:
  explicit TypeChecker(const Schema& schema) : schema_(schema) {}

  // Walks `value` as node `node`; false (and error() set) at the first mismatch.
  bool Check(int node_index, const nlohmann::json& value) {
    if (value.is_null()) return true;
    const Schema::TypeNode& node = schema_.nodes_[node_index];
    switch (node.kind) {
      case Schema::TypeNode::kLeaf:
        return CheckLeaf(node_index, static_cast<Leaf>(node.target), value);
      case Schema::TypeNode::kModel:
        if (!value.is_object()) return Fail(node_index, value, 'S');
        return CheckModel(schema_.models_[node.target], value);
      case Schema::TypeNode::kArray:
        if (!value.is_array()) return Fail(node_index, value, 'L');
        for (const nlohmann::json& element : value) {
          if (!Check(node.target, element)) return false;
        }
        return true;
      case Schema::TypeNode::kMap:
        if (!value.is_object()) return Fail(node_index, value, 'M');
        for (const auto& [key, element] : value.items()) {
          if (!Check(node.target, element)) return false;
        }
        return true;
    }
    return true;
  }

  TypeError TakeError() { return std::move(error_); }

 private:
  bool CheckModel(const Schema::Model& model, const nlohmann::json& object) {
    const std::string* saved_struct = struct_;
    for (const auto& [key, field_value] : object.items()) {
      const auto field = model.fields.find(key);
      if (field == model.fields.end()) continue;  // unknown fields are not type errors
      fields_.push_back(&field->first);
      struct_ = &model.go_name;
      const bool ok = Check(field->second, field_value);
      struct_ = saved_struct;
      fields_.pop_back();
      if (!ok) return false;
    }
    return true;
  }

  bool CheckLeaf(int node_index, Leaf leaf, const nlohmann::json& v) {
    switch (leaf) {
      case Leaf::kString:
      case Leaf::kTime:
        return v.is_string() || Fail(node_index, v, 's');
      case Leaf::kBytes:
        if (!v.is_string()) return Fail(node_index, v, 's');
        if (auto decoded = Base64Decode(v.get_ref<const std::string&>()); !decoded.ok()) {
          return FailWith(std::string(decoded.status().message()));
        }
        return true;
      case Leaf::kBoolean:
        return v.is_boolean() || Fail(node_index, v, 's');
      case Leaf::kDouble:
        return v.is_number() || Fail(node_index, v, 's');
      case Leaf::kInt32:
      case Leaf::kIntOrString:
        if (leaf == Leaf::kIntOrString && v.is_string()) return true;
        return IntegralIn(v, std::numeric_limits<int32_t>::min(),
                          std::numeric_limits<int32_t>::max()) ||
               Fail(node_index, v, 's');
      case Leaf::kInt64:
        return IntegralIn(v, std::numeric_limits<int64_t>::min(),
                          std::numeric_limits<int64_t>::max()) ||
               Fail(node_index, v, 's');
      case Leaf::kQuantity:
        return CheckQuantity(v);
      case Leaf::kAny:
        return true;
    }
    return true;
  }

  // resource.Quantity's UnmarshalJSON: a string is parsed unquoted, anything else as its text.
  bool CheckQuantity(const nlohmann::json& v) {
    if (!v.is_string() && !v.is_number()) {
      return FailWith(std::string(api::kQuantityFormatWrongMessage));
    }
    const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    if (auto q = api::Quantity::Parse(text); !q.ok()) {
      return FailWith(std::string(q.status().message()));
    }
    return true;
  }

  bool Fail(int node_index, const nlohmann::json& v, char target) {
    error_.struct_name = struct_ != nullptr ? *struct_ : std::string();
    error_.field_path.clear();
    for (const std::string* f : fields_) {
      if (!error_.field_path.empty()) error_.field_path += '.';
      error_.field_path += *f;
    }
    error_.go_type = DecoderType(node_index);
    error_.value = v.is_number() ? NumberValue(v) : JsonKind(v);
    // Go writes the literal only when a number does not fit a number field.
    if (v.is_number() && !IsIntegerField(node_index)) error_.value = "number";
    error_.unstructured = UnstructuredKind(v);
    error_.target = target;
    const Schema::TypeNode& node = schema_.nodes_[node_index];
    error_.custom_decoder = node.kind == Schema::TypeNode::kLeaf &&
                            (static_cast<Leaf>(node.target) == Leaf::kTime ||
                             static_cast<Leaf>(node.target) == Leaf::kIntOrString);
    return false;
  }

  bool FailWith(std::string message) {
    error_.message = std::move(message);
    return false;
  }

  bool IsIntegerField(int node_index) const {
    const Schema::TypeNode& node = schema_.nodes_[node_index];
    if (node.kind != Schema::TypeNode::kLeaf) return false;
    const Leaf leaf = static_cast<Leaf>(node.target);
    return leaf == Leaf::kInt32 || leaf == Leaf::kInt64 || leaf == Leaf::kIntOrString;
  }

  // The type Go's error names: the field's own type, but for the types whose UnmarshalJSON
  // decodes into a plain Go value (metav1.Time: string, IntOrString: int32).
  std::string DecoderType(int node_index) const {
    const Schema::TypeNode& node = schema_.nodes_[node_index];
    if (node.kind == Schema::TypeNode::kLeaf) {
      const Leaf leaf = static_cast<Leaf>(node.target);
      if (leaf == Leaf::kTime) return "string";
      if (leaf == Leaf::kIntOrString) return "int32";
    }
    return GoType(node_index);
  }

  // The Go type's name as reflect prints it.
  std::string GoType(int node_index) const {
    const Schema::TypeNode& node = schema_.nodes_[node_index];
    switch (node.kind) {
      case Schema::TypeNode::kModel:
        return "v1." + schema_.models_[node.target].go_name;
      case Schema::TypeNode::kArray:
        return "[]" + GoType(node.target);
      case Schema::TypeNode::kMap: {
        const Schema::TypeNode& element = schema_.nodes_[node.target];
        if (element.kind == Schema::TypeNode::kLeaf &&
            static_cast<Leaf>(element.target) == Leaf::kQuantity) {
          return "v1.ResourceList";
        }
        return "map[string]" + GoType(node.target);
      }
      case Schema::TypeNode::kLeaf:
        break;
    }
    switch (static_cast<Leaf>(node.target)) {
      case Leaf::kString:
        return "string";
      case Leaf::kInt32:
        return "int32";
      case Leaf::kInt64:
        return "int64";
      case Leaf::kDouble:
        return "float64";
      case Leaf::kBoolean:
        return "bool";
      case Leaf::kTime:
        return "v1.Time";
      case Leaf::kIntOrString:
        return "intstr.IntOrString";
      case Leaf::kQuantity:
        return "resource.Quantity";
      case Leaf::kBytes:
        return "[]uint8";
      case Leaf::kAny:
        return "interface {}";
    }
    return "interface {}";
  }

  const Schema& schema_;
  std::vector<const std::string*> fields_;
  const std::string* struct_ = nullptr;
  TypeError error_;
};

std::optional<TypeError> Schema::FindTypeError(std::string_view api_version,
                                               std::string_view kind,
                                               const nlohmann::json& object) const {
  const int node = FindKind(api_version, kind);
  if (node < 0) return std::nullopt;
  TypeChecker checker(*this);
  if (checker.Check(node, object)) return std::nullopt;
  return checker.TakeError();
}

class NullZeroer {
 public:
  explicit NullZeroer(const Schema& schema) : schema_(schema) {}

  void Walk(int node_index, nlohmann::json& value) {
    const Schema::TypeNode& node = schema_.nodes_[node_index];
    switch (node.kind) {
      case Schema::TypeNode::kLeaf:
        if (static_cast<Leaf>(node.target) == Leaf::kQuantity) Canonical(value);
        return;
      case Schema::TypeNode::kModel:
        if (value.is_object()) WalkModel(schema_.models_[node.target], value);
        return;
      case Schema::TypeNode::kArray:
      case Schema::TypeNode::kMap:
        if (!value.is_array() && !value.is_object()) return;
        for (auto it = value.begin(); it != value.end(); ++it) {
          if (it->is_null()) {
            *it = ZeroValue(schema_.nodes_[node.target]);
          } else {
            Walk(node.target, *it);
          }
        }
        return;
    }
  }

 private:
  // The zero value Go decodes a null element of this type into; null when it has none in JSON
  // (free-form values, times: kept null).
  static nlohmann::json ZeroValue(const Schema::TypeNode& node) {
    if (node.kind == Schema::TypeNode::kModel) return nlohmann::json::object();
    if (node.kind != Schema::TypeNode::kLeaf) return nullptr;
    switch (static_cast<Leaf>(node.target)) {
      case Leaf::kString:
      case Leaf::kBytes:
        return "";
      case Leaf::kInt32:
      case Leaf::kInt64:
      case Leaf::kIntOrString:
        return 0;
      case Leaf::kDouble:
        return 0.0;
      case Leaf::kBoolean:
        return false;
      case Leaf::kQuantity:
        return "0";
      case Leaf::kTime:
      case Leaf::kAny:
        return nullptr;
    }
    return nullptr;
  }

  // resource.Quantity decoded and encoded again: its canonical string ("0.5" and 0.5 are
  // "500m", "1024Mi" is "1Gi"). A value that does not parse is left (FindTypeError's).
  static void Canonical(nlohmann::json& value) {
    if (!value.is_string() && !value.is_number()) return;
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    auto q = api::Quantity::Parse(text);
    if (!q.ok()) return;
    std::string canonical = q->ToString();
    if (!value.is_string() || canonical != text) value = std::move(canonical);
  }

  void WalkModel(const Schema::Model& model, nlohmann::json& object) {
    for (auto it = object.begin(); it != object.end();) {
      const auto field = model.fields.find(it.key());
      if (field == model.fields.end()) {
        ++it;
      } else if (it->is_null()) {
        it = object.erase(it);
      } else {
        Walk(field->second, *it);
        ++it;
      }
    }
  }

  const Schema& schema_;
};

void Schema::AsDecoded(std::string_view api_version, std::string_view kind,
                       nlohmann::json& object) const {
  const int node = FindKind(api_version, kind);
  if (node < 0) return;
  NullZeroer(*this).Walk(node, object);
}

// ---- Messages --------------------------------------------------------------------------------

std::string TypeError::JsonMessage() const {
  if (!message.empty()) return message;
  if (struct_name.empty() && field_path.empty()) {
    return "json: cannot unmarshal " + value + " into Go value of type " + go_type;
  }
  return "json: cannot unmarshal " + value + " into Go struct field " + struct_name + "." +
         field_path + " of type " + go_type;
}

std::string TypeError::ConverterMessage() const {
  if (!message.empty()) return message;
  // Types with their own UnmarshalJSON are converted through JSON, without a field context.
  if (custom_decoder) {
    return "json: cannot unmarshal " + value + " into Go value of type " + go_type;
  }
  switch (target) {
    case 'S':
      return "cannot restore struct from: " + unstructured;
    case 'L':
      return "cannot restore slice from " + unstructured;
    case 'M':
      return "cannot restore map from " + unstructured;
    default:
      break;
  }
  // A simple field: only integers convert to strings (and integers or integral floats to
  // numbers); what does not convert at all falls through to "unrecognized type".
  const bool numeric_target = go_type == "int32" || go_type == "int64" || go_type == "float64";
  if ((unstructured == "int64" && (go_type == "string" || numeric_target)) ||
      (unstructured == "float64" && numeric_target)) {
    return "cannot convert " + unstructured + " to " + go_type;
  }
  return "unrecognized type: " + go_type;
}

}  // namespace tidepool::apiserver::schema
