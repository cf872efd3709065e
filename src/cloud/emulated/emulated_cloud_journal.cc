// File: emulated_cloud_journal.cc
//
// EmulatedCloud's journal (emulated_cloud.h, "Journal"): its pools and VMs as JSON records,
// written after each change and read back by Restore(). The record formats are this file's
// alone; a record it cannot read is DataLoss, never a guess.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "cloud/emulated/emulated_cloud.h"
#include "cloud/emulated/emulated_cloud_state.h"

namespace tidepool::cloud::emulated {
namespace {

using nlohmann::json;

constexpr std::string_view kPools = "nodepools";
constexpr std::string_view kVms = "instances";

int64_t Nanos(TimePoint t) { return t.time_since_epoch().count(); }
TimePoint FromNanos(int64_t n) { return TimePoint(Duration(n)); }

json AcceleratorJson(const std::optional<Accelerator>& a) {
  if (!a.has_value()) return nullptr;
  json j = {{"type", a->type}, {"count", a->count}};
  if (!a->sharing.empty()) {
    j["sharing"] = a->sharing;
    j["maxSharedClients"] = a->max_shared_clients;
  }
  return j;
}

// Reads typed fields of one record; the first problem is kept (no exceptions: nlohmann's
// value() would throw on a wrong type).
class Reader {
 public:
  Reader(const json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) Fail("", "not an object");
  }
  const json& Field(const char* key, json::value_t type) {
    static const json kNull;
    if (!j_.is_object()) return kNull;
    auto it = j_.find(key);
    const bool ok = it != j_.end() &&
                    (it->type() == type ||
                     (type == json::value_t::number_integer &&
                      it->type() == json::value_t::number_unsigned));
    if (!ok) {
      Fail(key, "missing or of the wrong type");
      return kNull;
    }
    return *it;
  }
  std::string Str(const char* key) {
    const json& v = Field(key, json::value_t::string);
    return v.is_string() ? v.get<std::string>() : "";
  }
  int64_t Int(const char* key) {
    const json& v = Field(key, json::value_t::number_integer);
    return v.is_number_integer() ? v.get<int64_t>() : 0;
  }
  bool Bool(const char* key) {
    const json& v = Field(key, json::value_t::boolean);
    return v.is_boolean() && v.get<bool>();
  }
  std::vector<std::string> Strings(const char* key) {
    std::vector<std::string> out;
    for (const json& v : Field(key, json::value_t::array)) {
      if (!v.is_string()) {
        Fail(key, "expected strings");
        return out;
      }
      out.push_back(v.get<std::string>());
    }
    return out;
  }
  std::optional<Accelerator> Acc(const char* key) {
    if (!j_.is_object() || !j_.contains(key) || j_[key].is_null()) return std::nullopt;
    Reader r(j_[key], where_ + "." + key);
    Accelerator a{r.Str("type"), static_cast<int>(r.Int("count"))};
    if (r.Has("sharing")) {  // journals before GPU sharing have none
      a.sharing = r.Str("sharing");
      a.max_shared_clients = static_cast<int>(r.Int("maxSharedClients"));
    }
    if (!r.ok()) Fail(key, std::string(r.status().message()));
    return a;
  }
  bool Has(const char* key) const { return j_.is_object() && j_.contains(key); }
  void Fail(std::string_view key, const std::string& what) {
    if (status_.ok()) {
      status_ = Status(StatusCode::kDataLoss, where_ + (key.empty() ? "" : ".") +
                                                   std::string(key) + ": " + what);
    }
  }
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

 private:
  const json& j_;
  const std::string where_;
  Status status_;
};

StatusOr<json> ParseRecord(std::string_view kind, const CloudRecord& r) {
  json j = json::parse(r.json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return Status(StatusCode::kDataLoss,
                  "cloud record " + std::string(kind) + "/" + r.name + " is not valid JSON");
  }
  return j;
}

StatusOr<NodePoolStatus> ParsePoolStatus(const std::string& s) {
  for (NodePoolStatus v : {NodePoolStatus::kProvisioning, NodePoolStatus::kRunning,
                           NodePoolStatus::kReconciling, NodePoolStatus::kStopping,
                           NodePoolStatus::kError}) {
    if (NodePoolStatusName(v) == s) return v;
  }
  return Status(StatusCode::kDataLoss, "unknown node pool status \"" + s + "\"");
}

StatusOr<VmStatus> ParseVmStatus(const std::string& s) {
  for (VmStatus v :
       {VmStatus::kProvisioning, VmStatus::kRunning, VmStatus::kStopping, VmStatus::kFailed}) {
    if (VmStatusName(v) == s) return v;
  }
  return Status(StatusCode::kDataLoss, "unknown VM status \"" + s + "\"");
}

}  // namespace

