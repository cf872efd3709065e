#include "client/decoded.h"

#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "api/codec/json_codec.h"

namespace tidepool::client {
namespace {

template <typename T>
class Memo {
 public:
  using Result = StatusOr<std::shared_ptr<const T>>;

  template <typename Decode>
  Result Get(const ObjectRef& obj, Decode decode) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = entries_.find(obj.get());
          it != entries_.end() && it->second.obj.lock() == obj) {
        return it->second.result;
      }
    }
    Result result = Decoded(decode(*obj));
    std::lock_guard<std::mutex> lock(mu_);
    if (entries_.size() >= 2 * live_ + 64) {
      std::erase_if(entries_, [](const auto& e) { return e.second.obj.expired(); });
      live_ = entries_.size();
    }
    entries_.insert_or_assign(obj.get(), Entry{obj, result});
    return result;
  }

 private:
  struct Entry {
    std::weak_ptr<const nlohmann::json> obj;
    Result result;
  };
  static Result Decoded(StatusOr<T> decoded) {
    if (!decoded.ok()) return decoded.status();
    return std::make_shared<const T>(std::move(decoded).value());
  }

  std::mutex mu_;
  std::unordered_map<const nlohmann::json*, Entry> entries_;
  size_t live_ = 0;  // entries left by the last sweep
};

}  // namespace

StatusOr<api::PodConstSharedPtr> DecodedPod(const ObjectRef& obj) {
  static Memo<api::Pod>* memo = new Memo<api::Pod>();  // never destroyed: handlers may outlive main
  return memo->Get(obj, [](const nlohmann::json& j) { return api::codec::PodFromJson(j); });
}

StatusOr<api::NodeConstSharedPtr> DecodedNode(const ObjectRef& obj) {
  static Memo<api::Node>* memo = new Memo<api::Node>();
  return memo->Get(obj, [](const nlohmann::json& j) { return api::codec::NodeFromJson(j); });
}

}  // namespace tidepool::client
