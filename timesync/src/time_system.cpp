#include "tickwire/timesync/time_system.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "tickwire/timesync/server_time_provider.h"

namespace tickwire::timesync {

namespace {

TimeSystemConfig checked(TimeSystemConfig c) {
  c.tick_rate = NetworkTime(c.tick_rate).tick_rate();  // throws for 0 or over the maximum
  if (c.max_ticks_per_update == 0) throw std::invalid_argument("TimeSystemConfig: max_ticks_per_update must be >= 1");
  return c;
}

Duration as_duration(const NetworkTime& difference) { return difference.since_zero(); }

// Flags a callback in progress for the duration of a scope.
class Scope {
 public:
  explicit Scope(bool& flag) : flag_(flag) { flag_ = true; }
  ~Scope() { flag_ = false; }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  bool& flag_;
};

}  // namespace

TimeSystem TimeSystem::server(TimeSystemConfig config, Tick start) {
  const std::uint32_t rate = config.tick_rate;
  return TimeSystem(Mode::kServer, config, std::make_unique<ServerTimeProvider>(rate, start));
}

TimeSystem TimeSystem::client(TimeSystemConfig config, std::unique_ptr<TimeProvider> provider) {
  return TimeSystem(Mode::kClient, config, std::move(provider));
}

TimeSystem::TimeSystem(Mode mode, TimeSystemConfig config, std::unique_ptr<TimeProvider> provider)
    : mode_(mode), config_(checked(config)), provider_(std::move(provider)), timelines_(config_.tick_rate) {
  if (!provider_) throw std::invalid_argument("TimeSystem needs a time provider");
  if (mode_ == Mode::kClient) {
    measurements_ = std::make_unique<ClientMeasurements>(config_.tick_rate, config_.measurements);
  }
}

void TimeSystem::on_snapshot(const SnapshotReceipt& receipt) {
  if (!measurements_) return;
  const SnapshotObservation obs = measurements_->on_snapshot(receipt);
  provider_->on_snapshot(inputs(receipt.received), obs);
}

UpdateResult TimeSystem::update(Time now, const TickCallback& on_tick) {
  if (in_update_) throw std::logic_error("TimeSystem::update called from inside a tick callback");
  const Scope scope(in_update_);
  UpdateResult result;
  ++stats_.updates;
  Duration elapsed = Duration::zero();
  if (last_now_ && now > *last_now_) elapsed = now - *last_now_;
  if (!last_now_ || now > *last_now_) last_now_ = now;
  const ProviderInputs in = inputs(*last_now_);

  bool jumped = false;
  if (!initialized_) {
    if (!provider_->ready(in)) return result;
    provider_->initialize(timelines_, in);
    initialized_ = true;
    result.initialized = true;
    jumped = true;
    push_event(TimeEvent{TimeEventType::kInitialized, *last_now_, Duration::zero(), Duration::zero()});
  } else {
    const NetworkTime predicted_before = timelines_.predicted;
    const NetworkTime interpolation_before = timelines_.interpolation;
    if (provider_->advance(timelines_, in, elapsed) == Advance::kHardReset) {
      ++stats_.hard_resets;
      result.hard_reset = true;
      jumped = true;
      push_event(TimeEvent{TimeEventType::kHardReset, *last_now_,
                           as_duration(timelines_.predicted - predicted_before) - elapsed,
                           as_duration(timelines_.interpolation - interpolation_before) - elapsed});
    }
  }
  run_ticks(*last_now_, jumped, result, on_tick);
  if (measurements_) measurements_->on_frame(*last_now_);
  return result;
}

void TimeSystem::run_ticks(Time now, bool jumped, UpdateResult& result, const TickCallback& on_tick) {
  if (timelines_.predicted.is_negative()) return;
  // A timeline at the end of the range of Tick comes only from a hostile or
  // broken peer (32 bits at 60 Hz last 828 days): run nothing rather than
  // overflow. The last tick is kept free so that tick + 1 always exists.
  constexpr std::int64_t kLastTick = static_cast<std::int64_t>(UINT32_MAX) - 1;
  if (timelines_.predicted.units() / NetworkTime::kUnitsPerTick > kLastTick) return;
  const Tick current = timelines_.predicted.tick();
  if (!next_tick_) next_tick_ = current;
  if (current < *next_tick_) return;  // after a reset back in time: wait

  Tick first = *next_tick_;
  std::int64_t due = current - first + 1;
  const auto cap = static_cast<std::int64_t>(config_.max_ticks_per_update);
  if (due > cap) {
    if (jumped) {
      // A jump passed over these ticks: run the newest, whose inputs can
      // still arrive in time, and skip the rest.
      result.skipped_ticks = static_cast<std::uint32_t>(std::min<std::int64_t>(due - cap, UINT32_MAX));
      stats_.skipped_ticks += static_cast<std::uint64_t>(due - cap);
      first = first + (due - cap);
    } else {
      // A long frame: run what the cap allows and drop the rest of the time.
      const NetworkTime limit =
          NetworkTime::from_tick(config_.tick_rate, first + (cap - 1), NetworkTime::kUnitsPerTick - 1);
      const NetworkTime dropped = timelines_.predicted - limit;
      timelines_.predicted = limit;
      timelines_.interpolation = timelines_.interpolation - dropped;
      result.capped = true;
      ++stats_.capped_updates;
      push_event(TimeEvent{TimeEventType::kCapped, now, -as_duration(dropped), -as_duration(dropped)});
    }
    due = cap;
  }

  const auto count = static_cast<std::uint32_t>(due);
  for (std::uint32_t i = 0; i < count; ++i) {
    const Tick tick = first + i;
    const NetworkTime at = NetworkTime::from_tick(config_.tick_rate, tick);
    const NetworkTime behind = timelines_.predicted - at;
    if (measurements_) measurements_->on_predicted_tick(tick, now, as_duration(behind), jumped);
    in_tick_ = TickContext{tick, at, timelines_.interpolation - behind, i, count};
    ++stats_.ticks;
    ++result.ticks;
    next_tick_ = tick + 1;
    if (on_tick) {
      try {
        on_tick(*in_tick_);
      } catch (...) {
        in_tick_.reset();
        throw;
      }
    }
  }
  in_tick_.reset();
}

void TimeSystem::push_event(const TimeEvent& event) {
  if (events_.size() >= kMaxQueuedEvents) {
    events_.erase(events_.begin());
    ++stats_.dropped_events;
  }
  events_.push_back(event);
}

std::vector<TimeEvent> TimeSystem::take_events() { return std::exchange(events_, {}); }

NetworkTime TimeSystem::predicted_time() const { return in_tick_ ? in_tick_->predicted : timelines_.predicted; }

NetworkTime TimeSystem::interpolation_time() const {
  const NetworkTime t = in_tick_ ? in_tick_->interpolation : timelines_.interpolation;
  return t.is_negative() ? NetworkTime(config_.tick_rate) : t;
}

std::optional<NetworkTime> TimeSystem::server_time() const {
  if (!initialized_) return std::nullopt;
  if (mode_ == Mode::kServer) return predicted_time();
  return provider_->server_time(inputs(*last_now_));
}

std::optional<Duration> TimeSystem::lead() const {
  if (mode_ == Mode::kServer || !initialized_) return std::nullopt;
  const auto server = provider_->server_time(inputs(*last_now_));
  if (!server) return std::nullopt;
  return as_duration(timelines_.predicted - *server);
}

std::optional<Tick> TimeSystem::last_tick() const {
  if (!next_tick_ || stats_.ticks == 0) return std::nullopt;
  return *next_tick_ - 1;
}

}  // namespace tickwire::timesync
