#include "common/log.h"

#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <atomic>
#include <mutex>
#include <vector>

namespace tidepool::log {
namespace {

// klog header: Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg  (times in UTC). klog's threadid
// field is the process id, which is 1 for a component in its own container as Kubernetes runs
// them; printing a fixed 1 keeps logs byte-identical from run to run.
constexpr const char* kKlogPattern = "%L%m%d %H:%M:%S.%f       1 %s:%#] %v";

// klog's level letters.
class KlogLevelFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    char c = 'I';
    if (msg.level == spdlog::level::warn) {
      c = 'W';
    } else if (msg.level >= spdlog::level::err) {
      c = 'E';
    }
    dest.push_back(c);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<KlogLevelFlag>();
  }
};

std::unique_ptr<spdlog::formatter> MakeFormatter() {
  auto f = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
  f->add_flag<KlogLevelFlag>('L');
  f->set_pattern(kKlogPattern);
  return f;
}

class CallbackSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit CallbackSink(LineSink fn) : fn_(std::move(fn)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t buf;
    formatter_->format(msg, buf);
    std::string_view line(buf.data(), buf.size());
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) {
      line.remove_suffix(1);
    }
    fn_(line);
  }
  void flush_() override {}

 private:
  LineSink fn_;
};

spdlog::level::level_enum ToSpd(Level l) {
  switch (l) {
    case Level::kInfo: return spdlog::level::info;
    case Level::kWarning: return spdlog::level::warn;
    case Level::kError: return spdlog::level::err;
  }
  return spdlog::level::info;
}

void AppendQuoted(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      default: out.push_back(c);
    }
  }
  out.push_back('"');
}

}  // namespace

struct Logger::Impl {
  explicit Impl(const Clock& c) : clock(c) {}
  const Clock& clock;
  std::atomic<int> verbosity{0};
  std::atomic<uint64_t> lines{0};
  std::mutex mu;  // guards sinks of `logger` (spdlog's logger::sinks() is not thread-safe)
  std::shared_ptr<spdlog::logger> logger;
};

Logger::Logger(std::string name, const Clock& clock, bool to_stderr)
    : impl_(std::make_unique<Impl>(clock)) {
  std::vector<spdlog::sink_ptr> sinks;
  if (to_stderr) {
    sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
  }
  impl_->logger = std::make_shared<spdlog::logger>(std::move(name), sinks.begin(), sinks.end());
  impl_->logger->set_formatter(MakeFormatter());
  impl_->logger->set_level(spdlog::level::trace);
  impl_->logger->flush_on(spdlog::level::trace);
}

Logger::~Logger() = default;

void Logger::SetVerbosity(int v) { impl_->verbosity.store(v); }
int Logger::verbosity() const { return impl_->verbosity.load(); }
uint64_t Logger::lines() const { return impl_->lines.load(std::memory_order_relaxed); }

void Logger::AddSink(LineSink sink) {
  auto s = std::make_shared<CallbackSink>(std::move(sink));
  s->set_formatter(MakeFormatter());
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->logger->sinks().push_back(std::move(s));
}

void Logger::Info(std::string_view msg, Fields fields, std::source_location loc) {
  Log(Level::kInfo, msg, fields, loc);
}
void Logger::V(int v, std::string_view msg, Fields fields, std::source_location loc) {
  if (Enabled(v)) {
    Log(Level::kInfo, msg, fields, loc);
  }
}
void Logger::Warning(std::string_view msg, Fields fields, std::source_location loc) {
  Log(Level::kWarning, msg, fields, loc);
}
void Logger::Error(std::string_view msg, Fields fields, std::source_location loc) {
  Log(Level::kError, msg, fields, loc);
}

void Logger::Log(Level level, std::string_view msg, Fields fields, std::source_location loc) {
  impl_->lines.fetch_add(1, std::memory_order_relaxed);
  std::string text = fields.size() == 0 ? std::string(msg) : FormatStructured(msg, fields);
  auto now = std::chrono::time_point_cast<spdlog::log_clock::duration>(impl_->clock.Now());
  spdlog::source_loc sl{loc.file_name(), static_cast<int>(loc.line()), loc.function_name()};
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->logger->log(spdlog::log_clock::time_point(now.time_since_epoch()), sl, ToSpd(level),
                     text);
}

std::string FormatStructured(std::string_view msg, Fields fields) {
  std::string out;
  AppendQuoted(out, msg);
  for (const Field& f : fields) {
    out.push_back(' ');
    out += f.key;
    out.push_back('=');
    AppendQuoted(out, f.value);
  }
  return out;
}

}  // namespace tidepool::log
