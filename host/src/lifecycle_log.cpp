#include "lifecycle_log.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/sink.h>
#include <unistd.h>

namespace tickwire::host {

const char* reason_token(transport::DisconnectReason reason) {
  using R = transport::DisconnectReason;
  switch (reason) {
    case R::kUnknown: return "unknown";
    case R::kRequested: return "requested";
    case R::kTimeout: return "timeout";
    case R::kServerShuttingDown: return "server_shutting_down";
    case R::kVersionMismatch: return "version_mismatch";
    case R::kFingerprintMismatch: return "schema_mismatch";
    case R::kServerFull: return "server_full";
    case R::kProtocolError: return "protocol_error";
    case R::kHandshakeTimeout: return "handshake_timeout";
    case R::kKicked: return "kicked";
    case R::kConnectFailed: return "connect_failed";
    case R::kFlooding: return "flooding";
    case R::kTokenInvalid: return "token_invalid";
    case R::kTokenExpired: return "token_expired";
    case R::kTokenReused: return "token_reused";
    case R::kTooManyConnections: return "too_many_connections";
    case R::kTokenRequired: return "token_required";
    case R::kCodebookMismatch: return "codebook_mismatch";
    case R::kServerKeyMismatch: return "server_key_mismatch";
    case R::kPlaintextRefused: return "plaintext_refused";
  }
  return "unknown";
}

void JsonFields::key(std::string_view k) {
  if (!text_.empty()) text_ += ',';
  text_ += '"';
  text_ += k;
  text_ += "\":";
}

JsonFields& JsonFields::str(std::string_view k, std::string_view value) {
  key(k);
  text_ += '"';
  text_ += json_escape(value);
  text_ += '"';
  return *this;
}

JsonFields& JsonFields::str_or_null(std::string_view k, const std::optional<std::string>& value) {
  if (value) return str(k, *value);
  key(k);
  text_ += "null";
  return *this;
}

JsonFields& JsonFields::num(std::string_view k, std::uint64_t value) {
  key(k);
  text_ += std::to_string(value);
  return *this;
}

JsonFields& JsonFields::boolean(std::string_view k, bool value) {
  key(k);
  text_ += value ? "true" : "false";
  return *this;
}

LifecycleLog::LifecycleLog(LogFormat format, spdlog::level::level_enum level, spdlog::sink_ptr json_sink,
                           std::shared_ptr<spdlog::logger> text_log)
    : format_(format), text_(std::move(text_log)) {
  if (format_ != LogFormat::kJson) return;
  // The same leading keys and time format as the other JSON lines; the
  // payload is the pre-escaped fields, so it goes in unescaped (%v).
  json_sink->set_formatter(std::make_unique<spdlog::pattern_formatter>(
      R"({"ts":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l","logger":"%n",%v})", spdlog::pattern_time_type::utc));
  json_ = std::make_shared<spdlog::logger>("server", std::move(json_sink));
  json_->set_level(level);
  // Pipelines tail the stream; a lifecycle line should not sit in a buffer.
  json_->flush_on(spdlog::level::trace);
}

void LifecycleLog::emit(spdlog::level::level_enum level, std::string_view event, const JsonFields& fields,
                        const std::string& message, bool text_too) {
  if (format_ == LogFormat::kJson) {
    JsonFields line;
    line.str("event", event);
    std::string payload = line.text();
    if (!fields.text().empty()) payload += "," + fields.text();
    payload += ",\"msg\":\"" + json_escape(message) + "\"";
    json_->log(level, "{}", payload);
  } else if (text_too) {
    text_->log(level, "{}", message);
  }
}

void LifecycleLog::start(const StartInfo& info) {
  JsonFields f;
  f.str("version", info.version)
      .str("game", info.game)
      .str("game_version", info.game_version)
      .num("pid", static_cast<std::uint64_t>(::getpid()))
      .str("bind", info.bind)
      .num("tick_rate", info.tick_rate)
      .num("send_rate", info.send_rate)
      .num("max_clients", info.max_clients)
      .boolean("agones", info.agones);
  emit(spdlog::level::info, "start", f,
       "starting " + info.program + ": " + info.game + " " + info.game_version + " on tickwire " + info.version +
           " (pid " + std::to_string(::getpid()) + ")",
       true);
}

void LifecycleLog::ready(const StartInfo& info, const std::string& address, const std::optional<std::string>& metrics) {
  JsonFields f;
  f.str("address", address).str_or_null("metrics", metrics).boolean("agones", info.agones);
  std::string message = info.program + " " + info.version + ": " + info.game + " " + info.game_version +
                        ", listening on " + address + " (udp), tick " + std::to_string(info.tick_rate) + " Hz, send " +
                        std::to_string(info.send_rate) + " Hz, max clients " + std::to_string(info.max_clients);
  if (metrics) message += ", metrics on " + *metrics;
  emit(spdlog::level::info, "ready", f, message, true);
}

void LifecycleLog::client_event(const server::ServerEvent& e) {
  using T = server::ServerEvent::Type;
  const bool denied = e.type == T::kClientDenied;
  JsonFields f;
  if (denied) {
    f.str_or_null("client", std::nullopt).str_or_null("name", std::nullopt);
  } else {
    f.num("client", e.client).str("name", e.name);
  }
  f.str("address", e.address);
  const char* event = "client_connected";
  std::string message;
  if (e.type == T::kClientConnected) {
    f.str_or_null("reason", std::nullopt);
    if (e.token_client_id) f.num("token_client_id", *e.token_client_id);
    message = "client " + std::to_string(e.client) + " (" + e.name + ") connected from " + e.address;
  } else {
    f.str("reason", reason_token(e.reason));
    event = denied ? "client_denied" : "client_disconnected";
    message = denied ? "denied " + e.address + ": " + transport::to_string(e.reason)
                     : "client " + std::to_string(e.client) + " (" + e.name +
                           ") disconnected: " + transport::to_string(e.reason);
  }
  emit(spdlog::level::info, event, f, message, false);
}

void LifecycleLog::allocated() {
  emit(spdlog::level::info, "allocated", JsonFields{}, "Agones allocated this game server", true);
}

void LifecycleLog::shutdown(std::string_view cause) {
  JsonFields f;
  f.str("reason", cause);
  const std::string why = cause == "sigterm" ? "SIGTERM" : cause == "sigint" ? "SIGINT" : "duration reached";
  emit(spdlog::level::info, "shutdown", f, "shutting down (" + why + ")", true);
}

void LifecycleLog::stopped(const server::ServerStats& s) {
  JsonFields f;
  f.num("tick", s.tick.value())
      .num("connects", s.connects)
      .num("denials", s.denials)
      .num("disconnects", s.disconnects)
      .num("snapshots", s.snapshots)
      .num("late_inputs", s.late_inputs)
      .num("missing_inputs", s.missing_inputs)
      .num("rejected_inputs", s.rejected_inputs)
      .num("ticks_overrun", s.ticks_overrun)
      .num("ticks_skipped", s.ticks_skipped)
      .num("bad_packets", s.bad_packets())
      .num("bytes_in", s.bytes_in)
      .num("bytes_out", s.bytes_out);
  const std::string message = fmt::format(
      "stopped at tick {}: {} connects, {} denials, {} disconnects, {} snapshots, inputs {} late / {} "
      "missing / {} rejected, {} ticks overrun, {} skipped, {} bad packets, {} bytes in / {} out",
      s.tick.value(), s.connects, s.denials, s.disconnects, s.snapshots, s.late_inputs, s.missing_inputs,
      s.rejected_inputs, s.ticks_overrun, s.ticks_skipped, s.bad_packets(), s.bytes_in, s.bytes_out);
  emit(spdlog::level::info, "stopped", f, message, true);
}

}  // namespace tickwire::host