// ---- Writing ------------------------------------------------------------------------------------

void EmulatedCloud::TouchPool(const std::string& name) {
  ++instances_version_;
  if (options_.journal != nullptr) dirty_pools_.insert(name);
}

void EmulatedCloud::TouchVm(const std::string& name) {
  ++instances_version_;
  if (options_.journal != nullptr) dirty_vms_.insert(name);
}

void EmulatedCloud::Flush() {
  if (options_.journal == nullptr || (dirty_pools_.empty() && dirty_vms_.empty())) return;
  CloudJournal& journal = *options_.journal;
  auto write = [&](std::string_view kind, const std::string& name, const std::string* json) {
    Status s = json != nullptr ? journal.Put(kind, name, *json) : journal.Delete(kind, name);
    if (!s.ok() && options_.logger != nullptr) {
      options_.logger->Warning("Failed to persist the emulated cloud's state",
                               {{"record", std::string(kind) + "/" + name},
                                {"err", s.ToString()}});
    }
  };
  const std::set<std::string, std::less<>> pools = std::exchange(dirty_pools_, {});
  const std::set<std::string, std::less<>> vms = std::exchange(dirty_vms_, {});
  for (const std::string& name : pools) {
    const Pool* p = FindPool(name);
    const std::string text = p != nullptr ? PoolJson(*p) : "";
    write(kPools, name, p != nullptr ? &text : nullptr);
  }
  for (const std::string& name : vms) {
    auto it = vms_.find(name);
    const std::string text = it != vms_.end() ? VmJson(it->second) : "";
    write(kVms, name, it != vms_.end() ? &text : nullptr);
  }
}

std::string EmulatedCloud::PoolJson(const Pool& p) const {
  const NodePoolSpec& s = p.spec;
  json taints = json::array();
  for (const api::Taint& t : s.taints) {
    json x = {{"key", t.key}, {"value", t.value}, {"effect", api::TaintEffectName(t.effect)}};
    if (t.time_added.has_value()) x["timeAdded"] = Nanos(*t.time_added);
    taints.push_back(std::move(x));
  }
  json spec = {{"name", s.name},
               {"machineType", s.machine_type},
               {"accelerator", AcceleratorJson(s.accelerator)},
               {"zones", s.zones},
               {"minNodes", s.min_nodes},
               {"maxNodes", s.max_nodes},
               {"autoscaling", s.autoscaling},
               {"initialNodeCount", s.initial_node_count},
               {"labels", s.labels},
               {"taints", taints},
               {"spot", s.spot},
               {"diskSizeGb", s.disk_size_gb}};
  if (!s.group_id.empty()) spec["groupId"] = s.group_id;
  return json{{"spec", spec},
              {"accelerator", AcceleratorJson(p.accelerator)},
              {"status", NodePoolStatusName(p.status)},
              {"prefix", p.prefix},
              {"hashes", p.hashes},
              {"deleting", p.deleting},
              {"settling", p.settling},
              {"opTotal", p.op_total},
              {"opFailed", p.op_failed}}
      .dump();
}

std::string EmulatedCloud::VmJson(const Vm& vm) const {
  json j = {{"name", vm.name},
            {"pool", vm.pool},
            {"zone", vm.zone},
            {"providerId", vm.provider_id},
            {"seq", vm.seq},
            {"status", VmStatusName(vm.status)},
            {"registered", vm.registered},
            {"ready", vm.ready},
            {"gpuReady", vm.gpu_ready},
            {"neverRegisters", vm.never_registers},
            {"overQuota", vm.over_quota},
            {"driverNeverReady", vm.driver_never_ready},
            {"requestedAt", Nanos(vm.requested_at)},
            {"registeredAt", Nanos(vm.registered_at)},
            {"readyAt", Nanos(vm.ready_at)},
            {"step", StepName(vm.step)},
            {"stepDue", Nanos(vm.step_due)}};
  if (vm.error.has_value()) {
    j["error"] = {{"class", vm.error->error_class == InstanceErrorInfo::Class::kOutOfResources
                                ? "OutOfResources"
                                : "Other"},
                  {"code", vm.error->error_code},
                  {"message", vm.error->error_message}};
  }
  return j.dump();
}

std::string_view EmulatedCloud::StepName(Step step) {
  if (step == &EmulatedCloud::StepRunning) return "Running";
  if (step == &EmulatedCloud::StepFailed) return "Failed";
  if (step == &EmulatedCloud::StepRegistered) return "Registered";
  if (step == &EmulatedCloud::StepReady) return "Ready";
  if (step == &EmulatedCloud::StepGpuReady) return "GpuReady";
  if (step == &EmulatedCloud::StepGone) return "Gone";
  return "";
}

