#pragma once
// One clock sync at connect, then free-running (seed 001): the first
// snapshot that closes a round trip sets the server clock to its send time
// plus RTT / 2, and from then on the local clock alone moves it. The
// predicted timeline runs RTT / 2 plus a slack of 2 ticks ahead of that
// clock and the interpolation timeline RTT / 2 plus 2 ticks behind it, both
// measured once. Nothing is ever corrected, so clock drift and route
// changes go unanswered: that is what it is kept to show.

#include "tickwire/timesync/steering.h"
#include "tickwire/timesync/time_provider.h"

namespace tickwire::timesync {

struct OneShotSyncTimeProviderConfig {
  double slack_ticks = 2.0;
  double interpolation_ticks = 2.0;
};

class OneShotSyncTimeProvider final : public TimeProvider {
 public:
  explicit OneShotSyncTimeProvider(OneShotSyncTimeProviderConfig config = {});

  std::string_view name() const override { return "oneshot"; }
  bool ready(const ProviderInputs& in) const override;
  void initialize(Timelines& t, const ProviderInputs& in) override;
  Advance advance(Timelines& t, const ProviderInputs& in, Duration elapsed) override;
  std::optional<NetworkTime> server_time(const ProviderInputs& in) const override;

 private:
  OneShotSyncTimeProviderConfig config_;
  RateIntegrator predicted_;
  RateIntegrator interpolated_;
};

}  // namespace tickwire::timesync
