#include "controllers/job/job_pods.h"

#include <algorithm>
#include <charconv>

namespace tidepool::controllers::job {
namespace {

using nlohmann::json;

const json& Field(const json& obj, const char* key) {
  static const json kNull;
  if (!obj.is_object()) return kNull;
  auto it = obj.find(key);
  return it == obj.end() ? kNull : *it;
}

std::string Str(const json& obj, const char* key) {
  const json& v = Field(obj, key);
  return v.is_string() ? v.get<std::string>() : "";
}

std::optional<TimePoint> Time(const json& obj, const char* key) {
  const json& v = Field(obj, key);
  if (!v.is_string()) return std::nullopt;
  StatusOr<TimePoint> t = ParseRfc3339(v.get<std::string>());
  if (!t.ok()) return std::nullopt;
  return *t;
}

std::optional<int64_t> ParseNonNegative(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

// Reads terminated containers of one status list; false when some container is not
// terminated (with a finishedAt).
bool ReadStatuses(const json& list, JobPod& p, std::optional<TimePoint>& latest) {
  bool all_finished = true;
  if (!list.is_array()) return all_finished;
  for (const json& cs : list) {
    if (!cs.is_object()) continue;
    const json& rc = Field(cs, "restartCount");
    if (rc.is_number_integer()) p.restarts += static_cast<int32_t>(rc.get<int64_t>());
    const json& term = Field(Field(cs, "state"), "terminated");
    if (!term.is_object()) {
      all_finished = false;
      continue;
    }
    const json& code = Field(term, "exitCode");
    p.exits.push_back({Str(cs, "name"), code.is_number_integer()
                                            ? static_cast<int32_t>(code.get<int64_t>())
                                            : 0});
    std::optional<TimePoint> fin = Time(term, "finishedAt");
    if (!fin.has_value()) {
      all_finished = false;
    } else if (!latest.has_value() || *latest < *fin) {
      latest = fin;
    }
  }
  return all_finished;
}

}  // namespace

TimePoint JobPod::FinishedTime() const {
  if (containers_finished.has_value()) return *containers_finished;
  if (ready_false_since.has_value()) return *ready_false_since;
  if (deletion_timestamp.has_value()) {
    return *deletion_timestamp - std::chrono::seconds(deletion_grace_seconds);
  }
  return created;
}

JobPod JobPodFromJson(const json& pod) {
  JobPod p;
  const json& m = Field(pod, "metadata");
  p.namespace_ = Str(m, "namespace");
  p.name = Str(m, "name");
  p.uid = Str(m, "uid");
  p.resource_version = Str(m, "resourceVersion");
  p.created = Time(m, "creationTimestamp").value_or(TimePoint{});
  p.deletion_timestamp = Time(m, "deletionTimestamp");
  if (const json& g = Field(m, "deletionGracePeriodSeconds"); g.is_number_integer()) {
    p.deletion_grace_seconds = g.get<int64_t>();
  }
  if (const json& l = Field(m, "labels"); l.is_object()) {
    for (const auto& [k, v] : l.items()) {
      if (v.is_string()) p.labels[k] = v.get<std::string>();
    }
  }
  if (const json& f = Field(m, "finalizers"); f.is_array()) {
    for (const json& x : f) {
      if (x.is_string() && x.get<std::string>() == kJobTrackingFinalizer) {
        p.has_tracking_finalizer = true;
      }
    }
  }
  if (const json& owners = Field(m, "ownerReferences"); owners.is_array()) {
    for (const json& o : owners) {
      if (o.is_object() && Field(o, "controller").is_boolean() && o["controller"].get<bool>()) {
        p.controller_uid = Str(o, "uid");
        p.controller_kind = Str(o, "kind");
        p.controller_name = Str(o, "name");
        p.controller_api_version = Str(o, "apiVersion");
        break;
      }
    }
  }
  if (const json& a = Field(Field(m, "annotations"), kJobCompletionIndexAnnotation);
      a.is_string()) {
    p.completion_index = ParseNonNegative(a.get<std::string>()).value_or(-1);
  }
  p.node_name = Str(Field(pod, "spec"), "nodeName");
  const json& st = Field(pod, "status");
  p.phase = Str(st, "phase");
  if (const json& conds = Field(st, "conditions"); conds.is_array()) {
    for (const json& c : conds) {
      if (!c.is_object()) continue;
      const std::string type = Str(c, "type"), status = Str(c, "status");
      p.conditions.emplace_back(type, status);
      if (type == "Ready") {
        p.ready = status == "True";
        if (status == "False") p.ready_false_since = Time(c, "lastTransitionTime");
      }
    }
  }
  std::optional<TimePoint> latest;
  const json& containers = Field(st, "containerStatuses");
  const bool finished = ReadStatuses(containers, p, latest);
  std::optional<TimePoint> unused;
  ReadStatuses(Field(st, "initContainerStatuses"), p, unused);
  if (finished && containers.is_array() && !containers.empty()) p.containers_finished = latest;
  return p;
}

Indexes Indexes::Parse(const std::string& text, int64_t completions) {
  Indexes out;
  if (text.empty()) return out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    const std::string part = text.substr(pos, comma - pos);
    pos = comma + 1;
    const size_t dash = part.find('-');
    std::optional<int64_t> first = ParseNonNegative(part.substr(0, dash));
    std::optional<int64_t> last =
        dash == std::string::npos ? first : ParseNonNegative(part.substr(dash + 1));
    if (!first.has_value() || !last.has_value() || *first > *last || *first >= completions) {
      continue;
    }
    const int64_t hi = std::min(*last, completions - 1);
    if (!out.intervals_.empty() && out.intervals_.back().second + 1 >= *first) {
      out.intervals_.back().second = std::max(out.intervals_.back().second, hi);
    } else {
      out.intervals_.emplace_back(*first, hi);
    }
  }
  return out;
}

Indexes Indexes::With(const std::vector<int64_t>& more) const {
  std::vector<std::pair<int64_t, int64_t>> all = intervals_;
  for (int64_t ix : more) all.emplace_back(ix, ix);
  std::sort(all.begin(), all.end());
  Indexes out;
  for (const auto& iv : all) {
    if (!out.intervals_.empty() && out.intervals_.back().second + 1 >= iv.first) {
      out.intervals_.back().second = std::max(out.intervals_.back().second, iv.second);
    } else {
      out.intervals_.push_back(iv);
    }
  }
  return out;
}

bool Indexes::Has(int64_t ix) const {
  for (const auto& [first, last] : intervals_) {
    if (ix >= first && ix <= last) return true;
  }
  return false;
}

int64_t Indexes::Total() const {
  int64_t n = 0;
  for (const auto& [first, last] : intervals_) n += last - first + 1;
  return n;
}

std::string Indexes::String() const {
  std::string out;
  for (const auto& [first, last] : intervals_) {
    if (!out.empty()) out += ',';
    out += std::to_string(first);
    if (last > first) out += "-" + std::to_string(last);
  }
  return out;
}

PolicyMatch MatchPodFailurePolicy(const json& policy, const JobPod& pod) {
  PolicyMatch none;
  const json& rules = Field(policy, "rules");
  if (!rules.is_array()) return none;
  for (size_t index = 0; index < rules.size(); ++index) {
    const json& rule = rules[index];
    const std::string action = Str(rule, "action");
    std::optional<std::string> fail_message;
    bool matched = false;
    if (const json& req = Field(rule, "onExitCodes"); req.is_object()) {
      const std::string container = Str(req, "containerName");
      const std::string op = Str(req, "operator");
      std::set<int64_t> values;
      if (const json& v = Field(req, "values"); v.is_array()) {
        for (const json& x : v) {
          if (x.is_number_integer()) values.insert(x.get<int64_t>());
        }
      }
      for (const JobPod::Exit& e : pod.exits) {
        if (e.exit_code == 0 || (!container.empty() && container != e.container)) continue;
        const bool in = values.count(e.exit_code) > 0;
        if ((op == "In" && in) || (op == "NotIn" && !in)) {
          matched = true;
          fail_message = "Container " + e.container + " for pod " + pod.namespace_ + "/" +
                         pod.name + " failed with exit code " + std::to_string(e.exit_code) +
                         " matching " + action + " rule at index " + std::to_string(index);
          break;
        }
      }
    } else if (const json& patterns = Field(rule, "onPodConditions"); patterns.is_array()) {
      for (const auto& [type, status] : pod.conditions) {
        for (const json& pat : patterns) {
          if (Str(pat, "type") == type && Str(pat, "status") == status) {
            matched = true;
            fail_message = "Pod " + pod.namespace_ + "/" + pod.name + " has condition " + type +
                           " matching " + action + " rule at index " + std::to_string(index);
            break;
          }
        }
        if (matched) break;
      }
    }
    if (!matched) continue;
    PolicyMatch m;
    if (action == "Ignore") {
      m.count_failed = false;
      m.action = action;
      return m;
    }
    if (action == "Count" || action == "FailIndex") {
      m.action = action;
      return m;
    }
    if (action == "FailJob") {
      m.fail_job_message = fail_message;
      m.action = action;
      return m;
    }
    // An unknown action matches nothing (kcm's switch falls through to the next rule).
  }
  return none;
}

std::optional<std::string> MatchSuccessPolicy(const json& policy, int64_t completions,
                                              const Indexes& succeeded) {
  const json& rules = Field(policy, "rules");
  if (!rules.is_array() || succeeded.Total() == 0) return std::nullopt;
  for (size_t index = 0; index < rules.size(); ++index) {
    const json& rule = rules[index];
    const json& count = Field(rule, "succeededCount");
    const std::optional<int64_t> want =
        count.is_number_integer() ? std::optional<int64_t>(count.get<int64_t>()) : std::nullopt;
    bool met = false;
    if (const json& ix = Field(rule, "succeededIndexes"); ix.is_string()) {
      const Indexes required = Indexes::Parse(ix.get<std::string>(), completions);
      if (required.Total() == 0) continue;  // does not parse: skipped
      int64_t contained = 0;
      for (const auto& [rf, rl] : required.intervals()) {
        for (const auto& [sf, sl] : succeeded.intervals()) {
          contained += std::max<int64_t>(0, std::min(rl, sl) - std::max(rf, sf) + 1);
        }
      }
      met = contained == required.Total() || (want.has_value() && contained >= *want);
    } else if (want.has_value()) {
      met = succeeded.Total() >= *want;
    }
    if (met) return "Matched rules at index " + std::to_string(index);
  }
  return std::nullopt;
}

BackoffRecord BackoffRecord::Next(std::vector<const JobPod*> new_succeeded,
                                  std::vector<const JobPod*> new_failed) const {
  auto by_finish = [](const JobPod* a, const JobPod* b) {
    return a->FinishedTime() < b->FinishedTime();
  };
  std::stable_sort(new_succeeded.begin(), new_succeeded.end(), by_finish);
  std::stable_sort(new_failed.begin(), new_failed.end(), by_finish);
  BackoffRecord r = *this;
  if (new_succeeded.empty()) {
    if (new_failed.empty()) return r;
    r.failures_after_last_success += static_cast<int32_t>(new_failed.size());
    r.last_failure_time = new_failed.back()->FinishedTime();
    return r;
  }
  r.failures_after_last_success = 0;
  r.last_failure_time.reset();
  const TimePoint last_success = new_succeeded.back()->FinishedTime();
  for (auto it = new_failed.rbegin(); it != new_failed.rend(); ++it) {
    const TimePoint t = (*it)->FinishedTime();
    if (t <= last_success) break;
    if (!r.last_failure_time.has_value()) r.last_failure_time = t;
    ++r.failures_after_last_success;
  }
  return r;
}

Duration BackoffRecord::RemainingTime(TimePoint now, Duration initial, Duration max) const {
  if (failures_after_last_success == 0 || !last_failure_time.has_value()) return Duration::zero();
  Duration backoff = initial;
  for (int32_t i = 1; i < failures_after_last_success; ++i) {
    backoff *= 2;
    if (backoff >= max) {
      backoff = max;
      break;
    }
  }
  const Duration elapsed = now - *last_failure_time;
  if (backoff < elapsed) return Duration::zero();
  return backoff - elapsed;
}

bool ActivePodsLess(const JobPod& a, const JobPod& b) {
  if (a.node_name.empty() != b.node_name.empty()) return a.node_name.empty();
  auto rank = [](const std::string& phase) {
    if (phase == "Pending") return 0;
    if (phase == "Unknown") return 1;
    if (phase == "Running") return 2;
    return 3;
  };
  if (rank(a.phase) != rank(b.phase)) return rank(a.phase) < rank(b.phase);
  if (a.ready != b.ready) return !a.ready;
  if (a.restarts != b.restarts) return a.restarts > b.restarts;
  if (a.created != b.created) return a.created > b.created;
  return a.name < b.name;
}

}  // namespace tidepool::controllers::job
