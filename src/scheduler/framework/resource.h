// File: resource.h
//
// Resource is kube-scheduler's compact resource vector (framework.Resource): integer milli-cpu,
// bytes of memory and ephemeral storage, an allowed pod count, and the scalar resources
// (extended resources such as nvidia.com/gpu, hugepages) as a small vector sorted by name.
// Converting from api::ResourceList happens once per pod and per node; every fit check and score
// works on these integers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/resource_list.h"

namespace tidepool::scheduler {

struct Resource {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  int64_t allowed_pod_number = 0;
  // Sorted by name; no duplicates; no zero entries. Wherever kube-scheduler reads a scalar
  // resource, a zero quantity and an absent one give the same answer, so dropping zeros keeps
  // Resource equality exact for the snapshot's buckets.
  std::vector<std::pair<std::string, int64_t>> scalars;

  // From a ResourceList: cpu in milli-units, "pods" as allowed_pod_number, every scalar resource
  // by Value(). Native resources kube-scheduler does not track are ignored.
  static Resource FromList(const api::ResourceList& list);

  int64_t Scalar(std::string_view name) const;
  // True if `name` has a non-zero quantity.
  bool HasScalar(std::string_view name) const;
  void SetScalar(std::string_view name, int64_t v);
  void Add(const Resource& other);
  void Sub(const Resource& other);
  bool IsZero() const;

  size_t Hash() const;
  friend bool operator==(const Resource&, const Resource&) = default;
  // "cpu=100m memory=1Gi ..." style, for logs and test failures.
  std::string DebugString() const;
};

}  // namespace tidepool::scheduler
