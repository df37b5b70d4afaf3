#include "tickwire/timesync/recurring_rises.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tickwire::timesync {

namespace {

RecurringRisesConfig checked(RecurringRisesConfig c) {
  if (c.min_rise <= Duration::zero() || c.memory <= Duration::zero()) {
    throw std::invalid_argument("RecurringRisesConfig: min_rise and memory must be positive");
  }
  if (c.blame_before < Duration::zero() || c.blame_after < Duration::zero()) {
    throw std::invalid_argument("RecurringRisesConfig: blame windows must not be negative");
  }
  if (c.min_rises == 0) throw std::invalid_argument("RecurringRisesConfig: min_rises must be positive");
  return c;
}

}  // namespace

RecurringRises::RecurringRises(RecurringRisesConfig config) : config_(checked(config)) {}

void RecurringRises::clear() {
  rises_.clear();
  lates_.clear();
  costs_.clear();
  last_raw_.reset();
}

void RecurringRises::forget(Time now) {
  while (!rises_.empty() && now - rises_.front().at > config_.memory) rises_.pop_front();
  while (!lates_.empty() && now - lates_.front().at > config_.blame_before) lates_.pop_front();
}

// A rise's cost is known once its blame window has passed.
void RecurringRises::settle_costs(Time now) {
  for (Rise& r : rises_) {
    if (r.settled || now - r.last_step <= config_.blame_after) continue;
    r.settled = true;
    if (!r.measured) continue;
    costs_.push_back(r.late);
    if (costs_.size() > kCostSamples) costs_.pop_front();
  }
}

std::optional<double> RecurringRises::late_per_rise() const {
  if (costs_.empty()) return std::nullopt;
  double sum = 0;
  for (const std::uint64_t c : costs_) sum += static_cast<double>(c);
  return sum / static_cast<double>(costs_.size());
}

void RecurringRises::observe(Time now, Duration raw, bool held) {
  settle_costs(now);
  forget(now);
  const auto us = static_cast<double>(raw.micros());
  // A change can arrive in several steps within a second (the level rises
  // on a few samples, falls back, rises again as the median takes over):
  // steps within blame_after of the last are one rise.
  Rise* recent = !rises_.empty() && now - rises_.back().last_step <= config_.blame_after ? &rises_.back() : nullptr;
  if (last_raw_ && raw - *last_raw_ >= config_.min_rise) {
    if (recent != nullptr) {
      recent->last_step = now;
    } else {
      Rise rise{now, now, us, 0, !held};
      for (const Late& l : lates_) rise.late += l.count;
      rises_.push_back(rise);
      recent = &rises_.back();
    }
  }
  // The level a rise reached settles over the second after its last step.
  if (recent != nullptr) recent->peak_us = std::max(recent->peak_us, us);
  last_raw_ = raw;
}

void RecurringRises::on_late(Time now, std::uint64_t count) {
  if (count == 0) return;
  forget(now);
  lates_.push_back(Late{now, count});
  if (!rises_.empty() && now - rises_.back().last_step <= config_.blame_after) rises_.back().late += count;
}

std::optional<Duration> RecurringRises::floor(Time now, Duration raw, Duration late_event_cost) const {
  const auto cost = late_per_rise();
  if (!config_.enabled || !cost || *cost <= 0) return std::nullopt;
  std::size_t count = 0;
  double lowest_peak = 0;
  Time oldest = now;
  for (const Rise& r : rises_) {
    if (now - r.at > config_.memory) continue;
    lowest_peak = count == 0 ? r.peak_us : std::min(lowest_peak, r.peak_us);
    oldest = count == 0 ? r.at : oldest;
    ++count;
  }
  if (count < config_.min_rises) return std::nullopt;
  const double gap_s = (lowest_peak - static_cast<double>(raw.micros())) * 1e-6;
  if (gap_s <= 0) return std::nullopt;
  // Late inputs a second the rises would cost: how often they come (n
  // rises are n - 1 intervals) times what one costs when met without the
  // hold.
  const Duration span = std::clamp(now - oldest, config_.memory / 4, config_.memory);
  const double rate = static_cast<double>(count - 1) / span.seconds_f();
  if (gap_s > late_event_cost.seconds_f() * rate * *cost) return std::nullopt;
  return Duration::micros(std::llround(lowest_peak));
}

}  // namespace tickwire::timesync
