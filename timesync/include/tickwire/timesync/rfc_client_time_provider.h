#pragma once
// The time RFC's ClientNetworkTimeProvider, as written (seed 002), kept to
// measure ours against:
//   1. advance both timelines by delta time x their time scale;
//   2. targetServer    = lastReceivedSnapshotTime - TargetClientBufferTime (1 tick)
//      targetPredicted = lastReceivedSnapshotTime + RTT + TargetServerBufferTime (2 ticks);
//   3. if either timeline's FixedTime is off its target by more than the
//      hard-reset threshold, set both to their targets (a hard correction);
//   4. else each time scale is 1, plus or minus the adjustment ratio when its
//      FixedTime is off by more than the correction tolerance.
// The RFC names its constants without values. The threshold and ratio are
// those Unity shipped with this design (0.2 s and 0.01); the tolerance is
// half a tick, the smallest that does not chase FixedTime's rounding down
// to the tick. "lastReceivedSnapshotTime" is the newest snapshot's server
// time carried forward by local time since it arrived, as Unity's
// implementation does; RTT is the transport-style smoothed mean.

#include "tickwire/timesync/time_provider.h"

namespace tickwire::timesync {

// Netcode for GameObjects' k_DefaultBufferSizeSec, the value its
// NetworkManager passes as the server buffer.
inline constexpr Duration kNgoServerBuffer = Duration::millis(50);

struct RfcClientTimeProviderConfig {
  Duration hard_reset_threshold = Duration::millis(200);
  double adjustment_ratio = 0.01;
  // Empty: half a tick.
  std::optional<Duration> correction_tolerance;
  double client_buffer_ticks = 1.0;  // TargetClientBufferTime = 1 / tickrate
  double server_buffer_ticks = 2.0;  // TargetServerBufferTime = 2 / tickrate
  // When set, TargetServerBufferTime in time rather than ticks, replacing
  // server_buffer_ticks. Netcode for GameObjects, which shipped this
  // design, defaults its server buffer to 50 ms (kNgoServerBuffer).
  std::optional<Duration> server_buffer;
  // The RFC's mode for rhythm games: hard resets only, no catch-up.
  bool hard_reset_only = false;
};

class RfcClientTimeProvider final : public TimeProvider {
 public:
  explicit RfcClientTimeProvider(RfcClientTimeProviderConfig config = {});

  std::string_view name() const override { return "rfc"; }
  bool ready(const ProviderInputs& in) const override;
  void initialize(Timelines& t, const ProviderInputs& in) override;
  Advance advance(Timelines& t, const ProviderInputs& in, Duration elapsed) override;
  std::optional<NetworkTime> server_time(const ProviderInputs& in) const override;

 private:
  struct Targets {
    NetworkTime server;
    NetworkTime predicted;
  };
  Targets targets(const ProviderInputs& in) const;

  RfcClientTimeProviderConfig config_;
  double predicted_scale_ = 1.0;
  double server_scale_ = 1.0;
  double predicted_carry_us_ = 0;
  double server_carry_us_ = 0;
};

}  // namespace tickwire::timesync
