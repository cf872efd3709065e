#include "client/shared_informers.h"

#include <utility>

namespace tidepool::client {
namespace {

// The sharing key of `o`, or empty when `o` cannot be shared (an unnamed transform).
std::string ShareKey(const InformerOptions& o) {
  if (o.transform && o.transform_name.empty()) return "";
  std::string key = o.path;
  for (const std::string* s : {&o.label_selector, &o.field_selector, &o.transform_name}) {
    key += '\0';
    key += *s;
  }
  key += '\0';
  key += o.cache_metadata_only ? 'm' : 'f';
  key += o.drop_managed_fields ? 'd' : 'k';
  return key;
}

}  // namespace

SharedInformerFactory::SharedInformerFactory(const RestClient& client, const Clock& clock,
                                             log::Logger* logger)
    : client_(client), clock_(clock), logger_(logger) {}

SharedInformerFactory::~SharedInformerFactory() { Stop(); }

std::shared_ptr<Informer> SharedInformerFactory::InformerFor(InformerOptions options) {
  const std::string key = ShareKey(options);
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_;
  if (!key.empty()) {
    if (auto it = shared_.find(key); it != shared_.end()) return it->second;
  }
  auto informer = std::make_shared<Informer>(client_, clock_, std::move(options), logger_);
  if (driver_ != nullptr) informer->SetDriver(driver_);
  if (!key.empty()) shared_.emplace(key, informer);
  all_.push_back(informer);
  return informer;
}

void SharedInformerFactory::SetDriver(InformerDriver* driver) {
  std::lock_guard<std::mutex> lock(mu_);
  driver_ = driver;
}

void SharedInformerFactory::Start() {
  std::vector<std::shared_ptr<Informer>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    all = all_;
  }
  for (const auto& i : all) i->Start();
}

void SharedInformerFactory::Stop() {
  std::vector<Informer*> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& i : all_) all.push_back(i.get());
  }
  StopAll(all);
}

size_t SharedInformerFactory::informers() const {
  std::lock_guard<std::mutex> lock(mu_);
  return all_.size();
}

size_t SharedInformerFactory::requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

std::vector<std::shared_ptr<Informer>> SharedInformerFactory::All() const {
  std::lock_guard<std::mutex> lock(mu_);
  return all_;
}

std::shared_ptr<Informer> MakeInformer(SharedInformerFactory* factory, const RestClient& client,
                                       const Clock& clock, InformerOptions options,
                                       log::Logger* logger) {
  if (factory != nullptr) return factory->InformerFor(std::move(options));
  return std::make_shared<Informer>(client, clock, std::move(options), logger);
}

std::shared_ptr<Informer> MakeDecodingInformer(SharedInformerFactory* factory,
                                               const RestClient& client, const Clock& clock,
                                               std::string name, std::string path, uint64_t seed,
                                               log::Logger* logger) {
  return MakeInformer(factory, client, clock,
                      DecodingInformerOptions(std::move(name), std::move(path), seed), logger);
}

}  // namespace tidepool::client
