#include "tickwire/timesync/rtt_half_slack_time_provider.h"

#include <cmath>
#include <stdexcept>

#include "tickwire/timesync/client_measurements.h"

namespace tickwire::timesync {

namespace {

const ClientMeasurements& measurements_of(const ProviderInputs& in) {
  if (in.client == nullptr) throw std::logic_error("RttHalfSlackTimeProvider needs client measurements");
  return *in.client;
}

Duration ticks(double count, std::uint32_t rate) {
  return Duration::micros(std::llround(count * 1e6 / static_cast<double>(rate)));
}

}  // namespace

RttHalfSlackTimeProvider::RttHalfSlackTimeProvider(RttHalfSlackTimeProviderConfig config)
    : config_(config), predicted_(config.predicted_steering), interpolated_(config.interpolation_steering) {
  if (!(config_.slack_ticks >= 0.0) || !(config_.interpolation_ticks >= 0.0)) {
    throw std::invalid_argument("RttHalfSlackTimeProviderConfig: slack and interpolation ticks must not be negative");
  }
}

bool RttHalfSlackTimeProvider::ready(const ProviderInputs& in) const {
  const ClientMeasurements& m = measurements_of(in);
  return m.newest().has_value() && m.rtt().has_sample();
}

std::optional<NetworkTime> RttHalfSlackTimeProvider::server_time(const ProviderInputs& in) const {
  const ClientMeasurements& m = measurements_of(in);
  if (!m.newest() || !m.rtt().has_sample()) return std::nullopt;
  return m.newest()->sent + (in.now - m.newest()->received) + m.rtt().smoothed() / 2;
}

NetworkTime RttHalfSlackTimeProvider::predicted_target(const ProviderInputs& in) const {
  const ClientMeasurements& m = measurements_of(in);
  return *server_time(in) + m.rtt().smoothed() / 2 + ticks(config_.slack_ticks, m.tick_rate());
}

NetworkTime RttHalfSlackTimeProvider::interpolation_target(const ProviderInputs& in) const {
  const ClientMeasurements& m = measurements_of(in);
  return m.newest()->sent + (in.now - m.newest()->received) - ticks(config_.interpolation_ticks, m.tick_rate());
}

void RttHalfSlackTimeProvider::initialize(Timelines& t, const ProviderInputs& in) {
  t.predicted = predicted_target(in);
  t.interpolation = interpolation_target(in);
}

Advance RttHalfSlackTimeProvider::advance(Timelines& t, const ProviderInputs& in, Duration elapsed) {
  bool reset = predicted_.advance(t.predicted, predicted_target(in), elapsed, 1.0);
  reset = interpolated_.advance(t.interpolation, interpolation_target(in), elapsed, 1.0) || reset;
  t.predicted_correction = predicted_.correction();
  t.interpolation_correction = interpolated_.correction();
  return reset ? Advance::kHardReset : Advance::kSmooth;
}

}  // namespace tickwire::timesync