EmulatedCloud::Step EmulatedCloud::StepFromName(std::string_view name) {
  for (Step s : {&EmulatedCloud::StepRunning, &EmulatedCloud::StepFailed,
                 &EmulatedCloud::StepRegistered, &EmulatedCloud::StepReady,
                 &EmulatedCloud::StepGpuReady, &EmulatedCloud::StepGone}) {
    if (StepName(s) == name) return s;
  }
  return nullptr;
}

// ---- Reading ------------------------------------------------------------------------------------

StatusOr<EmulatedCloud::Pool> EmulatedCloud::PoolFromJson(const CloudRecord& record) const {
  TIDEPOOL_ASSIGN_OR_RETURN(json j, ParseRecord(kPools, record));
  const std::string where = "cloud record nodepools/" + record.name;
  Reader r(j, where);
  Pool p;
  Reader spec(r.Field("spec", json::value_t::object), where + ".spec");
  NodePoolSpec& s = p.spec;
  s.name = spec.Str("name");
  s.machine_type = spec.Str("machineType");
  s.accelerator = spec.Acc("accelerator");
  s.zones = spec.Strings("zones");
  s.min_nodes = static_cast<int>(spec.Int("minNodes"));
  s.max_nodes = static_cast<int>(spec.Int("maxNodes"));
  s.autoscaling = spec.Bool("autoscaling");
  s.initial_node_count = static_cast<int>(spec.Int("initialNodeCount"));
  for (const auto& [k, v] : spec.Field("labels", json::value_t::object).items()) {
    if (!v.is_string()) spec.Fail("labels", "expected strings");
    if (v.is_string()) s.labels[k] = v.get<std::string>();
  }
  for (const json& t : spec.Field("taints", json::value_t::array)) {
    Reader tr(t, where + ".spec.taints");
    api::Taint taint;
    taint.key = tr.Str("key");
    taint.value = tr.Str("value");
    StatusOr<api::TaintEffect> effect = api::ParseTaintEffect(tr.Str("effect"));
    if (!effect.ok()) tr.Fail("effect", std::string(effect.status().message()));
    if (effect.ok()) taint.effect = *effect;
    if (tr.Has("timeAdded")) taint.time_added = FromNanos(tr.Int("timeAdded"));
    if (!tr.ok()) return tr.status();
    s.taints.push_back(std::move(taint));
  }
  s.spot = spec.Bool("spot");
  s.disk_size_gb = spec.Int("diskSizeGb");
  if (spec.Has("groupId")) s.group_id = spec.Str("groupId");
  if (!spec.ok()) return spec.status();
  p.accelerator = r.Acc("accelerator");
  StatusOr<NodePoolStatus> status = ParsePoolStatus(r.Str("status"));
  if (!status.ok()) r.Fail("status", std::string(status.status().message()));
  p.prefix = r.Str("prefix");
  p.hashes = r.Strings("hashes");
  p.deleting = r.Bool("deleting");
  for (std::string& n : r.Strings("settling")) p.settling.insert(std::move(n));
  p.op_total = static_cast<int>(r.Int("opTotal"));
  p.op_failed = static_cast<int>(r.Int("opFailed"));
  if (!r.ok()) return r.status();
  p.status = *status;
  p.machine = options_.catalog.FindMachineType(s.machine_type);
  if (p.machine == nullptr || s.name != record.name || s.zones.empty() ||
      p.hashes.size() != s.zones.size()) {
    return Status(StatusCode::kDataLoss,
                  where + ": inconsistent (name, zones, hashes or a machine type \"" +
                      s.machine_type + "\" the catalog does not have)");
  }
  return p;
}

