#include "tickwire/timesync/interpolation_estimator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "tickwire/timesync/rare_event_cut.h"
#include "tickwire/timesync/rising_trend.h"

namespace tickwire::timesync {

namespace {

InterpolationEstimatorConfig checked(InterpolationEstimatorConfig c) {
  if (!(c.target_starved_rate > 0.0 && c.target_starved_rate < 1.0)) {
    throw std::invalid_argument("InterpolationEstimatorConfig: target_starved_rate must be in (0, 1)");
  }
  if (c.starved_percent_cost < Duration::zero() || c.trend_lookahead < Duration::zero() ||
      c.trend_window <= Duration::zero()) {
    throw std::invalid_argument(
        "InterpolationEstimatorConfig: starved_percent_cost and trend_lookahead must not be negative, trend_window "
        "positive");
  }
  if (c.window <= Duration::zero() || c.max_samples == 0 || c.min_samples == 0) {
    throw std::invalid_argument("InterpolationEstimatorConfig: window and sample counts must be positive");
  }
  return c;
}

double micros_between(const NetworkTime& later, const NetworkTime& earlier) {
  return static_cast<double>((later - earlier).units()) / static_cast<double>(later.tick_rate());
}

}  // namespace

InterpolationEstimator::InterpolationEstimator(InterpolationEstimatorConfig config) : config_(checked(config)) {}

void InterpolationEstimator::clear() {
  intervals_.clear();
  newest_sent_.reset();
  newest_arrival_.reset();
  last_recompute_.reset();
  required_.reset();
}

void InterpolationEstimator::add(Time now, const NetworkTime& sent, const NetworkTime& server_now, Time previous_frame,
                                 const NetworkTime& server_at_previous_frame, Duration frame_interval) {
  const std::uint32_t rate = sent.tick_rate();
  if (server_now.tick_rate() != rate || server_at_previous_frame.tick_rate() != rate) return;
  if (newest_sent_ && (newest_sent_->tick_rate() != rate || sent <= *newest_sent_)) return;
  if (newest_sent_) {
    const double length = micros_between(server_now, *newest_arrival_);
    // The oldest the replaced snapshot was seen at: at the previous frame,
    // if one came after it arrived; if none did, it was never the newest on
    // screen and cannot have starved anything.
    const double age =
        previous_frame >= newest_arrival_local_ ? micros_between(server_at_previous_frame, *newest_sent_) : -1e12;
    // A clock estimate that moved backwards can make an interval look
    // negative; it starved for no time then.
    // A frame interval of zero (unknown) counts starvation as time.
    intervals_.push_back(Interval{now, age, std::max(0.0, length),
                                  static_cast<double>(std::max(frame_interval, Duration::zero()).micros())});
  }
  newest_sent_ = sent;
  newest_arrival_ = server_now;
  newest_arrival_local_ = now;
  while (!intervals_.empty() &&
         (intervals_.size() > config_.max_samples || now - intervals_.front().at > config_.window)) {
    intervals_.pop_front();
  }
  if (intervals_.size() < config_.min_samples) return;
  if (!required_ || !last_recompute_ || now - *last_recompute_ >= config_.recompute_interval) {
    last_recompute_ = now;
    recompute();
  }
}

double InterpolationEstimator::starved_time(double delay) const {
  double sum = 0;
  for (const Interval& i : on_screen_) {  // oldest first
    const double over = i.age_us - delay;
    if (over <= 0) break;
    // Each frame whose age passed the delay starves whole.
    const double frames_time = i.frame_us > 0 ? i.frame_us * std::ceil(over / i.frame_us) : over;
    sum += std::min(i.length_us, frames_time);
  }
  return sum;
}

double InterpolationEstimator::rare_hold_up_cut(double target_us, double low_us, double total_us) const {
  // Below the target, the delay that minimises delay + cost x starved
  // share: a rare long hold-up starves many frames at once, but covering
  // it would cost its whole length on every frame.
  const double span = std::min((intervals_.back().at - intervals_.front().at).seconds_f(), config_.window.seconds_f());
  if (span < 10.0 || total_us <= 0 || target_us <= low_us) return target_us;  // too little seen yet
  const double per_share = static_cast<double>(config_.starved_percent_cost.micros()) * 100.0;
  constexpr int kSteps = 64;
  const double step = std::max(1000.0, (target_us - low_us) / kSteps);
  return cheapest_delay(target_us, low_us, step, per_share, total_us, [this](double d) { return starved_time(d); });
}

// The age at place size / 2 counting from the youngest (on_screen_ is
// sorted oldest first).
double InterpolationEstimator::median_age() const {
  if (on_screen_.empty()) return 0;
  return on_screen_[on_screen_.size() - 1 - on_screen_.size() / 2].age_us;
}

void InterpolationEstimator::recompute() {
  on_screen_.clear();
  for (const Interval& i : intervals_) {
    if (i.age_us > -1e11) on_screen_.push_back(i);  // others never starve a frame
  }
  std::sort(on_screen_.begin(), on_screen_.end(), [](const Interval& a, const Interval& b) {
    return a.age_us > b.age_us || (a.age_us == b.age_us && a.at < b.at);
  });
  double total = 0;
  double high = -1e18;
  double low = 1e18;
  for (const Interval& i : intervals_) {
    total += i.length_us;
    if (i.age_us < -1e11) continue;  // never on screen
    high = std::max(high, i.age_us);
    low = std::min(low, i.age_us - i.length_us);
  }
  if (high < low) return;  // nothing was ever on screen long enough to count
  const double allowed = config_.target_starved_rate * total;
  // starved() never rises as the delay grows and is zero at the largest
  // age: bisect for the smallest delay within the allowance, to a
  // microsecond.
  low = std::min(low, high);
  const double floor = low;
  while (high - low > 1.0) {
    const double mid = (low + high) / 2.0;
    if (starved_time(mid) <= allowed) {
      high = mid;
    } else {
      low = mid;
    }
  }
  // A clear climb of the ages (a filling queue on the downlink) is
  // projected ahead by the lag of the window and the steering.
  trend_.clear();
  const Time newest = intervals_.back().at;
  for (const Interval& i : intervals_) {
    if (newest - i.at <= config_.trend_window && i.age_us > -1e11) {
      trend_.push_back(TrendSample{-(newest - i.at).seconds_f(), i.age_us});
    }
  }
  const double ahead = rising_slope(trend_, ages_) * config_.trend_lookahead.seconds_f();
  required_ =
      Duration::micros(std::llround(std::ceil(rare_hold_up_cut(high, std::max(floor, median_age()), total) + ahead)));
}

}  // namespace tickwire::timesync
