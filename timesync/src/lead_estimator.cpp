#include "tickwire/timesync/lead_estimator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "tickwire/timesync/rare_event_cut.h"
#include "tickwire/timesync/rising_trend.h"
#include "tickwire/timesync/sorted_window.h"

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
  popped_ = 0;
  out_of_order_at_ = 0;
  for (SortedWindow* w : {&centred_, &level_, &older_, &newer_}) w->reset(0);
}

void LeadEstimator::add(Time now, Duration need) {
  const auto us = static_cast<double>(need.micros());
  max_need_us_ = samples_ == 0 ? us : std::max(max_need_us_, us);
  if (samples_ == 0) first_at_ = now;
  newest_at_ = samples_ == 0 ? now : std::max(newest_at_, now);
  ++samples_;
  if (!recent_.empty() && now < recent_.back().at) out_of_order_at_ = popped_ + recent_.size();
  recent_.push_back(Sample{now, us});
  ++uncommitted_;
  commit_ready(now);
  while (recent_.size() > config_.max_level_samples ||
         (recent_.size() > uncommitted_ && now - recent_.front().at > config_.level_window)) {
    if (recent_.size() == uncommitted_) --uncommitted_;  // only when over the count bound
    for (SortedWindow* w : {&centred_, &level_, &older_, &newer_}) w->drop_front(popped_, recent_.front().need_us);
    recent_.pop_front();
    ++popped_;
  }
  while (!tail_log_.empty() &&
         (now - tail_log_.front().at > config_.tail_window || tail_log_.size() > config_.max_tail_samples)) {
    tail_.erase(tail_log_.front().need_us);
    tail_log_.pop_front();
  }
  update_level();
  update_required(now);
}

void LeadEstimator::commit_ready(Time now) {
  // A sample enters the tail once half a level window has passed after it,
  // measured against the median of the window centred on it.
  const Duration half = config_.level_window / 2;
  while (uncommitted_ > 0) {
    const std::size_t index = recent_.size() - uncommitted_;
    const Sample& s = recent_[index];
    if (now - s.at < half) break;
    const double centred = centred_median(index, half);
    tail_log_.push_back(Sample{s.at, s.need_us - centred});
    tail_.insert(s.need_us - centred);
    --uncommitted_;
  }
}

double LeadEstimator::centred_median(std::size_t index, Duration half) {
  const Time at = recent_[index].at;
  if (!in_time_order()) {
    std::vector<double>& window = window_;
    window.clear();
    for (const Sample& o : recent_) {
      const Duration d = o.at - at;
      if (d <= half && d >= -half) window.push_back(o.need_us);
    }
    return median_of(window);
  }
  // In time order the samples within half a window either side are a
  // contiguous run, and the run moves forward a sample or two per commit.
  const auto first =
      std::partition_point(recent_.begin(), recent_.end(), [&](const Sample& o) { return !(o.at - at >= -half); });
  const auto last = std::partition_point(first, recent_.end(), [&](const Sample& o) { return o.at - at <= half; });
  centred_.move_to(popped_ + static_cast<std::uint64_t>(first - recent_.begin()),
                   popped_ + static_cast<std::uint64_t>(last - recent_.begin()),
                   [this](std::uint64_t p) { return need_at(p); });
  return centred_.kth(centred_.size() / 2);
}

void LeadEstimator::update_level() {
  const Time newest = recent_.back().at;
  const bool ordered = in_time_order();
  double upper_quartile = 0;
  double lower_quartile = 0;
  if (ordered) {
    // The trailing window is a suffix of recent_, kept sorted.
    const auto first = std::partition_point(recent_.begin(), recent_.end(),
                                            [&](const Sample& o) { return newest - o.at > config_.level_window; });
    level_.move_to(popped_ + static_cast<std::uint64_t>(first - recent_.begin()), popped_ + recent_.size(),
                   [this](std::uint64_t p) { return need_at(p); });
    const std::size_t n = level_.size();
    level_us_ = level_.kth(n / 2);
    upper_quartile = level_.kth(n * 3 / 4);
    lower_quartile = level_.kth(n / 4);
  } else {
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
    upper_quartile = at(window.size() * 3 / 4);
    lower_quartile = at(window.size() / 4);
  }

  // A rise shared by every recent sample is a new level, not tail.
  const double spread = upper_quartile - lower_quartile;
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
  if (ordered) {
    update_trend(newest);
    return;
  }
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

void LeadEstimator::update_trend(Time newest) {
  // rising_slope() over the same samples, its medians and quartiles read
  // from the two halves kept sorted.
  trend_us_per_s_ = 0;
  const auto start = std::partition_point(recent_.begin(), recent_.end(), [&](const Sample& o) {
    return newest - o.at > config_.level_window || (last_rise_ && o.at < *last_rise_);
  });
  const auto begin = static_cast<std::size_t>(start - recent_.begin());
  const std::size_t n = recent_.size() - begin;
  if (n < kTrendMinSamples) return;
  auto t_of = [newest](const Sample& o) { return -(newest - o.at).seconds_f(); };
  const double mid_t = (t_of(recent_[begin]) + t_of(recent_.back())) / 2.0;
  const auto cut = std::partition_point(start, recent_.end(), [&](const Sample& o) { return t_of(o) < mid_t; });
  const auto split = static_cast<std::size_t>(cut - start);
  if (split < kTrendMinHalf || n - split < kTrendMinHalf) return;
  auto value_at = [this](std::uint64_t p) { return need_at(p); };
  older_.move_to(popped_ + begin, popped_ + begin + split, value_at);
  newer_.move_to(popped_ + begin + split, popped_ + recent_.size(), value_at);
  const double older = older_.kth(trend_rank(split, 0.5));
  const double newer = newer_.kth(trend_rank(n - split, 0.5));
  if (newer <= older) return;
  const double q75 = kth_of_two(older_.sorted(), newer_.sorted(), trend_rank(n, 0.75));
  const double q25 = kth_of_two(older_.sorted(), newer_.sorted(), trend_rank(n, 0.25));
  const double older_centre = (t_of(recent_[begin]) + t_of(recent_[begin + split - 1])) / 2.0;
  const double newer_centre = (t_of(recent_[begin + split]) + t_of(recent_.back())) / 2.0;
  trend_us_per_s_ = rising_slope_from(n, split, older, newer, q75, q25, older_centre, newer_centre);
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
  if (span < 10.0) return tail_.kth_largest(std::min(k, tail_.size()));
  return cheapest_cut(tail_.largest_first(), tail_.end(), k, static_cast<double>(config_.late_event_cost.micros()),
                      span, 0.0);
}

void LeadEstimator::update_required(Time now) {
  double us =
      settled() ? level_us_ + tail_cut(now) + trend_us_per_s_ * config_.trend_lookahead.seconds_f() : max_need_us_;
  if (learning()) us += static_cast<double>(config_.learning_margin.micros());
  required_ = Duration::micros(std::llround(us));
}

}  // namespace tickwire::timesync
