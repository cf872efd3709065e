#include "kubelet/pod_lifecycle.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <utility>
#include <vector>

#include "common/duration.h"
#include "common/fnv.h"

namespace tidepool::kubelet {
namespace {

// GNU sleep's NUMBER[SUFFIX]: seconds by default, s/m/h/d suffixes, fractions allowed.
std::optional<Duration> ParseSleepArg(std::string_view s) {
  if (s.empty()) {
    return std::nullopt;
  }
  double mult = 1;
  switch (s.back()) {
    case 's':
      s.remove_suffix(1);
      break;
    case 'm':
      mult = 60;
      s.remove_suffix(1);
      break;
    case 'h':
      mult = 3600;
      s.remove_suffix(1);
      break;
    case 'd':
      mult = 86400;
      s.remove_suffix(1);
      break;
    default:
      break;
  }
  if (s.empty()) {
    return std::nullopt;
  }
  int64_t whole = 0;
  int64_t frac = 0;
  int64_t scale = 1;
  bool dot = false;
  for (char c : s) {
    if (c == '.' && !dot) {
      dot = true;
    } else if (c >= '0' && c <= '9') {
      if (whole > 1000000000LL) {
        return std::nullopt;
      }
      if (dot) {
        if (scale < 1000000000LL) {
          frac = frac * 10 + (c - '0');
          scale *= 10;
        }
      } else {
        whole = whole * 10 + (c - '0');
      }
    } else {
      return std::nullopt;
    }
  }
  const int64_t m = static_cast<int64_t>(mult);
  const int64_t nanos = whole * m * 1000000000LL + frac * m * (1000000000LL / scale);
  return Duration(nanos);
}

std::string BaseName(const std::string& w) {
  const size_t slash = w.rfind('/');
  return slash == std::string::npos ? w : w.substr(slash + 1);
}

bool IsSleep(const std::string& w) { return BaseName(w) == "sleep"; }

// The commands a container runs, each as its words: `sh -c SCRIPT` (sh, bash, ash, dash, by
// any path) is SCRIPT's commands, split outside quotes at ;, newlines, &&, ||, | and a lone &,
// quotes dropped, redirections (>file, 2>&1, >&2, <in, &>file) left out, and nothing after an
// `exit`; any other command line is one command. Empty when the container runs its image's
// entrypoint.
std::vector<std::vector<std::string>> Commands(const api::Container& c) {
  std::vector<std::string> argv = c.command;
  argv.insert(argv.end(), c.args.begin(), c.args.end());
  std::vector<std::vector<std::string>> out;
  const std::string shell = argv.empty() ? "" : BaseName(argv[0]);
  // The script of `sh [options] -c SCRIPT` (-c alone or in a cluster: -ec, -lc; -o NAME's
  // name skipped); nullptr when this is no such command line.
  const std::string* script_arg = nullptr;
  if (shell == "sh" || shell == "bash" || shell == "ash" || shell == "dash") {
    for (size_t i = 1; i < argv.size() && argv[i].size() > 1 && argv[i][0] == '-'; ++i) {
      if (argv[i].find('c') != std::string::npos) {
        if (i + 1 < argv.size()) script_arg = &argv[i + 1];
        break;
      }
      if (argv[i].find('o') != std::string::npos) ++i;  // -o pipefail
    }
  }
  if (script_arg == nullptr) {
    if (!argv.empty()) out.push_back(argv);
    return out;
  }
  const std::string& script = *script_arg;
  std::vector<std::string> cmd;
  std::string cur;
  bool redirect = false;  // the word being read is a redirection's target
  bool exited = false;
  // The status of the last command that ran, as far as it is known: `false`'s 1, any other's 0
  // (programs are taken to succeed); and what precedes the command being read: '&' for &&, '|'
  // for ||, 0 for anything else.
  int status = 0;
  char op = 0;
  auto word = [&] {
    if (!cur.empty() && !redirect) cmd.push_back(std::move(cur));
    cur.clear();
    redirect = false;
  };
  auto end = [&](char next_op) {
    word();
    // A command after && runs when the last status is 0, one after || when it is not (`false
    // && echo x` is false's 1, `echo start || exit 1` does not exit); an `exit` ends the script.
    const bool runs = !(op == '&' && status != 0) && !(op == '|' && status == 0);
    if (!cmd.empty() && !exited && runs) {
      exited = cmd.front() == "exit";
      status = BaseName(cmd.front()) == "false" ? 1 : 0;
      out.push_back(std::move(cmd));
    }
    cmd.clear();
    op = next_op;
  };
  char quote = 0;
  for (size_t i = 0; i < script.size(); ++i) {
    const char ch = script[i];
    const char next = i + 1 < script.size() ? script[i + 1] : 0;
    if (quote != 0) {
      if (ch == quote) {
        quote = 0;
      } else {
        cur.push_back(ch);
      }
    } else if (ch == '\\') {
      // An escaped character is itself; an escaped newline joins the lines.
      if (next != 0 && next != '\n') cur.push_back(next);
      if (next == '\n') word();
      ++i;
    } else if (ch == '#' && cur.empty()) {
      while (i + 1 < script.size() && script[i + 1] != '\n') ++i;  // a comment
    } else if (ch == '"' || ch == '\'') {
      quote = ch;
    } else if (ch == '>' || ch == '<') {
      // A redirection: the descriptor before it (the 2 of 2>) and its target are not words.
      if (!cur.empty() &&
          std::all_of(cur.begin(), cur.end(), [](char d) { return d >= '0' && d <= '9'; })) {
        cur.clear();
      }
      word();
      redirect = true;
      if (next == '&' || next == '>') ++i;  // >&2, >>file
      while (i + 1 < script.size() && std::isspace(static_cast<unsigned char>(script[i + 1]))) {
        ++i;
      }
    } else if (ch == '&' && next == '>') {
      word();  // &>file: the > that follows makes the target a redirection
    } else if (ch == ';' || ch == '\n' || ch == '|' || ch == '&') {
      const bool doubled = (ch == '|' || ch == '&') && next == ch;  // || or &&
      end(doubled ? ch : 0);
      if (doubled) ++i;
    } else if (std::isspace(static_cast<unsigned char>(ch))) {
      word();
    } else {
      cur.push_back(ch);
    }
  }
  end(0);
  return out;
}

// Whether a command ends by itself at once: a shell builtin or utility that prints and exits
// (echo, printf, true, false, exit, date, ...); `env [-i] [NAME=VALUE...] [command]` as its
// command does; nvidia-smi unless it loops (-l, --loop, -lms, dmon, pmon).
bool EndsAtOnce(const std::vector<std::string>& cmd) {
  static constexpr std::string_view kPrompt[] = {":",        "date", "echo",  "exit",     "false",
                                                 "hostname", "id",   "ls",    "printenv", "printf",
                                                 "pwd",      "true", "uname", "whoami"};
  if (cmd.empty()) return true;
  const std::string name = BaseName(cmd.front());
  if (name == "env") {
    size_t i = 1;
    while (i < cmd.size() && (cmd[i].find('=') != std::string::npos || cmd[i].rfind('-', 0) == 0)) {
      ++i;
    }
    return EndsAtOnce(std::vector<std::string>(cmd.begin() + static_cast<long>(i), cmd.end()));
  }
  if (name == "nvidia-smi") {
    for (size_t i = 1; i < cmd.size(); ++i) {
      const std::string& a = cmd[i];
      if (a == "dmon" || a == "pmon" || a == "-l" || a == "-lms" || a.rfind("--loop", 0) == 0) {
        return false;
      }
    }
    return true;
  }
  return std::find(std::begin(kPrompt), std::end(kPrompt), name) != std::end(kPrompt);
}

std::optional<int32_t> ParseInt32(std::string_view s) {
  int32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) {
    return std::nullopt;
  }
  return v;
}

std::string ContainerNames(const api::Pod& pod) {
  std::string out = "[";
  for (size_t i = 0; i < pod.spec.containers.size(); ++i) {
    out += (i > 0 ? " " : "") + pod.spec.containers[i].name;
  }
  return out + "]";
}

api::PodCondition Cond(std::string type, api::ConditionStatus status, std::string reason,
                       std::string message, TimePoint now) {
  api::PodCondition c;
  c.type = std::move(type);
  c.status = status;
  c.reason = std::move(reason);
  c.message = std::move(message);
  c.last_transition_time = now;
  return c;
}

// Replaces (by type) or appends each condition, keeping the transition time of unchanged ones,
// and puts them in the kubelet's order.
void SetConditions(api::PodStatus& status, std::vector<api::PodCondition> conds) {
  for (api::PodCondition& c : conds) {
    bool found = false;
    for (api::PodCondition& e : status.conditions) {
      if (e.type == c.type) {
        if (e.status == c.status) {
          c.last_transition_time = e.last_transition_time;
        }
        e = std::move(c);
        found = true;
        break;
      }
    }
    if (!found) {
      status.conditions.push_back(std::move(c));
    }
  }
  // The kubelet's order (generateAPIPodStatus, then the status manager's mergePodStatus): the
  // conditions it does not own first, as they were, then its own, PodScheduled last.
  static constexpr std::string_view kOwned[] = {"PodReadyToStartContainers", "Initialized", "Ready",
                                                "ContainersReady", "PodScheduled"};
  auto rank = [](const api::PodCondition& c) {
    for (size_t i = 0; i < std::size(kOwned); ++i) {
      if (c.type == kOwned[i]) return static_cast<int>(i) + 1;
    }
    return 0;
  };
  std::stable_sort(status.conditions.begin(), status.conditions.end(),
                   [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
}

// Whether a container that ended is started again: all but one that completed under
// restartPolicy OnFailure.
bool Restarts(const api::Pod& pod, const ContainerStatus& cs) {
  return !(cs.state == ContainerStatus::State::kTerminated && cs.reason == "Completed" &&
           pod.spec.restart_policy == "OnFailure");
}

}  // namespace

StatusOr<std::optional<Duration>> ContainerRunTime(const api::Pod& pod,
                                                   const api::Container& container) {
  auto ann = pod.meta.annotations.find(std::string(kDurationAnnotation));
  if (ann != pod.meta.annotations.end()) {
    auto d = ParseGoDuration(ann->second);
    if (!d.ok()) {
      return InvalidArgumentError("metadata.annotations[" + std::string(kDurationAnnotation) +
                                  "]: " + std::string(d.status().message()));
    }
    return std::optional<Duration>(*d);
  }
  const std::vector<std::vector<std::string>> commands = Commands(container);
  bool loop = false, ends = !commands.empty();
  std::optional<Duration> sleeps;  // the sum of its `sleep N`s, when it has any
  for (const std::vector<std::string>& cmd : commands) {
    const std::string& w = cmd.front();
    const std::string cond = cmd.size() > 1 ? cmd[1] : "";
    // `while true; do ...; done` (while :, until false): runs until deleted.
    if ((w == "while" && (cond == "true" || cond == ":")) || (w == "until" && cond == "false")) {
      return std::optional<Duration>();
    }
    loop = loop || w == "while" || w == "until" || w == "for" || w == "do" || w == "done";
    // A sleep, also as a loop's or a branch's body (do sleep 2).
    size_t k = 0;
    while (k + 1 < cmd.size() && (cmd[k] == "do" || cmd[k] == "then" || cmd[k] == "else")) ++k;
    if (IsSleep(cmd[k])) {
      // One of unknown length (sleep $DELAY, sleep infinity) leaves the run time unknown.
      std::optional<Duration> d =
          k + 1 < cmd.size() ? ParseSleepArg(cmd[k + 1]) : std::optional<Duration>();
      if (!d.has_value()) return std::optional<Duration>();
      sleeps = sleeps.value_or(Duration::zero()) + *d;
      continue;
    }
    ends = ends && EndsAtOnce(cmd);
  }
  // Only commands that end at once, and sleeps: ends after its sleeps. Otherwise its sleeps,
  // when it has any (the documented sleep rule: loops, other programs beside them), else
  // unknown.
  if (ends && !loop) return std::optional<Duration>(sleeps.value_or(Duration::zero()));
  return sleeps;
}

StatusOr<int32_t> ContainerExitCode(const api::Pod& pod, const api::Container& container) {
  auto ann = pod.meta.annotations.find(std::string(kExitCodeAnnotation));
  if (ann != pod.meta.annotations.end()) {
    std::optional<int32_t> code = ParseInt32(ann->second);
    if (!code.has_value()) {
      return InvalidArgumentError("metadata.annotations[" + std::string(kExitCodeAnnotation) +
                                  "]: not an integer: \"" + ann->second + "\"");
    }
    return *code;
  }
  // Its `exit N` (Commands stops there; a bare exit is 0), else 1 when its last command is
  // `false`, else 0.
  const std::vector<std::vector<std::string>> commands = Commands(container);
  for (const std::vector<std::string>& cmd : commands) {
    // The shell's status is the low 8 bits (exit 256 is 0).
    if (cmd.front() == "exit") return cmd.size() > 1 ? ParseInt32(cmd[1]).value_or(0) & 255 : 0;
  }
  if (!commands.empty() && BaseName(commands.back().front()) == "false") return 1;
  return 0;
}

PodLifecycle::PodLifecycle(std::string node_name, KubeletHost& host, TimerService& timers,
                           KubeletOptions options)
    : node_(std::move(node_name)), host_(host), timers_(timers), options_(options) {}

PodLifecycle::~PodLifecycle() { Stop(); }

void PodLifecycle::Stop() {
  for (auto& [key, s] : pods_) {
    CancelTimer(s);
  }
  pods_.clear();
}

void PodLifecycle::CancelTimer(PodState& s) {
  if (s.timer_pending) {
    timers_.Cancel(s.timer);
    s.timer_pending = false;
  }
  s.token = 0;
}

void PodLifecycle::Schedule(const std::string& key, Duration after, Step step) {
  auto it = pods_.find(key);
  if (it == pods_.end()) {
    return;
  }
  CancelTimer(it->second);
  const uint64_t token = next_token_++;
  it->second.token = token;
  const TimerService::TimerId id = timers_.ScheduleAfter(after, [this, key, token, step] {
    auto found = pods_.find(key);
    if (found == pods_.end() || found->second.token != token) {
      return;
    }
    found->second.token = 0;
    found->second.timer_pending = false;
    (this->*step)(key);
  });
  it->second.timer = id;
  it->second.timer_pending = true;
}

void PodLifecycle::Emit(const api::Pod& pod, std::string_view type, std::string_view reason,
                   std::string message) {
  host_.Event(pod, node_, type, reason, std::move(message));
}

void PodLifecycle::OnPod(Change change, const api::PodConstSharedPtr& changed) {
  const std::string key = changed->Key();
  if (change == Change::kDeleted) {
    auto it = pods_.find(key);
    if (it != pods_.end()) {
      CancelTimer(it->second);
      pods_.erase(it);
    }
    never_waiting_.erase(key);
    return;
  }
  const api::Pod& pod = *changed;
  if (pod.spec.node_name != node_) {
    return;
  }
  auto it = pods_.find(key);
  if (pod.meta.deletion_timestamp.has_value()) {
    if (it == pods_.end()) {
      it = pods_.emplace(key, PodState{}).first;
    }
    if (it->second.stage != Stage::kTerminating) {
      BeginTermination(key);
    }
    return;
  }
  if (it == pods_.end() && !pod.Terminal()) {
    PodState s;
    s.stage = Stage::kStarting;
    pods_.emplace(key, s);
    // The kubelet's pod worker picks the pod up right after the binding is visible.
    Schedule(key, Duration::zero(), &PodLifecycle::Start);
  }
}

namespace {

// The kubelet's managers' NotFound for a reference: `configmap "x" not found`.
std::string NotFoundError(const api::ConfigReference& r) {
  const bool cm = r.kind == api::ConfigReference::Kind::kConfigMap;
  return std::string(cm ? "configmap" : "secret") + " \"" + r.name + "\" not found";
}

}  // namespace

std::string EnvConfigError(const KubeletHost& host, const api::Pod& pod,
                           const api::Container& container) {
  for (const api::ConfigReference& r : container.env_config) {
    const bool cm = r.kind == api::ConfigReference::Kind::kConfigMap;
    const ConfigObject* found = host.FindConfig(r.kind, pod.meta.namespace_, r.name);
    if (found == nullptr) {
      if (r.optional) continue;
      return NotFoundError(r);
    }
    for (const std::string& key : r.keys) {  // env reads data only
      if (found->data.count(key) > 0 || r.optional) continue;
      return "couldn't find key " + key + " in " + (cm ? "ConfigMap " : "Secret ") +
             pod.meta.namespace_ + "/" + r.name;
    }
  }
  return "";
}

std::string MountError(const KubeletHost& host, const api::Pod& pod, const api::Volume& volume) {
  std::vector<std::string> errors;  // utilerrors.NewAggregate: deduplicated, in order
  auto add = [&errors](std::string e) {
    if (std::find(errors.begin(), errors.end(), e) == errors.end()) errors.push_back(std::move(e));
  };
  for (const api::ConfigReference& r : volume.config) {
    const bool cm = r.kind == api::ConfigReference::Kind::kConfigMap;
    const ConfigObject* found = host.FindConfig(r.kind, pod.meta.namespace_, r.name);
    if (found == nullptr) {
      if (!r.optional) add(NotFoundError(r));
      continue;
    }
    for (const std::string& key : r.keys) {  // MakePayload: a volume reads binaryData too
      if (found->data.count(key) > 0 || (cm && found->binary_data.count(key) > 0) || r.optional) {
        continue;
      }
      add(cm ? "configmap references non-existent config key: " + key
             : "references non-existent secret key: " + key);
      break;
    }
  }
  if (errors.size() <= 1) return errors.empty() ? "" : errors.front();
  std::string joined = "[";
  for (size_t i = 0; i < errors.size(); ++i) joined += (i > 0 ? ", " : "") + errors[i];
  return joined + "]";
}

std::vector<std::string> PodLifecycle::FailedMounts(const api::Pod& pod) const {
  std::vector<std::string> out;
  if (pod.spec.volumes.empty()) return out;
  // Only volumes a container uses are mounted (the volume manager skips unused ones).
  std::set<std::string_view> used;
  for (const auto* list : {&pod.spec.init_containers, &pod.spec.containers}) {
    for (const api::Container& c : *list)
      used.insert(c.volume_mounts.begin(), c.volume_mounts.end());
  }
  for (const api::Volume& v : pod.spec.volumes) {
    if (used.count(v.name) == 0) continue;
    const std::string error = MountError(host_, pod, v);
    if (!error.empty()) {
      out.push_back("MountVolume.SetUp failed for volume \"" + v.name + "\" : " + error);
    }
  }
  return out;
}

std::vector<ContainerStatus> PodLifecycle::WaitingContainers(const api::Pod& pod,
                                                             bool mounted) const {
  std::vector<ContainerStatus> containers;
  for (const api::Container& c : pod.spec.containers) {
    ContainerStatus cs;
    cs.name = c.name;
    cs.state = ContainerStatus::State::kWaiting;
    cs.reason = "ContainerCreating";
    if (mounted && c.image_pull_policy == "Never" && images_.count(c.image) == 0) {
      cs.reason = "ErrImageNeverPull";
      cs.message = "Container image \"" + c.image + "\" is not present with pull policy of Never";
    }
    containers.push_back(std::move(cs));
  }
  return containers;
}

void PodLifecycle::Start(const std::string& key) {
  const PodRecord* rec = host_.GetPod(key);
  if (rec == nullptr) {
    return;
  }
  const api::PodConstSharedPtr keep = rec->pod;  // the store replaces the record on writes
  const api::Pod& pod = *keep;
  const TimePoint now = timers_.clock().Now();
  PodState& s = pods_[key];
  s.stage = Stage::kStarting;
  s.started = now;

  // The volume manager mounts first: the sandbox (PodReadyToStartContainers) waits for it.
  const std::vector<std::string> unmounted = FailedMounts(pod);
  api::PodStatus status = pod.status;
  status.phase = api::PodPhase::kPending;
  status.start_time = now;
  const std::string unready = "containers with unready status: " + ContainerNames(pod);
  SetConditions(
      status,
      {Cond("PodReadyToStartContainers",
            unmounted.empty() ? api::ConditionStatus::kTrue : api::ConditionStatus::kFalse, "", "",
            now),
       Cond("Initialized", api::ConditionStatus::kTrue, "", "", now),
       Cond("Ready", api::ConditionStatus::kFalse, "ContainersNotReady", unready, now),
       Cond("ContainersReady", api::ConditionStatus::kFalse, "ContainersNotReady", unready, now)});
  host_.UpdatePodStatus(key, std::move(status), WaitingContainers(pod, unmounted.empty()));
  if (RetryMounts(key, pod, unmounted, options_.mount_retry_initial)) return;
  Pull(key);
}

bool PodLifecycle::RetryMounts(const std::string& key, const api::Pod& pod,
                               const std::vector<std::string>& unmounted, Duration backoff) {
  if (unmounted.empty()) return false;
  for (const std::string& msg : unmounted) Emit(pod, "Warning", "FailedMount", msg);
  pods_[key].mount_backoff = backoff;
  Schedule(key, backoff, &PodLifecycle::Mount);
  return true;
}

void PodLifecycle::Mount(const std::string& key) {
  const PodRecord* rec = host_.GetPod(key);
  if (rec == nullptr) {
    return;
  }
  const api::PodConstSharedPtr keep = rec->pod;
  const api::Pod& pod = *keep;
  const Duration backoff = std::min(pods_[key].mount_backoff * 2, options_.mount_retry_max);
  if (RetryMounts(key, pod, FailedMounts(pod), backoff)) return;
  api::PodStatus status = pod.status;
  SetConditions(status, {Cond("PodReadyToStartContainers", api::ConditionStatus::kTrue, "", "",
                              timers_.clock().Now())});
  host_.UpdatePodStatus(key, std::move(status), WaitingContainers(pod, true));
  Pull(key);
}

void PodLifecycle::Pull(const std::string& key) {
  const PodRecord* rec = host_.GetPod(key);
  if (rec == nullptr) {
    return;
  }
  const api::PodConstSharedPtr keep = rec->pod;
  const api::Pod& pod = *keep;
  // imagePullPolicy Never with the image absent: ErrImageNeverPull (kubelet's
  // ErrImageNeverPullPolicy). This kubelet starts a pod's containers together, so the pod
  // waits as a whole; it is tried again when an image arrives on the node (FinishPulls).
  bool never_pulled = false;
  for (const ContainerStatus& cs : WaitingContainers(pod, true)) {
    if (cs.reason != "ErrImageNeverPull") continue;
    Emit(pod, "Warning", "ErrImageNeverPull", cs.message);
    never_pulled = true;
  }
  if (never_pulled) {
    never_waiting_.insert(key);
    return;
  }

  bool pulls = false;
  std::set<std::string>& pulling = pods_[key].pulling;
  pulling.clear();
  for (const api::Container& c : pod.spec.containers) {
    if (c.image_pull_policy == "Always" || images_.count(c.image) == 0) {
      Emit(pod, "Normal", "Pulling", "Pulling image \"" + c.image + "\"");
      pulling.insert(c.image);
      pulls = true;
    } else {
      Emit(pod, "Normal", "Pulled",
           "Container image \"" + c.image + "\" already present on machine");
    }
  }
  if (pulls) {
    Schedule(key, options_.image_pull, &PodLifecycle::FinishPulls);
  } else {
    Schedule(key, std::max(Duration::zero(), options_.start_delay - options_.image_pull),
             &PodLifecycle::RunContainers);
  }
}

void PodLifecycle::FinishPulls(const std::string& key) {
  const PodRecord* rec = host_.GetPod(key);
  if (rec == nullptr) {
    return;
  }
  const api::PodConstSharedPtr keep = rec->pod;
  const api::Pod& pod = *keep;
  PodState& state = pods_[key];
  state.stage = Stage::kPulled;
  std::set<std::string> done;
  for (const api::Container& c : pod.spec.containers) {
    if (done.count(c.image) > 0) {
      continue;
    }
    done.insert(c.image);
    // Pulled for what this pod pulled (another pod's pull of the same image may have ended
    // since: the kubelet still reports this pod's pull).
    if (state.pulling.count(c.image) == 0) {
      continue;
    }
    EmitPulled(pod, c.image);
  }
  state.pulling.clear();
  for (const std::string& image : done) {
    images_.insert(image);
  }
  // Pods waiting for an image they may not pull: tried again (the kubelet's next sync).
  for (const std::string& waiting : std::exchange(never_waiting_, {})) {
    auto w = pods_.find(waiting);
    if (w != pods_.end() && w->second.stage == Stage::kStarting) {
      Schedule(waiting, Duration::zero(), &PodLifecycle::Pull);
    }
  }
  Schedule(key, std::max(Duration::zero(), options_.start_delay - options_.image_pull),
           &PodLifecycle::RunContainers);
}

bool PodLifecycle::ConfigFailed(const std::string& key, const PodRecord& rec) {
  const api::Pod& pod = *rec.pod;
  std::vector<ContainerStatus> containers = WaitingContainers(pod, true);
  bool failed = false;
  for (size_t i = 0; i < pod.spec.containers.size(); ++i) {
    std::string error = EnvConfigError(host_, pod, pod.spec.containers[i]);
    if (error.empty()) continue;
    Emit(pod, "Warning", "Failed", "Error: " + error);
    containers[i].reason = "CreateContainerConfigError";
    containers[i].message = std::move(error);
    failed = true;
  }
  if (!failed) return false;
  if (containers != rec.containers) {
    host_.UpdatePodStatus(key, pod.status, std::move(containers));
  }
  Schedule(key, options_.config_retry, &PodLifecycle::Pull);
  return true;
}

void PodLifecycle::RunContainers(const std::string& key) {
  const PodRecord* rec = host_.GetPod(key);
  if (rec == nullptr) {
    return;
  }
  const api::Pod pod = *rec->pod;
  const TimePoint now = timers_.clock().Now();
  if (ConfigFailed(key, *rec)) {
    return;
  }
  for (const api::Container& c : pod.spec.containers) {
    Emit(pod, "Normal", "Created", "Created container: " + c.name);
    Emit(pod, "Normal", "Started", "Started container " + c.name);
  }
  api::PodStatus status = pod.status;
  status.phase = api::PodPhase::kRunning;
  SetConditions(status, {Cond("Ready", api::ConditionStatus::kTrue, "", "", now),
                         Cond("ContainersReady", api::ConditionStatus::kTrue, "", "", now)});
  std::vector<ContainerStatus> containers;
  for (const api::Container& c : pod.spec.containers) {
    ContainerStatus cs;
    cs.name = c.name;
    cs.state = ContainerStatus::State::kRunning;
    cs.ready = true;
    cs.started_at = now;
    containers.push_back(std::move(cs));
  }
  host_.UpdatePodStatus(key, std::move(status), std::move(containers));
  PodState& s = pods_[key];
  s.stage = Stage::kRunning;
  s.run_started = now;
  ScheduleExit(key, pod);
}

void PodLifecycle::ScheduleExit(const std::string& key, const api::Pod& pod) {
  bool all_known = true;
  Duration longest = Duration::zero();
  for (const api::Container& c : pod.spec.containers) {
    auto run = ContainerRunTime(pod, c);
    if (!run.ok() || !run->has_value()) {
      all_known = false;
    } else {
      longest = std::max(longest, **run);
    }
  }
  if (all_known && !pod.spec.containers.empty()) {
    Schedule(key, longest, &PodLifecycle::Exit);
  }
}

void PodLifecycle::Exit(const std::string& key) {
  const PodRecord* rec = host_.GetPod(key);
  if (rec == nullptr) {
    return;
  }
  const api::PodConstSharedPtr keep = rec->pod;
  const api::Pod& pod = *keep;
  const TimePoint now = timers_.clock().Now();
  PodState& s = pods_[key];
  const std::string& policy = pod.spec.restart_policy;
  std::vector<ContainerStatus> containers = rec->containers;
  bool any_failed = false;
  bool any_restarts = false;
  std::vector<bool> restarts(containers.size(), false);
  for (size_t i = 0; i < containers.size() && i < pod.spec.containers.size(); ++i) {
    ContainerStatus& cs = containers[i];
    StatusOr<int32_t> code = ContainerExitCode(pod, pod.spec.containers[i]);
    cs.state = ContainerStatus::State::kTerminated;
    cs.exit_code = code.ok() ? *code : 0;
    cs.reason = cs.exit_code == 0 ? "Completed" : "Error";
    cs.ready = false;
    cs.finished_at = now;
    any_failed = any_failed || cs.exit_code != 0;
    restarts[i] = policy == "Always" || (policy == "OnFailure" && cs.exit_code != 0);
    any_restarts = any_restarts || restarts[i];
  }
  api::PodStatus status = pod.status;
  if (!any_restarts) {
    status.phase = any_failed ? api::PodPhase::kFailed : api::PodPhase::kSucceeded;
    SetConditions(status,
                  {Cond("Ready", api::ConditionStatus::kFalse, "PodCompleted", "", now),
                   Cond("ContainersReady", api::ConditionStatus::kFalse, "PodCompleted", "", now)});
    s.stage = Stage::kCompleted;
    host_.UpdatePodStatus(key, std::move(status), std::move(containers));
    return;
  }
  // The kubelet's crash back-off: the first restart at once, then 10 s doubling to the cap;
  // forgotten after a run of more than twice the cap.
  if (now - s.run_started > 2 * options_.crash_backoff_max) {
    s.crashes = 0;
  }
  Duration delay = Duration::zero();
  if (s.crashes > 0) {
    delay = options_.crash_backoff_initial;
    for (int32_t i = 1; i < s.crashes && delay < options_.crash_backoff_max; ++i) {
      delay *= 2;
    }
    delay = std::min(delay, options_.crash_backoff_max);
  }
  ++s.crashes;
  const std::string pod_id = pod.meta.name + "_" + pod.meta.namespace_ + "(" + pod.meta.uid + ")";
  std::vector<std::string> backing_off;
  for (size_t i = 0; i < containers.size(); ++i) {
    if (!restarts[i]) {
      continue;
    }
    ContainerStatus& cs = containers[i];
    ContainerStatus::Terminated last;
    last.exit_code = cs.exit_code;
    last.reason = cs.reason;
    last.started_at = cs.started_at.value_or(now);
    last.finished_at = now;
    cs.last_terminated = last;
    if (delay > Duration::zero()) {
      cs.state = ContainerStatus::State::kWaiting;
      cs.reason = "CrashLoopBackOff";
      cs.message = "back-off " + FormatGoDuration(delay) + " restarting failed container=" +
                   cs.name + " pod=" + pod_id;
      cs.started_at.reset();
      cs.finished_at.reset();
      backing_off.push_back(cs.name);
    }
  }
  const std::string unready = "containers with unready status: " + ContainerNames(pod);
  SetConditions(status,
                {Cond("Ready", api::ConditionStatus::kFalse, "ContainersNotReady", unready, now),
                 Cond("ContainersReady", api::ConditionStatus::kFalse, "ContainersNotReady",
                      unready, now)});
  host_.UpdatePodStatus(key, std::move(status), std::move(containers));
  if (delay == Duration::zero()) {
    RestartPulling(key);
    return;
  }
  for (const std::string& name : backing_off) {
    Emit(pod, "Warning", "BackOff",
         "Back-off restarting failed container " + name + " in pod " + pod_id);
  }
  s.stage = Stage::kBackOff;
  Schedule(key, delay, &PodLifecycle::RestartPulling);
}

void PodLifecycle::RestartPulling(const std::string& key) {
  const PodRecord* rec = host_.GetPod(key);
  if (rec == nullptr) {
    return;
  }
  const api::PodConstSharedPtr keep = rec->pod;
  bool pulls = false;
  for (size_t i = 0; i < rec->containers.size() && i < keep->spec.containers.size(); ++i) {
    const api::Container& c = keep->spec.containers[i];
    if (c.image_pull_policy != "Always" || !Restarts(*keep, rec->containers[i])) continue;
    Emit(*keep, "Normal", "Pulling", "Pulling image \"" + c.image + "\"");
    pulls = true;
  }
  if (!pulls) {
    Restart(key);
    return;
  }
  pods_[key].stage = Stage::kBackOff;
  Schedule(key, options_.image_pull, &PodLifecycle::Restart);
}

void PodLifecycle::EmitPulled(const api::Pod& pod, const std::string& image) {
  const std::string took = FormatGoDuration(options_.image_pull);
  const uint64_t size = 10000000ULL + Fnv1a64(image) % 990000000ULL;
  Emit(pod, "Normal", "Pulled",
       "Successfully pulled image \"" + image + "\" in " + took + " (" + took +
           " including waiting). Image size: " + std::to_string(size) + " bytes.");
}

void PodLifecycle::Restart(const std::string& key) {
  const PodRecord* rec = host_.GetPod(key);
  if (rec == nullptr) {
    return;
  }
  const api::PodConstSharedPtr keep = rec->pod;
  const api::Pod& pod = *keep;
  const TimePoint now = timers_.clock().Now();
  std::vector<ContainerStatus> containers = rec->containers;
  bool all_running = true;
  for (size_t i = 0; i < containers.size() && i < pod.spec.containers.size(); ++i) {
    ContainerStatus& cs = containers[i];
    if (!Restarts(pod, cs)) {
      all_running = false;  // done for good
      continue;
    }
    const api::Container& c = pod.spec.containers[i];
    if (c.image_pull_policy == "Always") {
      EmitPulled(pod, c.image);  // pulled while the restart waited (RestartPulling)
    } else {
      Emit(pod, "Normal", "Pulled",
           "Container image \"" + c.image + "\" already present on machine");
    }
    Emit(pod, "Normal", "Created", "Created container: " + c.name);
    Emit(pod, "Normal", "Started", "Started container " + c.name);
    cs.state = ContainerStatus::State::kRunning;
    cs.reason.clear();
    cs.message.clear();
    cs.exit_code = 0;
    cs.ready = true;
    cs.started_at = now;
    cs.finished_at.reset();
    ++cs.restart_count;
  }
  api::PodStatus status = pod.status;
  if (all_running) {
    SetConditions(status, {Cond("Ready", api::ConditionStatus::kTrue, "", "", now),
                           Cond("ContainersReady", api::ConditionStatus::kTrue, "", "", now)});
  }
  host_.UpdatePodStatus(key, std::move(status), std::move(containers));
  PodState& s = pods_[key];
  s.stage = Stage::kRunning;
  s.run_started = now;
  ScheduleExit(key, pod);
}

void PodLifecycle::BeginTermination(const std::string& key) {
  const PodRecord* rec = host_.GetPod(key);
  auto it = pods_.find(key);
  if (rec == nullptr || it == pods_.end()) {
    return;
  }
  const Stage was = it->second.stage;
  CancelTimer(it->second);
  it->second.stage = Stage::kTerminating;
  never_waiting_.erase(key);
  const api::PodConstSharedPtr keep = rec->pod;
  const api::Pod& pod = *keep;
  if (was == Stage::kRunning || was == Stage::kBackOff) {
    for (const api::Container& c : pod.spec.containers) {
      Emit(pod, "Normal", "Killing", "Stopping container " + c.name);
    }
  }
  const TimePoint now = timers_.clock().Now();
  Duration wait = options_.termination;
  if (pod.meta.deletion_timestamp.has_value()) {
    wait = std::min(wait, std::max(Duration::zero(), *pod.meta.deletion_timestamp - now));
  }
  if (was == Stage::kCompleted) {
    wait = Duration::zero();
  }
  Schedule(key, wait, &PodLifecycle::Remove);
}

void PodLifecycle::Remove(const std::string& key) {
  pods_.erase(key);
  host_.RemovePod(key);
}

}  // namespace tidepool::kubelet
