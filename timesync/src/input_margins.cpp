#include "tickwire/timesync/input_margins.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "tickwire/core/network_time.h"

namespace tickwire::timesync {

namespace {

constexpr std::uint32_t kMaxBin = std::numeric_limits<std::uint32_t>::max();
constexpr Duration kSecond = Duration::seconds(1);

std::uint32_t saturating_add(std::uint32_t a, std::uint64_t b) {
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{a} + b, kMaxBin));
}

std::uint32_t clamp32(std::uint64_t v) { return static_cast<std::uint32_t>(std::min<std::uint64_t>(v, kMaxBin)); }

}  // namespace

std::size_t MarginHistogram::index_of(Duration margin) {
  const std::int64_t us = margin.micros();
  if (us < kMinMicros) return 0;
  if (us >= kMaxMicros) return kBins + 1;
  return 1 + static_cast<std::size_t>((us - kMinMicros) / kBinMicros);
}

void MarginHistogram::add(Duration margin, std::uint64_t count) {
  if (count == 0) return;
  if (bins_.empty()) recount();
  const std::size_t i = index_of(margin);
  std::uint32_t& b = bins_[i];
  const std::uint32_t before = b;
  b = saturating_add(b, count);
  count_ += b - before;
  blocks_[i / kBlock] += b - before;
}

void MarginHistogram::recount() {
  if (bins_.empty()) bins_.assign(kBins + 2, 0);
  blocks_.assign((bins_.size() + kBlock - 1) / kBlock, 0);
  count_ = 0;
  for (std::size_t i = 0; i < bins_.size(); ++i) {
    blocks_[i / kBlock] += bins_[i];
    count_ += bins_[i];
  }
}

void MarginHistogram::merge(const MarginHistogram& other) {
  if (other.bins_.empty()) return;
  if (bins_.empty()) bins_.assign(kBins + 2, 0);
  for (std::size_t i = 0; i < bins_.size(); ++i) bins_[i] = saturating_add(bins_[i], other.bins_[i]);
  recount();
}

MarginHistogram MarginHistogram::since(const MarginHistogram& earlier) const {
  MarginHistogram out;
  if (bins_.empty()) return out;
  out.bins_.assign(kBins + 2, 0);
  for (std::size_t i = 0; i < bins_.size(); ++i) {
    const std::uint32_t before = earlier.bin(i) <= bins_[i] ? static_cast<std::uint32_t>(earlier.bin(i)) : bins_[i];
    out.bins_[i] = bins_[i] - before;
  }
  out.recount();
  if (out.count_ == 0) {
    out.bins_.clear();
    out.blocks_.clear();
  }
  return out;
}

std::optional<Duration> MarginHistogram::quantile(double q) const {
  if (count_ == 0 || !(q >= 0.0)) return std::nullopt;
  const double wanted = std::ceil(std::min(q, 1.0) * static_cast<double>(count_));
  const auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(wanted));
  std::uint64_t seen = 0;
  std::size_t first = 0;  // the first bin of the block that reaches the rank
  for (const std::uint64_t block : blocks_) {
    if (seen + block >= rank) break;
    seen += block;
    first += kBlock;
  }
  for (std::size_t i = first; i < bins_.size(); ++i) {
    seen += bins_[i];
    if (seen < rank) continue;
    if (i == 0) return Duration::micros(kMinMicros);
    if (i == kBins + 1) return Duration::micros(kMaxMicros);
    return Duration::micros(kMinMicros + static_cast<std::int64_t>(i - 1) * kBinMicros);
  }
  return Duration::micros(kMaxMicros);
}

InputMarginMonitor::InputMarginMonitor(std::uint32_t tick_rate, InputMarginConfig config)
    : rate_(NetworkTime(tick_rate).tick_rate()), config_(config) {
  if (!(config_.late_burst_fraction >= 0.0 && config_.late_burst_fraction <= 1.0)) {
    throw std::invalid_argument("InputMarginConfig: late_burst_fraction must be in [0, 1]");
  }
}

void InputMarginMonitor::on_report(const InputFeedback::Lead& arrivals) {
  const double us_per_unit = 1e6 / (static_cast<double>(kLeadUnitsPerTick) * static_cast<double>(rate_));
  const auto margin = [&](std::int32_t units) {
    return Duration::micros(std::llround(static_cast<double>(units) * us_per_unit));
  };
  const std::uint64_t inputs = std::max<std::uint64_t>(arrivals.inputs, 1);
  histogram_.add(margin(arrivals.units));
  if (inputs <= kMaxListedInputs) {
    // Every margin listed.
    for (std::size_t i = 0; i < arrivals.spread_count() && i < arrivals.spreads.size(); ++i) {
      histogram_.add(margin(arrivals.units + arrivals.spreads[i]));
    }
    exact_ += inputs;
    return;
  }
  // The worst and the best are known; the inputs between them only to lie
  // in [worst, best], so they count at the worst.
  histogram_.add(margin(arrivals.units), inputs - 2);
  histogram_.add(margin(arrivals.best_units()));
  exact_ += 2;
}

void InputMarginMonitor::roll_to(Time at) {
  if (!second_start_) {
    second_start_ = at;
    return;
  }
  if (at - *second_start_ < kSecond) return;
  const std::int64_t passed = (at - *second_start_).micros() / kSecond.micros();
  ++seconds_;
  if (second_late_ > 0 &&
      static_cast<double>(second_late_) > config_.late_burst_fraction * static_cast<double>(second_inputs_)) {
    ++late_burst_seconds_;
  }
  late_last_second_ = clamp32(second_late_);
  inputs_last_second_ = clamp32(second_inputs_);
  if (passed > 1) {
    // Whole quiet seconds since: nothing sent, nothing reported.
    seconds_ += static_cast<std::uint64_t>(passed - 1);
    late_last_second_ = 0;
    inputs_last_second_ = 0;
  }
  *second_start_ += kSecond * passed;
  second_inputs_ = 0;
  second_late_ = 0;
}

void InputMarginMonitor::on_input_sent(Time at) {
  roll_to(at);
  ++second_inputs_;
}

void InputMarginMonitor::on_late(std::uint64_t count, Time at) {
  if (count == 0) return;
  roll_to(at);
  second_late_ += count;
  late_ += count;
}

void InputMarginMonitor::advance(Time now) { roll_to(now); }

}  // namespace tickwire::timesync
