#include "agones_agent.h"

#include <algorithm>

#include "agones_watch.h"

namespace tickwire::host {
namespace {

const char* call_name(AgonesAgent::Call call) {
  switch (call) {
    case AgonesAgent::Call::kReady: return "Ready";
    case AgonesAgent::Call::kAllocate: return "Allocate";
    case AgonesAgent::Call::kShutdown: return "Shutdown";
  }
  return "?";
}

AgonesCall failure_kind(AgonesAgent::Call call) {
  switch (call) {
    case AgonesAgent::Call::kReady: return AgonesCall::kReady;
    case AgonesAgent::Call::kAllocate: return AgonesCall::kAllocate;
    case AgonesAgent::Call::kShutdown: return AgonesCall::kShutdown;
  }
  return AgonesCall::kReady;
}

}  // namespace

const char* agones_call_label(AgonesCall call) {
  switch (call) {
    case AgonesCall::kReady: return "ready";
    case AgonesCall::kHealth: return "health";
    case AgonesCall::kAllocate: return "allocate";
    case AgonesCall::kShutdown: return "shutdown";
    case AgonesCall::kCounter: return "counter";
    case AgonesCall::kList: return "list";
    case AgonesCall::kWatch: return "watch";
  }
  return "?";
}

AgonesAgent::AgonesAgent(AgonesConfig config, std::shared_ptr<spdlog::logger> log)
    : config_(std::move(config)), log_(std::move(log)), rest_(config_) {
  if (config_.watch) watch_ = std::make_unique<AgonesWatch>(config_, log_, failures_);
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

void AgonesAgent::set_capacity(std::size_t capacity) {
  {
    const std::lock_guard lock(mutex_);
    capacity_ = static_cast<std::int64_t>(capacity);
  }
  wake_.notify_one();
}

void AgonesAgent::player_joined(const std::string& id) {
  {
    const std::lock_guard lock(mutex_);
    ++players_[id];
    ++sessions_;
  }
  wake_.notify_one();
}

void AgonesAgent::player_left(const std::string& id) {
  {
    const std::lock_guard lock(mutex_);
    const auto it = players_.find(id);
    if (it == players_.end()) return;
    --sessions_;
    if (--it->second == 0) {
      players_.erase(it);
      refused_.erase(id);  // a later join asks again
    }
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
  if (watch_) watch_->stop();
  const std::lock_guard lock(mutex_);
  return queue_.empty();
}

std::uint64_t AgonesAgent::allocations() const { return watch_ ? watch_->allocations() : 0; }

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
    return;
  }
  failures_.count(AgonesCall::kHealth);
  if (!health_failing_) {
    health_failing_ = true;
    // Before the sidecar first answers, failures are the expected start-up.
    log_->log(ever_answered_ ? spdlog::level::warn : spdlog::level::debug, "Agones Health ping failed: {}",
              result.error().detail);
  }
}

std::optional<AgonesAgent::SyncStep> AgonesAgent::counter_step() const {
  if (config_.counter.empty() || counter_off_) return std::nullopt;
  if (capacity_ && capacity_ != acked_capacity_) return SyncStep{SyncStep::Kind::kCapacity, *capacity_, {}};
  if (sessions_ != acked_count_) return SyncStep{SyncStep::Kind::kCount, sessions_, {}};
  return std::nullopt;
}

std::optional<AgonesAgent::SyncStep> AgonesAgent::list_step() const {
  if (config_.list.empty() || list_off_) return std::nullopt;
  if (capacity_ && capacity_ != acked_list_capacity_) return SyncStep{SyncStep::Kind::kListCapacity, *capacity_, {}};
  // Removals first: they make room in a full List for the adds.
  for (const auto& id : acked_list_) {
    if (players_.count(id) == 0) return SyncStep{SyncStep::Kind::kRemove, 0, id};
  }
  for (const auto& [id, sessions] : players_) {
    if (acked_list_.count(id) == 0 && refused_.count(id) == 0) return SyncStep{SyncStep::Kind::kAdd, 0, id};
  }
  return std::nullopt;
}

void AgonesAgent::note_failure(AgonesCall call, const std::string& what, const Error& error, Retry& retry) {
  failures_.count(call);
  ++retry.attempts;
  if (retry.attempts == 1 || retry.attempts % 10 == 0) {
    log_->log(ever_answered_ ? spdlog::level::warn : spdlog::level::info,
              "Agones {} not answered yet (attempt {}), retrying: {}", what, retry.attempts, error.detail);
  }
  retry.next = Clock::now() + retry.delay;
  retry.delay = std::min(retry.delay * 2, config_.retry_max);
}

bool AgonesAgent::note_refusal(const SyncStep& step, const std::string& what) {
  switch (step.kind) {
    case SyncStep::Kind::kAdd:
      // The value itself is refused (the List full, or the value invalid):
      // asked again only after that player has left and come back.
      refused_.insert(step.value);
      break;
    case SyncStep::Kind::kListCapacity:
      // Out of the range Agones allows: the List keeps the spec's capacity.
      acked_list_capacity_ = step.number;
      break;
    default: return false;  // retried as any failure
  }
  failures_.count(AgonesCall::kList);
  log_->warn("Agones {} refused by the sidecar (HTTP 4xx); not asked again", what);
  return true;
}

void AgonesAgent::sync(const SyncStep& step, Retry& retry, std::unique_lock<std::mutex>& lock) {
  using Kind = SyncStep::Kind;
  const bool counter = step.kind == Kind::kCapacity || step.kind == Kind::kCount;
  lock.unlock();
  Result<AgonesUpdate> result = AgonesUpdate::kDone;
  std::string what;
  switch (step.kind) {
    case Kind::kCapacity:
      result = rest_.set_counter_capacity(config_.counter, step.number);
      what = "Counter " + config_.counter + " capacity " + std::to_string(step.number);
      break;
    case Kind::kCount:
      result = rest_.set_counter_count(config_.counter, step.number);
      what = "Counter " + config_.counter + " count " + std::to_string(step.number);
      break;
    case Kind::kListCapacity:
      result = rest_.set_list_capacity(config_.list, step.number);
      what = "List " + config_.list + " capacity " + std::to_string(step.number);
      break;
    case Kind::kAdd:
      result = rest_.add_list_value(config_.list, step.value);
      what = "List " + config_.list + " add " + step.value;
      break;
    case Kind::kRemove:
      result = rest_.remove_list_value(config_.list, step.value);
      what = "List " + config_.list + " remove " + step.value;
      break;
  }
  lock.lock();
  if (!result.ok()) {
    note_failure(counter ? AgonesCall::kCounter : AgonesCall::kList, what, result.error(), retry);
    return;
  }
  ever_answered_ = true;
  if (*result == AgonesUpdate::kRefused && !note_refusal(step, what)) {
    note_failure(counter ? AgonesCall::kCounter : AgonesCall::kList, what,
                 make_error(ErrorCode::kIo, "refused by the sidecar (HTTP 4xx)"), retry);
    return;
  }
  if (*result == AgonesUpdate::kRefused) {
    retry = Retry{Clock::now(), config_.retry_first, 0};
    return;
  }
  if (*result == AgonesUpdate::kNotDeclared) {
    // Asking again would fail the same way for as long as the server runs.
    failures_.count(counter ? AgonesCall::kCounter : AgonesCall::kList);
    (counter ? counter_off_ : list_off_) = true;
    log_->warn(
        "Agones {} '{}' not found: the GameServer spec does not declare it, or the sidecar lacks Counters and Lists "
        "(the CountsAndLists feature); the players are not kept in it (declare it, or turn this off with {} \"\")",
        counter ? "Counter" : "List", counter ? config_.counter : config_.list,
        counter ? "--agones-counter" : "--agones-list");
    return;
  }
  if (retry.attempts > 0) log_->info("Agones {} acknowledged after {} attempts", what, retry.attempts + 1);
  retry = Retry{Clock::now(), config_.retry_first, 0};
  switch (step.kind) {
    case Kind::kCapacity: acked_capacity_ = step.number; break;
    case Kind::kCount: acked_count_ = step.number; break;
    case Kind::kListCapacity: acked_list_capacity_ = step.number; break;
    case Kind::kAdd: acked_list_.insert(step.value); break;
    case Kind::kRemove: acked_list_.erase(step.value); break;
  }
}

void AgonesAgent::call_next(Retry& retry, std::unique_lock<std::mutex>& lock) {
  const Call call = queue_.front();
  lock.unlock();  // requests never wait on the HTTP exchange
  const auto result = send(call);
  lock.lock();
  if (!result.ok()) {
    note_failure(failure_kind(call), call_name(call), result.error(), retry);
    return;
  }
  queue_.pop_front();
  ever_answered_ = true;
  if (call == Call::kShutdown) shut_down_ = true;
  log_->info("Agones {} acknowledged{}", call_name(call),
             retry.attempts > 0 ? " after " + std::to_string(retry.attempts + 1) + " attempts" : "");
  retry = Retry{Clock::now(), config_.retry_first, 0};
}

void AgonesAgent::run() {
  Retry calls{Clock::now(), config_.retry_first, 0};
  Retry counter{Clock::now(), config_.retry_first, 0};
  Retry list{Clock::now(), config_.retry_first, 0};
  auto next_health = Clock::now();
  std::unique_lock lock(mutex_);
  for (;;) {
    const auto now = Clock::now();
    if (stopping_ && (queue_.empty() || now >= deadline_)) break;
    // The players are synced only while the server runs.
    const bool syncing = !stopping_ && !shut_down_;
    const auto counter_next = syncing ? counter_step() : std::nullopt;
    const auto list_next = syncing ? list_step() : std::nullopt;
    if (!queue_.empty() && now >= calls.next) {
      call_next(calls, lock);
    } else if (syncing && now >= next_health) {
      lock.unlock();
      ping();
      lock.lock();
      next_health = Clock::now() + config_.health_interval;
    } else if (counter_next && now >= counter.next) {
      sync(*counter_next, counter, lock);
    } else if (list_next && now >= list.next) {
      sync(*list_next, list, lock);
    } else {
      auto until = Clock::time_point::max();
      if (syncing) until = std::min(until, next_health);
      if (!queue_.empty()) until = std::min(until, calls.next);
      if (counter_next) until = std::min(until, counter.next);
      if (list_next) until = std::min(until, list.next);
      if (stopping_) until = std::min(until, deadline_);
      if (until == Clock::time_point::max()) {
        wake_.wait(lock);
      } else {
        wake_.wait_until(lock, until);
      }
    }
  }
  if (!queue_.empty()) {
    log_->warn("Agones: gave up on {} unanswered call(s), first {}", queue_.size(), call_name(queue_.front()));
  }
}

}  // namespace tickwire::host
