#include "apiserver/printers/printers.h"

#include <exception>
#include <map>
#include <string>
#include <utility>

#include "apiserver/json_text.h"
#include "apiserver/printers/internal.h"
#include "apiserver/printers/resource_printers.h"

namespace tidepool::apiserver::printers {

using nlohmann::json;

namespace internal {
namespace {

json DefaultCells(const json& object, TimePoint /*now*/) {
  return json::array({Name(object), Rfc3339Utc(Path(object, "metadata", "creationTimestamp"))});
}

std::string Key(std::string_view group, std::string_view resource) {
  std::string key(group);
  key += '/';
  key += resource;
  return key;
}

const std::map<std::string, Printer, std::less<>>& Registry() {
  static const auto* const registry = [] {
    auto* m = new std::map<std::string, Printer, std::less<>>();
    (*m)[Key("", "pods")] = MakePodPrinter();
    (*m)[Key("", "nodes")] = MakeNodePrinter();
    (*m)[Key("", "events")] = MakeEventPrinter();
    (*m)[Key("", "namespaces")] = MakeNamespacePrinter();
    (*m)[Key("", "componentstatuses")] = MakeComponentStatusPrinter();
    (*m)[Key("", "configmaps")] = MakeConfigMapPrinter();
    (*m)[Key("", "secrets")] = MakeSecretPrinter();
    (*m)[Key("", "resourcequotas")] = MakeResourceQuotaPrinter();
    (*m)[Key("", "serviceaccounts")] = MakeServiceAccountPrinter();
    (*m)[Key("", "services")] = MakeServicePrinter();
    (*m)[Key("", "endpoints")] = MakeEndpointsPrinter();
    (*m)[Key("", "persistentvolumeclaims")] = MakePersistentVolumeClaimPrinter();
    (*m)[Key("", "persistentvolumes")] = MakePersistentVolumePrinter();
    (*m)[Key("", "replicationcontrollers")] = MakeReplicationControllerPrinter();
    (*m)[Key("", "podtemplates")] = MakePodTemplatePrinter();
    (*m)[Key("apps", "deployments")] = MakeDeploymentPrinter();
    (*m)[Key("apps", "controllerrevisions")] = MakeControllerRevisionPrinter();
    (*m)[Key("apps", "daemonsets")] = MakeDaemonSetPrinter();
    (*m)[Key("apps", "replicasets")] = MakeReplicaSetPrinter();
    (*m)[Key("apps", "statefulsets")] = MakeStatefulSetPrinter();
    (*m)[Key("batch", "jobs")] = MakeJobPrinter();
    (*m)[Key("batch", "cronjobs")] = MakeCronJobPrinter();
    (*m)[Key("autoscaling", "horizontalpodautoscalers")] = MakeHpaPrinter();
    (*m)[Key("networking.k8s.io", "ingresses")] = MakeIngressPrinter();
    (*m)[Key("networking.k8s.io", "ingressclasses")] = MakeIngressClassPrinter();
    (*m)[Key("certificates.k8s.io", "certificatesigningrequests")] =
        MakeCertificateSigningRequestPrinter();
    (*m)[Key("coordination.k8s.io", "leases")] = MakeLeasePrinter();
    (*m)[Key("discovery.k8s.io", "endpointslices")] = MakeEndpointSlicePrinter();
    (*m)[Key("policy", "poddisruptionbudgets")] = MakePodDisruptionBudgetPrinter();
    (*m)[Key("rbac.authorization.k8s.io", "rolebindings")] = MakeRoleBindingPrinter();
    (*m)[Key("rbac.authorization.k8s.io", "clusterrolebindings")] = MakeClusterRoleBindingPrinter();
    (*m)[Key("scheduling.k8s.io", "priorityclasses")] = MakePriorityClassPrinter();
    (*m)[Key("storage.k8s.io", "storageclasses")] = MakeStorageClassPrinter();
    (*m)[Key("storage.k8s.io", "csidrivers")] = MakeCsiDriverPrinter();
    (*m)[Key("storage.k8s.io", "csinodes")] = MakeCsiNodePrinter();
    (*m)[Key("storage.k8s.io", "csistoragecapacities")] = MakeCsiStorageCapacityPrinter();
    (*m)[Key("events.k8s.io", "events")] = MakeEventPrinter();  // stored as core's
    return m;
  }();
  return *registry;
}

}  // namespace

const Printer* FindPrinter(std::string_view group, std::string_view resource) {
  const auto& registry = Registry();
  auto it = registry.find(Key(group, resource));
  return it == registry.end() ? nullptr : &it->second;
}

const Printer& DefaultPrinter() {
  static const auto* const printer = [] {
    auto* p = new Printer();
    p->columns = {NameColumn(), {"Created At", "date", "", kCreationTimestampDescription, 0}};
    p->cells = &DefaultCells;
    return p;
  }();
  return *printer;
}

}  // namespace internal

namespace {

const internal::Printer& PrinterFor(std::string_view group, std::string_view resource) {
  const internal::Printer* p = internal::FindPrinter(group, resource);
  return p != nullptr ? *p : internal::DefaultPrinter();
}

json CellsOf(const internal::Printer& printer, const json& object, TimePoint now) {
  try {
    return printer.cells(object, now);
  } catch (const std::exception&) {
    // Not expected: the printers read JSON without throwing accessors. Keep the row's shape.
    return json::array();
  }
}

}  // namespace

const std::vector<Column>& ColumnsFor(std::string_view group, std::string_view resource) {
  return PrinterFor(group, resource).columns;
}

json Cells(std::string_view group, std::string_view resource, const json& object, TimePoint now) {
  const internal::Printer& printer = PrinterFor(group, resource);
  json cells = CellsOf(printer, object, now);
  while (cells.size() < printer.columns.size()) {
    cells.push_back("");
  }
  return cells;
}

json BuildTable(std::string_view group, std::string_view resource,
                const std::vector<const json*>& objects, std::string_view resource_version,
                TimePoint now, IncludeObject include, bool with_headers) {
  try {
    const internal::Printer& printer = PrinterFor(group, resource);
    json table = json::object();
    table["kind"] = "Table";
    table["apiVersion"] = "meta.k8s.io/v1";
    table["metadata"] = json::object();
    if (!resource_version.empty()) {
      table["metadata"]["resourceVersion"] = std::string(resource_version);
    }
    if (with_headers) {
      json columns = json::array();
      for (const Column& c : printer.columns) {
        columns.push_back({{"name", c.name},
                           {"type", c.type},
                           {"format", c.format},
                           {"description", c.description},
                           {"priority", c.priority}});
      }
      table["columnDefinitions"] = std::move(columns);
    } else {
      table["columnDefinitions"] = nullptr;
    }
    json rows = json::array();
    for (const json* object : objects) {
      json row = json::object();
      row["cells"] = Cells(group, resource, *object, now);
      if (printer.conditions != nullptr) {
        if (json conditions = printer.conditions(*object); !conditions.is_null()) {
          row["conditions"] = std::move(conditions);
        }
      }
      switch (include) {
        case IncludeObject::kNone:
          row["object"] = nullptr;
          break;
        case IncludeObject::kMetadata: {
          const json* metadata = internal::Field(*object, "metadata");
          row["object"] = {
              {"kind", "PartialObjectMetadata"},
              {"apiVersion", "meta.k8s.io/v1"},
              {"metadata",
               metadata != nullptr && metadata->is_object() ? *metadata : json::object()},
          };
          break;
        }
        case IncludeObject::kObject:
          row["object"] = *object;
          break;
      }
      rows.push_back(std::move(row));
    }
    table["rows"] = std::move(rows);
    return table;
  } catch (const std::exception&) {
    // Only allocation failure can get here; answer an empty table rather than throw.
    return {{"kind", "Table"},
            {"apiVersion", "meta.k8s.io/v1"},
            {"metadata", json::object()},
            {"columnDefinitions", nullptr},
            {"rows", json::array()}};
  }
}

namespace {

std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

void AppendEmptyTable(std::string& out) {
  out = R"({"apiVersion":"meta.k8s.io/v1","columnDefinitions":null,"kind":"Table",)"
        R"("metadata":{},"rows":[]})";
}

std::string TableText(const internal::Printer& printer, const std::vector<TableObject>& objects,
                      std::string_view resource_version, TimePoint now, IncludeObject include,
                      bool with_headers, std::string_view continue_token,
                      std::optional<int64_t> remaining_items) {
  std::string out;
  try {
    // Members in the order nlohmann::json writes them (sorted), as BuildTable(...).dump().
    out = R"({"apiVersion":"meta.k8s.io/v1","columnDefinitions":)";
    if (with_headers) {
      json columns = json::array();
      for (const Column& c : printer.columns) {
        columns.push_back({{"name", c.name},
                           {"type", c.type},
                           {"format", c.format},
                           {"description", c.description},
                           {"priority", c.priority}});
      }
      out += Dump(columns);
    } else {
      out += "null";
    }
    out += R"(,"kind":"Table","metadata":)";
    if (resource_version.empty()) {
      out += "{}";
    } else {
      out += R"({"resourceVersion":)";
      out += Dump(json(std::string(resource_version)));
      if (!continue_token.empty()) {
        out += R"(,"continue":)";
        out += Dump(json(std::string(continue_token)));
        if (remaining_items) out += R"(,"remainingItemCount":)" + std::to_string(*remaining_items);
      }
      out += '}';
    }
    out += R"(,"rows":[)";
    size_t reserve = out.size() + 2;
    for (const TableObject& o : objects) reserve += 256 + o.text.size() / 2;
    out.reserve(reserve);
    bool first = true;
    for (const TableObject& o : objects) {
      const json& object = *o.value;
      if (!first) out += ',';
      first = false;
      out += R"({"cells":)";
      json cells = CellsOf(printer, object, now);
      while (cells.size() < printer.columns.size()) cells.push_back("");
      out += Dump(cells);
      if (printer.conditions != nullptr) {
        if (json conditions = printer.conditions(object); !conditions.is_null()) {
          out += R"(,"conditions":)";
          out += Dump(conditions);
        }
      }
      out += R"(,"object":)";
      switch (include) {
        case IncludeObject::kNone:
          out += "null";
          break;
        case IncludeObject::kMetadata: {
          out += R"({"apiVersion":"meta.k8s.io/v1","kind":"PartialObjectMetadata","metadata":)";
          const json* metadata = internal::Field(object, "metadata");
          if (metadata == nullptr || !metadata->is_object()) {
            out += "{}";
          } else if (std::optional<std::string_view> slice =
                         o.text.empty() ? std::nullopt : json_text::TopLevelMember(o.text, "metadata");
                     slice && !slice->empty() && slice->front() == '{') {
            out += *slice;
          } else {
            out += Dump(*metadata);
          }
          out += '}';
          break;
        }
        case IncludeObject::kObject:
          if (o.text.empty()) {
            out += Dump(object);
          } else {
            out += o.text;
          }
          break;
      }
      out += '}';
    }
    out += "]}";
    return out;
  } catch (const std::exception&) {
    AppendEmptyTable(out);
    return out;
  }
}

}  // namespace

std::string BuildTableText(std::string_view group, std::string_view resource,
                           const std::vector<TableObject>& objects,
                           std::string_view resource_version, TimePoint now, IncludeObject include,
                           bool with_headers, std::string_view continue_token,
                           std::optional<int64_t> remaining_items) {
  return TableText(PrinterFor(group, resource), objects, resource_version, now, include,
                   with_headers, continue_token, remaining_items);
}

std::string BuildTableText(const DynamicPrinter& printer, const std::vector<TableObject>& objects,
                           std::string_view resource_version, TimePoint now, IncludeObject include,
                           bool with_headers, std::string_view continue_token,
                           std::optional<int64_t> remaining_items) {
  internal::Printer p;
  p.columns = printer.columns;
  p.cells = printer.cells;
  return TableText(p, objects, resource_version, now, include, with_headers, continue_token,
                   remaining_items);
}

std::string HumanDuration(Duration d) {
  using std::chrono::hours;
  using std::chrono::minutes;
  // int(d.Seconds()): truncation toward zero, so -1.9s is -1 and counts as "almost now".
  const int64_t secs = d.count() / 1000000000;
  if (secs < -1) {
    return "<invalid>";
  }
  if (secs < 0) {
    return "0s";
  }
  if (secs < 60 * 2) {
    return std::to_string(secs) + "s";
  }
  const int64_t mins = d / minutes(1);
  if (mins < 10) {
    const int64_t s = secs % 60;
    return s == 0 ? std::to_string(mins) + "m"
                  : std::to_string(mins) + "m" + std::to_string(s) + "s";
  }
  if (mins < 60 * 3) {
    return std::to_string(mins) + "m";
  }
  const int64_t hrs = d / hours(1);
  if (hrs < 8) {
    const int64_t m = mins % 60;
    return m == 0 ? std::to_string(hrs) + "h" : std::to_string(hrs) + "h" + std::to_string(m) + "m";
  }
  if (hrs < 48) {
    return std::to_string(hrs) + "h";
  }
  if (hrs < 24 * 8) {
    const int64_t h = hrs % 24;
    return h == 0 ? std::to_string(hrs / 24) + "d"
                  : std::to_string(hrs / 24) + "d" + std::to_string(h) + "h";
  }
  if (hrs < 24 * 365 * 2) {
    return std::to_string(hrs / 24) + "d";
  }
  if (hrs < 24 * 365 * 8) {
    const int64_t dy = (hrs / 24) % 365;
    return dy == 0 ? std::to_string(hrs / 24 / 365) + "y"
                   : std::to_string(hrs / 24 / 365) + "y" + std::to_string(dy) + "d";
  }
  return std::to_string(hrs / 24 / 365) + "y";
}

}  // namespace tidepool::apiserver::printers
