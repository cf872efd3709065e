// File: aws_xml.h
//
// The XML answers of AWS's Query services (Auto Scaling, EC2, STS) as a small tree, parsed by
// Boost.PropertyTree's XML reader (kept inside aws_xml.cc). Attributes (xmlns) and comments are
// dropped; an element's text is trimmed. Lists are `<member>` (Auto Scaling, STS) or `<item>`
// (EC2) children.
//
// Thread-safe (values).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "common/status_or.h"

namespace tidepool::cloud::aws::live {

struct XmlNode {
  std::string name;
  std::string text;
  std::vector<XmlNode> children;

  // The first child named `name`, or nullptr.
  const XmlNode* Child(std::string_view child) const;
  // Down a path of child names; nullptr when a step is missing.
  const XmlNode* Find(std::initializer_list<std::string_view> path) const;
  // The text at `path`, "" when missing.
  std::string Text(std::initializer_list<std::string_view> path) const;
  // The list elements (`member` or `item`) under `path`.
  std::vector<const XmlNode*> List(std::initializer_list<std::string_view> path) const;
};

// The document's root element. InvalidArgument for text that is not XML or that nests more
// than 64 elements deep.
StatusOr<XmlNode> ParseXml(std::string_view text);

}  // namespace tidepool::cloud::aws::live
