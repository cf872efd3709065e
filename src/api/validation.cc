#include "api/validation.h"

namespace tidepool::api {
namespace {

constexpr const char* kIsNotIntegerErrorMsg = "must be an integer";
constexpr const char* kIsNegativeErrorMsg = "must be greater than or equal to 0";

void ValidateQuantityValue(const std::string& name, const Quantity& q, const std::string& path,
                           FieldErrors& errs) {
  if (q.Sign() < 0) {
    errs.push_back(FieldError::Invalid(path, q.ToString(), kIsNegativeErrorMsg));
  }
  if (IsIntegerResource(name) && q.MilliValue() % 1000 != 0) {
    errs.push_back(FieldError::Invalid(path, q.ToString(), kIsNotIntegerErrorMsg));
  }
}

// ValidateNodeFieldSelectorRequirement: In / NotIn with exactly one value, key metadata.name.
FieldErrors ValidateNodeFieldSelectorRequirement(const SelectorRequirement& r,
                                                 const std::string& path) {
  FieldErrors errs;
  if (r.op == SelectorOperator::kIn || r.op == SelectorOperator::kNotIn) {
    if (r.values.size() != 1) {
      errs.push_back(FieldError::Required(
          path + ".values",
          "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    }
  } else {
    errs.push_back(FieldError::Invalid(path + ".operator", std::string(SelectorOperatorName(r.op)),
                                       "not a valid selector operator"));
  }
  if (r.key != "metadata.name") {
    errs.push_back(FieldError::Invalid(path + ".key", r.key, "not a valid field selector key"));
  }
  return errs;
}

}  // namespace

FieldErrors ValidateNodeSelectorTerm(const NodeSelectorTerm& term, const std::string& path) {
  FieldErrors errs;
  for (size_t j = 0; j < term.match_expressions.size(); ++j) {
    auto e = ValidateSelectorRequirement(term.match_expressions[j], /*allow_gt_lt=*/true,
                                         path + ".matchExpressions[" + std::to_string(j) + "]");
    errs.insert(errs.end(), e.begin(), e.end());
  }
  for (size_t j = 0; j < term.match_fields.size(); ++j) {
    auto e = ValidateNodeFieldSelectorRequirement(term.match_fields[j],
                                                  path + ".matchFields[" + std::to_string(j) + "]");
    errs.insert(errs.end(), e.begin(), e.end());
  }
  return errs;
}

FieldErrors ValidateResourceRequirements(const ResourceRequirements& r, const std::string& path) {
  FieldErrors errs;
  const std::string lim_path = path + ".resources.limits";
  const std::string req_path = path + ".resources.requests";
  for (const auto& [name, q] : r.limits) {
    ValidateQuantityValue(name, q, lim_path + "[" + name + "]", errs);
  }
  for (const auto& [name, q] : r.requests) {
    const std::string p = req_path + "[" + name + "]";
    ValidateQuantityValue(name, q, p, errs);
    auto lim = r.limits.find(name);
    if (lim != r.limits.end()) {
      // For non-overcommitable resources a request must equal its limit. Kubernetes reports
      // both comparisons at ".resources.requests" itself, without the resource key.
      if (q.Compare(lim->second) != 0 && !IsOvercommitAllowed(name)) {
        errs.push_back(FieldError::Invalid(
            req_path, q.ToString(),
            "must be equal to " + name + " limit of " + lim->second.ToString()));
      } else if (q.Compare(lim->second) > 0) {
        errs.push_back(FieldError::Invalid(
            req_path, q.ToString(),
            "must be less than or equal to " + name + " limit of " + lim->second.ToString()));
      }
    } else if (!IsOvercommitAllowed(name)) {
      errs.push_back(
          FieldError::Required(lim_path, "Limit must be set for non overcommitable resources"));
    }
  }
  return errs;
}

FieldErrors ValidateTolerations(const std::vector<Toleration>& tolerations) {
  FieldErrors errs;
  for (size_t i = 0; i < tolerations.size(); ++i) {
    const Toleration& t = tolerations[i];
    const std::string p = "spec.tolerations[" + std::to_string(i) + "]";
    // validateTolerations: an empty key is allowed only with operator Exists.
    if (t.key.empty() && t.op != TolerationOperator::kExists) {
      errs.push_back(FieldError::Invalid(p + ".operator", "Equal",
                                         "operator must be Exists when `key` is empty, which "
                                         "means \"match all values and all keys\""));
    }
    if (t.toleration_seconds.has_value() && t.effect != TaintEffect::kNoExecute) {
      errs.push_back(FieldError::Invalid(p + ".effect", std::string(TaintEffectName(t.effect)),
                                         "effect must be 'NoExecute' when `tolerationSeconds` is "
                                         "set"));
    }
    if (t.op == TolerationOperator::kExists && !t.value.empty()) {
      errs.push_back(FieldError::Invalid(p + ".operator", t.value,
                                         "value must be empty when `operator` is 'Exists'"));
    }
  }
  return errs;
}

FieldErrors ValidatePodForScheduling(const Pod& pod) {
  // ValidatePodSpec's order: containers, init containers, affinity, ..., tolerations.
  FieldErrors errs;
  auto append = [&errs](const FieldErrors& e) { errs.insert(errs.end(), e.begin(), e.end()); };
  for (size_t i = 0; i < pod.spec.containers.size(); ++i) {
    append(ValidateResourceRequirements(pod.spec.containers[i].resources,
                                        "spec.containers[" + std::to_string(i) + "]"));
  }
  for (size_t i = 0; i < pod.spec.init_containers.size(); ++i) {
    append(ValidateResourceRequirements(pod.spec.init_containers[i].resources,
                                        "spec.initContainers[" + std::to_string(i) + "]"));
  }
  if (pod.spec.affinity && pod.spec.affinity->node_affinity) {
    const NodeAffinity& na = *pod.spec.affinity->node_affinity;
    const std::string base = "spec.affinity.nodeAffinity";
    if (na.required) {
      const std::string rp = base + ".requiredDuringSchedulingIgnoredDuringExecution";
      if (na.required->terms.empty()) {
        errs.push_back(FieldError::Required(rp + ".nodeSelectorTerms",
                                            "must have at least one node selector term"));
      }
      for (size_t i = 0; i < na.required->terms.size(); ++i) {
        append(ValidateNodeSelectorTerm(na.required->terms[i],
                                        rp + ".nodeSelectorTerms[" + std::to_string(i) + "]"));
      }
    }
    for (size_t i = 0; i < na.preferred.size(); ++i) {
      const auto& p = na.preferred[i];
      const std::string pp =
          base + ".preferredDuringSchedulingIgnoredDuringExecution[" + std::to_string(i) + "]";
      if (p.weight < 1 || p.weight > 100) {
        errs.push_back(FieldError::Invalid(pp + ".weight", std::to_string(p.weight),
                                           "must be in the range 1-100"));
      }
      append(ValidateNodeSelectorTerm(p.preference, pp + ".preference"));
    }
  }
  append(ValidateTolerations(pod.spec.tolerations));
  return errs;
}

}  // namespace tidepool::api
