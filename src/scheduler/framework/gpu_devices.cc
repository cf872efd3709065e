#include "scheduler/framework/gpu_devices.h"

#include <algorithm>
#include <bit>
#include <charconv>

namespace tidepool::scheduler {

GpuDemand GpuDemandOf(const Resource& request) {
  const int64_t whole = request.Scalar(kGpuResource);
  if (whole > 0) {
    return {static_cast<int32_t>(std::min<int64_t>(whole, kMaxGpusPerNode + 1)), kMilliPerGpu};
  }
  const int64_t milli = request.Scalar(kGpuMilliResource);
  if (milli <= 0) {
    return {};
  }
  if (milli < kMilliPerGpu) {
    return {1, static_cast<int32_t>(milli)};
  }
  const int64_t gpus = (milli + kMilliPerGpu - 1) / kMilliPerGpu;
  return {static_cast<int32_t>(std::min<int64_t>(gpus, kMaxGpusPerNode + 1)), kMilliPerGpu};
}

int GpuCountOf(const Resource& allocatable) {
  return static_cast<int>(
      std::clamp<int64_t>(allocatable.Scalar(kGpuResource), 0, kMaxGpusPerNode));
}

std::optional<uint32_t> ParseGpuIndex(std::string_view text) {
  uint32_t mask = 0;
  if (text.empty()) {
    return std::nullopt;
  }
  while (true) {
    size_t dash = text.find('-');
    std::string_view part = text.substr(0, dash);
    int index = -1;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), index);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || index < 0 ||
        index >= kMaxGpusPerNode || (mask & (1u << index)) != 0) {
      return std::nullopt;
    }
    mask |= 1u << index;
    if (dash == std::string_view::npos) {
      return mask;
    }
    text.remove_prefix(dash + 1);
  }
}

std::string FormatGpuIndex(uint32_t mask) {
  std::string out;
  for (int i = 0; i < kMaxGpusPerNode; ++i) {
    if ((mask & (1u << i)) != 0) {
      if (!out.empty()) {
        out += '-';
      }
      out += std::to_string(i);
    }
  }
  return out;
}

uint32_t ChooseGpus(std::span<const int32_t> left, const GpuDemand& demand, GpuSelection selection,
                    uint64_t draw) {
  if (!demand.any()) {
    return 0;
  }
  if (!demand.shared()) {
    uint32_t mask = 0;
    int taken = 0;
    for (size_t i = 0; i < left.size() && taken < demand.count; ++i) {
      if (left[i] >= kMilliPerGpu) {
        mask |= 1u << i;
        ++taken;
      }
    }
    return taken == demand.count ? mask : 0;
  }
  int best = -1;
  int fitting = 0;
  for (size_t i = 0; i < left.size(); ++i) {
    if (left[i] >= demand.milli) {
      ++fitting;
      if (best < 0 || left[i] < left[best]) {
        best = static_cast<int>(i);
      }
    }
  }
  if (best < 0) {
    return 0;
  }
  if (selection == GpuSelection::kRandom) {
    int k = static_cast<int>(draw % static_cast<uint64_t>(fitting));
    for (size_t i = 0; i < left.size(); ++i) {
      if (left[i] >= demand.milli && k-- == 0) {
        return 1u << i;
      }
    }
  }
  return 1u << best;
}

bool GpusFit(std::span<const int32_t> left, const GpuDemand& demand) {
  return !demand.any() || ChooseGpus(left, demand, GpuSelection::kBest) != 0;
}

void TakeGpus(std::vector<int32_t>& left, uint32_t mask, const GpuDemand& demand) {
  for (size_t i = 0; i < left.size(); ++i) {
    if ((mask & (1u << i)) != 0) {
      left[i] -= demand.milli;
    }
  }
}

}  // namespace tidepool::scheduler
