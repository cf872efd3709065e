#include "apiserver/conversion.h"

#include <initializer_list>
#include <string>
#include <utility>

#include "apiserver/json_io.h"

namespace tidepool::apiserver::conversion {
namespace {

using nlohmann::json;
using ordered = nlohmann::ordered_json;

constexpr char kMetricsAnnotation[] = "autoscaling.alpha.kubernetes.io/metrics";
constexpr char kCurrentMetricsAnnotation[] = "autoscaling.alpha.kubernetes.io/current-metrics";
constexpr char kConditionsAnnotation[] = "autoscaling.alpha.kubernetes.io/conditions";
constexpr char kBehaviorAnnotation[] = "autoscaling.alpha.kubernetes.io/behavior";
constexpr int kDefaultCpuUtilization = 80;

const json& Get(const json& obj, const char* key) {
  static const json kNull;
  if (!obj.is_object()) return kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}
bool Has(const json& obj, const char* key) { return !Get(obj, key).is_null(); }
std::string Str(const json& obj, const char* key) {
  const json& v = Get(obj, key);
  return v.is_string() ? v.get<std::string>() : "";
}
// A resource.Quantity that is a struct in Go (not a pointer): "0" when absent.
json Quantity(const json& v) { return v.is_null() ? json("0") : v; }

// Sets out[key] = v unless v is null (omitempty pointers).
template <typename J>
void Put(J& out, const char* key, const json& v) {
  if (!v.is_null()) out[key] = v;
}

ordered Ordered(const json& v) { return ordered::parse(v.dump()); }

// CrossVersionObjectReference in Go's field order.
ordered Ref(const json& r) {
  ordered o;
  o["kind"] = Str(r, "kind");
  o["name"] = Str(r, "name");
  if (Has(r, "apiVersion")) o["apiVersion"] = Str(r, "apiVersion");
  return o;
}

// ---- v2 -> v1 (the annotations' v1 forms) --------------------------------------------------

// A v2 MetricSpec (status false: its `target`) or MetricStatus (status true: its `current`) in
// v1's form, whose fields are named target* / current* alike; a status's value Quantities are
// structs in v1 (always written), a spec's pointers.
ordered MetricToV1(const json& m, bool status) {
  const char* v = status ? "current" : "target";
  const std::string p = v;
  ordered o;
  o["type"] = Str(m, "type");
  auto selector = [](ordered& x, const json& s, const char* key) {
    if (Has(Get(s, "metric"), "selector")) x[key] = Ordered(Get(Get(s, "metric"), "selector"));
  };
  if (const json& s = Get(m, "object"); s.is_object()) {
    ordered x;
    x["target"] = Ref(Get(s, "describedObject"));
    x["metricName"] = Str(Get(s, "metric"), "name");
    x[p + "Value"] = Ordered(Quantity(Get(Get(s, v), "value")));
    selector(x, s, "selector");
    if (Has(Get(s, v), "averageValue")) x["averageValue"] = Ordered(Get(Get(s, v), "averageValue"));
    o["object"] = x;
  }
  if (const json& s = Get(m, "pods"); s.is_object()) {
    ordered x;
    x["metricName"] = Str(Get(s, "metric"), "name");
    x[p + "AverageValue"] = Ordered(Quantity(Get(Get(s, v), "averageValue")));
    selector(x, s, "selector");
    o["pods"] = x;
  }
  for (const char* kind : {"resource", "containerResource"}) {
    const json& s = Get(m, kind);
    if (!s.is_object()) continue;
    ordered x;
    x["name"] = Str(s, "name");
    const json& t = Get(s, v);
    if (Has(t, "averageUtilization"))
      x[p + "AverageUtilization"] = Ordered(Get(t, "averageUtilization"));
    if (status || Has(t, "averageValue"))
      x[p + "AverageValue"] = Ordered(Quantity(Get(t, "averageValue")));
    if (std::string(kind) == "containerResource") x["container"] = Str(s, "container");
    o[kind] = x;
  }
  if (const json& s = Get(m, "external"); s.is_object()) {
    ordered x;
    x["metricName"] = Str(Get(s, "metric"), "name");
    selector(x, s, "metricSelector");
    const json& t = Get(s, v);
    if (status || Has(t, "value")) x[p + "Value"] = Ordered(Quantity(Get(t, "value")));
    if (Has(t, "averageValue")) x[p + "AverageValue"] = Ordered(Get(t, "averageValue"));
    o["external"] = x;
  }
  return o;
}

// HorizontalPodAutoscalerBehavior (the internal type's JSON: scaleUp, scaleDown; each
// stabilizationWindowSeconds, selectPolicy, policies [{type, value, periodSeconds}]).
ordered BehaviorToV1(const json& b) {
  ordered o;
  for (const char* dir : {"scaleUp", "scaleDown"}) {
    const json& r = Get(b, dir);
    if (!r.is_object()) continue;
    ordered x;
    Put(x, "stabilizationWindowSeconds", Get(r, "stabilizationWindowSeconds"));
    Put(x, "selectPolicy", Get(r, "selectPolicy"));
    ordered policies = ordered::array();
    for (const json& p : Get(r, "policies").is_array() ? Get(r, "policies") : json::array()) {
      ordered y;
      y["type"] = Str(p, "type");
      y["value"] = Ordered(Get(p, "value"));
      y["periodSeconds"] = Ordered(Get(p, "periodSeconds"));
      policies.push_back(y);
    }
    x["policies"] = policies;
    o[dir] = x;
  }
  return o;
}

ordered ConditionToV1(const json& c) {
  ordered o;
  o["type"] = Str(c, "type");
  o["status"] = Str(c, "status");
  Put(o, "lastTransitionTime", Get(c, "lastTransitionTime"));
  Put(o, "reason", Get(c, "reason"));
  Put(o, "message", Get(c, "message"));
  return o;
}

bool IsCpuUtilization(const json& m) {
  const json& r = Get(m, "resource");
  return Str(m, "type") == "Resource" && r.is_object() && Str(r, "name") == "cpu" &&
         Has(Get(r, "target"), "averageUtilization");
}

// The annotations without kube's round-trip ones (DropRoundTripHorizontalPodAutoscalerAnnotations).
json DropRoundTrip(const json& annotations) {
  json kept = annotations.is_object() ? annotations : json::object();
  for (const char* k : {kMetricsAnnotation, kCurrentMetricsAnnotation, kConditionsAnnotation,
                        kBehaviorAnnotation}) {
    kept.erase(k);
  }
  return kept;
}

// The converted object: `meta` with `annotations` (none when empty), spec and status.
json Assemble(const char* api_version, const json& in, json meta, json annotations, json spec,
              json status) {
  if (annotations.empty()) {
    meta.erase("annotations");
  } else {
    meta["annotations"] = std::move(annotations);
  }
  return {{"apiVersion", api_version},
          {"kind", Get(in, "kind").is_null() ? json("HorizontalPodAutoscaler") : in["kind"]},
          {"metadata", std::move(meta)},
          {"spec", std::move(spec)},
          {"status", std::move(status)}};
}

json HpaToV1(json in) {
  json meta = Get(in, "metadata").is_object() ? in["metadata"] : json::object();
  json annotations = DropRoundTrip(Get(meta, "annotations"));
  const json& spec = Get(in, "spec");
  json s = json::object();
  s["scaleTargetRef"] =
      Get(spec, "scaleTargetRef").is_object() ? spec["scaleTargetRef"] : json::object();
  Put(s, "minReplicas", Get(spec, "minReplicas"));
  s["maxReplicas"] = Get(spec, "maxReplicas").is_null() ? json(0) : spec["maxReplicas"];
  ordered other = ordered::array();
  const json metrics = Get(spec, "metrics").is_array() ? spec["metrics"] : json::array();
  bool cpu_seen = false;
  for (const json& m : metrics) {
    const json& r = Get(m, "resource");
    if (!cpu_seen && Str(m, "type") == "Resource" && r.is_object() && Str(r, "name") == "cpu") {
      cpu_seen = true;
      Put(s, "targetCPUUtilizationPercentage", Get(Get(r, "target"), "averageUtilization"));
    }
    if (!IsCpuUtilization(m)) other.push_back(MetricToV1(m, false));
  }
  if (!other.empty()) annotations[kMetricsAnnotation] = other.dump();
  if (const json& b = Get(spec, "behavior"); b.is_object()) {
    annotations[kBehaviorAnnotation] = BehaviorToV1(b).dump();
  }
  const json& status = Get(in, "status");
  json st = json::object();
  Put(st, "observedGeneration", Get(status, "observedGeneration"));
  Put(st, "lastScaleTime", Get(status, "lastScaleTime"));
  st["currentReplicas"] =
      Get(status, "currentReplicas").is_null() ? json(0) : status["currentReplicas"];
  st["desiredReplicas"] =
      Get(status, "desiredReplicas").is_null() ? json(0) : status["desiredReplicas"];
  const json current =
      Get(status, "currentMetrics").is_array() ? status["currentMetrics"] : json::array();
  ordered current_v1 = ordered::array();
  for (const json& m : current) {
    const json& r = Get(m, "resource");
    if (Str(m, "type") == "Resource" && r.is_object() && Str(r, "name") == "cpu") {
      Put(st, "currentCPUUtilizationPercentage", Get(Get(r, "current"), "averageUtilization"));
    }
    current_v1.push_back(MetricToV1(m, true));
  }
  if (!current_v1.empty()) annotations[kCurrentMetricsAnnotation] = current_v1.dump();
  const json conds = Get(status, "conditions").is_array() ? status["conditions"] : json::array();
  ordered conds_v1 = ordered::array();
  for (const json& c : conds) conds_v1.push_back(ConditionToV1(c));
  if (!conds_v1.empty()) annotations[kConditionsAnnotation] = conds_v1.dump();
  return Assemble("autoscaling/v1", in, std::move(meta), std::move(annotations), std::move(s),
                  std::move(st));
}

// ---- v1 -> v2 -------------------------------------------------------------------------------

json Target(const char* type) { return json{{"type", type}}; }

// A v1 MetricSpec (status false) or MetricStatus (status true) in v2's form: a spec's target
// gets the type its fields imply; a status's values go to `current`.
json MetricFromV1(const json& m, bool status) {
  const std::string p = status ? "current" : "target";
  const char* v = status ? "current" : "target";
  json o = {{"type", Str(m, "type")}};
  auto metric = [](const json& s, const char* selector_key) {
    json id = {{"name", Str(s, "metricName")}};
    Put(id, "selector", Get(s, selector_key));
    return id;
  };
  if (const json& s = Get(m, "object"); s.is_object()) {
    json t = status ? json::object() : Target(Has(s, "averageValue") ? "AverageValue" : "Value");
    t["value"] = Quantity(Get(s, (p + "Value").c_str()));
    Put(t, "averageValue", Get(s, "averageValue"));
    o["object"] = {
        {"describedObject", Get(s, "target")}, {v, t}, {"metric", metric(s, "selector")}};
  }
  if (const json& s = Get(m, "pods"); s.is_object()) {
    json t = status ? json::object() : Target("AverageValue");
    t["averageValue"] = Quantity(Get(s, (p + "AverageValue").c_str()));
    o["pods"] = {{"metric", metric(s, "selector")}, {v, t}};
  }
  for (const char* kind : {"resource", "containerResource"}) {
    const json& s = Get(m, kind);
    if (!s.is_object()) continue;
    const json& util = Get(s, (p + "AverageUtilization").c_str());
    json t = status ? json::object() : Target(!util.is_null() ? "Utilization" : "AverageValue");
    const json& avg = Get(s, (p + "AverageValue").c_str());
    if (status) {
      t["averageValue"] = Quantity(avg);
    } else {
      Put(t, "averageValue", avg);
    }
    Put(t, "averageUtilization", util);
    json x = {{"name", Str(s, "name")}, {v, t}};
    if (std::string(kind) == "containerResource") x["container"] = Str(s, "container");
    o[kind] = x;
  }
  if (const json& s = Get(m, "external"); s.is_object()) {
    const json& avg = Get(s, (p + "AverageValue").c_str());
    json t = status ? json::object() : Target(!avg.is_null() ? "AverageValue" : "Value");
    Put(t, "averageValue", avg);
    const json& value = Get(s, (p + "Value").c_str());
    if (status) {
      t["value"] = Quantity(value);
    } else {
      Put(t, "value", value);
    }
    o["external"] = {{"metric", metric(s, "metricSelector")}, {v, t}};
  }
  return o;
}

// An annotation holding a JSON array (or object), or null when absent or not parseable (kube
// ignores what does not unmarshal).
json AnnotationJson(const json& annotations, const char* key) {
  const std::string text = Str(annotations, key);
  if (text.empty()) return json();
  return json::parse(text, nullptr, /*allow_exceptions=*/false);
}

json HpaFromV1(json in) {
  json meta = Get(in, "metadata").is_object() ? in["metadata"] : json::object();
  const json annotations = Get(meta, "annotations");
  const json& spec = Get(in, "spec");
  json s = json::object();
  s["scaleTargetRef"] =
      Get(spec, "scaleTargetRef").is_object() ? spec["scaleTargetRef"] : json::object();
  Put(s, "minReplicas", Get(spec, "minReplicas"));
  s["maxReplicas"] = Get(spec, "maxReplicas").is_null() ? json(0) : spec["maxReplicas"];
  json metrics = json::array();
  if (const json other = AnnotationJson(annotations, kMetricsAnnotation); other.is_array()) {
    for (const json& m : other) metrics.push_back(MetricFromV1(m, false));
  }
  if (const json& cpu = Get(spec, "targetCPUUtilizationPercentage"); !cpu.is_null()) {
    metrics.push_back(
        {{"type", "Resource"},
         {"resource",
          {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", cpu}}}}}});
  }
  if (metrics.empty()) {  // v1's implicit default, made explicit
    metrics.push_back(
        {{"type", "Resource"},
         {"resource",
          {{"name", "cpu"},
           {"target",
            {{"type", "Utilization"}, {"averageUtilization", kDefaultCpuUtilization}}}}}});
  }
  s["metrics"] = std::move(metrics);
  if (const json b = AnnotationJson(annotations, kBehaviorAnnotation);
      b.is_object() && !b.empty()) {
    s["behavior"] = b;
  }
  const json& status = Get(in, "status");
  json st = json::object();
  Put(st, "observedGeneration", Get(status, "observedGeneration"));
  Put(st, "lastScaleTime", Get(status, "lastScaleTime"));
  Put(st, "currentReplicas", Get(status, "currentReplicas"));
  st["desiredReplicas"] =
      Get(status, "desiredReplicas").is_null() ? json(0) : status["desiredReplicas"];
  if (const json cur = AnnotationJson(annotations, kCurrentMetricsAnnotation); cur.is_array()) {
    json list = json::array();
    for (const json& m : cur) list.push_back(MetricFromV1(m, true));
    if (!list.empty()) st["currentMetrics"] = std::move(list);
  } else if (const json& cpu = Get(status, "currentCPUUtilizationPercentage"); !cpu.is_null()) {
    st["currentMetrics"] = json::array(
        {{{"type", "Resource"},
          {"resource", {{"name", "cpu"}, {"current", {{"averageUtilization", cpu}}}}}}});
  }
  if (const json conds = AnnotationJson(annotations, kConditionsAnnotation);
      conds.is_array() && !conds.empty()) {
    st["conditions"] = conds;
  }
  return Assemble("autoscaling/v2", in, std::move(meta), DropRoundTrip(annotations), std::move(s),
                  std::move(st));
}

bool IsHpaV1(const Resource& r) {
  return r.group == "autoscaling" && r.resource == "horizontalpodautoscalers" && r.version == "v1";
}

// ---- events.k8s.io/v1 Events over core/v1 storage ---------------------------------------------
//
// kube-apiserver keeps both APIs' Events as one internal Event (pkg/apis/events/v1
// conversion.go): regarding is involvedObject, note message, deprecatedSource source,
// deprecatedFirstTimestamp / deprecatedLastTimestamp / deprecatedCount firstTimestamp /
// lastTimestamp / count, reportingController reportingComponent; eventTime, series, related,
// action, reason, type and reportingInstance are the same fields. Each side is written as Go
// encodes its struct: what has no omitempty (or is a struct, or a metav1.Time that encodes its
// zero as null) is always there.

bool IsEventsV1(const Resource& r) { return r.group == "events.k8s.io" && r.resource == "events"; }

constexpr std::pair<const char*, const char*> kRenamed[] = {
    {"regarding", "involvedObject"},
    {"note", "message"},
    {"deprecatedSource", "source"},
    {"deprecatedFirstTimestamp", "firstTimestamp"},
    {"deprecatedLastTimestamp", "lastTimestamp"},
    {"deprecatedCount", "count"},
    {"reportingController", "reportingComponent"},
};

// `obj` with the members kRenamed names under their other side's names; the rest kept.
json Renamed(json obj, bool to_core) {
  json out = json::object();
  for (auto& [k, v] : obj.items()) {
    std::string name = k;
    for (const auto& [v1, core] : kRenamed) {
      if (k == (to_core ? v1 : core)) name = to_core ? core : v1;
    }
    out[name] = std::move(v);
  }
  return out;
}

// Go's encoding of the fields: empty ones dropped where omitempty, written where not.
void EncodeAsGo(json& out, std::initializer_list<const char*> always_struct,
                std::initializer_list<const char*> always_time,
                std::initializer_list<const char*> always_string,
                std::initializer_list<const char*> omit_empty) {
  for (const char* k : always_struct) {
    if (!out.contains(k) || out[k].is_null()) out[k] = json::object();
  }
  for (const char* k : always_time) {
    if (!out.contains(k)) out[k] = nullptr;
  }
  for (const char* k : always_string) {
    if (!out.contains(k) || out[k].is_null()) out[k] = "";
  }
  for (const char* k : omit_empty) {
    auto it = out.find(k);
    if (it == out.end()) continue;
    if (it->is_null() || (it->is_string() && it->get_ref<const std::string&>().empty()) ||
        (it->is_number() && *it == 0)) {
      out.erase(it);
    }
  }
}

// An EventSeries: count is omitempty in core's, not in events.k8s.io's; lastObservedTime (a
// MicroTime) is always written, null when zero.
void EncodeSeries(json& out, bool core) {
  auto it = out.find("series");
  if (it == out.end() || !it->is_object()) return;
  auto count = it->find("count");
  if (core && count != it->end() && (count->is_null() || *count == 0)) it->erase(count);
  if (!core && (count == it->end() || count->is_null())) (*it)["count"] = 0;
  if (!it->contains("lastObservedTime")) (*it)["lastObservedTime"] = nullptr;
}

json EventToCore(json obj) {
  json out = Renamed(std::move(obj), /*to_core=*/true);
  EncodeSeries(out, /*core=*/true);
  out["apiVersion"] = "v1";
  EncodeAsGo(out, {"involvedObject", "source"}, {"firstTimestamp", "lastTimestamp", "eventTime"},
             {"reportingComponent", "reportingInstance"},
             {"reason", "message", "count", "type", "action", "series", "related"});
  return out;
}

json EventFromCore(json obj) {
  json out = Renamed(std::move(obj), /*to_core=*/false);
  EncodeSeries(out, /*core=*/false);
  out["apiVersion"] = "events.k8s.io/v1";
  EncodeAsGo(out, {"regarding", "deprecatedSource"},
             {"eventTime", "deprecatedFirstTimestamp", "deprecatedLastTimestamp"}, {},
             {"series", "reportingController", "reportingInstance", "action", "reason", "related",
              "note", "type", "deprecatedCount"});
  return out;
}

}  // namespace

bool Converts(const Resource& served) { return &StorageOf(served) != &served; }

json ToStorage(const Resource& served, json obj) {
  if (!Converts(served) || !obj.is_object()) return obj;
  // A custom resource's versions differ by apiVersion only (conversion strategy None).
  if (served.custom != nullptr) {
    obj["apiVersion"] = StorageOf(served).GroupVersion();
    return obj;
  }
  if (IsHpaV1(served)) return HpaFromV1(std::move(obj));
  if (IsEventsV1(served)) return EventToCore(std::move(obj));
  return obj;
}

json FromStorage(const Resource& served, json obj) {
  if (!Converts(served) || !obj.is_object()) return obj;
  if (served.custom != nullptr) {
    obj["apiVersion"] = served.GroupVersion();
    return obj;
  }
  if (IsHpaV1(served)) return HpaToV1(std::move(obj));
  if (IsEventsV1(served)) return EventFromCore(std::move(obj));
  return obj;
}

std::string FromStorageText(const Resource& served, std::string_view text) {
  if (!Converts(served)) return std::string(text);
  json obj = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (obj.is_discarded()) return std::string(text);
  return json_io::Dump(FromStorage(served, std::move(obj)));
}

}  // namespace tidepool::apiserver::conversion
