#include "runtime/schedule_command.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "api/codec/json_codec.h"
#include "api/codec/yaml.h"
#include "api/validation.h"
#include "scheduler/scheduler.h"

namespace tidepool::runtime {
namespace {

struct Pending {
  scheduler::PodInfoConstSharedPtr pod;
  uint64_t seq;
};

class Session {
 public:
  Session(std::ostream& out, std::ostream& err, std::unique_ptr<scheduler::Scheduler> s)
      : out_(out), err_(err), sched_(std::move(s)) {}

  bool Step(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
      err_ << "error: the path \"" << path << "\" does not exist\n";
      return false;
    }
    std::stringstream text;
    text << in.rdbuf();
    auto docs = api::codec::ParseYamlDocuments(text.str());
    if (!docs.ok()) {
      err_ << "error: error parsing " << path << ": " << docs.status().message() << "\n";
      return false;
    }
    out_ << "$ kubectl apply -f " << path << "\n";
    for (const auto& doc : *docs) {
      Apply(doc);
    }
    out_ << "\n";
    if (!pending_.empty()) {
      SchedulePending();
      out_ << "\n";
    }
    return true;
  }

  void Summary() {
    out_ << "NODE                                     PODS   CPU REQUESTS   GPU REQUESTS\n";
    snapshot_.ForEachNodeByName([&](const scheduler::NodeInfo& n) {
      const auto& alloc = n.allocatable();
      out_ << std::left << std::setw(41) << n.name() << std::setw(7) << n.pods().size()
           << std::setw(15)
           << (std::to_string(n.requested().milli_cpu) + "m/" + std::to_string(alloc.milli_cpu) +
               "m")
           << std::to_string(n.requested().Scalar("nvidia.com/gpu")) + "/" +
                  std::to_string(alloc.Scalar("nvidia.com/gpu"))
           << "\n";
    });
    for (const Pending& p : pending_) {
      out_ << "pending: pod/" << p.pod->name() << "\n";
    }
  }

 private:
  void Apply(const nlohmann::json& doc) {
    std::string kind = doc.value("kind", "");
    if (kind == "Node") {
      auto node = api::codec::NodeFromJson(doc);
      if (!node.ok()) {
        out_ << "error: " << node.status().message() << "\n";
        return;
      }
      auto ptr = std::make_shared<const api::Node>(std::move(*node));
      bool exists = snapshot_.GetNodeInfo(ptr->meta.name) != nullptr;
      Status s = exists ? snapshot_.UpdateNode(ptr) : snapshot_.AddNode(ptr);
      out_ << "node/" << ptr->meta.name << (exists ? " configured" : " created") << "\n";
      if (!s.ok()) {
        out_ << "error: " << s.message() << "\n";
      }
      return;
    }
    if (kind == "Pod") {
      auto pod = api::codec::PodFromJson(doc);
      if (!pod.ok()) {
        out_ << "error: " << pod.status().message() << "\n";
        return;
      }
      if (pod->meta.namespace_.empty()) {
        pod->meta.namespace_ = "default";
      }
      api::ApplyPodDefaults(*pod);
      api::FieldErrors errs = api::ValidatePodForScheduling(*pod);
      if (!errs.empty()) {
        out_ << "The Pod \"" << pod->meta.name << "\" is invalid: " << api::AggregateMessage(errs)
             << "\n";
        return;
      }
      auto info = scheduler::MakePodInfo(*pod);
      const std::string node(info->node_name());
      if (!node.empty()) {
        Status s = snapshot_.AddPod(info, node);
        out_ << "pod/" << info->name() << (s.ok() ? " created" : " refused: ")
             << (s.ok() ? "" : std::string(s.message())) << "\n";
        return;
      }
      pending_.push_back(Pending{info, next_seq_++});
      out_ << "pod/" << info->name() << " created\n";
      return;
    }
    out_ << "error: tidepool schedule reads Nodes and Pods, not \"" << kind << "\"\n";
  }

  void SchedulePending() {
    // PrioritySort: higher priority first, then arrival order.
    std::stable_sort(pending_.begin(), pending_.end(), [](const Pending& a, const Pending& b) {
      int32_t pa = a.pod->Priority(), pb = b.pod->Priority();
      return pa != pb ? pa > pb : a.seq < b.seq;
    });
    std::vector<Pending> still;
    for (Pending& p : pending_) {
      scheduler::ScheduleResult r = sched_->ScheduleOne(p.pod, snapshot_);
      const scheduler::PodInfo& m = *p.pod;
      if (r.Scheduled()) {
        out_ << "Normal   Scheduled         pod/" << m.name() << "   Successfully assigned "
             << m.Key() << " to " << r.node << "\n";
      } else {
        out_ << "Warning  FailedScheduling  pod/" << m.name() << "   " << r.message << "\n";
        still.push_back(std::move(p));
      }
    }
    pending_ = std::move(still);
  }

  std::ostream& out_;
  std::ostream& err_;
  std::unique_ptr<scheduler::Scheduler> sched_;
  scheduler::ClusterSnapshot snapshot_;
  std::vector<Pending> pending_;
  uint64_t next_seq_ = 0;
};

}  // namespace

int RunSchedule(const ScheduleOptions& options, std::ostream& out, std::ostream& err) {
  auto sched = scheduler::Scheduler::Create();
  if (!sched.ok()) {
    err << "error: " << sched.status().message() << "\n";
    return 1;
  }
  Session session(out, err, std::move(*sched));
  for (const std::string& f : options.files) {
    if (!session.Step(f)) {
      return 1;
    }
  }
  session.Summary();
  return 0;
}

}  // namespace tidepool::runtime
