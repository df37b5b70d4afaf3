#pragma once
// The Agones SDK through the sidecar's REST interface on localhost:
//   POST /ready, /health, /allocate and /shutdown with body {} (answer {});
//   GET /gameserver for the GameServer record, and GET /watch/gameserver,
//   which streams the record again, one JSON line, at every change;
//   PATCH /v1beta1/counters/KEY with {"count":N} or {"capacity":N};
//   PATCH /v1beta1/lists/KEY with {"capacity":N};
//   POST /v1beta1/lists/KEY:addValue and :removeValue with {"value":"V"}.
// Counters and Lists need the CountsAndLists feature of Agones (beta) and
// the counter or list declared in the GameServer spec.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "tickwire/core/result.h"

namespace tickwire::host {

struct AgonesConfig {
  std::string host = "127.0.0.1";  // the sidecar listens on localhost only
  std::uint16_t port = 9358;       // the sidecar's default REST port
  std::chrono::milliseconds health_interval{2000};
  std::chrono::milliseconds connect_timeout{300};
  std::chrono::milliseconds request_timeout{1000};
  std::chrono::milliseconds retry_first{100};  // doubles per failure...
  std::chrono::milliseconds retry_max{2000};   // ...up to this
  std::string counter;                         // Counter of connected players (capacity: max clients); empty: none
  std::string list;                            // List of connected players; empty: none
  bool watch = true;                           // watch the GameServer for the Allocated state
};

// Whether to talk to Agones, and on which port: on with `flag` or when
// Agones set AGONES_SDK_HTTP_PORT for the container (`http_port_env`,
// null when unset). A port that is not 1-65535 is an error.
Result<std::optional<AgonesConfig>> agones_config(bool flag, const char* http_port_env);

// Whether `key` can name a Counter or List in a request path (letters,
// digits, '.', '_' and '-'; what Kubernetes allows in names and more).
bool valid_agones_key(std::string_view key);

// What a Counter or List request found: done, that the GameServer
// declares no such Counter or List (HTTP 404: NOT_FOUND, also what a
// sidecar without the CountsAndLists feature answers), or that the
// sidecar refused this request itself (another 4xx, such as a value or
// capacity out of range), which asking again would not change.
enum class AgonesUpdate : std::uint8_t { kDone, kNotDeclared, kRefused };

// One synchronous REST call per method, with the config's timeouts.
class AgonesRest {
 public:
  explicit AgonesRest(const AgonesConfig& config);
  Result<void> ready() { return post("/ready", "{}"); }
  Result<void> health() { return post("/health", "{}"); }
  Result<void> allocate() { return post("/allocate", "{}"); }
  Result<void> shutdown() { return post("/shutdown", "{}"); }
  Result<std::string> game_server();

  Result<AgonesUpdate> set_counter_count(const std::string& key, std::int64_t count);
  Result<AgonesUpdate> set_counter_capacity(const std::string& key, std::int64_t capacity);
  Result<AgonesUpdate> set_list_capacity(const std::string& key, std::int64_t capacity);
  // A value already in the list counts as added, one not there as removed
  // (a removal cannot tell a missing value from a missing List).
  Result<AgonesUpdate> add_list_value(const std::string& key, const std::string& value);
  Result<AgonesUpdate> remove_list_value(const std::string& key, const std::string& value);

 private:
  Result<void> post(const std::string& path, const std::string& body);
  // An update: 200, `done` (a status meaning "already so"), 404 or
  // another 4xx.
  Result<AgonesUpdate> update(const std::string& method, const std::string& path, const std::string& body,
                              int done = 200);
  AgonesConfig config_;
};

}  // namespace tickwire::host
