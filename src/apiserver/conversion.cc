#include "apiserver/conversion.h"

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

ordered MetricSpecToV1(const json& m) {
  ordered o;
  const std::string type = Str(m, "type");
  o["type"] = type;
  if (const json& s = Get(m, "object"); s.is_object()) {
    ordered x;
    x["target"] = Ref(Get(s, "describedObject"));
    x["metricName"] = Str(Get(s, "metric"), "name");
    x["targetValue"] = Ordered(Quantity(Get(Get(s, "target"), "value")));
    if (Has(Get(s, "metric"), "selector"))
      x["selector"] = Ordered(Get(Get(s, "metric"), "selector"));
    if (Has(Get(s, "target"), "averageValue")) {
      x["averageValue"] = Ordered(Get(Get(s, "target"), "averageValue"));
    }
    o["object"] = x;
  }
  if (const json& s = Get(m, "pods"); s.is_object()) {
    ordered x;
    x["metricName"] = Str(Get(s, "metric"), "name");
    x["targetAverageValue"] = Ordered(Quantity(Get(Get(s, "target"), "averageValue")));
    if (Has(Get(s, "metric"), "selector"))
      x["selector"] = Ordered(Get(Get(s, "metric"), "selector"));
    o["pods"] = x;
  }
  for (const char* kind : {"resource", "containerResource"}) {
    const json& s = Get(m, kind);
    if (!s.is_object()) continue;
    ordered x;
    x["name"] = Str(s, "name");
    const json& t = Get(s, "target");
    if (Has(t, "averageUtilization"))
      x["targetAverageUtilization"] = Ordered(Get(t, "averageUtilization"));
    if (Has(t, "averageValue")) x["targetAverageValue"] = Ordered(Get(t, "averageValue"));
    if (std::string(kind) == "containerResource") x["container"] = Str(s, "container");
    o[kind] = x;
  }
  if (const json& s = Get(m, "external"); s.is_object()) {
    ordered x;
    x["metricName"] = Str(Get(s, "metric"), "name");
    if (Has(Get(s, "metric"), "selector")) {
      x["metricSelector"] = Ordered(Get(Get(s, "metric"), "selector"));
    }
    const json& t = Get(s, "target");
    if (Has(t, "value")) x["targetValue"] = Ordered(Get(t, "value"));
    if (Has(t, "averageValue")) x["targetAverageValue"] = Ordered(Get(t, "averageValue"));
    o["external"] = x;
  }
  return o;
}

