#include "cluster/store_informer_driver.h"

#include <optional>
#include <string_view>
#include <utility>

#include "apiserver/conversion.h"
#include "apiserver/json_io.h"
#include "apiserver/object_filter.h"
#include "apiserver/resources.h"

namespace tidepool::cluster {
namespace {

using nlohmann::json;

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    const size_t j = std::min(path.find('/', i), path.size());
    out.push_back(path.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

struct StoreInformerDriver::Fed {
  std::shared_ptr<client::Informer> informer;
  const apiserver::Resource* resource = nullptr;
  std::string ns;
  std::optional<apiserver::ObjectFilter> filter;
  int64_t listed_rv = 0;
  bool listed = false;

  bool InNamespace(const json& view) const {
    if (ns.empty()) return true;
    const json* md = view.is_object() && view.contains("metadata") ? &view["metadata"] : nullptr;
    auto it = md != nullptr && md->is_object() ? md->find("namespace") : json::const_iterator();
    return md != nullptr && md->is_object() && it != md->end() && it->is_string() &&
           it->get_ref<const std::string&>() == ns;
  }
  bool Matches(const json& view) const { return InNamespace(view) && filter->Matches(view); }
};

StoreInformerDriver::StoreInformerDriver(apiserver::ObjectStore& store, TimerService& executor,
                                         log::Logger* logger)
    : store_(store), executor_(executor), logger_(logger) {}

StoreInformerDriver::~StoreInformerDriver() { Stop(); }

void StoreInformerDriver::Started(std::shared_ptr<client::Informer> informer) {
  auto fed = std::make_shared<Fed>();
  fed->informer = std::move(informer);
  fed_.push_back(fed);
  executor_.ScheduleAt(executor_.clock().Now(), [this, fed] {
    if (!stopped_) List(fed);
  });
}

void StoreInformerDriver::List(const std::shared_ptr<Fed>& fed) {
  const client::InformerOptions& o = fed->informer->options();
  const std::string name = o.name.empty() ? o.path : o.name;
  auto fail = [&](std::string_view why) {
    if (logger_ != nullptr) {
      logger_->Log(log::Level::kError, "informer " + name + ": " + std::string(why), {},
                   std::source_location::current());
    }
  };
  // "/api/v1[/namespaces/NS]/R" or "/apis/G/V[/namespaces/NS]/R".
  std::vector<std::string_view> seg = Segments(o.path);
  std::string_view group;
  size_t at = 0;
  if (seg.size() >= 3 && seg[0] == "api") {
    at = 1;
  } else if (seg.size() >= 4 && seg[0] == "apis") {
    group = seg[1];
    at = 2;
  } else {
    return fail("not a collection path: " + o.path);
  }
  const std::string_view version = seg[at];
  std::string_view ns;
  if (seg.size() == at + 4 && seg[at + 1] == "namespaces") {
    ns = seg[at + 2];
  } else if (seg.size() != at + 2) {
    return fail("not a collection path: " + o.path);
  }
  fed->resource = apiserver::FindResource(group, version, seg.back());
  if (fed->resource == nullptr) return fail("the API serves no " + o.path);
  fed->ns = std::string(ns);
  auto filter = apiserver::ObjectFilter::Parse(*fed->resource, o.label_selector, o.field_selector);
  if (!filter.ok()) return fail(filter.status().message());
  fed->filter = std::move(filter).value();
  EnsureWatch();
  apiserver::ObjectStore::ListResult list =
      store_.List(*fed->resource, fed->ns, [&fed](const json& view) { return fed->Matches(view); });
  std::vector<json> items;
  items.reserve(list.items.size());
  for (const apiserver::ObjectPtr& obj : list.items) {
    items.push_back(apiserver::conversion::FromStorage(*fed->resource, obj->Parse()));
  }
  fed->listed_rv = list.resource_version;
  fed->listed = true;
  by_resource_[&apiserver::StorageOf(*fed->resource)].push_back(fed);
  fed->informer->FeedList(std::move(items), std::to_string(list.resource_version));
}

void StoreInformerDriver::EnsureWatch() {
  if (watch_ != nullptr) return;
  auto w =
      store_.OpenWatch(nullptr, "", store_.resource_version(),
                       apiserver::ObjectStore::Backlog::kUnbounded, [this] { ScheduleDelivery(); });
  if (w.ok()) watch_ = std::move(w).value();
}

void StoreInformerDriver::ScheduleDelivery() {
  if (delivery_pending_ || stopped_) return;
  delivery_pending_ = true;
  executor_.ScheduleAt(executor_.clock().Now(), [this] { Deliver(); });
}

void StoreInformerDriver::Deliver() {
  delivery_pending_ = false;
  if (stopped_ || watch_ == nullptr) return;
  std::vector<apiserver::EventPtr> events;
  watch_->Drain(&events);
  for (const apiserver::EventPtr& e : events) {
    ++events_;
    auto it = by_resource_.find(e->resource);
    if (it == by_resource_.end()) continue;
    json parsed;  // the event's object, parsed for the first informer that takes it
    bool have = false;
    const std::vector<std::shared_ptr<Fed>>& feds = it->second;
    for (size_t i = 0; i < feds.size(); ++i) {
      if (stopped_) return;
      if (e->resource_version <= feds[i]->listed_rv) continue;  // in its list already
      if (!have) {
        parsed = ParseFor(feds, *e->object);
        have = true;
      }
      DeliverTo(*feds[i], *e, &parsed, i + 1 == feds.size());
    }
  }
}

json StoreInformerDriver::ParseFor(const std::vector<std::shared_ptr<Fed>>& feds,
                                   const apiserver::StoredObject& object) {
  for (const std::shared_ptr<Fed>& f : feds) {
    if (!f->informer->options().drop_managed_fields) return object.Parse();
  }
  StatusOr<json> j = apiserver::json_io::ParseWithoutManagedFields(object.text);
  return j.ok() ? std::move(*j) : json::object();
}

void StoreInformerDriver::DeliverTo(Fed& fed, const apiserver::WatchEvent& e, json* parsed,
                                    bool last) {
  // The object for this informer: the shared parse moved into the last one, copied otherwise.
  auto object = [&]() -> json {
    return apiserver::conversion::FromStorage(*fed.resource, last ? std::move(*parsed) : *parsed);
  };
  if (!fed.InNamespace(e.object->view)) return;
  const std::optional<apiserver::ObjectFilter::Seen> seen = fed.filter->Select(e);
  if (!seen) return;
  fed.informer->FeedEvent(
      std::string(seen->type),
      seen->left ? apiserver::conversion::FromStorage(
                       *fed.resource, apiserver::AtRevision(*seen->object, e.resource_version))
                 : object());
}

void StoreInformerDriver::Stop() {
  stopped_ = true;
  watch_.reset();
}

}  // namespace tidepool::cluster
