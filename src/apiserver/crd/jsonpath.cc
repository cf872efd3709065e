#include "apiserver/crd/jsonpath.h"

#include <cctype>

namespace tidepool::apiserver::crd {

using nlohmann::json;

namespace {

Status Bad(const std::string& path, const std::string& why) {
  return Status(StatusCode::kInvalidArgument, why + " in " + path);
}

// A field name up to the next unescaped '.' or '['; `\.` is a dot in the name.
std::string ReadName(const std::string& p, size_t* i) {
  std::string name;
  while (*i < p.size() && p[*i] != '.' && p[*i] != '[') {
    if (p[*i] == '\\' && *i + 1 < p.size()) ++*i;
    name += p[(*i)++];
  }
  return name;
}

const json* Lookup(const json& v, const std::string& dotted) {
  const json* cur = &v;
  size_t i = 0;
  while (i <= dotted.size()) {
    const size_t dot = dotted.find('.', i);
    const std::string part =
        dotted.substr(i, dot == std::string::npos ? std::string::npos : dot - i);
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(part);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    if (dot == std::string::npos) break;
    i = dot + 1;
  }
  return cur;
}

}  // namespace

StatusOr<JsonPath> JsonPath::Parse(const std::string& path) {
  JsonPath jp;
  std::string p = path;
  if (p.size() >= 2 && p.front() == '{' && p.back() == '}') p = p.substr(1, p.size() - 2);
  if (p.empty() || p[0] != '.') return Bad(path, "must be a simple json path starting with .");
  size_t i = 0;
  while (i < p.size()) {
    if (p[i] == '.') {
      ++i;
      if (i < p.size() && p[i] == '[') continue;
      std::string name = ReadName(p, &i);
      if (name.empty()) {
        if (i >= p.size() && jp.steps_.empty()) break;  // "." alone: the object
        return Bad(path, "empty field name");
      }
      jp.steps_.push_back({Step::kField, name});
      continue;
    }
    if (p[i] != '[') return Bad(path, "unexpected character");
    const size_t close = p.find(']', i);
    if (close == std::string::npos) return Bad(path, "unterminated array notation");
    std::string inner = p.substr(i + 1, close - i - 1);
    i = close + 1;
    if (inner == "*") {
      jp.steps_.push_back({Step::kAll});
    } else if (inner.size() >= 2 && (inner.front() == '\'' || inner.front() == '"') &&
               inner.back() == inner.front()) {
      jp.steps_.push_back({Step::kField, inner.substr(1, inner.size() - 2)});
    } else if (inner.rfind("?(@.", 0) == 0 && inner.back() == ')') {
      const std::string expr = inner.substr(4, inner.size() - 5);
      size_t op = expr.find("==");
      bool equal = true;
      if (op == std::string::npos) {
        op = expr.find("!=");
        equal = false;
      }
      if (op == std::string::npos) return Bad(path, "unsupported filter " + inner);
      std::string field = expr.substr(0, op);
      std::string lit = expr.substr(op + 2);
      while (!field.empty() && field.back() == ' ') field.pop_back();
      while (!lit.empty() && lit.front() == ' ') lit.erase(0, 1);
      json value;
      if (lit.size() >= 2 && (lit.front() == '"' || lit.front() == '\'') &&
          lit.back() == lit.front()) {
        value = lit.substr(1, lit.size() - 2);
      } else {
        value = json::parse(lit, nullptr, /*allow_exceptions=*/false);
        if (value.is_discarded()) return Bad(path, "unsupported filter value " + lit);
      }
      Step s{Step::kFilter, field};
      s.equal = equal;
      s.value = value;
      jp.steps_.push_back(s);
      // A filter may close with "]" inside quotes; the simple paths of columns do not.
    } else {
      char* end = nullptr;
      const long long n = std::strtoll(inner.c_str(), &end, 10);
      if (inner.empty() || end == nullptr || *end != '\0') {
        return Bad(path, "unsupported array notation [" + inner + "]");
      }
      Step s{Step::kIndex};
      s.index = n;
      jp.steps_.push_back(s);
    }
  }
  return jp;
}

std::vector<const json*> JsonPath::Eval(const json& root) const {
  std::vector<const json*> cur = {&root};
  for (const Step& s : steps_) {
    std::vector<const json*> next;
    for (const json* v : cur) {
      switch (s.kind) {
        case Step::kField:
          if (v->is_object()) {
            if (auto it = v->find(s.name); it != v->end()) next.push_back(&*it);
          }
          break;
        case Step::kIndex:
          if (v->is_array()) {
            const long long size = static_cast<long long>(v->size());
            const long long at = s.index < 0 ? size + s.index : s.index;
            if (at >= 0 && at < size) next.push_back(&(*v)[static_cast<size_t>(at)]);
          }
          break;
        case Step::kAll:
          if (v->is_array() || v->is_object()) {
            for (const json& e : *v) next.push_back(&e);
          }
          break;
        case Step::kFilter:
          if (v->is_array()) {
            for (const json& e : *v) {
              const json* f = Lookup(e, s.name);
              const bool eq = f != nullptr && *f == s.value;
              if (f != nullptr && eq == s.equal) next.push_back(&e);
            }
          }
          break;
      }
    }
    cur = std::move(next);
  }
  return cur;
}

}  // namespace tidepool::apiserver::crd
