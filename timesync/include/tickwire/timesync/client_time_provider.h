#pragma once
// Our client provider. Both timelines are steered relative to the estimated
// server time (clock_estimator.h), whose drift estimate sets their base
// rate:
//   predicted     = server time + lead   (lead from the server's feedback on
//                                          when our inputs arrive, lead_estimator.h)
//   interpolation = server time - delay  (delay from when snapshots arrive,
//                                          interpolation_estimator.h)
// Each target passes a fast-attack, slow-release filter, and each timeline
// follows its target by a bounded, proportional change of rate with a dead
// band, or jumps when far off (steering.h). Before the server has reported
// on any input, the lead starts from the round trip with a generous margin.
// See docs/time.md for the whole loop and every setting.

#include "tickwire/timesync/interpolation_estimator.h"
#include "tickwire/timesync/lead_estimator.h"
#include "tickwire/timesync/recurring_rises.h"
#include "tickwire/timesync/steering.h"
#include "tickwire/timesync/time_provider.h"

namespace tickwire::timesync {

// Remote entities: a jump of the interpolation time is visible either way,
// so only large errors jump, and catching up is no more urgent than
// falling back. Here the costly side is ahead (outrunning the snapshots),
// so the narrow band is there.
inline SteeringConfig default_interpolation_steering() {
  SteeringConfig c;
  c.max_speedup = 0.05;
  c.deadband_behind = Duration::millis(3);
  c.deadband_ahead = Duration::micros(500);
  c.reset_behind = Duration::millis(250);
  return c;
}

// Targets rise at once by anything over half a millisecond, and fall only
// after ten seconds of being 2 ms too high, by a millisecond a second. A high
// quantile must fall between the rare samples that raise it, so every rise is
// followed by a fall: holding long and falling slowly keeps those cycles
// (each one a change of sign of the time scale) to well under one a minute,
// and a lead or buffer that shrinks over tens of seconds costs nothing anyone
// sees. A fall of more than 20 ms (a shorter route) is a change, not a
// wobble: it is followed after a second, by the whole gap a second (the
// steering bounds how fast the timeline moves).
inline TargetFilterConfig default_target_filter() {
  TargetFilterConfig c;
  c.rise_hysteresis = Duration::micros(500);
  c.fall_hysteresis = Duration::millis(2);
  c.release_hold = Duration::seconds(10);
  c.release_rate = Duration::millis(1);
  c.large_fall_hold = Duration::seconds(1);
  c.large_fall_rate = 1.0;
  return c;
}

enum class ClientTimeMode : std::uint8_t {
  kSmooth,         // scale time toward the targets, jump only when far off
  kHardResetOnly,  // never scale time: run at the local clock's rate, jump when off
};

struct ClientTimeProviderConfig {
  ClientTimeMode mode = ClientTimeMode::kSmooth;
  LeadEstimatorConfig lead;
  InterpolationEstimatorConfig interpolation;
  // Added to the estimated requirements: room for what the estimates cannot
  // see coming (a frame that runs long, a slightly worse minute).
  Duration lead_safety = Duration::millis(1);
  Duration delay_safety = Duration::millis(1);
  // Before any feedback: lead = RTT / 2 + 4 x RTT deviation (once 8 round
  // trips back it) + this. A tick covers the frame the input waits for and
  // then some; feedback trims it.
  Duration initial_lead_margin = Duration::millis(17);
  // Before enough arrivals: delay = 2 x RTT deviation + this, two snapshot
  // intervals at 60 Hz.
  Duration initial_delay = Duration::millis(34);
  // Off for a client that shows no remote entities (a thin bot): the
  // interpolation delay is then never measured and stays at the initial
  // one, and the client spares the estimator's search (about a tenth of a
  // thin bot's CPU).
  bool measure_interpolation = true;
  // Holds the lead at the level its large rises keep returning to, when
  // following it down costs more in late inputs than the hold in latency
  // (recurring_rises.h; weighed at lead.late_event_cost).
  RecurringRisesConfig recurring_rises;
  TargetFilterConfig lead_filter = default_target_filter();
  TargetFilterConfig delay_filter = default_target_filter();
  SteeringConfig predicted_steering;
  SteeringConfig interpolation_steering = default_interpolation_steering();
};

class ClientTimeProvider final : public TimeProvider {
 public:
  // Throws std::invalid_argument for an unusable config.
  explicit ClientTimeProvider(ClientTimeProviderConfig config = {});

  std::string_view name() const override { return "adaptive"; }
  bool ready(const ProviderInputs& in) const override;
  void initialize(Timelines& t, const ProviderInputs& in) override;
  Advance advance(Timelines& t, const ProviderInputs& in, Duration elapsed) override;
  std::optional<NetworkTime> server_time(const ProviderInputs& in) const override;
  void on_snapshot(const ProviderInputs& in, const SnapshotObservation& obs) override;

  // The targets as filtered, for statistics.
  std::optional<Duration> target_lead() const { return lead_filter_.value(); }
  std::optional<Duration> target_delay() const { return delay_filter_.value(); }
  // True while the lead is held up for rises that keep coming back.
  bool lead_held() const { return holding_; }

 private:
  Duration raw_lead(const ClientMeasurements& m) const;
  Duration raw_delay(const ClientMeasurements& m) const;
  void forget_if_clock_stepped(const ClientMeasurements& m);

  ClientTimeProviderConfig config_;
  LeadEstimator lead_;
  InterpolationEstimator interpolation_;
  RecurringRises rises_;
  TargetFilter lead_filter_;
  TargetFilter delay_filter_;
  Steering predicted_;
  Steering interpolated_;
  std::uint64_t clock_steps_seen_ = 0;
  bool lead_learning_ = true;
  bool holding_ = false;
};

}  // namespace tickwire::timesync
