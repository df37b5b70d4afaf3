#pragma once
// Netcode for Entities' NetworkTimeSystem (com.unity.netcode 1.x), kept to
// measure ours against. Its control loop, constants and integer rounding are
// reproduced as its source has them; docs/time.md ("Netcode for Entities")
// lists what could not be.
//
// The server reports a command age (N4eCommandAge): each tick, the tick it
// is about to simulate minus the newest command tick it has received,
// averaged 7/8 old + 1/8 new in 1/256 tick. It is negative while commands
// arrive early. The client steers its predicted tick so that the age sits at
// -TargetCommandSlack: the time scale is 1 + CommandAgeCorrectionFraction x
// (age + slack), within [PredictionTimeScaleMin, PredictionTimeScaleMax],
// after taking off the corrections it already made within the last round
// trip (the feedback is that old). An age 10 ticks or more off falls back to
// the round-trip estimate (latest snapshot + RTT + slack) and jumps when that
// is 10 ticks away.
//
// The interpolation tick follows the tick of the snapshot expected to arrive
// now (latestSnapshotEstimate, an average of received snapshot ticks against
// a local count) minus a delay of InterpolationTimeNetTicks snapshot
// intervals, or the measured snapshot spacing plus 1.25 of its deviation if
// larger (at most 6 intervals); the delay moves by at most 10% of the
// elapsed ticks per frame, and the tick follows its target at a time scale
// of 1 + 0.1 x error within [0.85, 1.1], jumping when 10 ticks behind.
//
// The command age is not part of the shipped snapshot block: the runtime
// that uses this provider feeds it in with on_command_age, as Netcode for
// Entities' snapshot header carries it. bench/timesync does. The client
// runtime, whose server sends arrival margins instead, sets
// command_age_from_margins: the provider then derives the age from the
// margins (N4eCommandAgeFromMargins).

#include <array>
#include <cstdint>
#include <optional>

#include "tickwire/core/tick.h"
#include "tickwire/timesync/snapshot_timing.h"
#include "tickwire/timesync/time_provider.h"

namespace tickwire::timesync {

// ClientTickRate's fields that NetworkTimeSystem reads, with
// NetworkTimeSystem.DefaultClientTickRate's values.
struct N4eTimeProviderConfig {
  // ClientServerTickRate.NetworkTickRate: snapshots per second. 0 means one
  // per tick (its default).
  std::uint32_t network_tick_rate = 0;
  std::uint32_t target_command_slack = 2;
  double command_age_correction_fraction = 0.1;
  double prediction_time_scale_min = 0.9;
  double prediction_time_scale_max = 1.1;
  // The interpolation buffer in snapshot intervals, or in ms when
  // interpolation_time_ms is not 0.
  std::uint32_t interpolation_time_net_ticks = 2;
  std::uint32_t interpolation_time_ms = 0;
  double interpolation_delay_jitter_scale = 1.25;
  double interpolation_delay_max_delta_ticks_fraction = 0.1;
  double interpolation_delay_correction_fraction = 0.1;
  double interpolation_time_scale_min = 0.85;
  double interpolation_time_scale_max = 1.1;
  // Beyond this round trip the client stops predicting further ahead and
  // delays its inputs instead.
  std::uint32_t max_predict_ahead_time_ms = 500;
  std::uint32_t forced_input_latency_ticks = 0;
  // Not Netcode for Entities': take the command age from the arrival
  // margins every snapshot's time block carries (N4eCommandAgeFromMargins),
  // for a server that does not send the age. on_command_age then does
  // nothing.
  bool command_age_from_margins = false;
};

// Throws std::invalid_argument naming the field, for the ranges
// NetworkTimeSystem's own validation reports.
void validate(const N4eTimeProviderConfig& config);

// The server's side: NetworkSnapshotAck.ServerCommandAge for one client.
class N4eCommandAge {
 public:
  // A command packet arrived whose newest command is for `newest`; older
  // packets than the newest seen are ignored, as the server discards them.
  void on_input(Tick newest);
  // The server received this tick's commands and is about to simulate it.
  void on_tick(Tick tick);
  // In 1/256 tick: negative when commands arrive ahead of their tick.
  std::int32_t value() const { return static_cast<std::int32_t>(age_); }

