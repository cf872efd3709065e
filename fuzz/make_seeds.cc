// make_seeds: writes the generated seed corpora of the fuzz targets.
//
//   make_seeds <repository root> <output dir>
//
// Every Kubernetes manifest of the repository (testing/repository_manifests.h: examples/**.yaml
// and the YAML here-documents of tests/e2e/*.sh), and the repository's YAML files as they are,
// become each target's input shape in <output dir>/<target>/<n>: JSON bodies, YAML streams,
// the quantities and label selectors they contain, (object, patch) pairs for the four patch
// formats, API server requests (a create at the kind's collection, then a get, an apply and a
// table list), and Kubernetes protobuf bodies built with generated.proto's field numbers. The
// hand-written seeds in fuzz/corpus/<target>/ complement these (scripts/fuzz.sh passes both).
// Output file names are content hashes, so a rerun rewrites the same files.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "api/codec/json_codec.h"
#include "apiserver/resources.h"
#include "testing/protobuf_writer.h"
#include "testing/repository_manifests.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

class Writer {
 public:
  explicit Writer(fs::path out) : out_(std::move(out)) {}
  void Add(const std::string& target, const std::string& content) {
    const fs::path dir = out_ / target;
    fs::create_directories(dir);
    char name[32];
    std::snprintf(name, sizeof name, "%016zx", std::hash<std::string>{}(content));
    std::ofstream(dir / name, std::ios::binary) << content;
    ++count_[target];
  }
  void Report() const {
    for (const auto& [t, n] : count_) std::cout << "make_seeds: " << t << ": " << n << "\n";
  }

 private:
  fs::path out_;
  std::map<std::string, int> count_;
};

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every string value under resources / capacity / allocatable / overhead maps.
void CollectQuantities(const json& j, bool in_quantities, std::set<std::string>* out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      const bool q = k == "limits" || k == "requests" || k == "capacity" || k == "allocatable" ||
                     k == "overhead";
      if (in_quantities && (v.is_string() || v.is_number())) {
        out->insert(v.is_string() ? v.get<std::string>() : v.dump());
      }
      CollectQuantities(v, q, out);
    }
  } else if (j.is_array()) {
    for (const json& v : j) CollectQuantities(v, false, out);
  }
}

// "k=v,k2=v2" for every matchLabels / labels / nodeSelector map.
void CollectSelectors(const json& j, std::set<std::string>* out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      if ((k == "matchLabels" || k == "labels" || k == "nodeSelector") && v.is_object()) {
        std::string s;
        for (const auto& [lk, lv] : v.items()) {
          if (!lv.is_string()) continue;
          if (!s.empty()) s += ",";
          s += lk + "=" + lv.get<std::string>();
        }
        if (!s.empty()) out->insert(s);
      }
      CollectSelectors(v, out);
    }
  } else if (j.is_array()) {
    for (const json& v : j) CollectSelectors(v, out);
  }
}

std::string Str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// The API server seeds for one manifest: create, get, server-side apply, table list.
void HttpSeeds(const json& m, Writer& w) {
  const std::string api_version = Str(m, "apiVersion");
  const std::string kind = Str(m, "kind");
  const auto* r = tidepool::apiserver::FindResourceByKind(api_version, kind);
  if (r == nullptr) return;
  std::string ns = "default";
  std::string name = "x";
  if (auto meta = m.find("metadata"); meta != m.end() && meta->is_object()) {
    if (!Str(*meta, "namespace").empty()) ns = Str(*meta, "namespace");
    if (!Str(*meta, "name").empty()) name = Str(*meta, "name");
  }
  const std::string prefix = r->group.empty() ? "/api/v1" : "/apis/" + r->GroupVersion();
  const std::string collection =
      prefix + (r->namespaced ? "/namespaces/" + ns : "") + "/" + r->resource;
  const std::string body = tidepool::api::codec::DumpJson(m);
  const std::string sep = "\n%%\n";
  w.Add("apiserver_http", "POST " + collection + "\ncontent-type: application/json\n\n" + body);
  w.Add("apiserver_http", "POST " + collection + "?fieldValidation=Strict&dryRun=All\n"
                          "content-type: application/json\n\n" + body + sep +
                          "GET " + collection + "/" + name + "\naccept: application/json\n\n");
  w.Add("apiserver_http", "PATCH " + collection + "/" + name +
                          "?fieldManager=kubectl&force=true\n"
                          "content-type: application/apply-patch+yaml\n\n" + m.dump(2) + sep +
                          "GET " + collection +
                          "?labelSelector=app%3Dweb&limit=500\n"
                          "accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json\n\n");
}

