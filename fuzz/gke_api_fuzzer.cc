// Fuzz target: cloud/gke GkeApi::Handle, the GKE REST surface gcloud and a live cluster
// autoscaler drive (container v1/v1beta1, compute v1, serviceusage), on a fresh EmulatedCloud
// per input on simulated time: request bodies (node pools, setSize, setAutoscaling, cluster
// updates, deleteInstances, ...), paths and query parameters.
// Input: up to 8 requests separated by "\n%%\n", each in fuzz_support.h's TextRequest form
// ("METHOD /path?query\n[headers]\n\nbody"); "TICK <seconds>" instead runs the cloud's timers
// for that long (at most an hour), so pools settle and operations finish. Only paths for which
// IsGkePath() is true are handed to the API, as `tidepool up` routes them.
// Oracles: nothing crashes; every answer is JSON, never a 5xx (gke_api.h: "never 500 or 429").
#include <nlohmann/json.hpp>

#include "apiserver/http/server.h"
#include "cloud/emulated/emulated_cloud.h"
#include "cloud/gke/emulated_gke_control.h"
#include "cloud/gke/gke_api.h"
#include "common/random.h"
#include "fuzz/fuzz_support.h"
#include "common/event_queue.h"

namespace emu = tidepool::cloud::emulated;
namespace gke = tidepool::cloud::gke;
using tidepool::fuzz::Check;

namespace {

class NullSink final : public emu::NodeSink {
 public:
  tidepool::Status UpsertNode(tidepool::api::Node) override { return tidepool::OkStatus(); }
  tidepool::Status DeleteNode(const std::string&) override { return tidepool::OkStatus(); }
};

emu::EmulatedCloudOptions Options() {
  emu::EmulatedCloudOptions o;
  o.faults.gpu_quota["NVIDIA_V100_GPUS"] = 0;
  o.faults.stockout.push_back(emu::FaultMatch{"", "", "", "nvidia-tesla-p4", 1.0});
  return o;
}

gke::GkeRequest ToGkeRequest(const tidepool::fuzz::TextRequest& t) {
  gke::GkeRequest r;
  r.method = t.method;
  std::string_view target = t.target;
  const size_t q = target.find('?');
  r.path = tidepool::apiserver::http::UrlDecode(target.substr(0, q), false);
  if (q != std::string_view::npos) {
    std::string_view qs = target.substr(q + 1);
    while (!qs.empty()) {
      const size_t amp = qs.find('&');
      std::string_view kv = qs.substr(0, amp);
      const size_t eq = kv.find('=');
      r.query.emplace(tidepool::apiserver::http::UrlDecode(kv.substr(0, eq), true),
                      eq == std::string_view::npos
                          ? ""
                          : tidepool::apiserver::http::UrlDecode(kv.substr(eq + 1), true));
      if (amp == std::string_view::npos) break;
      qs.remove_prefix(amp + 1);
    }
  }
  r.body = t.body;
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tidepool::EventQueue queue;
  NullSink sink;
  tidepool::Random random(7);
  emu::EmulatedCloud cloud("tidepool-local", "tidepool", "us-central1-a", queue, sink, random,
                           Options());
  gke::ClusterInfo info;
  info.endpoint = "127.0.0.1:6443";
  gke::EmulatedGkeControl control(cloud, info);
  gke::GkeApi api(control, queue.clock());

  for (std::string_view text :
       tidepool::fuzz::Sections(tidepool::fuzz::AsText(data, size), "\n%%\n", 8)) {
    const tidepool::fuzz::TextRequest t = tidepool::fuzz::ParseTextRequest(text);
    if (t.method == "TICK") {
      const long seconds = std::strtol(t.target.c_str(), nullptr, 10);
      if (seconds > 0 && seconds <= 3600) {
        queue.RunUntil(queue.Now() + std::chrono::seconds(seconds));
      }
      continue;
    }
    gke::GkeRequest r = ToGkeRequest(t);
    if (!gke::IsGkePath(r.path)) continue;
    gke::GkeResponse resp = api.Handle(r);
    Check(resp.status < 500 || resp.status == 501, "GKE API answered a 5xx other than 501",
          std::to_string(resp.status) + " " + resp.body);
    Check(!nlohmann::json::parse(resp.body, nullptr, false).is_discarded(),
          "GKE API answered a body that is not JSON", resp.body);
  }
  return 0;
}
