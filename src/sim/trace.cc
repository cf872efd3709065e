#include "sim/trace.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include "api/quantity.h"
#include "common/duration.h"
#include "common/random.h"
#include "sim/report.h"

namespace tidepool::sim {
namespace {

using nlohmann::json;

constexpr int64_t kMiB = 1024 * 1024;
// Bounds that keep every conversion defined: amounts (cores, GiB, MiB, GPUs) and times in
// seconds (Go's longest duration, 2562047h47m16.85s, is about 9.2e9 s).
constexpr double kMaxAmount = 1e12;
constexpr double kMaxSeconds = 9e9;

// The rows of one file: its header's columns by name, and a reader of one row's fields.
class Table {
 public:
  Table(std::string file, std::vector<std::string> header) : file_(std::move(file)) {
    for (size_t i = 0; i < header.size(); ++i) columns_[header[i]] = i;
  }
  bool Has(const std::string& column) const { return columns_.count(column) > 0; }
  Status Require(const std::vector<std::string>& columns) const {
    for (const std::string& c : columns) {
      if (!Has(c)) return InvalidArgumentError(file_ + ": no column \"" + c + "\" in the header");
    }
    return OkStatus();
  }

  // Set before reading a row's fields.
  void SetRow(int line, std::vector<std::string> fields) {
    line_ = line;
    fields_ = std::move(fields);
  }
  int line() const { return line_; }
  // The field (empty when the column is absent or the row is short).
  std::string Text(const std::string& column) const {
    auto it = columns_.find(column);
    if (it == columns_.end() || it->second >= fields_.size()) return "";
    std::string s = fields_[it->second];
    while (!s.empty() && (s.back() == '\r' || s.back() == ' ')) s.pop_back();
    while (!s.empty() && s.front() == ' ') s.erase(s.begin());
    return s;
  }
  // A number; nullopt for an empty field or NaN.
  StatusOr<std::optional<double>> Number(const std::string& column) const {
    const std::string s = Text(column);
    if (s.empty() || s == "NaN" || s == "nan") return std::optional<double>();
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || errno != 0 || !std::isfinite(v)) {
      return Error(column, "expected a number, got \"" + s + "\"");
    }
    return std::optional<double>(v);
  }
  StatusOr<double> RequiredNumber(const std::string& column) const {
    TIDEPOOL_ASSIGN_OR_RETURN(std::optional<double> v, Number(column));
    if (!v.has_value()) return Error(column, "required");
    if (*v < 0) return Error(column, "must not be negative");
    if (*v > kMaxAmount) return Error(column, "too large");
    return *v;
  }
  // `column` (a required amount) in units of `mib` MiB, as bytes; "too large" beyond what an
  // int64 of bytes holds (with room for sums).
  StatusOr<int64_t> Bytes(const std::string& column, double mib) const {
    TIDEPOOL_ASSIGN_OR_RETURN(double v, RequiredNumber(column));
    return BytesOf(column, v * mib);
  }
  StatusOr<int64_t> BytesOf(const std::string& column, double mib) const {
    if (mib * static_cast<double>(kMiB) > 0x1p62) return Error(column, "too large");
    return std::llround(mib) * kMiB;
  }
  // A time in seconds: nullopt when empty; an error when negative or beyond Go's longest
  // duration (about 292 years).
  StatusOr<std::optional<double>> SecondsOf(const std::string& column) const {
    TIDEPOOL_ASSIGN_OR_RETURN(std::optional<double> v, Number(column));
    if (v.has_value() && *v < 0) return Error(column, "must not be negative");
    if (v.has_value() && *v > kMaxSeconds) return Error(column, "too large (more than 292 years)");
    return v;
  }
  // Seconds (a number) or a Go duration; nullopt when empty.
  StatusOr<std::optional<Duration>> Time(const std::string& column) const {
    const std::string s = Text(column);
    if (s.empty()) return std::optional<Duration>();
    if (s.find_first_not_of("0123456789.eE+-") == std::string::npos || s == "NaN") {
      TIDEPOOL_ASSIGN_OR_RETURN(std::optional<double> v, SecondsOf(column));
      if (!v.has_value()) return std::optional<Duration>();
      return std::optional<Duration>(Seconds(*v));
    }
    auto d = ParseGoDuration(s);
    if (!d.ok()) return Error(column, std::string(d.status().message()));
    if (*d < Duration::zero()) return Error(column, "must not be negative");
    return std::optional<Duration>(*d);
  }
  // The cpu and memory columns as Kubernetes quantities (milli-CPU, bytes); required.
  Status CpuAndMemory(int64_t* cpu_milli, int64_t* memory_bytes) const {
    for (const char* column : {"cpu", "memory"}) {
      const std::string s = Text(column);
      if (s.empty()) return Error(column, "required");
      auto q = api::Quantity::Parse(s);
      if (!q.ok()) return Error(column, std::string(q.status().message()));
      if (q->MilliValue() < 0) return Error(column, "must not be negative");
      if (std::string_view(column) == "cpu") {
        *cpu_milli = q->MilliValue();
      } else {
        *memory_bytes = q->Value();
      }
    }
    return OkStatus();
  }
  // The gpus column: whole GPUs, 0 when empty.
  StatusOr<int64_t> WholeGpus() const;
  Status Error(const std::string& column, const std::string& what) const {
    return InvalidArgumentError(file_ + ":" + std::to_string(line_) + ": " + column + ": " + what);
  }
  static Duration Seconds(double s) {
    return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s));
  }

 private:
  std::string file_;
  std::map<std::string, size_t> columns_;
  int line_ = 0;
  std::vector<std::string> fields_;
};

