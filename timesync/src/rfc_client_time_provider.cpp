#include "tickwire/timesync/rfc_client_time_provider.h"

#include <cmath>
#include <stdexcept>

#include "tickwire/timesync/client_measurements.h"

namespace tickwire::timesync {

namespace {

const ClientMeasurements& measurements_of(const ProviderInputs& in) {
  if (in.client == nullptr) throw std::logic_error("RfcClientTimeProvider needs client measurements");
  return *in.client;
}

Duration ticks(double count, std::uint32_t rate) {
  return Duration::micros(std::llround(count * 1e6 / static_cast<double>(rate)));
}

// FixedTime: the time of the tick the timeline is in, in seconds.
double fixed_seconds(const NetworkTime& t) { return std::floor(t.ticks_f()) / static_cast<double>(t.tick_rate()); }

void advance_by(NetworkTime& t, Duration elapsed, double scale, double& carry_us) {
  const double total = static_cast<double>(elapsed.micros()) * scale + carry_us;
  const double whole = std::floor(total);
  carry_us = total - whole;
  t += Duration::micros(static_cast<std::int64_t>(whole));
}

}  // namespace

RfcClientTimeProvider::RfcClientTimeProvider(RfcClientTimeProviderConfig config) : config_(config) {
  if (config_.hard_reset_threshold <= Duration::zero() || !(config_.adjustment_ratio >= 0.0) ||
      config_.adjustment_ratio >= 1.0) {
    throw std::invalid_argument("RfcClientTimeProviderConfig: threshold must be positive, ratio in [0, 1)");
  }
  if (!(config_.client_buffer_ticks >= 0.0) || !(config_.server_buffer_ticks >= 0.0) ||
      (config_.server_buffer && *config_.server_buffer < Duration::zero())) {
    throw std::invalid_argument("RfcClientTimeProviderConfig: buffers must not be negative");
  }
}

bool RfcClientTimeProvider::ready(const ProviderInputs& in) const {
  const ClientMeasurements& m = measurements_of(in);
  return m.newest().has_value() && m.rtt().has_sample();
}

RfcClientTimeProvider::Targets RfcClientTimeProvider::targets(const ProviderInputs& in) const {
  const ClientMeasurements& m = measurements_of(in);
  const std::uint32_t rate = m.tick_rate();
  const NetworkTime last = m.newest()->sent + (in.now - m.newest()->received);
  const Duration server_buffer =
      config_.server_buffer ? *config_.server_buffer : ticks(config_.server_buffer_ticks, rate);
  return {last - ticks(config_.client_buffer_ticks, rate), last + m.rtt().smoothed() + server_buffer};
}

void RfcClientTimeProvider::initialize(Timelines& t, const ProviderInputs& in) {
  const Targets target = targets(in);
  t.predicted = target.predicted;
  t.interpolation = target.server;
  predicted_scale_ = 1.0;
  server_scale_ = 1.0;
}

Advance RfcClientTimeProvider::advance(Timelines& t, const ProviderInputs& in, Duration elapsed) {
  advance_by(t.predicted, elapsed, predicted_scale_, predicted_carry_us_);
  advance_by(t.interpolation, elapsed, server_scale_, server_carry_us_);

  const Targets target = targets(in);
  const double target_predicted = target.predicted.seconds();
  const double target_server = target.server.seconds();
  const double threshold = config_.hard_reset_threshold.seconds_f();
  predicted_scale_ = 1.0;
  server_scale_ = 1.0;

  const double predicted_error = target_predicted - fixed_seconds(t.predicted);
  const double server_error = target_server - fixed_seconds(t.interpolation);
  if (std::fabs(predicted_error) > threshold || std::fabs(server_error) > threshold) {
    // Always both, "to not break simulation integrity".
    t.predicted = target.predicted;
    t.interpolation = target.server;
    t.predicted_correction = 0;
    t.interpolation_correction = 0;
    return Advance::kHardReset;
  }
  if (!config_.hard_reset_only) {
    const double tolerance = config_.correction_tolerance ? config_.correction_tolerance->seconds_f()
                                                          : 0.5 / static_cast<double>(measurements_of(in).tick_rate());
    if (std::fabs(predicted_error) > tolerance) {
      predicted_scale_ += predicted_error > 0 ? config_.adjustment_ratio : -config_.adjustment_ratio;
    }
    if (std::fabs(server_error) > tolerance) {
      server_scale_ += server_error > 0 ? config_.adjustment_ratio : -config_.adjustment_ratio;
    }
  }
  t.predicted_correction = predicted_scale_ - 1.0;
  t.interpolation_correction = server_scale_ - 1.0;
  return Advance::kSmooth;
}

std::optional<NetworkTime> RfcClientTimeProvider::server_time(const ProviderInputs& in) const {
  // The RFC keeps no estimate of the server's present; the clock article's
  // reading of its inputs is the newest snapshot carried forward plus half
  // the round trip.
  const ClientMeasurements& m = measurements_of(in);
  if (!m.newest() || !m.rtt().has_sample()) return std::nullopt;
  return m.newest()->sent + (in.now - m.newest()->received) + m.rtt().smoothed() / 2;
}

}  // namespace tickwire::timesync
