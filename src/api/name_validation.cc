// File: name_validation.cc
//
// Follows k8s.io/apimachinery/pkg/util/validation/validation.go; the regexes are matched by
// hand. See name_validation.h.
#include "api/name_validation.h"

#include <algorithm>
#include <initializer_list>

namespace tidepool::api {
namespace {

constexpr std::string_view kQualifiedNameFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kDns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1123LabelErrMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";

constexpr std::string_view kDns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
constexpr std::string_view kDns1035LabelErrMsg =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character";
constexpr std::string_view kPercentFmt = "[0-9]+%";
constexpr std::string_view kPercentErrMsg =
    "a valid percent string must be a numeric string followed by an ending '%'";

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool MatchesQualifiedName(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool MatchesDns1123Label(std::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) { return IsLowerAlnum(c) || c == '-'; });
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*
bool MatchesDns1123Subdomain(std::string_view s) {
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    const std::string_view label =
        s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (!MatchesDns1123Label(label)) {
      return false;
    }
    if (dot == std::string_view::npos) {
      return true;
    }
    start = dot + 1;
  }
}

std::string MaxLenError(int n) {
  return "must be no more than " + std::to_string(n) + " characters";
}

// validation.RegexError: "<msg> (e.g. 'a',  or 'b', regex used for validation is '<fmt>')".
std::string RegexError(std::string_view msg, std::string_view fmt,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  if (examples.size() == 0) {
    return out + " (regex used for validation is '" + std::string(fmt) + "')";
  }
  out += " (e.g. ";
  bool first = true;
  for (std::string_view e : examples) {
    if (!first) {
      out += " or ";
    }
    first = false;
    out += "'" + std::string(e) + "', ";
  }
  return out + "regex used for validation is '" + std::string(fmt) + "')";
}

}  // namespace

std::vector<std::string> IsDns1123Subdomain(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 253) {
    errs.push_back(MaxLenError(253));
  }
  if (!MatchesDns1123Subdomain(value)) {
    errs.push_back(RegexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
  }
  return errs;
}

std::vector<std::string> IsDns1123Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) {
    errs.push_back(MaxLenError(63));
  }
  if (!MatchesDns1123Label(value)) {
    errs.push_back(RegexError(kDns1123LabelErrMsg, kDns1123LabelFmt, {"my-name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> IsDns1035Label(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) {
    errs.push_back(MaxLenError(63));
  }
  if (!MatchesDns1123Label(value) || !(value.front() >= 'a' && value.front() <= 'z')) {
    errs.push_back(RegexError(kDns1035LabelErrMsg, kDns1035LabelFmt, {"my-name", "abc-123"}));
  }
  return errs;
}

std::vector<std::string> IsValidPercent(std::string_view value) {
  const bool ok = value.size() >= 2 && value.back() == '%' &&
                  std::all_of(value.begin(), value.end() - 1,
                              [](char c) { return c >= '0' && c <= '9'; });
  if (ok) {
    return {};
  }
  return {RegexError(kPercentErrMsg, kPercentFmt, {"1%", "93%"})};
}

std::vector<std::string> IsValidPathSegmentName(std::string_view value) {
  for (std::string_view bad : {".", ".."}) {
    if (value == bad) {
      return {"may not be '" + std::string(bad) + "'"};
    }
  }
  std::vector<std::string> errs;
  for (std::string_view bad : {"/", "%"}) {
    if (value.find(bad) != std::string_view::npos) {
      errs.push_back("may not contain '" + std::string(bad) + "'");
    }
  }
  return errs;
}

std::vector<std::string> IsQualifiedName(std::string_view value) {
  std::vector<std::string> errs;
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t slash = value.find('/', start);
    if (slash == std::string_view::npos) {
      parts.push_back(value.substr(start));
      break;
    }
    parts.push_back(value.substr(start, slash - start));
    start = slash + 1;
  }
  std::string_view name;
  if (parts.size() == 1) {
    name = parts[0];
  } else if (parts.size() == 2) {
    const std::string_view prefix = parts[0];
    name = parts[1];
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (const std::string& msg : IsDns1123Subdomain(prefix)) {
        errs.push_back("prefix part " + msg);
      }
    }
  } else {
    errs.push_back(
        "a qualified name " +
        RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt, {"MyName", "my.name", "123-abc"}) +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    return errs;
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back("name part " + MaxLenError(63));
  }
  if (!MatchesQualifiedName(name)) {
    errs.push_back("name part " + RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                             {"MyName", "my.name", "123-abc"}));
  }
  return errs;
}

std::vector<std::string> IsValidLabelValue(std::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) {
    errs.push_back(MaxLenError(63));
  }
  if (!value.empty() && !MatchesQualifiedName(value)) {
    errs.push_back(RegexError(kLabelValueErrMsg, "(" + std::string(kQualifiedNameFmt) + ")?",
                              {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

}  // namespace tidepool::api
