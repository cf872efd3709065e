#include "kubelet/status_json.h"

#include <cstdio>
#include <string>

#include "api/codec/json_codec.h"
#include "api/codec/json_fields.h"
#include "cloud/emulated/node_style.h"
#include "common/fnv.h"

namespace tidepool::kubelet {

using json = nlohmann::json;

uint64_t Fnv(std::string_view s) { return Fnv1a64(s); }

std::string NodeIp(std::string_view node) {
  // A node named after its private address, as EKS's are.
  if (std::string ip = cloud::emulated::IpInNodeName(node); !ip.empty()) return ip;
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

using api::codec::JsonAt;
using api::codec::JsonInt32;
using api::codec::JsonStr;
using api::codec::JsonTime;

std::vector<ContainerStatus> ContainerStatusesFromJson(const json& pod) {
  std::vector<ContainerStatus> out;
  const json& list = JsonAt(JsonAt(pod, "status"), "containerStatuses");
  if (!list.is_array()) return out;
  for (const json& j : list) {
    ContainerStatus c;
    c.name = JsonStr(j, "name");
    c.ready = JsonAt(j, "ready").is_boolean() && JsonAt(j, "ready").get<bool>();
    c.restart_count = JsonInt32(j, "restartCount");
    const json& state = JsonAt(j, "state");
    if (const json& t = JsonAt(state, "terminated"); t.is_object()) {
      c.state = ContainerStatus::State::kTerminated;
      c.exit_code = JsonInt32(t, "exitCode");
      c.reason = JsonStr(t, "reason");
      c.started_at = JsonTime(t, "startedAt");
      c.finished_at = JsonTime(t, "finishedAt");
    } else if (const json& r = JsonAt(state, "running"); r.is_object()) {
      c.state = ContainerStatus::State::kRunning;
      c.started_at = JsonTime(r, "startedAt");
    } else {
      const json& w = JsonAt(state, "waiting");
      c.state = ContainerStatus::State::kWaiting;
      c.reason = JsonStr(w, "reason");
      c.message = JsonStr(w, "message");
    }
    if (const json& t = JsonAt(JsonAt(j, "lastState"), "terminated"); t.is_object()) {
      c.last_terminated =
          ContainerStatus::Terminated{JsonInt32(t, "exitCode"), JsonStr(t, "reason"),
                                      JsonTime(t, "startedAt").value_or(TimePoint()),
                                      JsonTime(t, "finishedAt").value_or(TimePoint())};
    }
    out.push_back(std::move(c));
  }
  return out;
}

json PodStatusPatch(const PodRecord& rec) {
  const api::Pod& p = *rec.pod;
  const json ts = api::codec::PodStatusToJson(p.status);
  json status = json::object();
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