StatusOr<EmulatedCloud::Vm> EmulatedCloud::VmFromJson(const CloudRecord& record) const {
  TIDEPOOL_ASSIGN_OR_RETURN(json j, ParseRecord(kVms, record));
  Reader r(j, "cloud record instances/" + record.name);
  Vm vm;
  vm.name = r.Str("name");
  vm.pool = r.Str("pool");
  vm.zone = r.Str("zone");
  vm.provider_id = r.Str("providerId");
  vm.seq = static_cast<uint64_t>(r.Int("seq"));
  StatusOr<VmStatus> status = ParseVmStatus(r.Str("status"));
  if (!status.ok()) r.Fail("status", std::string(status.status().message()));
  vm.registered = r.Bool("registered");
  vm.ready = r.Bool("ready");
  vm.gpu_ready = r.Bool("gpuReady");
  vm.never_registers = r.Bool("neverRegisters");
  if (r.Has("overQuota")) vm.over_quota = r.Bool("overQuota");
  vm.driver_never_ready = r.Bool("driverNeverReady");
  vm.requested_at = FromNanos(r.Int("requestedAt"));
  vm.registered_at = FromNanos(r.Int("registeredAt"));
  vm.ready_at = FromNanos(r.Int("readyAt"));
  const std::string step = r.Str("step");
  vm.step = StepFromName(step);
  if (!step.empty() && vm.step == nullptr) r.Fail("step", "unknown step \"" + step + "\"");
  vm.step_due = FromNanos(r.Int("stepDue"));
  if (r.Has("error")) {
    Reader e(r.Field("error", json::value_t::object), "error");
    InstanceErrorInfo info;
    info.error_class = e.Str("class") == "OutOfResources"
                           ? InstanceErrorInfo::Class::kOutOfResources
                           : InstanceErrorInfo::Class::kOther;
    info.error_code = e.Str("code");
    info.error_message = e.Str("message");
    if (!e.ok()) r.Fail("error", std::string(e.status().message()));
    vm.error = std::move(info);
  }
  if (!r.ok()) return r.status();
  vm.status = *status;
  if (vm.name != record.name) {
    return Status(StatusCode::kDataLoss, "cloud record instances/" + record.name +
                                             ": names another instance \"" + vm.name + "\"");
  }
  return vm;
}

StatusOr<bool> EmulatedCloud::Restore() {
  if (options_.journal == nullptr) return false;
  TIDEPOOL_ASSIGN_OR_RETURN(std::vector<CloudRecord> pools, options_.journal->List(kPools));
  TIDEPOOL_ASSIGN_OR_RETURN(std::vector<CloudRecord> vms, options_.journal->List(kVms));
  if (pools.empty()) {
    for (const CloudRecord& r : vms) TouchVm(r.name);  // orphans of a pool that is gone
    Flush();
    return false;
  }
  for (const CloudRecord& r : pools) {
    TIDEPOOL_ASSIGN_OR_RETURN(Pool p, PoolFromJson(r));
    pools_.emplace(r.name, std::move(p));
    ++instances_version_;
  }
  std::vector<Vm*> order;
  for (const CloudRecord& r : vms) {
    TIDEPOOL_ASSIGN_OR_RETURN(Vm vm, VmFromJson(r));
    if (FindPool(vm.pool) == nullptr) {
      TouchVm(r.name);  // its pool's record was deleted first (emulated_cloud.h): drop it
      continue;
    }
    next_seq_ = std::max(next_seq_, vm.seq + 1);
    Vm& stored = vms_.emplace(r.name, std::move(vm)).first->second;
    by_provider_id_[stored.provider_id] = stored.name;
    order.push_back(&stored);
  }
  std::sort(order.begin(), order.end(), [](const Vm* a, const Vm* b) { return a->seq < b->seq; });
  for (const Vm* vm : order) {
    FindPool(vm->pool)->instances.push_back(vm->name);
    if (vm->status != VmStatus::kStopping) CountLive(*vm, +1);
  }
  for (auto it = pools_.begin(); it != pools_.end();) {
    Pool& p = it->second;
    ++it;  // ResumePool may erase a pool that finished deleting
    ResumePool(p);
  }
  for (Vm* vm : order) ResumeVm(*vm);
  Flush();
  return true;
}

void EmulatedCloud::ResumePool(Pool& p) {
  // An operation whose instances' records were lost with a crash waits for those still here.
  for (auto it = p.settling.begin(); it != p.settling.end();) {
    it = vms_.count(*it) > 0 ? std::next(it) : p.settling.erase(it);
  }
  if (p.deleting && p.instances.empty()) {
    const std::string name = p.spec.name;
    TouchPool(name);
    pools_.erase(name);
    return;
  }
  if (!p.deleting && p.settling.empty() &&
      (p.status == NodePoolStatus::kProvisioning || p.status == NodePoolStatus::kReconciling)) {
    p.status = p.op_total > 0 && p.op_failed == p.op_total ? NodePoolStatus::kError
                                                            : NodePoolStatus::kRunning;
    TouchPool(p.spec.name);
  }
}

void EmulatedCloud::ResumeVm(Vm& vm) {
  // A registered VM's Node exists (until the VM is gone): the cluster gets it back as it was.
  if (vm.registered && vm.status != VmStatus::kFailed) {
    Publish(vm, vm.gpu_ready ? NodeStage::kGpuReady
                             : (vm.ready ? NodeStage::kReady : NodeStage::kRegistered));
  }
  if (Step step = vm.step; step != nullptr) ScheduleStepAt(vm, vm.step_due, step);
}

}  // namespace tidepool::cloud::emulated
