// The no-op Backend used without --data-dir: nothing is kept, every write is "durable" at once.
#include "apiserver/storage/backend.h"

#include <atomic>

namespace tidepool::apiserver::storage {
namespace {

class MemoryBackend final : public Backend {
 public:
  uint64_t Put(std::string key, int64_t revision, std::string_view value) override {
    return next_ticket_.fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t Delete(std::string key, int64_t revision) override {
    return next_ticket_.fetch_add(1, std::memory_order_relaxed);
  }
  Status Wait(uint64_t ticket) override { return OkStatus(); }
  StatusOr<Snapshot> Load() override { return Snapshot{}; }
  Status Close() override { return OkStatus(); }

 private:
  std::atomic<uint64_t> next_ticket_{1};
};

}  // namespace

std::unique_ptr<Backend> NewMemoryBackend() { return std::make_unique<MemoryBackend>(); }

}  // namespace tidepool::apiserver::storage
