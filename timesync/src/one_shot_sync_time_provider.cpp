#include "tickwire/timesync/one_shot_sync_time_provider.h"

#include <cmath>
#include <stdexcept>

#include "tickwire/timesync/client_measurements.h"

namespace tickwire::timesync {

namespace {

const ClientMeasurements& measurements_of(const ProviderInputs& in) {
  if (in.client == nullptr) throw std::logic_error("OneShotSyncTimeProvider needs client measurements");
  return *in.client;
}

Duration ticks(double count, std::uint32_t rate) {
  return Duration::micros(std::llround(count * 1e6 / static_cast<double>(rate)));
}

}  // namespace

OneShotSyncTimeProvider::OneShotSyncTimeProvider(OneShotSyncTimeProviderConfig config) : config_(config) {
  if (!(config_.slack_ticks >= 0.0) || !(config_.interpolation_ticks >= 0.0)) {
    throw std::invalid_argument("OneShotSyncTimeProviderConfig: slack and interpolation ticks must not be negative");
  }
}

bool OneShotSyncTimeProvider::ready(const ProviderInputs& in) const {
  return measurements_of(in).first_sync().has_value();
}

std::optional<NetworkTime> OneShotSyncTimeProvider::server_time(const ProviderInputs& in) const {
  const auto& sync = measurements_of(in).first_sync();
  if (!sync) return std::nullopt;
  return sync->sent + sync->rtt / 2 + (in.now - sync->received);
}

void OneShotSyncTimeProvider::initialize(Timelines& t, const ProviderInputs& in) {
  const ClientMeasurements& m = measurements_of(in);
  const auto& sync = *m.first_sync();
  const NetworkTime server = *server_time(in);
  t.predicted = server + sync.rtt / 2 + ticks(config_.slack_ticks, m.tick_rate());
  t.interpolation = server - sync.rtt / 2 - ticks(config_.interpolation_ticks, m.tick_rate());
}

Advance OneShotSyncTimeProvider::advance(Timelines& t, const ProviderInputs& /*in*/, Duration elapsed) {
  t.predicted += predicted_.step(elapsed, 1.0);
  t.interpolation += interpolated_.step(elapsed, 1.0);
  t.predicted_correction = 0;
  t.interpolation_correction = 0;
  return Advance::kSmooth;
}

}  // namespace tickwire::timesync
