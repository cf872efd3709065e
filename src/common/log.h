// File: log.h
//
// A thin structured-logging facade over spdlog (kept out of this header so that few translation
// units pay for spdlog). Lines are klog-shaped, as Kubernetes components print them:
//
//   I1129 17:22:51.123456       1 scale_up.go:42] Scale-up: setting group gpu-pool size to 1
//   I1129 17:22:51.123456       1 scheduler.cc:88] "Unable to schedule pod" pod="default/p"
//
// The timestamp is the injected Clock's time (simulated time in `tidepool simulate`), never
// the OS clock's. A message without fields prints as-is (klog's Infof); with fields it is quoted
// and followed by key="value" pairs (klog's InfoS).
//
// Thread-safe: a Logger may be shared by threads.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <source_location>
#include <string>
#include <string_view>

#include "common/clock.h"

namespace tidepool::log {

enum class Level { kInfo, kWarning, kError };

struct Field {
  std::string_view key;
  std::string value;
};
using Fields = std::initializer_list<Field>;

// Receives each formatted line (without the trailing newline).
using LineSink = std::function<void(std::string_view line)>;

class Logger {
 public:
  // Writes to stderr unless `to_stderr` is false. `clock` must outlive the logger.
  Logger(std::string name, const Clock& clock, bool to_stderr = true);
  ~Logger();
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  // klog verbosity: V(n) lines print only when n <= verbosity. Default 0.
  void SetVerbosity(int v);
  int verbosity() const;
  bool Enabled(int v) const { return v <= verbosity(); }

  // Adds a sink that receives every line logged from now on.
  void AddSink(LineSink sink);

  // How many lines were logged so far (V lines only when enabled): a caller compares two
  // counts to know whether something in between logged.
  uint64_t lines() const;

  void Info(std::string_view msg, Fields fields = {},
            std::source_location loc = std::source_location::current());
  void V(int v, std::string_view msg, Fields fields = {},
         std::source_location loc = std::source_location::current());
  void Warning(std::string_view msg, Fields fields = {},
               std::source_location loc = std::source_location::current());
  void Error(std::string_view msg, Fields fields = {},
             std::source_location loc = std::source_location::current());

  void Log(Level level, std::string_view msg, Fields fields, std::source_location loc);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Formats `msg` with `fields` the way klog's InfoS does: "msg" k1="v1" k2="v2".
std::string FormatStructured(std::string_view msg, Fields fields);

}  // namespace tidepool::log
