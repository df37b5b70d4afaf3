#pragma once
// Logging over spdlog, with no global registry: a Logging object owns the
// sinks and hands out named loggers ("server", "transport", ...), so two
// servers in one test process can log to different places.
//
// Text lines for people, or JSON lines for log pipelines. In JSON every
// message and logger name is escaped, because messages carry strings a
// client chose (its name, a reason) and must not be able to forge fields.

#include <spdlog/logger.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tickwire/core/result.h"
#include "tickwire/core/time.h"

namespace tickwire {

enum class LogFormat { kText, kJson };

Result<spdlog::level::level_enum> parse_log_level(std::string_view text);
Result<LogFormat> parse_log_format(std::string_view text);

class Logging {
 public:
  // Logs to stderr.
  Logging(spdlog::level::level_enum level, LogFormat format);
  // Logs to the given sinks (tests pass an ostream sink).
  Logging(spdlog::level::level_enum level, LogFormat format, std::vector<spdlog::sink_ptr> sinks);

  // A logger named after a part; the same name returns the same logger.
  std::shared_ptr<spdlog::logger> get(const std::string& name);

  // A logger that discards everything, for components built without one.
  static std::shared_ptr<spdlog::logger> null_logger(const std::string& name = "null");

  spdlog::level::level_enum level() const { return level_; }
  LogFormat format() const { return format_; }

 private:
  spdlog::level::level_enum level_;
  LogFormat format_;
  std::vector<spdlog::sink_ptr> sinks_;
  std::vector<std::shared_ptr<spdlog::logger>> loggers_;
};

// Escapes a string for use inside a JSON string literal.
std::string json_escape(std::string_view text);

// Lets through at most `burst` events per `interval` and counts the rest, so
// a peer that sends garbage cannot flood the log. Time is passed in.
class RateLimiter {
 public:
  RateLimiter(int burst, Duration interval) : burst_(burst), interval_(interval) {}
  // True when this event may be logged. After a quiet spell, the number of
  // events suppressed since the last allowed one is in suppressed().
  bool allow(Time now);
  std::uint64_t take_suppressed();

 private:
  int burst_;
  Duration interval_;
  Time window_start_;
  bool started_ = false;
  int used_ = 0;
  std::uint64_t suppressed_ = 0;
};

}  // namespace tickwire