StatusOr<int64_t> Table::WholeGpus() const {
  TIDEPOOL_ASSIGN_OR_RETURN(std::optional<double> gpus, Number("gpus"));
  if (gpus.has_value() && (*gpus < 0 || *gpus > kMaxAmount || *gpus != std::floor(*gpus))) {
    return Error("gpus", "expected a whole number of GPUs, got \"" + Text("gpus") + "\"");
  }
  return static_cast<int64_t>(gpus.value_or(0));
}

std::optional<Duration> Scaled(std::optional<Duration> d, double scale) {
  if (!d.has_value()) return d;
  const double ns = static_cast<double>(d->count()) * scale;
  return Duration(static_cast<int64_t>(std::min(ns, kMaxSeconds * 1e9)));
}

// What a row's own columns say, before the options' GPU model map.
struct RowFacts {
  TraceRow row;
  std::string gpu_model;
  bool shared_gpu = false;
};

StatusOr<RowFacts> DlrmRow(const Table& t) {
  RowFacts f;
  f.row.name = t.Text("instance_sn");
  f.row.class_ = t.Text("role");
  f.row.owner = t.Text("app_name");
  TIDEPOOL_ASSIGN_OR_RETURN(double cpu, t.RequiredNumber("cpu_request"));
  TIDEPOOL_ASSIGN_OR_RETURN(double gpu, t.RequiredNumber("gpu_request"));
  TIDEPOOL_ASSIGN_OR_RETURN(f.row.memory_bytes, t.Bytes("memory_request", 1024));
  f.row.cpu_milli = std::llround(cpu * 1000);
  f.row.gpus = static_cast<int64_t>(std::ceil(gpu));
  f.shared_gpu = gpu > 0 && gpu != std::floor(gpu);
  if (gpu > 0 && gpu < 1)
    f.row.gpu_milli = static_cast<int32_t>(std::max(1L, std::lround(gpu * 1000)));
  TIDEPOOL_ASSIGN_OR_RETURN(std::optional<double> created, t.SecondsOf("creation_time"));
  TIDEPOOL_ASSIGN_OR_RETURN(std::optional<double> deleted, t.SecondsOf("deletion_time"));
  f.row.arrival = Table::Seconds(created.value_or(0));
  if (deleted.has_value()) f.row.end = Table::Seconds(std::max(*deleted, created.value_or(0)));
  return f;
}

StatusOr<RowFacts> OpenbRow(const Table& t) {
  RowFacts f;
  f.row.name = t.Text("name");
  f.row.class_ = t.Text("qos");
  TIDEPOOL_ASSIGN_OR_RETURN(double cpu, t.RequiredNumber("cpu_milli"));
  TIDEPOOL_ASSIGN_OR_RETURN(f.row.memory_bytes, t.Bytes("memory_mib", 1));
  TIDEPOOL_ASSIGN_OR_RETURN(double gpus, t.RequiredNumber("num_gpu"));
  TIDEPOOL_ASSIGN_OR_RETURN(std::optional<double> milli, t.Number("gpu_milli"));
  f.row.cpu_milli = std::llround(cpu);
  f.row.gpus = std::llround(gpus);
  f.shared_gpu = f.row.gpus == 1 && milli.has_value() && *milli > 0 && *milli < 1000;
  if (f.shared_gpu) f.row.gpu_milli = static_cast<int32_t>(std::llround(*milli));
  f.gpu_model = t.Text("gpu_spec");
  TIDEPOOL_ASSIGN_OR_RETURN(std::optional<double> created, t.SecondsOf("creation_time"));
  TIDEPOOL_ASSIGN_OR_RETURN(std::optional<double> deleted, t.SecondsOf("deletion_time"));
  TIDEPOOL_ASSIGN_OR_RETURN(std::optional<double> scheduled, t.SecondsOf("scheduled_time"));
  f.row.arrival = Table::Seconds(created.value_or(0));
  if (deleted.has_value()) {
    const double from = scheduled.value_or(created.value_or(0));
    f.row.run = Table::Seconds(std::max(0.0, *deleted - from));
  }
  return f;
}