 private:
  std::optional<Tick> newest_;
  std::int64_t age_ = 0;  // int in the original; wider so no input can overflow it
};

// N4eCommandAge as the client can rebuild it from the server's arrival
// reports (InputFeedback::Lead), for a server that sends margins rather
// than the age. An input that arrived m ticks before its tick was, until
// its tick ran, the newest command about floor(m) ticks ahead of the
// server: an age of -floor(m). An input the server ran without is an age
// of at least +1. Each input a report covers is one step of the same 7/8
// average in 1/256 tick (about one per server tick, as the original's);
// of a report too long to list every margin, those not listed are taken
// at the worst. What the rebuild cannot see: the original averages every
// tick, also while nothing arrives, so a stall shows in it at once; here
// it shows when the late inputs are reported or counted missed.
class N4eCommandAgeFromMargins {
 public:
  // At most this many steps per report: older steps are forgotten by then
  // (7/8 to that power), and a hostile count costs no more.
  static constexpr std::uint64_t kMaxSteps = 64;

  // One snapshot's report (null when it listed no arrival) and the inputs
  // it says the server ran without since the previous one.
  void on_report(const InputFeedback::Lead* arrivals, std::uint64_t newly_missed);
  // In 1/256 tick, as N4eCommandAge::value.
  std::int32_t value() const { return static_cast<std::int32_t>(age_); }

 private:
  void step(std::int64_t age_units);

  std::int64_t age_ = 0;
};

class N4eTimeProvider final : public TimeProvider {
 public:
  static constexpr std::size_t kCommandAgeAdjustmentLength = 64;

  // Throws std::invalid_argument for an invalid config.
  explicit N4eTimeProvider(N4eTimeProviderConfig config = {});

  std::string_view name() const override { return "n4e"; }
  bool ready(const ProviderInputs& in) const override;
  void initialize(Timelines& t, const ProviderInputs& in) override;
  Advance advance(Timelines& t, const ProviderInputs& in, Duration elapsed) override;
  // Netcode for Entities keeps no estimate of the server's present; this is
  // the snapshot tick it expects now plus half its round trip.
  std::optional<NetworkTime> server_time(const ProviderInputs& in) const override;
  void on_snapshot(const ProviderInputs& in, const SnapshotObservation& obs) override;

  // The server's command age as the newest snapshot reported it, in 1/256
  // tick (N4eCommandAge::value). Ignored with command_age_from_margins.
  void on_command_age(std::int32_t units) {
    if (!config_.command_age_from_margins) server_command_age_ = units;
  }
  std::int32_t command_age() const { return server_command_age_; }

  double estimated_rtt_ms() const { return estimated_rtt_ms_; }
  double interpolation_frames() const { return current_interpolation_frames_; }

 private:
  struct Shape {
    std::uint32_t rate = 0;
    std::int64_t rtt_in_ticks = 0;
    std::int64_t predict_ahead_ticks = 0;
    std::int64_t send_interval_ticks = 1;
    std::int64_t interpolation_time_ticks = 0;
  };
  Shape shape(std::uint32_t tick_rate);
  void update_with_last_snapshot(std::int64_t now_ms, std::int64_t snapshot_tick);
  double adjust_command_age(double command_age, std::int64_t rtt_in_ticks);
  bool advance_interpolation(const Shape& s, double delta_ticks, double delta_seconds);
  void write(Timelines& t) const;

  N4eTimeProviderConfig config_;
  // NetworkSnapshotAck, the client's side.
  bool has_rtt_ = false;
  double estimated_rtt_ms_ = 0;
  double deviation_rtt_ms_ = 0;
  std::int32_t server_command_age_ = 0;
  N4eCommandAgeFromMargins age_from_margins_;
  // NetworkTimeSystemData.
  std::int64_t interpolate_target_tick_ = 0;
  double sub_interpolate_target_tick_ = 0;
  std::int64_t predict_target_tick_ = 0;
  double sub_predict_target_tick_ = 0;
  std::int64_t effective_forced_input_latency_ticks_ = 0;
  double current_interpolation_frames_ = 0;
  std::int64_t latest_snapshot_ = 0;
  std::int64_t latest_snapshot_estimate_ = 0;
  std::int64_t latest_snapshot_age_ = 0;  // 1/256 tick; int in the original
  double avg_delta_sim_ticks_ = 0;
  double dev_delta_sim_ticks_ = 0;
  std::int64_t last_timestamp_ms_ = 0;
  double avg_packet_inter_arrival_ms_ = 0;
  double interpolation_time_scale_ = 1.0;
  // NetworkTimeSystem's own state.
  std::array<double, kCommandAgeAdjustmentLength> command_age_adjustment_{};
  std::size_t command_age_adjustment_slot_ = 0;
};

}  // namespace tickwire::timesync
