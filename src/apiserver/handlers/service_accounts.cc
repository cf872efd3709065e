// The ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount, kube-apiserver
// 1.32) on a pod create.
#include "apiserver/handlers/handler.h"

namespace tidepool::apiserver::handlers {

using nlohmann::json;

namespace {

constexpr char kMountPath[] = "/var/run/secrets/kubernetes.io/serviceaccount";
constexpr char kVolumePrefix[] = "kube-api-access-";
constexpr char kMirrorAnnotation[] = "kubernetes.io/config.mirror";

const Resource& ServiceAccountResource() {
  static const Resource* r = FindResource("", "v1", "serviceaccounts");
  return *r;
}

bool IsPodCreate(const Resource& res, const json* old) {
  return old == nullptr && res.group.empty() && res.resource == "pods";
}

bool IsMirrorPod(const json& pod) {
  const json* meta = Member(pod, "metadata");
  const json* annotations = meta != nullptr ? Member(*meta, "annotations") : nullptr;
  return annotations != nullptr && annotations->is_object() &&
         annotations->contains(kMirrorAnnotation);
}

std::string ServiceAccountName(const json& pod) {
  const std::string name = Str(pod, "spec", "serviceAccountName");
  return name.empty() ? "default" : name;
}

// shouldAutomount: the pod's automountServiceAccountToken, else the ServiceAccount's, else true.
bool ShouldAutomount(const json& sa, const json& spec) {
  if (const json* p = Member(spec, "automountServiceAccountToken"); p && p->is_boolean()) {
    return p->get<bool>();
  }
  if (const json* s = Member(sa, "automountServiceAccountToken"); s && s->is_boolean()) {
    return s->get<bool>();
  }
  return true;
}

// The projected volume of the token, the cluster's CA and the namespace (createVolume).
json TokenVolume(const std::string& name) {
  return {
      {"name", name},
      {"projected",
       {{"sources",
         json::array({{{"serviceAccountToken", {{"expirationSeconds", 3607}, {"path", "token"}}}},
                      {{"configMap",
                        {{"name", "kube-root-ca.crt"},
                         {"items", json::array({{{"key", "ca.crt"}, {"path", "ca.crt"}}})}}}},
                      {{"downwardAPI",
                        {{"items", json::array({{{"path", "namespace"},
                                                 {"fieldRef",
                                                  {{"apiVersion", "v1"},
                                                   {"fieldPath", "metadata.namespace"}}}}})}}}}})},
        {"defaultMode", 420}}}};
}

// mountServiceAccountToken: every init container and container without a mount at the token's
// path mounts the pod's kube-api-access-* volume (added when one needs it and none is there).
void MountToken(json& spec, const std::string& generated) {
  std::string volume_name;
  if (auto volumes = spec.find("volumes"); volumes != spec.end() && volumes->is_array()) {
    for (const json& v : *volumes) {
      const std::string n = Str(v, "name");
      if (n.rfind(kVolumePrefix, 0) == 0) {
        volume_name = n;
        break;
      }
    }
  }
  const bool has_volume = !volume_name.empty();
  if (!has_volume) volume_name = generated;
  bool needed = false;
  for (const char* list : {"initContainers", "containers"}) {
    auto containers = spec.find(list);
    if (containers == spec.end() || !containers->is_array()) continue;
    for (json& c : *containers) {
      if (!c.is_object()) continue;
      json& mounts = c["volumeMounts"];
      if (!mounts.is_array()) mounts = json::array();
      bool mounted = false;
      for (const json& m : mounts) mounted |= Str(m, "mountPath") == kMountPath;
      if (mounted) continue;
      mounts.push_back({{"name", volume_name}, {"readOnly", true}, {"mountPath", kMountPath}});
      needed = true;
    }
  }
  if (has_volume || !needed) return;
  json& all = spec["volumes"];
  if (!all.is_array()) all = json::array();
  all.push_back(TokenVolume(volume_name));
}

}  // namespace

PodServiceAccount ReadPodServiceAccount(ObjectStore& store, const Resource& res,
                                        std::string_view subresource, const json& pod,
                                        const std::string& ns) {
  PodServiceAccount out;
  const Resource& r = StorageOf(res);
  if (!subresource.empty() || !IsPodCreate(r, nullptr) || !pod.is_object() || IsMirrorPod(pod)) {
    return out;
  }
  out.needed = true;
  out.name = ServiceAccountName(pod);
  auto sa = store.Get(ServiceAccountResource(), ns, out.name);
  if (sa.ok()) out.account = *sa;
  out.volume_name = store.GenerateName(kVolumePrefix);
  return out;
}

std::optional<ApiError> AdmitServiceAccount(const Resource& res, const PodServiceAccount& sa,
                                            json& pod, const json* old, const std::string& name,
                                            const std::string& ns) {
  if (!sa.needed || !IsPodCreate(StorageOf(res), old) || !pod.is_object()) return std::nullopt;
  auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return std::nullopt;  // validation answers
  if (sa.account == nullptr && sa.name != "default") {
    return AdmissionForbidden(res, pod, name,
                              "error looking up service account " + ns + "/" + sa.name +
                                  ": serviceaccount \"" + sa.name + "\" not found");
  }
  // The namespace's "default" ServiceAccount is made by kcm as the namespace appears; kube's
  // plugin waits for it, tidepool admits the pod as the account kcm makes (no settings).
  const json account = sa.account != nullptr ? sa.account->view : json::object();
  (*spec)["serviceAccountName"] = sa.name;
  if (ShouldAutomount(account, *spec)) MountToken(*spec, sa.volume_name);
  const json* pull = Member(*spec, "imagePullSecrets");
  const json* from = Member(account, "imagePullSecrets");
  if ((pull == nullptr || !pull->is_array() || pull->empty()) && from != nullptr &&
      from->is_array() && !from->empty()) {
    (*spec)["imagePullSecrets"] = *from;
  }
  return std::nullopt;
}

}  // namespace tidepool::apiserver::handlers
