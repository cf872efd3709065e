// File: name_validation.h
//
// The name syntax checks of k8s.io/apimachinery/pkg/util/validation (Kubernetes 1.32), with its
// exact error texts. Each function returns the texts util/validation returns for `value`, in
// its order, and nothing when the value is valid (so `IsQualifiedName(k).empty()` is the
// yes/no question):
//   - IsQualifiedName: a label / annotation key, [prefix/]name; the prefix a DNS-1123
//     subdomain, the name at most 63 of [-A-Za-z0-9_.], starting and ending alphanumeric, e.g.
//       name part must consist of alphanumeric characters, '-', '_' or '.', and must start and
//       end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex
//       used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')
//     ("prefix part " + a DNS-1123 subdomain error for a bad prefix);
//   - IsValidLabelValue: empty, or at most 63 such characters;
//   - IsDns1123Subdomain: at most 253 characters, dot-separated [a-z0-9]([-a-z0-9]*[a-z0-9])?;
//   - IsDns1123Label: at most 63 characters, [a-z0-9]([-a-z0-9]*[a-z0-9])?;
//   - IsDns1035Label: at most 63 characters, [a-z]([-a-z0-9]*[a-z0-9])? (service names);
//   - IsValidPercent: [0-9]+% (intstr percentages such as maxSurge "25%");
//   - IsValidPathSegmentName (api/validation/path): not "." or "..", no '/' or '%' (RBAC names).
// Length errors read "must be no more than 63 characters". Nothing throws.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tidepool::api {

std::vector<std::string> IsQualifiedName(std::string_view value);
std::vector<std::string> IsValidLabelValue(std::string_view value);
std::vector<std::string> IsDns1123Subdomain(std::string_view value);
std::vector<std::string> IsDns1123Label(std::string_view value);
std::vector<std::string> IsDns1035Label(std::string_view value);
std::vector<std::string> IsValidPercent(std::string_view value);
std::vector<std::string> IsValidPathSegmentName(std::string_view value);

}  // namespace tidepool::api
