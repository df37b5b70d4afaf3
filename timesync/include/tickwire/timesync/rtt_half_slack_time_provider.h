#pragma once
// Half the round trip plus a fixed command slack (seed 003, a simplified
// reading of Netcode for Entities' targets; the faithful reproduction of its
// control loop is N4eTimeProvider): the client estimates the server's present
// as the newest snapshot carried forward plus RTT / 2, and predicts RTT / 2
// plus a slack of 2 ticks ahead of it. Remote entities are shown a fixed 2
// ticks behind the newest snapshot. Both timelines follow their targets with
// the same smooth steering as ours (steering.h), so a comparison with ours
// isolates the choice of targets. Having no separate urgent target, it jumps
// when 30 ms behind its target rather than ours' 10 ms behind the level of
// need.

#include "tickwire/timesync/steering.h"
#include "tickwire/timesync/time_provider.h"

namespace tickwire::timesync {

inline SteeringConfig default_rtt_half_slack_steering() {
  SteeringConfig c;
  c.reset_behind = Duration::millis(30);
  return c;
}

struct RttHalfSlackTimeProviderConfig {
  double slack_ticks = 2.0;
  double interpolation_ticks = 2.0;
  SteeringConfig predicted_steering = default_rtt_half_slack_steering();
  SteeringConfig interpolation_steering = default_rtt_half_slack_steering();
};

class RttHalfSlackTimeProvider final : public TimeProvider {
 public:
  explicit RttHalfSlackTimeProvider(RttHalfSlackTimeProviderConfig config = {});

  std::string_view name() const override { return "rtt_half_slack"; }
  bool ready(const ProviderInputs& in) const override;
  void initialize(Timelines& t, const ProviderInputs& in) override;
  Advance advance(Timelines& t, const ProviderInputs& in, Duration elapsed) override;
  std::optional<NetworkTime> server_time(const ProviderInputs& in) const override;

 private:
  NetworkTime predicted_target(const ProviderInputs& in) const;
  NetworkTime interpolation_target(const ProviderInputs& in) const;

  RttHalfSlackTimeProviderConfig config_;
  Steering predicted_;
  Steering interpolated_;
};

}  // namespace tickwire::timesync
