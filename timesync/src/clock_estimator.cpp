#include "tickwire/timesync/clock_estimator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace tickwire::timesync {

namespace {

ClockEstimatorConfig checked(ClockEstimatorConfig c) {
  if (c.slice <= Duration::zero()) throw std::invalid_argument("ClockEstimatorConfig: slice must be positive");
  if (c.slices < 2 || c.drift_slices < c.slices) {
    throw std::invalid_argument("ClockEstimatorConfig: slices must be at least 2, drift_slices at least slices");
  }
  if (!(c.max_drift >= 0.0 && c.max_drift < 0.1)) {
    throw std::invalid_argument("ClockEstimatorConfig: max_drift must be in [0, 0.1)");
  }
  if (c.quality_floor <= Duration::zero()) {
    throw std::invalid_argument("ClockEstimatorConfig: quality_floor must be positive");
  }
  if (c.step_samples == 0) throw std::invalid_argument("ClockEstimatorConfig: step_samples must be at least 1");
  if (c.max_rtt <= Duration::zero()) throw std::invalid_argument("ClockEstimatorConfig: max_rtt must be positive");
  if (c.slew_time <= Duration::zero() || !(c.max_slew >= 0.0 && c.max_slew < 0.1)) {
    throw std::invalid_argument("ClockEstimatorConfig: slew_time must be positive, max_slew in [0, 0.1)");
  }
  return c;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

ClockEstimator::ClockEstimator(std::uint32_t tick_rate, ClockEstimatorConfig config)
    : rate_(NetworkTime(tick_rate).tick_rate()), config_(checked(config)) {}

bool ClockEstimator::add(Time received, const NetworkTime& sent, Duration rtt) {
  if (rtt < Duration::zero() || rtt > config_.max_rtt || sent.tick_rate() != rate_ ||
      (last_received_ && received < *last_received_)) {
    ++rejected_;
    return false;
  }
  last_received_ = received;
  if (!ref_local_) {
    restart(received, sent, rtt);
    ++accepted_;
    return true;
  }

  const double x = static_cast<double>((received - *ref_local_).micros());
  const double server_us = static_cast<double>((sent - *ref_server_).units()) / static_cast<double>(rate_);
  const double rtt_us = static_cast<double>(rtt.micros());
  const double y = server_us + rtt_us / 2.0 - ref_half_rtt_us_ - x;

  // A sample sits off the true offset by at most half its queueing, and the
  // fit by at most half of its best sample's. So half the difference of the
  // two round trips bounds an honest disagreement; a sample further off than
  // that (and the tolerance) is a step of the server clock or hostile.
  const double allowed = std::fabs(rtt_us - floor_us_) / 2.0 + static_cast<double>(config_.step_tolerance.micros());
  if (std::fabs(y - offset_at(x)) > allowed) {
    if (++inconsistent_run_ >= config_.step_samples) {
      ++steps_;
      restart(received, sent, rtt);
      ++accepted_;
      return true;
    }
    ++rejected_;
    return false;
  }
  inconsistent_run_ = 0;

  // The fit is a function of the points alone: most samples (several a
  // slice) leave them as they were, and then it stands.
  const std::int64_t slice = floor_div(static_cast<std::int64_t>(x), config_.slice.micros());
  if (slice > points_.back().slice) {
    points_.push_back(Point{slice, x, y, rtt_us});
    if (points_.size() > config_.drift_slices) points_.pop_front();
    refit();
  } else if (slice == points_.back().slice && rtt_us < points_.back().rtt_us) {
    points_.back() = Point{slice, x, y, rtt_us};
    refit();
  }
  slew(x);
  ++accepted_;
  return true;
}

void ClockEstimator::slew(double x_us) {
  const double fitted = offset_at(x_us);
  if (points_.size() <= config_.free_slices) {
    out_x_ = x_us;
    out_y_ = fitted;
    out_rate_ = slope_;
    return;
  }
  // Continue from where the slewed clock is now, aiming to close the gap
  // over slew_time without ever changing rate by more than max_slew.
  const double here = output_at(x_us);
  const double wanted = (fitted - here) / static_cast<double>(config_.slew_time.micros());
  out_x_ = x_us;
  out_y_ = here;
  out_rate_ = slope_ + std::clamp(wanted, -config_.max_slew, config_.max_slew);
}

void ClockEstimator::restart(Time received, const NetworkTime& sent, Duration rtt) {
  ref_local_ = received;
  ref_server_ = sent;
  ref_half_rtt_us_ = static_cast<double>(rtt.micros()) / 2.0;
  epoch_ = received;
  points_.assign(1, Point{0, 0.0, 0.0, static_cast<double>(rtt.micros())});
  inconsistent_run_ = 0;
  refit();
  slew(0.0);
}

double ClockEstimator::offset_at(double x_us) const { return intercept_ + slope_ * x_us; }
double ClockEstimator::output_at(double x_us) const { return out_y_ + out_rate_ * (x_us - out_x_); }

double ClockEstimator::rtt_floor_us() const {
  // Over the offset's window only: after a route change the new path's
  // floor takes over once the old path's samples have left it.
  double floor = std::numeric_limits<double>::infinity();
  const std::size_t first = points_.size() > config_.slices ? points_.size() - config_.slices : 0;
  for (std::size_t i = first; i < points_.size(); ++i) floor = std::min(floor, points_[i].rtt_us);
  return floor;
}

void ClockEstimator::refit() {
  floor_us_ = rtt_floor_us();
  const double floor = floor_us_;
  const double q0 = static_cast<double>(config_.quality_floor.micros());
  auto weight = [&](const Point& p) {
    const double half_queue = std::max(0.0, p.rtt_us - floor) / 2.0;
    return 1.0 / (q0 * q0 + half_queue * half_queue);
  };

  // Drift: the weighted least-squares slope over every kept slice.
  slope_ = 0.0;
  const double span = points_.back().x_us - points_.front().x_us;
  if (points_.size() >= 3 && span >= static_cast<double>(config_.min_drift_span.micros())) {
    double sw = 0, sx = 0, sy = 0;
    for (const Point& p : points_) {
      const double w = weight(p);
      sw += w;
      sx += w * p.x_us;
      sy += w * p.y_us;
    }
    const double mx = sx / sw;
    const double my = sy / sw;
    double sxx = 0, sxy = 0;
    for (const Point& p : points_) {
      const double w = weight(p);
      sxx += w * (p.x_us - mx) * (p.x_us - mx);
      sxy += w * (p.x_us - mx) * (p.y_us - my);
    }
    if (sxx > 0) slope_ = std::clamp(sxy / sxx, -config_.max_drift, config_.max_drift);
  }

  // Offset: the weighted mean of the recent slices with the drift taken out.
  double sw = 0, sa = 0;
  const std::size_t first = points_.size() > config_.slices ? points_.size() - config_.slices : 0;
  for (std::size_t i = first; i < points_.size(); ++i) {
    const Point& p = points_[i];
    const double w = weight(p);
    sw += w;
    sa += w * (p.y_us - slope_ * p.x_us);
  }
  intercept_ = sa / sw;
}

std::optional<NetworkTime> ClockEstimator::time_at(Time local, double y_us) const {
  const double x = static_cast<double>((local - *ref_local_).micros());
  return *ref_server_ + Duration::micros(std::llround(x + y_us + ref_half_rtt_us_));
}

std::optional<NetworkTime> ClockEstimator::server_time(Time local) const {
  if (!ref_local_) return std::nullopt;
  return time_at(local, output_at(static_cast<double>((local - *ref_local_).micros())));
}

std::optional<NetworkTime> ClockEstimator::fitted_server_time(Time local) const {
  if (!ref_local_) return std::nullopt;
  return time_at(local, offset_at(static_cast<double>((local - *ref_local_).micros())));
}

}  // namespace tickwire::timesync