StatusOr<RowFacts> CsvRow(const Table& t) {
  RowFacts f;
  f.row.name = t.Text("name");
  if (f.row.name.empty()) f.row.name = "row-" + std::to_string(t.line());
  f.row.class_ = t.Text("class");
  f.row.owner = t.Text("owner");
  f.row.priority_class = t.Text("priorityClassName");
  f.gpu_model = t.Text("gpuModel");
  TIDEPOOL_ASSIGN_OR_RETURN(std::optional<Duration> arrival, t.Time("arrival"));
  if (!arrival.has_value()) return t.Error("arrival", "required");
  f.row.arrival = *arrival;
  TIDEPOOL_ASSIGN_OR_RETURN(f.row.run, t.Time("duration"));
  TIDEPOOL_ASSIGN_OR_RETURN(f.row.end, t.Time("end"));
  if (f.row.run.has_value() && f.row.end.has_value()) {
    return t.Error("end", "give duration or end, not both");
  }
  if (f.row.end.has_value() && *f.row.end < f.row.arrival) {
    return t.Error("end", "is before arrival");
  }
  TIDEPOOL_RETURN_IF_ERROR(t.CpuAndMemory(&f.row.cpu_milli, &f.row.memory_bytes));
  TIDEPOOL_ASSIGN_OR_RETURN(f.row.gpus, t.WholeGpus());
  return f;
}

// kube's name rules: lowercase; anything but [a-z0-9.-] becomes '-'; no leading or trailing
// '-' or '.'; at most 253 characters.
std::string PodName(std::string_view raw) {
  std::string s;
  for (char c : raw) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
    s += ok ? c : '-';
  }
  if (s.size() > 240) s.resize(240);  // room for a copy's "-r<k>"
  while (!s.empty() && (s.back() == '-' || s.back() == '.')) s.pop_back();
  size_t first = 0;
  while (first < s.size() && (s[first] == '-' || s[first] == '.')) ++first;
  return s.substr(first);
}

std::string DetectFormat(const Table& t) {
  if (t.Has("instance_sn") && t.Has("gpu_request")) return "dlrm";
  if (t.Has("num_gpu") && t.Has("gpu_milli")) return "openb";
  return "csv";
}

std::string FormatCpu(int64_t milli) {
  return milli % 1000 == 0 ? std::to_string(milli / 1000) : std::to_string(milli) + "m";
}

std::string FormatMemory(int64_t bytes) {
  if (bytes % (1024 * kMiB) == 0) return std::to_string(bytes / (1024 * kMiB)) + "Gi";
  if (bytes % kMiB == 0) return std::to_string(bytes / kMiB) + "Mi";
  return std::to_string(bytes);
}

}  // namespace

