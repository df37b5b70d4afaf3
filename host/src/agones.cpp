#include "agones.h"

#include <httplib.h>

#include <charconv>
#include <string_view>

#include "tickwire/core/logging.h"

namespace tickwire::host {
namespace {

httplib::Client make_client(const AgonesConfig& c) {
  httplib::Client client(c.host, c.port);
  client.set_connection_timeout(c.connect_timeout);
  client.set_read_timeout(c.request_timeout);
  client.set_write_timeout(c.request_timeout);
  return client;
}

Error http_error(const std::string& path, const httplib::Result& result) {
  if (!result) return make_error(ErrorCode::kIo, path + ": no answer (" + httplib::to_string(result.error()) + ")");
  return make_error(ErrorCode::kIo, path + ": HTTP " + std::to_string(result->status));
}

}  // namespace

Result<std::optional<AgonesConfig>> agones_config(bool flag, const char* http_port_env) {
  if (!flag && http_port_env == nullptr) return std::optional<AgonesConfig>{};
  AgonesConfig config;
  if (http_port_env != nullptr) {
    const std::string_view text(http_port_env);
    unsigned port = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
    if (ec != std::errc() || end != text.data() + text.size() || port == 0 || port > 65535) {
      return make_error(ErrorCode::kInvalidArgument,
                        "AGONES_SDK_HTTP_PORT='" + std::string(text) + "' is not a port (1-65535)");
    }
    config.port = static_cast<std::uint16_t>(port);
  }
  return std::optional<AgonesConfig>{config};
}

AgonesRest::AgonesRest(const AgonesConfig& config) : config_(config) {}

bool valid_agones_key(std::string_view key) {
  if (key.empty() || key.size() > 253) return false;
  for (const char c : key) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Result<void> AgonesRest::post(const std::string& path, const std::string& body) {
  auto client = make_client(config_);
  const auto result = client.Post(path, body, "application/json");
  if (!result || result->status != 200) return http_error(path, result);
  return {};
}

Result<AgonesUpdate> AgonesRest::update(const std::string& method, const std::string& path, const std::string& body,
                                        int done) {
  auto client = make_client(config_);
  const auto result =
      method == "PATCH" ? client.Patch(path, body, "application/json") : client.Post(path, body, "application/json");
  if (result && (result->status == 200 || result->status == done)) return AgonesUpdate::kDone;
  if (result && result->status == 404) return AgonesUpdate::kNotDeclared;
  if (result && result->status >= 400 && result->status < 500) return AgonesUpdate::kRefused;
  return http_error(path, result);
}

Result<AgonesUpdate> AgonesRest::set_counter_count(const std::string& key, std::int64_t count) {
  return update("PATCH", "/v1beta1/counters/" + key, "{\"count\":" + std::to_string(count) + "}");
}

Result<AgonesUpdate> AgonesRest::set_counter_capacity(const std::string& key, std::int64_t capacity) {
  return update("PATCH", "/v1beta1/counters/" + key, "{\"capacity\":" + std::to_string(capacity) + "}");
}

Result<AgonesUpdate> AgonesRest::set_list_capacity(const std::string& key, std::int64_t capacity) {
  return update("PATCH", "/v1beta1/lists/" + key, "{\"capacity\":" + std::to_string(capacity) + "}");
}

// ALREADY_EXISTS comes back as 409: the list already is as asked.
Result<AgonesUpdate> AgonesRest::add_list_value(const std::string& key, const std::string& value) {
  return update("POST", "/v1beta1/lists/" + key + ":addValue", "{\"value\":\"" + json_escape(value) + "\"}", 409);
}

// NOT_FOUND is the value or the List missing: either way it is not there.
Result<AgonesUpdate> AgonesRest::remove_list_value(const std::string& key, const std::string& value) {
  return update("POST", "/v1beta1/lists/" + key + ":removeValue", "{\"value\":\"" + json_escape(value) + "\"}", 404);
}

Result<std::string> AgonesRest::game_server() {
  auto client = make_client(config_);
  const auto result = client.Get("/gameserver");
  if (!result || result->status != 200) return http_error("/gameserver", result);
  return result->body;
}

}  // namespace tickwire::host
