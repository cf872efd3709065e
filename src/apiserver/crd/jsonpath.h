// File: crd/jsonpath.h
//
// The JSONPath of a CustomResourceDefinition's additionalPrinterColumns (client-go's
// util/jsonpath, inside "{...}", the subset a column's "simple JSON path" may use): fields
// (`.spec.replicas`, with `\.` for a dot inside a name), `['name']`, array indexes (`[0]`,
// `[-1]`), `[*]`, and filters `[?(@.type=="Ready")]` with == and != on a field. Evaluation
// gives every matching value in document order; a column shows the first.
//
// Pure; nothing throws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status_or.h"

namespace tidepool::apiserver::crd {

class JsonPath {
 public:
  // InvalidArgument with what is wrong when `path` does not parse or does not start with '.'.
  static StatusOr<JsonPath> Parse(const std::string& path);

  std::vector<const nlohmann::json*> Eval(const nlohmann::json& root) const;

  struct Step {
    enum Kind { kField, kIndex, kAll, kFilter } kind = kField;
    std::string name;      // kField; kFilter: the filtered field (dotted)
    long long index = 0;   // kIndex
    bool equal = true;     // kFilter: == or !=
    nlohmann::json value;  // kFilter: the literal compared with
  };

 private:
  std::vector<Step> steps_;
};

}  // namespace tidepool::apiserver::crd
