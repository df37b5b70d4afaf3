#include "tickwire/timesync/rtt_estimator.h"

#include <cmath>
#include <stdexcept>

namespace tickwire::timesync {

namespace {
// Ten slices: the window's edge is exact to a tenth of it.
constexpr std::size_t kMinSlices = 10;

RttEstimatorConfig checked(RttEstimatorConfig c) {
  if (c.min_window <= Duration::zero()) throw std::invalid_argument("RttEstimatorConfig: min_window must be positive");
  if (c.max_rtt <= Duration::zero()) throw std::invalid_argument("RttEstimatorConfig: max_rtt must be positive");
  return c;
}
}  // namespace

RttEstimator::RttEstimator(RttEstimatorConfig config)
    : config_(checked(config)), window_(config_.min_window, kMinSlices) {}

bool RttEstimator::add(Time now, Duration rtt) {
  if (rtt < Duration::zero() || rtt > config_.max_rtt) {
    ++rejected_;
    return false;
  }
  const auto us = static_cast<double>(rtt.micros());
  if (samples_ == 0) {
    smoothed_us_ = us;
    deviation_us_ = us / 2.0;
  } else {
    // RFC 6298 order: the deviation is measured against the old mean.
    deviation_us_ += (std::fabs(smoothed_us_ - us) - deviation_us_) / 4.0;
    smoothed_us_ += (us - smoothed_us_) / 8.0;
  }
  window_.add(now, rtt.micros());
  last_add_ = now;
  latest_ = rtt;
  ++samples_;
  return true;
}

Duration RttEstimator::min() const {
  const auto m = window_.min(last_add_);
  return m ? Duration::micros(*m) : latest_;
}

Duration RttEstimator::smoothed() const { return Duration::micros(std::llround(smoothed_us_)); }
Duration RttEstimator::deviation() const { return Duration::micros(std::llround(deviation_us_)); }

void RttEstimator::clear() {
  window_.clear();
  latest_ = Duration::zero();
  smoothed_us_ = 0.0;
  deviation_us_ = 0.0;
  samples_ = 0;
}

}  // namespace tickwire::timesync
