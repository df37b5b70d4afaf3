#include "agones.h"

#include <httplib.h>

#include <algorithm>
#include <charconv>
#include <string_view>

namespace tickwire::server_app {
namespace {

const char* call_name(AgonesAgent::Call call) {
  switch (call) {
    case AgonesAgent::Call::kReady: return "Ready";
    case AgonesAgent::Call::kAllocate: return "Allocate";
    case AgonesAgent::Call::kShutdown: return "Shutdown";
  }
  return "?";
}

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

Result<void> AgonesRest::post(const std::string& path) {
  auto client = make_client(config_);
  const auto result = client.Post(path, "{}", "application/json");
  if (!result || result->status != 200) return http_error(path, result);
  return {};
}

Result<std::string> AgonesRest::game_server() {
  auto client = make_client(config_);
  const auto result = client.Get("/gameserver");
  if (!result || result->status != 200) return http_error("/gameserver", result);
  return result->body;
}

AgonesAgent::AgonesAgent(AgonesConfig config, std::shared_ptr<spdlog::logger> log)
    : config_(std::move(config)), log_(std::move(log)), rest_(config_) {
  thread_ = std::thread([this] { run(); });
}

AgonesAgent::~AgonesAgent() { finish(std::chrono::milliseconds(0)); }

void AgonesAgent::request(Call call) {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_) return;
    queue_.push_back(call);
  }
  wake_.notify_one();
}

bool AgonesAgent::finish(std::chrono::milliseconds limit) {
  {
    const std::lock_guard lock(mutex_);
    if (!stopping_) {
      stopping_ = true;
      deadline_ = Clock::now() + limit;
    }
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  const std::lock_guard lock(mutex_);
  return queue_.empty();
}

Result<void> AgonesAgent::send(Call call) {
  switch (call) {
    case Call::kReady: return rest_.ready();
    case Call::kAllocate: return rest_.allocate();
    case Call::kShutdown: return rest_.shutdown();
  }
  return make_error(ErrorCode::kInvalidArgument, "unknown call");
}

void AgonesAgent::ping() {
  const auto result = rest_.health();
  if (result.ok()) {
    if (health_failing_) log_->info("Agones Health pings answered again");
    health_failing_ = false;
    ever_answered_ = true;
  } else if (!health_failing_) {
    health_failing_ = true;
    // Before the sidecar first answers, failures are the expected start-up.
    log_->log(ever_answered_ ? spdlog::level::warn : spdlog::level::debug, "Agones Health ping failed: {}",
              result.error().detail);
  }
}

void AgonesAgent::run() {
  auto retry_delay = config_.retry_first;
  auto next_try = Clock::now();
  auto next_health = Clock::now();
  int attempts = 0;
  std::unique_lock lock(mutex_);
  for (;;) {
    const auto now = Clock::now();
    if (stopping_ && (queue_.empty() || now >= deadline_)) break;
    const bool call_due = !queue_.empty() && now >= next_try;
    const bool health_due = !shut_down_ && !stopping_ && now >= next_health;
    if (!call_due && !health_due) {
      std::optional<Clock::time_point> until;
      const auto earliest = [&until](Clock::time_point t) { until = until ? std::min(*until, t) : t; };
      if (!shut_down_ && !stopping_) earliest(next_health);
      if (!queue_.empty()) earliest(next_try);
      if (stopping_) earliest(deadline_);
      if (until) {
        wake_.wait_until(lock, *until);
      } else {
        wake_.wait(lock);
      }
      continue;
    }
    if (call_due) {
      const Call call = queue_.front();
      lock.unlock();  // requests never wait on the HTTP exchange
      const auto result = send(call);
      ++attempts;
      lock.lock();
      if (result.ok()) {
        queue_.pop_front();
        ever_answered_ = true;
        if (call == Call::kShutdown) shut_down_ = true;
        log_->info("Agones {} acknowledged{}", call_name(call),
                   attempts > 1 ? " after " + std::to_string(attempts) + " attempts" : "");
        attempts = 0;
        retry_delay = config_.retry_first;
        next_try = Clock::now();
      } else {
        if (attempts == 1 || attempts % 10 == 0) {
          log_->log(ever_answered_ ? spdlog::level::warn : spdlog::level::info,
                    "Agones {} not answered yet (attempt {}), retrying: {}", call_name(call), attempts,
                    result.error().detail);
        }
        next_try = Clock::now() + retry_delay;
        retry_delay = std::min(retry_delay * 2, config_.retry_max);
      }
      continue;
    }
    lock.unlock();
    ping();
    lock.lock();
    next_health = Clock::now() + config_.health_interval;
  }
  if (!queue_.empty()) {
    log_->warn("Agones: gave up on {} unanswered call(s), first {}", queue_.size(), call_name(queue_.front()));
  }
}

}  // namespace tickwire::server_app