StatusOr<Trace> ParseTrace(const std::string& text, const TraceOptions& options, uint64_t seed) {
  if (!(options.time_scale > 0)) return InvalidArgumentError("trace.timeScale: must be positive");
  if (!(options.sample > 0 && options.sample <= 1)) {
    return InvalidArgumentError("trace.sample: must be in (0, 1]");
  }
  if (!(options.load_factor >= 1 && options.load_factor <= 100)) {
    return InvalidArgumentError("trace.loadFactor: must be in [1, 100]");
  }
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line)) return InvalidArgumentError(options.file + ": empty trace");
  Table t(options.file, SplitCsvLine(line));
  Trace trace;
  trace.format = options.format.empty() ? DetectFormat(t) : options.format;
  StatusOr<RowFacts> (*read)(const Table&) = nullptr;
  if (trace.format == "dlrm") {
    TIDEPOOL_RETURN_IF_ERROR(t.Require({"instance_sn", "role", "app_name", "cpu_request",
                                        "gpu_request", "memory_request", "creation_time",
                                        "deletion_time"}));
    read = DlrmRow;
  } else if (trace.format == "openb") {
    TIDEPOOL_RETURN_IF_ERROR(t.Require({"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli",
                                        "gpu_spec", "qos", "creation_time", "deletion_time",
                                        "scheduled_time"}));
    read = OpenbRow;
  } else if (trace.format == "csv") {
    TIDEPOOL_RETURN_IF_ERROR(t.Require({"arrival", "cpu", "memory"}));
    read = CsvRow;
  } else {
    return InvalidArgumentError("trace.format: unknown format \"" + trace.format +
                                "\" (known: dlrm, openb, csv)");
  }
  Random random(seed);
  std::set<std::string> names;
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line == "\r") continue;
    t.SetRow(line_no, SplitCsvLine(line));
    TIDEPOOL_ASSIGN_OR_RETURN(RowFacts f, read(t));
    ++trace.rows_read;
    // Draw for every row, kept or not, so a row's fate does not depend on the ones before.
    const bool keep = random.Bernoulli(options.sample);
    const double extra = options.load_factor - std::floor(options.load_factor);
    const int copies = static_cast<int>(std::floor(options.load_factor)) +
                       (random.Bernoulli(extra) ? 1 : 0);
    if (!keep) continue;
    TraceRow& row = f.row;
    if (!options.classes.empty() && std::find(options.classes.begin(), options.classes.end(),
                                              row.class_) == options.classes.end()) {
      continue;
    }
    row.name = PodName(row.name);
    if (row.name.empty()) return t.Error("name", "is empty once made a DNS-1123 name");
    if (!names.insert(row.name).second) {
      return t.Error("name", "\"" + row.name + "\" is given twice");
    }
    row.class_ = LabelValue(row.class_);
    if (row.class_.empty()) row.class_ = "default";
    row.owner = LabelValue(row.owner);
    if (f.shared_gpu && !options.shared_gpus) ++trace.shared_gpu_rows;
    if (!f.gpu_model.empty() && row.gpus > 0) {
      // openb's gpu_spec may name several models ("V100M16|V100M32"): any of them will do.
      std::stringstream models(f.gpu_model);
      for (std::string model; std::getline(models, model, '|');) {
        auto it = options.gpu_models.find(model);
        const std::string acc = it != options.gpu_models.end() ? it->second
                                : trace.format == "csv"        ? model  // a GKE accelerator
                                                               : "";
        if (acc.empty()) {
          ++trace.unmapped_gpu_models[model];
        } else if (std::find(row.gpu_accelerators.begin(), row.gpu_accelerators.end(), acc) ==
                   row.gpu_accelerators.end()) {
          row.gpu_accelerators.push_back(acc);
        }
      }
    }
    row.arrival = *Scaled(row.arrival, options.time_scale);
    row.run = Scaled(row.run, options.time_scale);
    row.end = Scaled(row.end, options.time_scale);
    for (int k = 0; k < copies; ++k) {
      TraceRow copy = row;
      if (k > 0) {
        copy.name += "-r" + std::to_string(k);
        if (!names.insert(copy.name).second) {
          return t.Error("name", "the copy \"" + copy.name + "\" (loadFactor) is a name given twice");
        }
      }
      trace.rows.push_back(std::move(copy));
    }
  }
  std::stable_sort(trace.rows.begin(), trace.rows.end(),
                   [](const TraceRow& a, const TraceRow& b) { return a.arrival < b.arrival; });
  return trace;
}

StatusOr<Trace> LoadTrace(const TraceOptions& options, uint64_t seed) {
  TIDEPOOL_ASSIGN_OR_RETURN(std::string text, ReadFile(options.file));
  return ParseTrace(text, options, seed);
}

std::string LabelValue(std::string_view raw) {
  std::string s;
  for (char c : raw) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    s += ok ? c : '-';
  }
  if (s.size() > 63) s.resize(63);
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && !alnum(s.back())) s.pop_back();
  size_t first = 0;
  while (first < s.size() && !alnum(s[first])) ++first;
  return s.substr(first);
}

