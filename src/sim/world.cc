#include "sim/world.h"

#include <utility>

#include "api/validation.h"

namespace tidepool::sim {
namespace {

namespace emu = cloud::emulated;

std::string JoinTaints(const std::vector<api::Taint>& taints) {
  std::string out;
  for (const api::Taint& t : taints) {
    out += (out.empty() ? "" : ",") + t.ToString();
  }
  return out;
}

}  // namespace

World::World(WorldOptions options)
    : options_(std::move(options)),
      queue_(options_.start - options_.warmup),
      store_(queue_.clock()),
      cloud_random_(SubSeed(options_.seed, 0)),
      autoscaler_random_(SubSeed(options_.seed, 1)),
      cloud_log_("emulated-cloud", queue_.clock(), /*to_stderr=*/false),
      autoscaler_log_("cluster-autoscaler", queue_.clock(), /*to_stderr=*/false),
      timeline_(options_.start) {}

World::~World() {
  // Observers first, then the parts they watch.
  store_.RemoveObserver(this);
  if (recorder_ != nullptr) store_.RemoveObserver(recorder_.get());
  autoscaler_.reset();
  kubelets_.clear();
  loop_.reset();
  recorder_.reset();
  cloud_.reset();
}

StatusOr<std::unique_ptr<World>> World::Create(WorldOptions options) {
  std::unique_ptr<World> w(new World(std::move(options)));
  TIDEPOOL_RETURN_IF_ERROR(w->Init());
  return w;
}

Status World::Init() {
  timeline_.set_enabled(false);
  emu::EmulatedCloudOptions cloud_options = options_.cloud;
  cloud_options.logger = &cloud_log_;
  cloud_ = std::make_unique<emu::EmulatedCloud>(
      options_.project, options_.cluster, options_.zone, queue_,
      options_.node_sink != nullptr ? *options_.node_sink : store_, cloud_random_,
      std::move(cloud_options));
  TIDEPOOL_ASSIGN_OR_RETURN(scheduler_, scheduler::Scheduler::Create());
  if (options_.run_scheduler) {
    loop_ = std::make_unique<SchedulerLoop>(store_, queue_, *scheduler_, options_.scheduler);
    loop_->SetOnUnschedulable([this](const api::Pod&) {
      if (autoscaler_started_ && !in_autoscaler_) {
        RequestAutoscalerRun(Now() + options_.autoscaling.batching_window);
      }
    });
  }
  store_.AddObserver(this);
  recorder_ = std::make_unique<TimelineRecorder>(timeline_, queue_.clock(), *cloud_);
  store_.AddObserver(recorder_.get());
  cloud_log_.AddSink(recorder_->LogSink("emulated-cloud"));
  autoscaler_log_.SetVerbosity(options_.autoscaler_verbosity);
  autoscaler_log_.AddSink(recorder_->LogSink("cluster-autoscaler"));

  // A cloud kept in a journal (tidepool up --data-dir) comes back as it was; otherwise the
  // initial node pools are created.
  TIDEPOOL_ASSIGN_OR_RETURN(const bool restored, cloud_->Restore());
  for (const emu::NodePoolSpec& spec : restored ? std::vector<emu::NodePoolSpec>{}
                                                : options_.node_pools) {
    Status s = cloud_->CreateNodePool(spec);
    if (!s.ok()) {
      return Status(s.code(), "node pool \"" + spec.name + "\": " + std::string(s.message()));
    }
  }
  queue_.RunUntil(options_.start);
  timeline_.set_enabled(true);
  recorder_->RecordInitialState(store_.ListNodes(), store_.ListPods());

  if (options_.autoscaler) {
    TIDEPOOL_ASSIGN_OR_RETURN(autoscaler_, autoscaler::Autoscaler::Create(
                                               options_.autoscaling, cloud_->Provider(), store_,
                                               store_, autoscaler_log_, autoscaler_random_));
    autoscaler_started_ = true;
    RequestAutoscalerRun(Now());
  }
  return OkStatus();
}

// ---- The autoscaler's loop ---------------------------------------------------------------------

void World::RequestAutoscalerRun(TimePoint at) {
  if (!autoscaler_started_) {
    return;
  }
  if (autoscaler_at_.has_value()) {
    if (*autoscaler_at_ <= at) {
      return;
    }
    queue_.Cancel(autoscaler_timer_);
  }
  autoscaler_at_ = at;
  autoscaler_timer_ = queue_.ScheduleAt(at, [this] {
    autoscaler_at_.reset();
    RunAutoscaler();
  });
}

void World::RunAutoscaler() {
  ++autoscaler_loops_;
  const autoscaler::ClusterView view = BuildClusterView();
  in_autoscaler_ = true;
  Status s = autoscaler_->RunOnce(Now(), view);
  in_autoscaler_ = false;
  if (!s.ok()) {
    autoscaler_log_.Error("Failed to run autoscaler loop", {{"err", s.ToString()}});
  }
  RequestAutoscalerRun(Now() + options_.autoscaling.scan_interval);
}

autoscaler::ClusterView World::BuildClusterView() {
  autoscaler::ClusterView view;
  view.nodes = store_.ListNodes();
  std::map<std::string, std::pair<api::PodConstSharedPtr, scheduler::PodInfoConstSharedPtr>,
           std::less<>>
      infos;
  for (const PodRecord& rec : store_.ListPods()) {
    const api::Pod& pod = *rec.pod;
    if (IsTerminal(pod)) {
      continue;
    }
    const std::string key = pod.Key();
    scheduler::PodInfoConstSharedPtr info;
    auto it = view_infos_.find(key);
    if (it != view_infos_.end() && it->second.first == rec.pod) {
      info = it->second.second;
    } else {
      info = scheduler::MakePodInfo(rec.pod);
    }
    infos.emplace(key, std::make_pair(rec.pod, info));
    if (pod.spec.node_name.empty()) {
      view.pending_pods.push_back(std::move(info));
    } else {
      view.scheduled_pods.push_back(std::move(info));
    }
  }
  view_infos_ = std::move(infos);
  return view;
}

// ---- Watch: kubelets, the pod garbage collector, autoscaler triggers ---------------------------

void World::OnNodeChange(const NodeChange& change) {
  const std::string name = change.node->meta.name;
  if (change.type == ChangeType::kAdded && options_.run_kubelets) {
    auto kubelet = std::make_unique<Kubelet>(name, store_, queue_, options_.kubelet);
    Kubelet* k = kubelet.get();
    kubelets_[name] = std::move(kubelet);
    for (const PodRecord& p : store_.ListPods()) {
      if (p.pod->spec.node_name == name) {
        k->OnPodChange(PodChange{ChangeType::kAdded, std::nullopt, p});
      }
    }
  } else if (change.type == ChangeType::kDeleted) {
    auto it = kubelets_.find(name);
    if (it != kubelets_.end()) {
      it->second->Stop();
      kubelets_.erase(it);
    }
    // PodGC: pods bound to a node that no longer exists are deleted.
    for (const PodRecord& p : store_.ListPods()) {
      if (p.pod->spec.node_name != name) {
        continue;
      }
      const std::string key = p.pod->Key();
      const std::string uid = p.pod->meta.uid;
      queue_.ScheduleAfter(Duration::zero(), [this, key, uid, name] {
        const PodRecord* rec = store_.GetPod(key);
        if (rec != nullptr && rec->pod->meta.uid == uid && rec->pod->spec.node_name == name &&
            store_.GetNode(name) == nullptr) {
          (void)store_.RemovePod(key);
        }
      });
    }
  }
  if (autoscaler_started_ && !in_autoscaler_) {
    RequestAutoscalerRun(Now() + options_.autoscaling.batching_window);
  }
}

void World::OnPodChange(const PodChange& change) {
  const std::string& node = change.pod.pod->spec.node_name;
  if (node.empty()) {
    return;
  }
  auto it = kubelets_.find(node);
  if (it != kubelets_.end()) {
    it->second->OnPodChange(change);
  }
}

// ---- Actions -----------------------------------------------------------------------------------

void World::Action(const std::string& command) {
  timeline_.Add(Now(), "action", "", "$ " + command, {{"command", command}});
}

void World::Output(const std::string& line) {
  timeline_.Add(Now(), "output", "", "  " + line, {{"output", line}});
}

Status World::ApplyPod(api::Pod pod, const std::string& source) {
  std::vector<api::Pod> pods;
  pods.push_back(std::move(pod));
  return ApplyPods(std::move(pods), source);
}

Status World::ApplyPods(std::vector<api::Pod> pods, const std::string& source) {
  Action("kubectl apply -f " + source);
  Status first;
  for (api::Pod& pod : pods) {
    Status s = CreateOnePod(std::move(pod), source);
    if (first.ok() && !s.ok()) {
      first = s;
    }
  }
  return first;
}

Status World::CreateOnePod(api::Pod pod, const std::string& source) {
  if (pod.meta.namespace_.empty()) {
    pod.meta.namespace_ = "default";
  }
  api::ApplyPodDefaults(pod);
  api::FieldErrors errs = api::ValidatePodForScheduling(pod);
  for (const api::Container& c : pod.spec.containers) {
    auto run = ContainerRunTime(pod, c);
    if (!run.ok()) {
      errs.push_back(api::FieldError::Invalid(
          "metadata.annotations[" + std::string(kDurationAnnotation) + "]",
          "\"" + pod.meta.annotations[std::string(kDurationAnnotation)] + "\"",
          "must be a duration, e.g. 30m"));
      break;
    }
  }
  if (!errs.empty()) {
    const std::string msg =
        "The Pod \"" + pod.meta.name + "\" is invalid: " + api::AggregateMessage(errs);
    Output(msg);
    return InvalidArgumentError(msg);
  }
  const std::string name = pod.meta.name;
  if (store_.GetPod(pod.Key()) != nullptr) {
    const std::string msg = "pods \"" + name + "\" already exists";
    Output("Error from server (AlreadyExists): error when creating \"" + source + "\": " + msg);
    return AlreadyExistsError(msg);
  }
  // kubectl prints the result when the API server answers, before any watcher sees the pod.
  Output("pod/" + name + " created");
  auto created = store_.CreatePod(std::move(pod));
  if (!created.ok()) {
    Output("Error from server: " + std::string(created.status().message()));
    return created.status();
  }
  return OkStatus();
}

Status World::DeletePod(const std::string& namespace_, const std::string& name) {
  Action("kubectl delete pod " + name +
         (namespace_.empty() || namespace_ == "default" ? "" : " -n " + namespace_));
  const std::string key = (namespace_.empty() ? "default" : namespace_) + "/" + name;
  if (store_.GetPod(key) == nullptr) {
    const std::string msg = "pods \"" + name + "\" not found";
    Output("Error from server (NotFound): " + msg);
    return NotFoundError(msg);
  }
  Output("pod \"" + name + "\" deleted");
  return store_.DeletePod(namespace_, name);
}

Status World::CreateNodePool(emu::NodePoolSpec spec) {
  std::string cmd = "gcloud container node-pools create " + spec.name + " --cluster " +
                    options_.cluster + " --zone " + options_.zone + " --machine-type " +
                    spec.machine_type;
  if (spec.accelerator.has_value()) {
    cmd += " --accelerator type=" + spec.accelerator->type +
           ",count=" + std::to_string(spec.accelerator->count);
  }
  if (spec.autoscaling) {
    cmd += " --enable-autoscaling --min-nodes " + std::to_string(spec.min_nodes) + " --max-nodes " +
           std::to_string(spec.max_nodes);
  }
  cmd += " --num-nodes " + std::to_string(spec.initial_node_count);
  if (!spec.taints.empty()) {
    cmd += " --node-taints " + JoinTaints(spec.taints);
  }
  if (!spec.labels.empty()) {
    std::string labels;
    for (const auto& [k, v] : spec.labels) {
      labels += (labels.empty() ? "" : ",") + k + "=" + v;
    }
    cmd += " --node-labels " + labels;
  }
  if (spec.spot) {
    cmd += " --spot";
  }
  Action(cmd);
  const std::string name = spec.name;
  Status s = cloud_->CreateNodePool(std::move(spec));
  if (!s.ok()) {
    Output("ERROR: (gcloud.container.node-pools.create) " + std::string(s.message()));
    return s;
  }
  Output("Created [https://container.googleapis.com/v1/" + cloud_->NodePoolPath(name) + "].");
  return OkStatus();
}

Status World::DeleteNodePool(const std::string& name) {
  Action("gcloud container node-pools delete " + name + " --cluster " + options_.cluster +
         " --zone " + options_.zone);
  Status s = cloud_->DeleteNodePool(name);
  if (!s.ok()) {
    Output("ERROR: (gcloud.container.node-pools.delete) " + std::string(s.message()));
    return s;
  }
  Output("Deleted [https://container.googleapis.com/v1/" + cloud_->NodePoolPath(name) + "].");
  return OkStatus();
}

Status World::ResizeNodePool(const std::string& name, int node_count) {
  Action("gcloud container clusters resize " + options_.cluster + " --node-pool " + name +
         " --num-nodes " + std::to_string(node_count) + " --zone " + options_.zone);
  Status s = cloud_->SetSize(name, node_count);
  if (!s.ok()) {
    Output("ERROR: (gcloud.container.clusters.resize) " + std::string(s.message()));
    return s;
  }
  Output("Resizing " + options_.cluster + "...done.");
  return OkStatus();
}

Status World::SetNodePoolAutoscaling(const std::string& name, bool enabled, int min_nodes,
                                     int max_nodes) {
  std::string cmd = "gcloud container node-pools update " + name + " --cluster " +
                    options_.cluster + " --zone " + options_.zone;
  cmd += enabled ? " --enable-autoscaling --min-nodes " + std::to_string(min_nodes) +
                       " --max-nodes " + std::to_string(max_nodes)
                 : " --no-enable-autoscaling";
  Action(cmd);
  Status s = cloud_->SetAutoscaling(name, enabled, min_nodes, max_nodes);
  if (!s.ok()) {
    Output("ERROR: (gcloud.container.node-pools.update) " + std::string(s.message()));
    return s;
  }
  Output("Updated [https://container.googleapis.com/v1/" + cloud_->NodePoolPath(name) + "].");
  return OkStatus();
}

void World::SetFaults(emu::Faults faults) {
  std::string text = "cloud faults now: " + std::to_string(faults.stockout.size()) + " stockout, " +
                     std::to_string(faults.gpu_quota.size()) + " GPU quota, " +
                     std::to_string(faults.never_registers.size()) + " never-registers, " +
                     std::to_string(faults.slow_boot.size()) + " slow-boot, " +
                     std::to_string(faults.driver_never_ready.size()) + " driver-never-ready rules";
  timeline_.Add(Now(), "action", "", "* " + text, {{"faults", text}});
  cloud_->faults() = std::move(faults);
}

}  // namespace tidepool::sim