void PatchSeeds(const json& m, Writer& w) {
  const std::string live = tidepool::api::codec::DumpJson(m);
  const std::string sep = "\n%%\n";
  w.Add("patch", live + sep + R"({"metadata":{"labels":{"fuzz":"yes","app":null}}})");
  w.Add("patch", live + sep +
                     R"([{"op":"add","path":"/metadata/annotations","value":{"a":"b"}},)"
                     R"({"op":"test","path":"/kind","value":")" + Str(m, "kind") + R"("},)"
                     R"({"op":"copy","from":"/metadata","path":"/spec/x"},)"
                     R"({"op":"move","from":"/spec/x","path":"/spec/y"},)"
                     R"({"op":"remove","path":"/spec/y"}])");
  json changed = m;
  changed["metadata"]["labels"]["fuzz"] = "yes";
  w.Add("patch", live + sep + changed.dump(2) + sep + "kubectl");
  w.Add("patch", live + sep + changed.dump(2) + sep + "other force");
  w.Add("patch", "null" + sep + m.dump(2) + sep + "kubectl");
}

void ProtobufSeeds(Writer& w) {
  const auto bytes = [](uint32_t field, const std::string& s) {
    return ::tidepool::testing::Bytes(field, s);
  };
  const auto integer = [](uint32_t field, uint64_t v) {
    return ::tidepool::testing::Int(field, static_cast<int64_t>(v));
  };
  const auto entry = ::tidepool::testing::Entry;
  auto envelope = [&](const std::string& av, const std::string& kind, const std::string& raw) {
    return std::string("k8s\0", 4) + bytes(1, bytes(1, av) + bytes(2, kind)) + bytes(2, raw) +
           bytes(3, "") + bytes(4, "");
  };
  // ObjectMeta: name, generateName, namespace, ..., labels (11), annotations (12),
  // ownerReferences (13), finalizers (14), creationTimestamp (8: seconds 1, nanos 2).
  const std::string meta = bytes(
      1, bytes(1, "x") + bytes(2, "") + bytes(3, "default") + bytes(4, "") + bytes(5, "") +
             bytes(6, "") + integer(7, 0) + bytes(8, integer(1, 1767225600) + integer(2, 5)) +
             entry(11, "app", "web") + entry(12, "note", "n") +
             bytes(13, bytes(1, "Deployment") + bytes(3, "d") + bytes(4, "uid-1") +
                           bytes(5, "apps/v1") + integer(6, 1) + integer(7, 1)) +
             bytes(14, "example.com/f"));
  w.Add("protobuf", envelope("v1", "ConfigMap", meta + entry(2, "k", "v") + entry(3, "b", "\x01\x02") +
                                                    integer(4, 1)));
  w.Add("protobuf", envelope("v1", "Secret", meta + entry(2, "k", "v") + bytes(3, "Opaque") +
                                                 entry(4, "s", "t") + integer(5, 0)));
  w.Add("protobuf", envelope("v1", "Namespace", meta + bytes(2, bytes(1, "kubernetes")) +
                                                    bytes(3, bytes(1, "Active"))));
  w.Add("protobuf", envelope("v1", "ServiceAccount",
                             meta + bytes(2, bytes(2, "default") + bytes(3, "s")) +
                                 bytes(3, bytes(1, "pull")) + integer(4, 1)));
  w.Add("protobuf", envelope("v1", "DeleteOptions",
                             integer(1, 0) + bytes(2, bytes(1, "uid-1") + bytes(2, "7")) +
                                 integer(3, 1) + bytes(4, "Foreground") + bytes(5, "All")));
  w.Add("protobuf", envelope("policy/v1", "DeleteOptions", integer(1, 30)));
  w.Add("protobuf", envelope("v1", "Pod", meta));
  w.Add("protobuf", envelope("autoscaling/v1", "Scale",
                             meta + bytes(2, integer(1, 6)) +
                                 bytes(3, integer(1, 3) + bytes(2, "a=b"))));
  w.Add("protobuf", envelope("networking.k8s.io/v1", "Ingress", meta));  // not supported
  // fuzz/corpus/protobuf/ holds bodies captured from the real kubectl (Deployment, Service, PDB,
  // RoleBinding, and Pods with much of PodSpec).
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: make_seeds <repository root> <output dir>\n";
    return 2;
  }
  const fs::path root = argv[1];
  Writer w(argv[2]);

  const std::vector<json> manifests = tidepool::testing::RepositoryManifests(root);
  std::set<std::string> quantities, selectors;
  for (const json& m : manifests) {
    const std::string compact = tidepool::api::codec::DumpJson(m);
    for (const char* t : {"json", "codec", "object"}) w.Add(t, compact);
    w.Add("json", m.dump(2));
    w.Add("yaml", m.dump(2));
    CollectQuantities(m, false, &quantities);
    CollectSelectors(m, &selectors);
    HttpSeeds(m, w);
    PatchSeeds(m, w);
  }
  for (const std::string& q : quantities) w.Add("quantity", q);
  for (const std::string& s : selectors) w.Add("label_selector", s);

  // The repository's YAML as written: manifests, scenarios.
  for (const auto& e : fs::recursive_directory_iterator(root / "examples")) {
    if (!e.is_regular_file() || e.path().extension() != ".yaml") continue;
    const std::string text = ReadFile(e.path());
    w.Add("yaml", text);
    if (text.find("runFor:") != std::string::npos) w.Add("scenario", text);
  }
  ProtobufSeeds(w);
  w.Report();
  return manifests.empty() ? 1 : 0;
}
