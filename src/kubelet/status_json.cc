#include "kubelet/status_json.h"

#include <cstdio>
#include <string>

#include "api/codec/json_codec.h"
#include "common/fnv.h"

namespace tidepool::kubelet {

using json = nlohmann::json;

uint64_t Fnv(std::string_view s) { return Fnv1a64(s); }

std::string NodeIp(std::string_view node) {
  const uint64_t h = Fnv(node);
  return "10.128." + std::to_string((h >> 8) % 16) + "." + std::to_string(2 + h % 250);
}
std::string PodIp(std::string_view node, std::string_view pod) {
  const uint64_t n = Fnv(node), p = Fnv(pod);
  return "10." + std::to_string(4 + (n >> 16) % 4) + "." + std::to_string((n >> 8) % 256) + "." +
         std::to_string(2 + p % 250);
}
std::string Hex(uint64_t v, int digits) {
  char buf[20];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return std::string(buf + 16 - digits);
}

json ContainerStatusJson(const ContainerStatus& c, const json& spec_container,
                         std::string_view pod_uid) {
  json j = {{"name", c.name}, {"ready", c.ready}, {"restartCount", c.restart_count}};
  const std::string image = spec_container.value("image", "");
  j["image"] = image;
  j["imageID"] = "";
  json state = json::object();
  switch (c.state) {
    case ContainerStatus::State::kWaiting:
      state["waiting"] = {{"reason", c.reason.empty() ? "ContainerCreating" : c.reason}};
      if (!c.message.empty()) state["waiting"]["message"] = c.message;
      j["started"] = false;
      break;
    case ContainerStatus::State::kRunning:
      state["running"] = {{"startedAt", c.started_at ? FormatRfc3339(*c.started_at) : ""}};
      j["started"] = true;
      break;
    case ContainerStatus::State::kTerminated: {
      json t = {{"exitCode", c.exit_code}, {"reason", c.reason.empty() ? "Completed" : c.reason}};
      if (c.started_at) t["startedAt"] = FormatRfc3339(*c.started_at);
      if (c.finished_at) t["finishedAt"] = FormatRfc3339(*c.finished_at);
      t["containerID"] = "containerd://" + Hex(Fnv(std::string(pod_uid) + c.name), 16) +
                         Hex(Fnv(c.name + std::string(pod_uid)), 16);
      state["terminated"] = t;
      j["started"] = false;
      break;
    }
  }
  if (c.state != ContainerStatus::State::kWaiting) {
    j["containerID"] = "containerd://" + Hex(Fnv(std::string(pod_uid) + c.name), 16) +
                       Hex(Fnv(c.name + std::string(pod_uid)), 16);
    j["imageID"] = image.find('@') != std::string::npos
                       ? image
                       : image.substr(0, image.rfind(':')) + "@sha256:" + Hex(Fnv(image), 16) +
                             Hex(Fnv(image + "#"), 16) + Hex(Fnv(image + "$"), 16) +
                             Hex(Fnv(image + "%"), 16);
  }
  j["state"] = state;
  j["lastState"] = json::object();
  if (c.last_terminated.has_value()) {
    const ContainerStatus::Terminated& t = *c.last_terminated;
    j["lastState"]["terminated"] = {
        {"exitCode", t.exit_code},
        {"reason", t.reason},
        {"startedAt", FormatRfc3339(t.started_at)},
        {"finishedAt", FormatRfc3339(t.finished_at)},
        {"containerID", "containerd://" + Hex(Fnv(std::string(pod_uid) + c.name + "#" +
                                                  std::to_string(c.restart_count)), 16) +
                            Hex(Fnv(c.name + std::string(pod_uid)), 16)}};
  }
  return j;
}

namespace {

const json& At(const json& j, const char* key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}
std::string Str(const json& j, const char* key) {
  const json& v = At(j, key);
  return v.is_string() ? v.get<std::string>() : "";
}
int32_t Int(const json& j, const char* key) {
  const json& v = At(j, key);
  return v.is_number_integer() ? v.get<int32_t>() : 0;
}
std::optional<TimePoint> Time(const json& j, const char* key) {
  auto t = ParseRfc3339(Str(j, key));
  return t.ok() ? std::optional<TimePoint>(*t) : std::nullopt;
}

}  // namespace

std::vector<ContainerStatus> ContainerStatusesFromJson(const json& pod) {
  std::vector<ContainerStatus> out;
  const json& list = At(At(pod, "status"), "containerStatuses");
  if (!list.is_array()) return out;
  for (const json& j : list) {
    ContainerStatus c;
    c.name = Str(j, "name");
    c.ready = At(j, "ready").is_boolean() && At(j, "ready").get<bool>();
    c.restart_count = Int(j, "restartCount");
    const json& state = At(j, "state");
    if (const json& t = At(state, "terminated"); t.is_object()) {
      c.state = ContainerStatus::State::kTerminated;
      c.exit_code = Int(t, "exitCode");
      c.reason = Str(t, "reason");
      c.started_at = Time(t, "startedAt");
      c.finished_at = Time(t, "finishedAt");
    } else if (const json& r = At(state, "running"); r.is_object()) {
      c.state = ContainerStatus::State::kRunning;
      c.started_at = Time(r, "startedAt");
    } else {
      const json& w = At(state, "waiting");
      c.state = ContainerStatus::State::kWaiting;
      c.reason = Str(w, "reason");
      c.message = Str(w, "message");
    }
    if (const json& t = At(At(j, "lastState"), "terminated"); t.is_object()) {
      c.last_terminated = ContainerStatus::Terminated{Int(t, "exitCode"), Str(t, "reason"),
                                                      Time(t, "startedAt").value_or(TimePoint()),
                                                      Time(t, "finishedAt").value_or(TimePoint())};
    }
    out.push_back(std::move(c));
  }
  return out;
}

json PodStatusPatch(const PodRecord& rec) {
  const api::Pod& p = *rec.pod;
  const json typed = api::codec::PodToJson(p);
  json status = json::object();
  const json& ts = typed["status"];
  for (const char* k : {"phase", "conditions", "startTime", "reason", "message"}) {
    status[k] = ts.contains(k) ? ts[k] : json();
  }
  if (!p.spec.node_name.empty() && p.status.start_time.has_value()) {
    const std::string host = NodeIp(p.spec.node_name);
    status["hostIP"] = host;
    status["hostIPs"] = json::array({{{"ip", host}}});
    const std::string ip = PodIp(p.spec.node_name, p.meta.namespace_ + "/" + p.meta.name);
    status["podIP"] = ip;
    status["podIPs"] = json::array({{{"ip", ip}}});
  }
  if (!rec.containers.empty()) {
    json cs = json::array();
    for (const ContainerStatus& c : rec.containers) {
      json spec_c = json::object();
      for (const api::Container& sc : p.spec.containers) {
        if (sc.name == c.name) spec_c = {{"image", sc.image}};
      }
      cs.push_back(ContainerStatusJson(c, spec_c, p.meta.uid));
    }
    status["containerStatuses"] = cs;
  }
  return {{"status", status}};
}

}  // namespace tidepool::kubelet
