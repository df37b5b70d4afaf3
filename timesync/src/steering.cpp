#include "tickwire/timesync/steering.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tickwire::timesync {

void validate(const SteeringConfig& c) {
  if (!(c.gain_per_second > 0.0 && c.gain_per_second <= 100.0)) {
    throw std::invalid_argument("SteeringConfig: gain_per_second must be in (0, 100]");
  }
  if (!(c.max_speedup >= 0.0 && c.max_speedup <= 1.0)) {
    throw std::invalid_argument("SteeringConfig: max_speedup must be in [0, 1]");
  }
  if (!(c.max_slowdown >= 0.0 && c.max_slowdown < 1.0)) {
    throw std::invalid_argument("SteeringConfig: max_slowdown must be in [0, 1)");
  }
  if (c.deadband_behind < Duration::zero() || c.deadband_ahead < Duration::zero()) {
    throw std::invalid_argument("SteeringConfig: dead bands must not be negative");
  }
  if (c.reset_behind <= c.deadband_behind || c.reset_ahead <= c.deadband_ahead) {
    throw std::invalid_argument("SteeringConfig: reset thresholds must exceed the deadband");
  }
}

Steering::Steering(SteeringConfig config) : config_(config) { validate(config_); }

bool Steering::advance(NetworkTime& timeline, const NetworkTime& target, Duration elapsed, double base_rate,
                       const std::optional<NetworkTime>& urgent) {
  if (elapsed < Duration::zero()) elapsed = Duration::zero();
  const double rate = config_.hard_reset_only ? 1.0 : base_rate;
  const double base_us = static_cast<double>(elapsed.micros()) * rate;
  const double per_unit = 1.0 / static_cast<double>(timeline.tick_rate());
  const double error = static_cast<double>((target - timeline).units()) * per_unit - base_us;
  const double urgent_error =
      urgent && !config_.hard_reset_only
          ? std::min(error, static_cast<double>((*urgent - timeline).units()) * per_unit - base_us)
          : error;

  correction_ = 0;
  if (urgent_error > static_cast<double>(config_.reset_behind.micros()) ||
      error < -static_cast<double>(config_.reset_ahead.micros())) {
    timeline = target;
    carry_us_ = 0;
    return true;
  }

  double extra_us = 0;
  const Duration band = error > 0 ? config_.deadband_behind : config_.deadband_ahead;
  const double outside = std::fabs(error) - static_cast<double>(band.micros());
  if (!config_.hard_reset_only && outside > 0) {
    const double wanted = config_.gain_per_second * outside / 1e6;
    const double c = error > 0 ? std::min(wanted, config_.max_speedup) : -std::min(wanted, config_.max_slowdown);
    // Never past the edge of the band in one step, however long the frame.
    extra_us = std::clamp(base_us * c, -outside, outside);
    correction_ = base_us > 0 ? extra_us / base_us : 0.0;
  }
  const double total = base_us + extra_us + carry_us_;
  const double whole = std::floor(total);
  carry_us_ = total - whole;
  timeline += Duration::micros(static_cast<std::int64_t>(whole));
  return false;
}

Duration RateIntegrator::step(Duration elapsed, double rate) {
  const double total = static_cast<double>(elapsed.micros()) * rate + carry_us_;
  const double whole = std::floor(total);
  carry_us_ = total - whole;
  return Duration::micros(static_cast<std::int64_t>(whole));
}

TargetFilter::TargetFilter(TargetFilterConfig config) : config_(config) {
  if (config_.rise_hysteresis < Duration::zero() || config_.fall_hysteresis < Duration::zero() ||
      config_.release_hold < Duration::zero() || config_.release_rate <= Duration::zero() ||
      config_.large_fall < config_.fall_hysteresis || config_.large_fall_hold < Duration::zero() ||
      !(config_.large_fall_rate >= 0.0 && config_.large_fall_rate <= 100.0)) {
    throw std::invalid_argument(
        "TargetFilterConfig: hysteresis and holds must not be negative, rates positive, large_fall above the "
        "fall hysteresis");
  }
}

void TargetFilter::reset(Time now, Duration value) {
  value_ = value;
  last_update_ = now;
  below_ = false;
  releasing_ = false;
}

Duration TargetFilter::update(Time now, Duration raw) {
  if (!value_) {
    reset(now, raw);
    return raw;
  }
  Duration dt = std::max(now - last_update_, Duration::zero());
  last_update_ = now;
  if (raw > *value_ + config_.rise_hysteresis) {
    reset(now, raw);
    return raw;
  }
  if (raw >= *value_) {
    below_ = false;
    releasing_ = false;
    return *value_;
  }
  if (!releasing_) {
    if (raw >= *value_ - config_.fall_hysteresis) {
      below_ = false;
      return *value_;
    }
    if (!below_) {
      below_ = true;
      below_since_ = now;
    }
    const Duration hold = *value_ - raw > config_.large_fall ? config_.large_fall_hold : config_.release_hold;
    if (now - below_since_ < hold) return *value_;
    releasing_ = true;
    dt = std::max(now - (below_since_ + hold), Duration::zero());  // the release counts from the end of the hold
  }
  const double gap = static_cast<double>((*value_ - raw).micros());
  double rate = static_cast<double>(config_.release_rate.micros());
  if (gap > static_cast<double>(config_.large_fall.micros())) rate = std::max(rate, config_.large_fall_rate * gap);
  const auto step = Duration::micros(std::llround(std::min(gap, rate * dt.seconds_f())));
  value_ = std::max(raw, *value_ - step);
  if (*value_ == raw) {
    releasing_ = false;
    below_ = false;
  }
  return *value_;
}

}  // namespace tickwire::timesync
