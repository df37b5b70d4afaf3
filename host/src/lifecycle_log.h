#pragma once
// One log line per lifecycle event of the server process: start, ready,
// each client connected, denied or disconnected, allocated (Agones),
// shutdown and stopped.
//
// With --log-format json every line is one JSON object whose keys are
// fixed per event (docs/operations.md lists them), so log pipelines can
// filter and count on "event" without parsing prose. Every line also has
// the keys of the other JSON log lines (ts, level, logger, msg), so a
// pipeline that only reads those still sees a readable message.
//
// In text format the runtime already logs client events in prose, so
// only the process events are written there, to avoid saying it twice.

#include <spdlog/logger.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tickwire/core/logging.h"
#include "tickwire/server/server.h"

namespace tickwire::host {

// A stable machine token for a disconnect reason ("timeout",
// "server_full"), for JSON fields and metric labels, where the prose of
// transport::to_string would be awkward and could change.
const char* reason_token(transport::DisconnectReason reason);

// The event-specific fields of a JSON line, in insertion order. Strings are
// escaped here; keys are literals of this program and are not.
class JsonFields {
 public:
  JsonFields& str(std::string_view key, std::string_view value);
  JsonFields& str_or_null(std::string_view key, const std::optional<std::string>& value);
  JsonFields& num(std::string_view key, std::uint64_t value);
  JsonFields& boolean(std::string_view key, bool value);
  const std::string& text() const { return text_; }

 private:
  void key(std::string_view k);
  std::string text_;
};

struct StartInfo {
  std::string program;  // the binary's name, which messages start with
  std::string version;  // Tickwire's
  std::string game;
  std::string game_version;
  std::string bind;  // the UDP address asked for
  std::uint32_t tick_rate = 0;
  std::uint32_t send_rate = 0;
  std::size_t max_clients = 0;
  bool agones = false;
};

class LifecycleLog {
 public:
  // `json_sink` receives the JSON lines (only used in JSON format);
  // `text_log` receives the prose lines in text format.
  LifecycleLog(LogFormat format, spdlog::level::level_enum level, spdlog::sink_ptr json_sink,
               std::shared_ptr<spdlog::logger> text_log);

  void start(const StartInfo& info);
  // Listening on `address`; `metrics` is the endpoint URL when serving one.
  void ready(const StartInfo& info, const std::string& address, const std::optional<std::string>& metrics);
  void client_event(const server::ServerEvent& event);
  // Agones reported the game server Allocated (each time it becomes so).
  void allocated();
  // `cause` is "sigterm", "sigint" or "duration".
  void shutdown(std::string_view cause);
  void stopped(const server::ServerStats& stats);

 private:
  void emit(spdlog::level::level_enum level, std::string_view event, const JsonFields& fields,
            const std::string& message, bool text_too);

  LogFormat format_;
  std::shared_ptr<spdlog::logger> json_;
  std::shared_ptr<spdlog::logger> text_;
};

}  // namespace tickwire::host
