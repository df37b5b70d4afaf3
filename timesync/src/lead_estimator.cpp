#include "tickwire/timesync/lead_estimator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "tickwire/timesync/rare_event_cut.h"
#include "tickwire/timesync/rising_trend.h"

namespace tickwire::timesync {

namespace {

LeadEstimatorConfig checked(LeadEstimatorConfig c) {
  if (!(c.target_late_rate > 0.0 && c.target_late_rate < 0.5)) {
    throw std::invalid_argument("LeadEstimatorConfig: target_late_rate must be in (0, 0.5)");
  }
  if (c.level_window <= Duration::zero() || c.tail_window <= Duration::zero()) {
    throw std::invalid_argument("LeadEstimatorConfig: windows must be positive");
  }
  if (c.late_event_cost < Duration::zero() || c.rise_window < Duration::zero()) {
    throw std::invalid_argument("LeadEstimatorConfig: late_event_cost and rise_window must not be negative");
  }
  if (c.rise_samples == 0 || c.max_tail_samples == 0 || c.max_level_samples < 2) {
    throw std::invalid_argument("LeadEstimatorConfig: sample counts must be positive");
  }
  return c;
}

double median_of(std::vector<double>& v) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

}  // namespace

LeadEstimator::LeadEstimator(LeadEstimatorConfig config) : config_(checked(config)) {}

void LeadEstimator::clear() {
  recent_.clear();
  uncommitted_ = 0;
  tail_log_.clear();
  tail_.clear();
  level_us_ = 0;
  max_need_us_ = 0;
  trend_us_per_s_ = 0;
  last_rise_.reset();
  required_.reset();
  samples_ = 0;
}

void LeadEstimator::add(Time now, Duration need) {
  const auto us = static_cast<double>(need.micros());
  max_need_us_ = samples_ == 0 ? us : std::max(max_need_us_, us);
  if (samples_ == 0) first_at_ = now;
  newest_at_ = samples_ == 0 ? now : std::max(newest_at_, now);
  ++samples_;
  recent_.push_back(Sample{now, us});
  ++uncommitted_;
  commit_ready(now);
  while (recent_.size() > config_.max_level_samples ||
         (recent_.size() > uncommitted_ && now - recent_.front().at > config_.level_window)) {
    if (recent_.size() == uncommitted_) --uncommitted_;  // only when over the count bound
    recent_.pop_front();
  }
  while (!tail_log_.empty() &&
         (now - tail_log_.front().at > config_.tail_window || tail_log_.size() > config_.max_tail_samples)) {
    tail_.erase(tail_.find(tail_log_.front().need_us));
    tail_log_.pop_front();
  }
  update_level();
  update_required(now);
}

void LeadEstimator::commit_ready(Time now) {
  // A sample enters the tail once half a level window has passed after it,
  // measured against the median of the window centred on it.
  const Duration half = config_.level_window / 2;
  std::vector<double>& window = window_;
  while (uncommitted_ > 0) {
    const std::size_t index = recent_.size() - uncommitted_;
    const Sample& s = recent_[index];
    if (now - s.at < half) break;
    window.clear();
    for (const Sample& o : recent_) {
      const Duration d = o.at - s.at;
      if (d <= half && d >= -half) window.push_back(o.need_us);
    }
    const double centred = median_of(window);
    tail_log_.push_back(Sample{s.at, s.need_us - centred});
    tail_.insert(s.need_us - centred);
    --uncommitted_;
  }
}

void LeadEstimator::update_level() {
  const Time newest = recent_.back().at;
  std::vector<double>& window = window_;
  window.clear();
  for (auto it = recent_.rbegin(); it != recent_.rend() && newest - it->at <= config_.level_window; ++it) {
    window.push_back(it->need_us);
  }
  // Median and quartiles by selection, not a sort: this runs per sample.
  auto at = [&window](std::size_t rank) {
    std::nth_element(window.begin(), window.begin() + static_cast<std::ptrdiff_t>(rank), window.end());
    return window[rank];
  };
  level_us_ = at(window.size() / 2);

  // A rise shared by every recent sample is a new level, not tail.
  const double spread = at(window.size() * 3 / 4) - at(window.size() / 4);
  const double margin = std::max(spread, static_cast<double>(config_.rise_margin_min.micros()));
  double recent_min = recent_.back().need_us;
  double oldest_recent = recent_.back().need_us;
  std::size_t recent_count = 0;
  for (auto it = recent_.rbegin(); it != recent_.rend() && newest - it->at <= config_.rise_window; ++it) {
    recent_min = std::min(recent_min, it->need_us);
    oldest_recent = it->need_us;
    ++recent_count;
  }
  // A queue draining after a stall also raises several needs in a row, but
  // they fall by a tick each: only needs that stay up are a new level.
  const bool staying_up = recent_.back().need_us >= oldest_recent - margin;
  if (recent_count >= config_.rise_samples && recent_min > level_us_ + margin && staying_up) {
    level_us_ = recent_min;
    last_rise_ = newest;
  }

  // The trend is fitted only after the last step up: a step is a new level,
  // and a line through it would project the step forward as a ramp.
  auto level_start = recent_.begin();
  while (level_start != recent_.end() &&
         (newest - level_start->at > config_.level_window || (last_rise_ && level_start->at < *last_rise_))) {
    ++level_start;
  }
  trend_samples_.clear();
  for (auto it = level_start; it != recent_.end(); ++it) {
    trend_samples_.push_back(TrendSample{-(newest - it->at).seconds_f(), it->need_us});
  }
  trend_us_per_s_ = rising_slope(trend_samples_, window_);
}

double LeadEstimator::tail_cut(Time now) const {
  // The target's quantile is the k-th largest relative need, k = ceil(rate
  // * n): at most a share target_late_rate of the samples lie above it. The
  // cut is there or lower, where the rest of the tail is rare events not
  // worth their latency.
  const double n = static_cast<double>(tail_.size());
  const auto k = static_cast<std::size_t>(std::max(1.0, std::ceil(config_.target_late_rate * n)));
  const double span = std::min(now - tail_log_.front().at, config_.tail_window).seconds_f();
  // Before a few seconds of tail the rate of events is not known: hold the
  // target's quantile.
  if (span < 10.0) return *std::next(tail_.rbegin(), static_cast<std::ptrdiff_t>(std::min(k, tail_.size()) - 1));
  return cheapest_cut(tail_.rbegin(), tail_.rend(), k, static_cast<double>(config_.late_event_cost.micros()), span,
                      0.0);
}

void LeadEstimator::update_required(Time now) {
  double us =
      settled() ? level_us_ + tail_cut(now) + trend_us_per_s_ * config_.trend_lookahead.seconds_f() : max_need_us_;
  if (learning()) us += static_cast<double>(config_.learning_margin.micros());
  required_ = Duration::micros(std::llround(us));
}

}  // namespace tickwire::timesync
