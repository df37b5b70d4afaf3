#pragma once
// Moving a timeline toward a target by changing its rate, smoothly: the
// control law shared by the client providers that steer (ours and the fixed
// slack one), and the target filter that keeps noise out of it.
//
// The law is proportional with a dead band: outside the band the rate
// changes by gain x (error - band), within bounds. A timeline that advances
// at a rate proportional to its error is a first-order system: it closes
// on a steady target exponentially and can never overshoot or oscillate.
// The step is also capped at the error, so one long frame cannot carry it
// past. Errors beyond the reset thresholds jump instead (a hard reset).

#include <cstdint>
#include <optional>

#include "tickwire/core/network_time.h"
#include "tickwire/core/time.h"

namespace tickwire::timesync {

struct SteeringConfig {
  // Rate change per second of error: 10 ms behind at 2/s runs 2% fast and
  // halves the error in about a third of a second.
  double gain_per_second = 2.0;
  // Bounds of the rate change. Catching up is allowed to be quicker than
  // slowing down: behind means late inputs, ahead only means latency.
  double max_speedup = 0.10;
  double max_slowdown = 0.05;
  // Errors inside the band leave the rate alone: estimation noise of this
  // size must not reach the time scale. The band is wider on the side where
  // an error is cheap (for the predicted timeline, being ahead: inputs early
  // by a few ms cost little), so that noise around the target does not make
  // the rate swing both ways.
  Duration deadband_behind = Duration::micros(500);
  Duration deadband_ahead = Duration::millis(3);
  // Beyond these the timeline jumps to the target. Behind the urgent target
  // (see Steering::advance) by 10 ms would take 100 ms of late inputs to
  // catch up at the full speed-up; a jump costs a couple of ticks run in one
  // frame. Ahead is harmless, so only far ahead jumps.
  Duration reset_behind = Duration::millis(10);
  Duration reset_ahead = Duration::millis(250);
  // Only jump, never scale (for games whose time must match the local
  // clock, such as rhythm games): the timeline runs at exactly the local
  // rate and resets when the error passes a threshold.
  bool hard_reset_only = false;
};

// Throws std::invalid_argument naming the bad field.
void validate(const SteeringConfig& config);

class Steering {
 public:
  explicit Steering(SteeringConfig config);

  // Moves `timeline` forward by `elapsed` local time at `base_rate` (server
  // seconds per local second), corrected toward `target`. Returns true when
  // it jumped to the target instead. `urgent`, at or below the target, is
  // the part of it that matters now: only falling behind the urgent target
  // by reset_behind jumps; the rest of the way is steered. (Without it, or
  // in hard_reset_only mode, the target itself is urgent.)
  bool advance(NetworkTime& timeline, const NetworkTime& target, Duration elapsed, double base_rate,
               const std::optional<NetworkTime>& urgent = std::nullopt);
  // Rate change applied by the last advance, relative to the base rate.
  double correction() const { return correction_; }
  const SteeringConfig& config() const { return config_; }

 private:
  SteeringConfig config_;
  double correction_ = 0;
  double carry_us_ = 0;  // sub-microsecond remainder, so rounding never drifts
};

// Advances a time by elapsed * rate with the sub-microsecond remainder kept.
class RateIntegrator {
 public:
  Duration step(Duration elapsed, double rate);

 private:
  double carry_us_ = 0;
};

// Fast attack, slow release: a target that rises at once (a lead too small
// makes inputs late now) and falls only after holding, at a bounded rate,
// so a target that wobbles does not make the time scale wobble with it.
struct TargetFilterConfig {
  // Rises smaller than this are ignored.
  Duration rise_hysteresis = Duration::micros(500);
  // A fall starts once the raw target has stayed this far below for
  // release_hold, and then proceeds at release_rate per second down to it.
  Duration fall_hysteresis = Duration::millis(2);
  Duration release_hold = Duration::seconds(5);
  Duration release_rate = Duration::millis(2);
  // A fall larger than this is no wobble but a change (a shorter route, a
  // rare event leaving the estimate's memory): it is held only for
  // large_fall_hold, and released at large_fall_rate per second of the
  // remaining gap (or release_rate, if faster).
  Duration large_fall = Duration::millis(20);
  Duration large_fall_hold = Duration::seconds(2);
  double large_fall_rate = 0.2;
};

class TargetFilter {
 public:
  explicit TargetFilter(TargetFilterConfig config = {});
  Duration update(Time now, Duration raw);
  // Sets the value outright (at start-up, or after the estimate restarted).
  void reset(Time now, Duration value);
  std::optional<Duration> value() const { return value_; }

 private:
  TargetFilterConfig config_;
  std::optional<Duration> value_;
  Time last_update_;
  Time below_since_;
  bool below_ = false;
  bool releasing_ = false;
};

}  // namespace tickwire::timesync
