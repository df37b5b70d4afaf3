#include "agones_watch.h"

#include <httplib.h>

#include <algorithm>

#include "agones_agent.h"
#include "gameserver_state.h"

namespace tickwire::host {
namespace {

// An idle stream is normal (the record changes rarely); after this long
// without a byte the request ends and a new one starts, which also finds
// a sidecar that went away without closing the connection.
constexpr auto kIdleReconnect = std::chrono::seconds(30);

}  // namespace

AgonesWatch::AgonesWatch(const AgonesConfig& config, std::shared_ptr<spdlog::logger> log, AgonesFailures& failures)
    : config_(config), log_(std::move(log)), failures_(failures) {
  thread_ = std::thread([this] { run(); });
}

AgonesWatch::~AgonesWatch() { stop(); }

void AgonesWatch::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    if (cancel_) cancel_();
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void AgonesWatch::on_line(const std::string& line) {
  const auto state = game_server_state(line);
  if (!state || *state == state_) return;
  if (*state == "Allocated") {
    allocations_.fetch_add(1);
    log_->info("Agones: the game server is Allocated (was {})", state_.empty() ? "unknown" : state_);
  } else {
    log_->debug("Agones: the game server is {}", *state);
  }
  state_ = *state;
}

bool AgonesWatch::watch_once() {
  httplib::Client client(config_.host, config_.port);
  client.set_connection_timeout(config_.connect_timeout);
  client.set_read_timeout(kIdleReconnect);
  {
    const std::lock_guard lock(mutex_);
    if (stopping_) return false;
    cancel_ = [&client] { client.stop(); };
  }
  LineSplitter lines;
  bool received = false;
  const auto result = client.Get("/watch/gameserver", [&](const char* data, std::size_t length) {
    received = true;
    lines.feed(std::string_view(data, length));
    while (auto line = lines.next()) on_line(*line);
    const std::lock_guard lock(mutex_);
    return !stopping_;
  });
  {
    const std::lock_guard lock(mutex_);
    cancel_ = nullptr;
  }
  if (result && result->status != 200) {
    log_->debug("Agones watch: HTTP {}", result->status);
    return false;
  }
  return received;
}

void AgonesWatch::run() {
  auto delay = config_.retry_first;
  int failures = 0;
  for (;;) {
    const bool received = watch_once();
    std::unique_lock lock(mutex_);
    if (stopping_) return;
    if (received) {
      delay = config_.retry_first;
      failures = 0;
    } else {
      failures_.count(AgonesCall::kWatch);
      if (++failures == 1 || failures % 10 == 0) {
        log_->info("Agones watch of the GameServer not answered yet (attempt {}), retrying", failures);
      }
    }
    wake_.wait_for(lock, received ? config_.retry_first : delay, [this] { return stopping_; });
    if (stopping_) return;
    if (!received) delay = std::min(delay * 2, config_.retry_max);
  }
}

}  // namespace tickwire::host
