#pragma once
// The Agones SDK through the sidecar's REST interface on localhost:
// POST /ready, /health, /allocate and /shutdown with body {} (the answer
// is {}), and GET /gameserver for the GameServer record.
//
// AgonesAgent runs the exchange on its own thread with a queue, so the
// tick loop never waits on HTTP; the sidecar may start after the server,
// so every call is retried until it is answered.

#include <spdlog/logger.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "tickwire/core/result.h"

namespace tickwire::server_app {

struct AgonesConfig {
  std::string host = "127.0.0.1";  // the sidecar listens on localhost only
  std::uint16_t port = 9358;       // the sidecar's default REST port
  std::chrono::milliseconds health_interval{2000};
  std::chrono::milliseconds connect_timeout{300};
  std::chrono::milliseconds request_timeout{1000};
  std::chrono::milliseconds retry_first{100};  // doubles per failure...
  std::chrono::milliseconds retry_max{2000};   // ...up to this
};

// Whether to talk to Agones, and on which port: on with `flag` or when
// Agones set AGONES_SDK_HTTP_PORT for the container (`http_port_env`,
// null when unset). A port that is not 1-65535 is an error.
Result<std::optional<AgonesConfig>> agones_config(bool flag, const char* http_port_env);

// One synchronous REST call per method, with the config's timeouts.
class AgonesRest {
 public:
  explicit AgonesRest(const AgonesConfig& config);
  Result<void> ready() { return post("/ready"); }
  Result<void> health() { return post("/health"); }
  Result<void> allocate() { return post("/allocate"); }
  Result<void> shutdown() { return post("/shutdown"); }
  Result<std::string> game_server();

 private:
  Result<void> post(const std::string& path);
  AgonesConfig config_;
};

class AgonesAgent {
 public:
  enum class Call : std::uint8_t { kReady, kAllocate, kShutdown };

  AgonesAgent(AgonesConfig config, std::shared_ptr<spdlog::logger> log);
  ~AgonesAgent();
  AgonesAgent(const AgonesAgent&) = delete;
  AgonesAgent& operator=(const AgonesAgent&) = delete;

  // Queues a call; returns at once. Health pings stop after shutdown.
  void request(Call call);
  // Waits up to `limit` for the queued calls to be answered, then stops the
  // thread. False when some were still unanswered.
  bool finish(std::chrono::milliseconds limit);

 private:
  using Clock = std::chrono::steady_clock;
  void run();
  Result<void> send(Call call);
  void ping();

  AgonesConfig config_;
  std::shared_ptr<spdlog::logger> log_;
  AgonesRest rest_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Call> queue_;
  bool stopping_ = false;
  Clock::time_point deadline_;
  // Only the agent's thread touches these.
  bool shut_down_ = false;
  bool ever_answered_ = false;
  bool health_failing_ = false;
  std::thread thread_;
};

}  // namespace tickwire::server_app