json TracePod(const TraceRow& row, const TraceOptions& options) {
  json labels = {{kTraceClassLabel, row.class_}};
  if (!row.owner.empty()) labels[kTraceOwnerLabel] = row.owner;
  json requests = {{"cpu", FormatCpu(row.cpu_milli)}, {"memory", FormatMemory(row.memory_bytes)}};
  json resources = {{"requests", requests}};
  if (row.gpus > 0) {
    // A share of one GPU as Alibaba's GPU sharing asks for it (scheduler/framework/gpu_devices.h).
    const bool share = options.shared_gpus && row.gpus == 1 && row.gpu_milli < 1000;
    const std::string name = share ? "alibabacloud.com/gpu-milli" : "nvidia.com/gpu";
    const std::string amount = share ? std::to_string(row.gpu_milli) : std::to_string(row.gpus);
    resources["requests"][name] = amount;
    resources["limits"] = {{name, amount}};
  }
  json spec = {{"restartPolicy", "Never"},
               {"containers",
                {{{"name", "main"},
                  {"image", "registry.k8s.io/pause:3.10"},
                  {"resources", resources}}}}};
  if (row.gpus > 0) {
    spec["tolerations"] = {
        {{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}};
  }
  if (row.gpu_accelerators.size() == 1) {
    spec["nodeSelector"] = {{"cloud.google.com/gke-accelerator", row.gpu_accelerators[0]}};
  } else if (row.gpu_accelerators.size() > 1) {
    spec["affinity"] = {{"nodeAffinity",
                         {{"requiredDuringSchedulingIgnoredDuringExecution",
                           {{"nodeSelectorTerms",
                             {{{"matchExpressions",
                                {{{"key", "cloud.google.com/gke-accelerator"},
                                  {"operator", "In"},
                                  {"values", row.gpu_accelerators}}}}}}}}}}}};
  }
  if (!row.priority_class.empty()) spec["priorityClassName"] = row.priority_class;
  json meta = {{"name", row.name}, {"namespace", options.namespace_}, {"labels", labels}};
  if (row.run.has_value()) {
    meta["annotations"] = {{"tidepool.dev/duration", FormatGoDuration(*row.run)}};
  }
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", meta}, {"spec", spec}};
}

namespace {

enum class NodeFormat { kOpenb, kPai, kSpot, kCsv };

// PAI's machine spec has no header: machine,gpu_type,cap_cpu,cap_mem,cap_gpu.
bool LooksLikePaiSpec(const std::vector<std::string>& fields) {
  if (fields.size() != 5) return false;
  for (size_t i = 2; i < 5; ++i) {
    char* end = nullptr;
    std::string f = fields[i];
    while (!f.empty() && (f.back() == '\r' || f.back() == ' ')) f.pop_back();
    std::strtod(f.c_str(), &end);
    if (f.empty() || end != f.c_str() + f.size()) return false;
  }
  return true;
}

// One row of the node list in `format`.
Status NodeRow(const Table& t, NodeFormat format, TraceNode& n) {
  switch (format) {
    case NodeFormat::kOpenb: {
      n.name = t.Text("sn");
      TIDEPOOL_ASSIGN_OR_RETURN(double cpu, t.RequiredNumber("cpu_milli"));
      TIDEPOOL_ASSIGN_OR_RETURN(n.memory_bytes, t.Bytes("memory_mib", 1));
      TIDEPOOL_ASSIGN_OR_RETURN(double gpus, t.RequiredNumber("gpu"));
      n.cpu_milli = std::llround(cpu);
      n.gpus = std::llround(gpus);
      n.gpu_model = t.Text("model");
      return OkStatus();
    }
    case NodeFormat::kPai: {
      n.name = t.Text("machine");
      TIDEPOOL_ASSIGN_OR_RETURN(double cpu, t.RequiredNumber("cap_cpu"));
      TIDEPOOL_ASSIGN_OR_RETURN(n.memory_bytes, t.Bytes("cap_mem", 1024));
      TIDEPOOL_ASSIGN_OR_RETURN(double gpus, t.RequiredNumber("cap_gpu"));
      n.cpu_milli = std::llround(cpu * 1000);
      n.gpus = std::llround(gpus);
      if (n.gpus > 0) n.gpu_model = t.Text("gpu_type");
      return OkStatus();
    }
    case NodeFormat::kSpot: {
      n.name = "spot-node-" + t.Text("node_name");
      TIDEPOOL_ASSIGN_OR_RETURN(double cpu, t.RequiredNumber("cpu_num"));
      TIDEPOOL_ASSIGN_OR_RETURN(double gpus, t.RequiredNumber("gpu_capacity_num"));
      n.cpu_milli = std::llround(cpu * 1000);
      TIDEPOOL_ASSIGN_OR_RETURN(n.memory_bytes,
                                t.BytesOf("cpu_num", cpu * kSpotNodeMemoryPerCpuGiB * 1024));
      n.gpus = std::llround(gpus);
      n.gpu_model = t.Text("gpu_model");
      return OkStatus();
    }
    case NodeFormat::kCsv:
      n.name = t.Text("name");
      TIDEPOOL_RETURN_IF_ERROR(t.CpuAndMemory(&n.cpu_milli, &n.memory_bytes));
      TIDEPOOL_ASSIGN_OR_RETURN(n.gpus, t.WholeGpus());
      n.gpu_model = t.Text("gpuModel");
      return OkStatus();
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::vector<TraceNode>> ParseTraceNodes(const std::string& text,
                                                 const TraceOptions& options) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line))
    return InvalidArgumentError(options.nodes_file + ": empty node list");
  std::vector<std::string> first = SplitCsvLine(line);
  NodeFormat format = NodeFormat::kCsv;
  std::string name_column = "name";
  std::vector<std::string> pending;  // a headerless file's first row
  Table t(options.nodes_file, first);
  if (t.Has("sn") && t.Has("cpu_milli")) {
    format = NodeFormat::kOpenb;
    name_column = "sn";
    TIDEPOOL_RETURN_IF_ERROR(t.Require({"sn", "cpu_milli", "memory_mib", "gpu", "model"}));
  } else if (t.Has("gpu_capacity_num")) {
    format = NodeFormat::kSpot;
    name_column = "node_name";
    TIDEPOOL_RETURN_IF_ERROR(t.Require({"node_name", "gpu_model", "gpu_capacity_num", "cpu_num"}));
  } else if (LooksLikePaiSpec(first)) {
    format = NodeFormat::kPai;
    name_column = "machine";
    t = Table(options.nodes_file, {"machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"});
    pending = std::move(first);
  } else {
    TIDEPOOL_RETURN_IF_ERROR(t.Require({"name", "cpu", "memory"}));
  }
  std::vector<TraceNode> nodes;
  std::set<std::string> names;
  int line_no = pending.empty() ? 1 : 0;
  while (!pending.empty() || std::getline(in, line)) {
    ++line_no;
    std::vector<std::string> fields;
    if (!pending.empty()) {
      fields = std::move(pending);
      pending.clear();
    } else {
      if (line.empty() || line == "\r") continue;
      fields = SplitCsvLine(line);
    }
    t.SetRow(line_no, std::move(fields));
    TraceNode n;
    TIDEPOOL_RETURN_IF_ERROR(NodeRow(t, format, n));
    n.name = PodName(n.name);
    if (n.name.empty()) return t.Error(name_column, "is empty");
    if (!names.insert(n.name).second) {
      return t.Error(name_column, "\"" + n.name + "\" is given twice");
    }
    if (auto it = options.gpu_models.find(n.gpu_model); it != options.gpu_models.end()) {
      n.gpu_accelerator = it->second;
    } else if (format == NodeFormat::kCsv && n.gpus > 0) {
      n.gpu_accelerator = n.gpu_model;  // a GKE accelerator name, as the pods' CSV
    }
    nodes.push_back(std::move(n));
  }
  return nodes;
}

StatusOr<std::vector<TraceNode>> LoadTraceNodes(const TraceOptions& options) {
  TIDEPOOL_ASSIGN_OR_RETURN(std::string text, ReadFile(options.nodes_file));
  return ParseTraceNodes(text, options);
}

json TraceNodeJson(const TraceNode& node) {
  json labels = {{"kubernetes.io/hostname", node.name},
                 {"kubernetes.io/os", "linux"},
                 {"kubernetes.io/arch", "amd64"},
                 {"cloud.google.com/gke-nodepool", "trace-nodes"},
                 {"type", "kwok"}};
  if (!node.gpu_model.empty()) labels["tidepool.dev/gpu-model"] = LabelValue(node.gpu_model);
  if (!node.gpu_accelerator.empty()) {
    labels["cloud.google.com/gke-accelerator"] = LabelValue(node.gpu_accelerator);
  }
  json capacity = {{"cpu", FormatCpu(node.cpu_milli)},
                   {"memory", FormatMemory(node.memory_bytes)},
                   {"pods", "110"}};
  if (node.gpus > 0) {
    capacity["nvidia.com/gpu"] = std::to_string(node.gpus);
    capacity["alibabacloud.com/gpu-milli"] = std::to_string(node.gpus * 1000);
  }
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", node.name},
            {"labels", labels},
            {"annotations", {{"kwok.x-k8s.io/node", "fake"}}}}},
          {"status", {{"capacity", capacity}, {"allocatable", capacity}}}};
}

}  // namespace tidepool::sim
