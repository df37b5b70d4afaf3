#include "tickwire/timesync/lead_estimator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace tickwire::timesync {

namespace {

LeadEstimatorConfig checked(LeadEstimatorConfig c) {
  if (!(c.target_late_rate > 0.0 && c.target_late_rate < 0.5)) {
    throw std::invalid_argument("LeadEstimatorConfig: target_late_rate must be in (0, 0.5)");
  }
  if (c.level_window <= Duration::zero() || c.tail_window <= Duration::zero()) {
    throw std::invalid_argument("LeadEstimatorConfig: windows must be positive");
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
  required_.reset();
  samples_ = 0;
}

void LeadEstimator::add(Time now, Duration need) {
  const auto us = static_cast<double>(need.micros());
  max_need_us_ = samples_ == 0 ? us : std::max(max_need_us_, us);
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
  update_required();
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
  if (recent_.size() >= config_.rise_samples) {
    const double spread = at(window.size() * 3 / 4) - at(window.size() / 4);
    const double margin = std::max(spread, static_cast<double>(config_.rise_margin_min.micros()));
    double recent_min = recent_.back().need_us;
    for (std::size_t i = 0; i < config_.rise_samples; ++i) {
      recent_min = std::min(recent_min, recent_[recent_.size() - 1 - i].need_us);
    }
    if (recent_min > level_us_ + margin) level_us_ = recent_min;
  }
}

double LeadEstimator::tail_quantile() const {
  // The k-th largest relative need, k = ceil(rate * n): at most a share
  // target_late_rate of the samples lie above it.
  const double n = static_cast<double>(tail_.size());
  const auto k = static_cast<std::size_t>(std::max(1.0, std::ceil(config_.target_late_rate * n)));
  auto it = tail_.rbegin();
  for (std::size_t i = 1; i < k && std::next(it) != tail_.rend(); ++i) ++it;
  return *it;
}

void LeadEstimator::update_required() {
  double us = settled() ? level_us_ + tail_quantile() : max_need_us_;
  if (learning()) us += static_cast<double>(config_.learning_margin.micros());
  required_ = Duration::micros(std::llround(us));
}

}  // namespace tickwire::timesync