ordered MetricStatusToV1(const json& m) {
  ordered o;
  o["type"] = Str(m, "type");
  if (const json& s = Get(m, "object"); s.is_object()) {
    ordered x;
    x["target"] = Ref(Get(s, "describedObject"));
    x["metricName"] = Str(Get(s, "metric"), "name");
    x["currentValue"] = Ordered(Quantity(Get(Get(s, "current"), "value")));
    if (Has(Get(s, "metric"), "selector"))
      x["selector"] = Ordered(Get(Get(s, "metric"), "selector"));
    if (Has(Get(s, "current"), "averageValue")) {
      x["averageValue"] = Ordered(Get(Get(s, "current"), "averageValue"));
    }
    o["object"] = x;
  }
  if (const json& s = Get(m, "pods"); s.is_object()) {
    ordered x;
    x["metricName"] = Str(Get(s, "metric"), "name");
    x["currentAverageValue"] = Ordered(Quantity(Get(Get(s, "current"), "averageValue")));
    if (Has(Get(s, "metric"), "selector"))
      x["selector"] = Ordered(Get(Get(s, "metric"), "selector"));
    o["pods"] = x;
  }
  for (const char* kind : {"resource", "containerResource"}) {
    const json& s = Get(m, kind);
    if (!s.is_object()) continue;
    ordered x;
    x["name"] = Str(s, "name");
    const json& c = Get(s, "current");
    if (Has(c, "averageUtilization")) {
      x["currentAverageUtilization"] = Ordered(Get(c, "averageUtilization"));
    }
    x["currentAverageValue"] = Ordered(Quantity(Get(c, "averageValue")));
    if (std::string(kind) == "containerResource") x["container"] = Str(s, "container");
    o[kind] = x;
  }
  if (const json& s = Get(m, "external"); s.is_object()) {
    ordered x;
    x["metricName"] = Str(Get(s, "metric"), "name");
    if (Has(Get(s, "metric"), "selector")) {
      x["metricSelector"] = Ordered(Get(Get(s, "metric"), "selector"));
    }
    x["currentValue"] = Ordered(Quantity(Get(Get(s, "current"), "value")));
    if (Has(Get(s, "current"), "averageValue")) {
      x["currentAverageValue"] = Ordered(Get(Get(s, "current"), "averageValue"));
    }
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

json HpaToV1(json in) {
  json out = json::object();
  out["apiVersion"] = "autoscaling/v1";
  out["kind"] = Get(in, "kind").is_null() ? json("HorizontalPodAutoscaler") : in["kind"];
  json meta = Get(in, "metadata").is_object() ? in["metadata"] : json::object();
  json annotations = Get(meta, "annotations").is_object() ? meta["annotations"] : json::object();
  for (const char* k : {kMetricsAnnotation, kCurrentMetricsAnnotation, kConditionsAnnotation,
                        kBehaviorAnnotation}) {
    annotations.erase(k);
  }
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
    if (!IsCpuUtilization(m)) other.push_back(MetricSpecToV1(m));
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
    current_v1.push_back(MetricStatusToV1(m));
  }
  if (!current_v1.empty()) annotations[kCurrentMetricsAnnotation] = current_v1.dump();
  const json conds = Get(status, "conditions").is_array() ? status["conditions"] : json::array();
  ordered conds_v1 = ordered::array();
  for (const json& c : conds) conds_v1.push_back(ConditionToV1(c));
  if (!conds_v1.empty()) annotations[kConditionsAnnotation] = conds_v1.dump();
  if (annotations.empty()) {
    meta.erase("annotations");
  } else {
    meta["annotations"] = std::move(annotations);
  }
  out["metadata"] = std::move(meta);
  out["spec"] = std::move(s);
  out["status"] = std::move(st);
  return out;
}

// ---- v1 -> v2 -------------------------------------------------------------------------------

json Target(const char* type) { return json{{"type", type}}; }

json MetricSpecFromV1(const json& m) {
  json o = {{"type", Str(m, "type")}};
  if (const json& s = Get(m, "object"); s.is_object()) {
    json t = Target(Has(s, "averageValue") ? "AverageValue" : "Value");
    t["value"] = Quantity(Get(s, "targetValue"));
    Put(t, "averageValue", Get(s, "averageValue"));
    json metric = {{"name", Str(s, "metricName")}};
    Put(metric, "selector", Get(s, "selector"));
    o["object"] = {{"describedObject", Get(s, "target")}, {"target", t}, {"metric", metric}};
  }
  if (const json& s = Get(m, "pods"); s.is_object()) {
    json t = Target("AverageValue");
    t["averageValue"] = Quantity(Get(s, "targetAverageValue"));
    json metric = {{"name", Str(s, "metricName")}};
    Put(metric, "selector", Get(s, "selector"));
    o["pods"] = {{"metric", metric}, {"target", t}};
  }
  for (const char* kind : {"resource", "containerResource"}) {
    const json& s = Get(m, kind);
    if (!s.is_object()) continue;
    json t = Target(Has(s, "targetAverageUtilization") ? "Utilization" : "AverageValue");
    Put(t, "averageValue", Get(s, "targetAverageValue"));
    Put(t, "averageUtilization", Get(s, "targetAverageUtilization"));
    json x = {{"name", Str(s, "name")}, {"target", t}};
    if (std::string(kind) == "containerResource") x["container"] = Str(s, "container");
    o[kind] = x;
  }
  if (const json& s = Get(m, "external"); s.is_object()) {
    json t = Target(Has(s, "targetAverageValue") ? "AverageValue" : "Value");
    Put(t, "averageValue", Get(s, "targetAverageValue"));
    Put(t, "value", Get(s, "targetValue"));
    json metric = {{"name", Str(s, "metricName")}};
    Put(metric, "selector", Get(s, "metricSelector"));
    o["external"] = {{"metric", metric}, {"target", t}};
  }
  return o;
}

json MetricStatusFromV1(const json& m) {
  json o = {{"type", Str(m, "type")}};
  if (const json& s = Get(m, "object"); s.is_object()) {
    json c = {{"value", Quantity(Get(s, "currentValue"))}};
    Put(c, "averageValue", Get(s, "averageValue"));
    json metric = {{"name", Str(s, "metricName")}};
    Put(metric, "selector", Get(s, "selector"));
    o["object"] = {{"metric", metric}, {"current", c}, {"describedObject", Get(s, "target")}};
  }
  if (const json& s = Get(m, "pods"); s.is_object()) {
    json metric = {{"name", Str(s, "metricName")}};
    Put(metric, "selector", Get(s, "selector"));
    o["pods"] = {{"metric", metric},
                 {"current", {{"averageValue", Quantity(Get(s, "currentAverageValue"))}}}};
  }
  for (const char* kind : {"resource", "containerResource"}) {
    const json& s = Get(m, kind);
    if (!s.is_object()) continue;
    json c = {{"averageValue", Quantity(Get(s, "currentAverageValue"))}};
    Put(c, "averageUtilization", Get(s, "currentAverageUtilization"));
    json x = {{"name", Str(s, "name")}, {"current", c}};
    if (std::string(kind) == "containerResource") x["container"] = Str(s, "container");
    o[kind] = x;
  }
  if (const json& s = Get(m, "external"); s.is_object()) {
    json c = {{"value", Quantity(Get(s, "currentValue"))}};
    Put(c, "averageValue", Get(s, "currentAverageValue"));
    json metric = {{"name", Str(s, "metricName")}};
    Put(metric, "selector", Get(s, "metricSelector"));
    o["external"] = {{"metric", metric}, {"current", c}};
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
  json out = json::object();
  out["apiVersion"] = "autoscaling/v2";
  out["kind"] = Get(in, "kind").is_null() ? json("HorizontalPodAutoscaler") : in["kind"];
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
    for (const json& m : other) metrics.push_back(MetricSpecFromV1(m));
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
    for (const json& m : cur) list.push_back(MetricStatusFromV1(m));
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
  if (annotations.is_object()) {
    json kept = annotations;
    for (const char* k : {kMetricsAnnotation, kCurrentMetricsAnnotation, kConditionsAnnotation,
                          kBehaviorAnnotation}) {
      kept.erase(k);
    }
    if (kept.empty()) {
      meta.erase("annotations");
    } else {
      meta["annotations"] = std::move(kept);
    }
  }
  out["metadata"] = std::move(meta);
  out["spec"] = std::move(s);
  out["status"] = std::move(st);
  return out;
}

bool IsHpaV1(const Resource& r) {
  return r.group == "autoscaling" && r.resource == "horizontalpodautoscalers" && r.version == "v1";
}

}  // namespace

bool Converts(const Resource& served) { return &StorageOf(served) != &served; }

json ToStorage(const Resource& served, json obj) {
  if (!Converts(served) || !obj.is_object()) return obj;
  if (IsHpaV1(served)) return HpaFromV1(std::move(obj));
  return obj;
}

json FromStorage(const Resource& served, json obj) {
  if (!Converts(served) || !obj.is_object()) return obj;
  if (IsHpaV1(served)) return HpaToV1(std::move(obj));
  return obj;
}

std::string FromStorageText(const Resource& served, std::string_view text) {
  if (!Converts(served)) return std::string(text);
  json obj = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (obj.is_discarded()) return std::string(text);
  return json_io::Dump(FromStorage(served, std::move(obj)));
}

}  // namespace tidepool::apiserver::conversion
