#include "scheduler/framework/resource.h"

#include <algorithm>

namespace tidepool::scheduler {
namespace {

inline size_t Mix(size_t h, size_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

}  // namespace

Resource Resource::FromList(const api::ResourceList& list) {
  Resource r;
  for (const auto& [name, q] : list) {
    if (name == api::kResourceCpu) {
      r.milli_cpu = q.MilliValue();
    } else if (name == api::kResourceMemory) {
      r.memory = q.Value();
    } else if (name == api::kResourceEphemeralStorage) {
      r.ephemeral_storage = q.Value();
    } else if (name == api::kResourcePods) {
      r.allowed_pod_number = q.Value();
    } else if (api::IsScalarResource(name) && !q.IsZero()) {
      r.scalars.emplace_back(name, q.Value());  // ResourceList is sorted: stays sorted
    }
  }
  return r;
}

int64_t Resource::Scalar(std::string_view name) const {
  for (const auto& [n, v] : scalars) {
    if (n == name) {
      return v;
    }
  }
  return 0;
}

bool Resource::HasScalar(std::string_view name) const {
  for (const auto& [n, v] : scalars) {
    if (n == name) {
      return true;
    }
  }
  return false;
}

void Resource::SetScalar(std::string_view name, int64_t v) {
  auto it = std::lower_bound(scalars.begin(), scalars.end(), name,
                             [](const auto& e, std::string_view n) { return e.first < n; });
  if (it != scalars.end() && it->first == name) {
    if (v == 0) {
      scalars.erase(it);
    } else {
      it->second = v;
    }
  } else if (v != 0) {
    scalars.emplace(it, std::string(name), v);
  }
}

void Resource::Add(const Resource& o) {
  milli_cpu += o.milli_cpu;
  memory += o.memory;
  ephemeral_storage += o.ephemeral_storage;
  allowed_pod_number += o.allowed_pod_number;
  for (const auto& [n, v] : o.scalars) {
    SetScalar(n, Scalar(n) + v);
  }
}

void Resource::Sub(const Resource& o) {
  milli_cpu -= o.milli_cpu;
  memory -= o.memory;
  ephemeral_storage -= o.ephemeral_storage;
  allowed_pod_number -= o.allowed_pod_number;
  for (const auto& [n, v] : o.scalars) {
    SetScalar(n, Scalar(n) - v);
  }
}

bool Resource::IsZero() const {
  if (milli_cpu != 0 || memory != 0 || ephemeral_storage != 0 || allowed_pod_number != 0) {
    return false;
  }
  for (const auto& [n, v] : scalars) {
    if (v != 0) {
      return false;
    }
  }
  return true;
}

size_t Resource::Hash() const {
  size_t h = std::hash<int64_t>()(milli_cpu);
  h = Mix(h, std::hash<int64_t>()(memory));
  h = Mix(h, std::hash<int64_t>()(ephemeral_storage));
  h = Mix(h, std::hash<int64_t>()(allowed_pod_number));
  for (const auto& [n, v] : scalars) {
    h = Mix(h, std::hash<std::string>()(n));
    h = Mix(h, std::hash<int64_t>()(v));
  }
  return h;
}

std::string Resource::DebugString() const {
  std::string out = "cpu=" + std::to_string(milli_cpu) + "m memory=" + std::to_string(memory);
  if (ephemeral_storage != 0) {
    out += " ephemeral-storage=" + std::to_string(ephemeral_storage);
  }
  if (allowed_pod_number != 0) {
    out += " pods=" + std::to_string(allowed_pod_number);
  }
  for (const auto& [n, v] : scalars) {
    out += " " + n + "=" + std::to_string(v);
  }
  return out;
}

}  // namespace tidepool::scheduler
