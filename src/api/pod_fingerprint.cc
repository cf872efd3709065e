#include "api/pod_fingerprint.h"

#include <string_view>

namespace tidepool::api {
namespace {

// Two 64-bit lanes: FNV-1a and a multiply-rotate hash with a different seed.
class Hasher {
 public:
  void Bytes(std::string_view s) {
    Int(s.size());
    for (unsigned char c : s) {
      a_ = (a_ ^ c) * 0x100000001b3ULL;
      b_ = ((b_ ^ c) * 0x9e3779b97f4a7c15ULL);
      b_ = (b_ << 29) | (b_ >> 35);
    }
  }
  void Int(uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      unsigned char c = static_cast<unsigned char>(v >> (8 * i));
      a_ = (a_ ^ c) * 0x100000001b3ULL;
      b_ = ((b_ ^ c) * 0x9e3779b97f4a7c15ULL);
      b_ = (b_ << 29) | (b_ >> 35);
    }
  }
  void Tag(char t) { Bytes(std::string_view(&t, 1)); }
  template <typename T>
  void Opt(const std::optional<T>& o) {
    Int(o.has_value());
  }
  PodFingerprint Done() const { return PodFingerprint{a_, b_ ^ (a_ >> 17)}; }

 private:
  uint64_t a_ = 0xcbf29ce484222325ULL;
  uint64_t b_ = 0x243f6a8885a308d3ULL;
};

void HashMap(Hasher& h, const std::map<std::string, std::string>& m) {
  h.Int(m.size());
  for (const auto& [k, v] : m) {
    h.Bytes(k);
    h.Bytes(v);
  }
}

void HashResources(Hasher& h, const ResourceList& r) {
  h.Int(r.size());
  for (const auto& [k, q] : r) {
    h.Bytes(k);
    h.Bytes(q.ToString());
  }
}

void HashStrings(Hasher& h, const std::vector<std::string>& v) {
  h.Int(v.size());
  for (const auto& s : v) {
    h.Bytes(s);
  }
}

void HashContainers(Hasher& h, const std::vector<Container>& cs) {
  h.Int(cs.size());
  for (const Container& c : cs) {
    h.Bytes(c.name);
    h.Bytes(c.image);
    HashStrings(h, c.command);
    HashStrings(h, c.args);
    HashResources(h, c.resources.requests);
    HashResources(h, c.resources.limits);
    h.Opt(c.restart_policy);
    if (c.restart_policy) {
      h.Bytes(*c.restart_policy);
    }
  }
}

void HashRequirements(Hasher& h, const std::vector<SelectorRequirement>& rs) {
  h.Int(rs.size());
  for (const auto& r : rs) {
    h.Bytes(r.key);
    h.Int(static_cast<uint64_t>(r.op));
    HashStrings(h, r.values);
  }
}

void HashTerm(Hasher& h, const NodeSelectorTerm& t) {
  HashRequirements(h, t.match_expressions);
  HashRequirements(h, t.match_fields);
}

}  // namespace

PodFingerprint SchedulingFingerprint(const Pod& pod) {
  return SchedulingFingerprintWithNodeName(pod, pod.spec.node_name);
}

PodFingerprint SchedulingFingerprintWithNodeName(const Pod& pod, std::string_view node_name) {
  Hasher h;
  HashMap(h, pod.meta.labels);
  const PodSpec& s = pod.spec;
  h.Tag('i');
  HashContainers(h, s.init_containers);
  h.Tag('c');
  HashContainers(h, s.containers);
  HashResources(h, s.overhead);
  HashMap(h, s.node_selector);
  h.Opt(s.affinity);
  if (s.affinity) {
    h.Opt(s.affinity->node_affinity);
    if (s.affinity->node_affinity) {
      const NodeAffinity& na = *s.affinity->node_affinity;
      h.Opt(na.required);
      if (na.required) {
        h.Int(na.required->terms.size());
        for (const auto& t : na.required->terms) {
          HashTerm(h, t);
        }
      }
      h.Int(na.preferred.size());
      for (const auto& p : na.preferred) {
        h.Int(static_cast<uint64_t>(p.weight));
        HashTerm(h, p.preference);
      }
    }
  }
  h.Int(s.tolerations.size());
  for (const Toleration& t : s.tolerations) {
    h.Bytes(t.key);
    h.Int(static_cast<uint64_t>(t.op));
    h.Bytes(t.value);
    h.Int(static_cast<uint64_t>(t.effect));
    h.Opt(t.toleration_seconds);
    h.Int(static_cast<uint64_t>(t.toleration_seconds.value_or(0)));
  }
  h.Bytes(node_name);
  h.Bytes(s.scheduler_name);
  h.Opt(s.priority);
  h.Int(static_cast<uint64_t>(static_cast<int64_t>(s.priority.value_or(0))));
  h.Bytes(s.priority_class_name);
  h.Opt(s.preemption_policy);
  h.Bytes(s.preemption_policy.value_or(""));
  h.Bytes(s.restart_policy);
  h.Opt(s.termination_grace_period_seconds);
  h.Int(static_cast<uint64_t>(s.termination_grace_period_seconds.value_or(0)));
  // Of volumes, the claims (VolumeBinding reads them; a configMap or secret does not schedule):
  // what the scheduler's pod classes compare (framework/pod_info.cc's SameClaims).
  h.Tag('v');
  for (const Volume& v : s.volumes) {
    if (!v.claim_name.empty()) h.Bytes(v.claim_name);
  }
  return h.Done();
}

}  // namespace tidepool::api
