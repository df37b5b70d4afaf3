#pragma once
// The time system: advances network time by the real time handed in and
// runs one callback per tick passed, in order, with that tick's times
// visible during the callback (several in one frame are normal).
//
// Server mode: one timeline from the server's clock at a fixed rate, never
// adjusted (ServerTimeProvider). Client mode: a predicted timeline, ahead
// of the server, whose ticks are the ones the callback runs, and an
// interpolation timeline behind the newest snapshot; a TimeProvider steers
// both from the measurements the runtime feeds in.
//
// Ticks never repeat and never go backwards: after a hard reset back in
// time, no tick runs until the predicted time passes the last one run
// again. A reset forward runs the ticks it passed over (their inputs may
// still arrive in time), up to max_ticks_per_update, skipping the oldest.
// An update that finds more ticks due than max_ticks_per_update without a
// reset (a long frame) runs that many and drops the rest of the elapsed
// time, so a slow frame cannot make the next one slower (no death spiral);
// both are counted.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "tickwire/core/network_time.h"
#include "tickwire/core/tick.h"
#include "tickwire/core/time.h"
#include "tickwire/timesync/client_measurements.h"
#include "tickwire/timesync/time_provider.h"

namespace tickwire::timesync {

struct TimeSystemConfig {
  std::uint32_t tick_rate = 60;
  // Most ticks one update runs: 8 at 60 Hz is a 133 ms frame. Beyond it the
  // simulation slows down rather than falling further behind.
  std::uint32_t max_ticks_per_update = 8;
  // Client mode.
  MeasurementConfig measurements;
};

// What a tick callback sees, and what the time system's accessors return
// while it runs.
struct TickContext {
  Tick tick;
  NetworkTime predicted;      // the tick's own time (its start); the server time on a server
  NetworkTime interpolation;  // the interpolation time that goes with it
  std::uint32_t index = 0;    // position among the ticks of this update
  std::uint32_t count = 0;    // ticks this update runs
};
using TickCallback = std::function<void(const TickContext&)>;

struct UpdateResult {
  std::uint32_t ticks = 0;   // callbacks run
  bool initialized = false;  // this update set the timelines for the first time
  bool hard_reset = false;
  bool capped = false;  // more ticks were due than max_ticks_per_update
  std::uint32_t skipped_ticks = 0;
};

enum class TimeEventType : std::uint8_t { kInitialized, kHardReset, kCapped };

struct TimeEvent {
  TimeEventType type = TimeEventType::kHardReset;
  Time at;
  // kHardReset: how far each timeline jumped beyond its normal advance.
  // kCapped: the time dropped (negative).
  Duration predicted_jump;
  Duration interpolation_jump;
};

struct TimeSystemStats {
  std::uint64_t updates = 0;
  std::uint64_t ticks = 0;
  std::uint64_t hard_resets = 0;
  std::uint64_t capped_updates = 0;
  std::uint64_t skipped_ticks = 0;
  std::uint64_t dropped_events = 0;  // events not taken before the queue filled
};

class TimeSystem {
 public:
  enum class Mode : std::uint8_t { kServer, kClient };
  static constexpr std::size_t kMaxQueuedEvents = 64;

  // A server whose first tick is `start`.
  static TimeSystem server(TimeSystemConfig config, Tick start = Tick(0));
  // A client steered by `provider`. Throws std::invalid_argument for a null
  // provider or an invalid config.
  static TimeSystem client(TimeSystemConfig config, std::unique_ptr<TimeProvider> provider);

  TimeSystem(Mode mode, TimeSystemConfig config, std::unique_ptr<TimeProvider> provider);
  TimeSystem(TimeSystem&&) noexcept = default;
  TimeSystem& operator=(TimeSystem&&) noexcept = default;

  // Client mode: one received snapshot's timing (ignored on a server).
  void on_snapshot(const SnapshotReceipt& receipt);

  // Advances to local time `now` (earlier times count as no time passing)
  // and runs `on_tick` once per tick passed. Calling update from inside the
  // callback throws std::logic_error.
  UpdateResult update(Time now, const TickCallback& on_tick = {});

  Mode mode() const { return mode_; }
  std::uint32_t tick_rate() const { return config_.tick_rate; }
  bool initialized() const { return initialized_; }
  // During a tick callback, that tick's values; otherwise the timelines as of
  // the last update. Before initialization, time zero.
  NetworkTime predicted_time() const;
  // Never negative: early in a match it is held at zero.
  NetworkTime interpolation_time() const;
  // Server: the server time. Client: the provider's estimate of the
  // server's present at the last update, if it has one.
  std::optional<NetworkTime> server_time() const;
  // Client: predicted time minus the estimated server time.
  std::optional<Duration> lead() const;
  // The last tick run, if any.
  std::optional<Tick> last_tick() const;

  const Timelines& timelines() const { return timelines_; }
  // Client mode only; null on a server.
  const ClientMeasurements* measurements() const { return measurements_.get(); }
  const TimeProvider& provider() const { return *provider_; }
  const TimeSystemStats& stats() const { return stats_; }
  // Events since the last call (initialization, hard resets, capped updates).
  std::vector<TimeEvent> take_events();

 private:
  void run_ticks(Time now, bool jumped, UpdateResult& result, const TickCallback& on_tick);
  void push_event(const TimeEvent& event);
  ProviderInputs inputs(Time now) const { return {now, measurements_.get()}; }

  Mode mode_;
  TimeSystemConfig config_;
  std::unique_ptr<TimeProvider> provider_;
  std::unique_ptr<ClientMeasurements> measurements_;
  Timelines timelines_;
  bool initialized_ = false;
  bool in_update_ = false;
  std::optional<Time> last_now_;
  std::optional<Tick> next_tick_;
  std::optional<TickContext> in_tick_;
  std::vector<TimeEvent> events_;
  TimeSystemStats stats_;
};

}  // namespace tickwire::timesync
