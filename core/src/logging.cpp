#include "tickwire/core/logging.h"

#include <spdlog/details/null_mutex.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/null_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <algorithm>
#include <cstdio>

namespace tickwire {
namespace {

// %* in the JSON pattern: the message, escaped.
class EscapedMessage final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    const std::string escaped = json_escape(std::string_view(msg.payload.data(), msg.payload.size()));
    dest.append(escaped.data(), escaped.data() + escaped.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<EscapedMessage>(); }
};

// %# in the JSON pattern: the logger name, escaped.
class EscapedName final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    const std::string escaped = json_escape(std::string_view(msg.logger_name.data(), msg.logger_name.size()));
    dest.append(escaped.data(), escaped.data() + escaped.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<EscapedName>(); }
};

std::unique_ptr<spdlog::formatter> make_formatter(LogFormat format) {
  if (format == LogFormat::kJson) {
    auto f = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
    f->add_flag<EscapedMessage>('*').add_flag<EscapedName>('#');
    f->set_pattern(R"({"ts":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l","logger":"%#","msg":"%*"})");
    return f;
  }
  return std::make_unique<spdlog::pattern_formatter>("%Y-%m-%d %H:%M:%S.%e %-5l [%n] %v");
}

}  // namespace

Result<spdlog::level::level_enum> parse_log_level(std::string_view text) {
  static constexpr std::pair<std::string_view, spdlog::level::level_enum> kLevels[] = {
      {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug}, {"info", spdlog::level::info},
      {"warn", spdlog::level::warn},   {"error", spdlog::level::err},   {"critical", spdlog::level::critical},
      {"off", spdlog::level::off}};
  for (const auto& [name, level] : kLevels) {
    if (text == name) return level;
  }
  return make_error(ErrorCode::kInvalidArgument,
                    "unknown log level '" + std::string(text) + "' (trace, debug, info, warn, error, critical, off)");
}

Result<LogFormat> parse_log_format(std::string_view text) {
  if (text == "text") return LogFormat::kText;
  if (text == "json") return LogFormat::kJson;
  return make_error(ErrorCode::kInvalidArgument, "unknown log format '" + std::string(text) + "' (text, json)");
}

Logging::Logging(spdlog::level::level_enum level, LogFormat format)
    : Logging(level, format, {std::make_shared<spdlog::sinks::stderr_sink_mt>()}) {}

Logging::Logging(spdlog::level::level_enum level, LogFormat format, std::vector<spdlog::sink_ptr> sinks)
    : level_(level), format_(format), sinks_(std::move(sinks)) {
  for (auto& sink : sinks_) sink->set_formatter(make_formatter(format_));
}

std::shared_ptr<spdlog::logger> Logging::get(const std::string& name) {
  auto it = std::find_if(loggers_.begin(), loggers_.end(), [&](const auto& l) { return l->name() == name; });
  if (it != loggers_.end()) return *it;
  auto logger = std::make_shared<spdlog::logger>(name, sinks_.begin(), sinks_.end());
  logger->set_level(level_);
  logger->flush_on(spdlog::level::warn);
  loggers_.push_back(logger);
  return logger;
}

std::shared_ptr<spdlog::logger> Logging::null_logger(const std::string& name) {
  auto logger = std::make_shared<spdlog::logger>(name, std::make_shared<spdlog::sinks::null_sink_st>());
  logger->set_level(spdlog::level::off);
  return logger;
}

// Length of the valid UTF-8 sequence starting at text[i], or 0 if invalid.
static std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t len = 0;
  std::uint32_t min_code = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    len = 2;
    min_code = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    len = 3;
    min_code = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    len = 4;
    min_code = 0x10000;
  } else
    return 0;
  if (i + len > text.size()) return 0;
  std::uint32_t code = lead & (0x7Fu >> len);
  for (std::size_t k = 1; k < len; ++k) {
    const auto c = static_cast<unsigned char>(text[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    code = (code << 6) | (c & 0x3Fu);
  }
  if (code < min_code || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return len;
}

std::string json_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) {
      // A peer's bytes may not be UTF-8; JSON must be, so invalid bytes
      // become U+FFFD rather than breaking the consumer's parser.
      const std::size_t len = utf8_sequence_length(text, i);
      if (len == 0) {
        out += "\\ufffd";
      } else {
        out.append(text.substr(i, len));
        i += len - 1;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (u < 0x20 || u == 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", u);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

bool RateLimiter::allow(Time now) {
  if (!started_ || now - window_start_ >= interval_) {
    started_ = true;
    window_start_ = now;
    used_ = 0;
  }
  if (used_ < burst_) {
    ++used_;
    return true;
  }
  ++suppressed_;
  return false;
}

std::uint64_t RateLimiter::take_suppressed() { return std::exchange(suppressed_, 0); }

}  // namespace tickwire
