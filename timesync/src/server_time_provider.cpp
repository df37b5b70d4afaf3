#include "tickwire/timesync/server_time_provider.h"

namespace tickwire::timesync {

ServerTimeProvider::ServerTimeProvider(std::uint32_t tick_rate, Tick start)
    : rate_(NetworkTime(tick_rate).tick_rate()), start_(start) {}

void ServerTimeProvider::initialize(Timelines& t, const ProviderInputs& /*in*/) {
  t.predicted = NetworkTime::from_tick(rate_, start_);
  t.interpolation = t.predicted;
  now_ = t.predicted;
}

Advance ServerTimeProvider::advance(Timelines& t, const ProviderInputs& /*in*/, Duration elapsed) {
  // Whole microseconds in, exact units out: no rounding to drift on.
  t.predicted += elapsed;
  t.interpolation = t.predicted;
  t.predicted_correction = 0;
  t.interpolation_correction = 0;
  now_ = t.predicted;
  return Advance::kSmooth;
}

std::optional<NetworkTime> ServerTimeProvider::server_time(const ProviderInputs& /*in*/) const { return now_; }

}  // namespace tickwire::timesync
