// File: aws_xml.cc
#include "cloud/aws/live/aws_xml.h"

#include <algorithm>
#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <sstream>

#include "common/strings.h"

namespace tidepool::cloud::aws::live {
namespace {

XmlNode Convert(const std::string& name, const boost::property_tree::ptree& tree) {
  XmlNode node{name, TrimSpace(tree.data()), {}};
  for (const auto& [child, sub] : tree) {
    if (child == "<xmlattr>" || child == "<xmlcomment>") continue;
    node.children.push_back(Convert(child, sub));
  }
  return node;
}

}  // namespace

const XmlNode* XmlNode::Child(std::string_view child) const {
  for (const XmlNode& c : children) {
    if (c.name == child) return &c;
  }
  return nullptr;
}

const XmlNode* XmlNode::Find(std::initializer_list<std::string_view> path) const {
  const XmlNode* at = this;
  for (std::string_view step : path) {
    at = at->Child(step);
    if (at == nullptr) return nullptr;
  }
  return at;
}

std::string XmlNode::Text(std::initializer_list<std::string_view> path) const {
  const XmlNode* at = Find(path);
  return at == nullptr ? "" : at->text;
}

std::vector<const XmlNode*> XmlNode::List(std::initializer_list<std::string_view> path) const {
  std::vector<const XmlNode*> out;
  const XmlNode* at = Find(path);
  if (at == nullptr) return out;
  for (const XmlNode& c : at->children) {
    if (c.name == "member" || c.name == "item") out.push_back(&c);
  }
  return out;
}

// The deepest element nesting of `text`, counted without parsing (the parser and Convert
// recurse per level: a hostile answer must not exhaust the stack).
int NestingDepth(std::string_view text) {
  int depth = 0, deepest = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] != '<') continue;
    const char next = text[i + 1];
    if (next == '/') {
      --depth;
    } else if (next != '?' && next != '!') {
      const size_t end = text.find('>', i);
      if (end == std::string_view::npos) break;
      if (text[end - 1] != '/') deepest = std::max(deepest, ++depth);
      i = end;
    }
  }
  return deepest;
}

StatusOr<XmlNode> ParseXml(std::string_view text) {
  constexpr int kMaxDepth = 64;  // AWS's answers nest about 8 deep
  if (NestingDepth(text) > kMaxDepth) {
    return InvalidArgumentError("not XML: nested more than 64 elements deep");
  }
  boost::property_tree::ptree tree;
  try {
    std::istringstream in{std::string(text)};
    boost::property_tree::read_xml(in, tree);
  } catch (const std::exception& e) {
    return InvalidArgumentError(std::string("not XML: ") + e.what());
  }
  for (const auto& [name, sub] : tree) {
    if (name != "<xmlcomment>" && name != "<xmlattr>") return Convert(name, sub);
  }
  return InvalidArgumentError("not XML: no root element");
}

}  // namespace tidepool::cloud::aws::live
