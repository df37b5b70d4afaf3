#pragma once
// The rate at which a requirement is climbing, when it clearly is. A queue
// filling up (bufferbloat) raises every need a little each second; a median
// over a window lags such a ramp by half the window, and a proportional
// controller by rate / gain. Adding the slope times that lag keeps the
// target on the ramp instead of behind it.
//
// The slope is the difference between the medians of the window's newer
// and older halves over the time between their centres: medians, so that
// a single stalled sample (hundreds of milliseconds above the rest) does
// not read as a ramp. It counts only when positive and at least twice its
// standard error (that of a difference of two medians, from the window's
// interquartile range), so noise around a flat level rarely passes, and a
// falling requirement is left to the release of the target filter.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace tickwire::timesync {

// `samples` holds (time in seconds, value) pairs in time order; `scratch`
// is reused between calls to spare an allocation.
struct TrendSample {
  double t = 0;
  double v = 0;
};

// The slope from the window's order statistics: `n` samples, the first
// `split` of them older than the window's middle time; the medians of the
// older and newer parts, the whole window's quartiles, and the time centres
// of the two parts. Split out so that a caller keeping the window sorted can
// skip the selections.
inline double rising_slope_from(std::size_t n, std::size_t split, double older, double newer, double q75, double q25,
                                double older_centre, double newer_centre) {
  if (newer <= older) return 0.0;
  // Standard error of a median: 1.2533 sigma / sqrt(n), sigma from the
  // interquartile range of the whole window (IQR / 1.349).
  const double iqr = q75 - q25;
  const double sigma = iqr / 1.349;
  const double se = 1.2533 * sigma * std::sqrt(1.0 / static_cast<double>(split) + 1.0 / static_cast<double>(n - split));
  if (newer - older < 2.0 * se) return 0.0;
  const double span = newer_centre - older_centre;
  return span > 0 ? (newer - older) / span : 0.0;
}

// The rank nth_element is asked for to take `quantile` of `count` values.
inline std::size_t trend_rank(std::size_t count, double quantile) {
  return static_cast<std::size_t>(quantile * static_cast<double>(count - 1));
}

// Too few samples (in all, or on either side of the middle) for a trend.
inline constexpr std::size_t kTrendMinSamples = 16;
inline constexpr std::size_t kTrendMinHalf = 8;

inline double rising_slope(const std::vector<TrendSample>& samples, std::vector<double>& scratch) {
  const std::size_t n = samples.size();
  if (n < kTrendMinSamples) return 0.0;
  const double mid_t = (samples.front().t + samples.back().t) / 2.0;
  const auto split = static_cast<std::size_t>(
      std::lower_bound(samples.begin(), samples.end(), mid_t, [](const TrendSample& s, double t) { return s.t < t; }) -
      samples.begin());
  if (split < kTrendMinHalf || n - split < kTrendMinHalf) return 0.0;
  auto median = [&scratch](auto first, auto last, double quantile) {
    scratch.clear();
    for (auto it = first; it != last; ++it) scratch.push_back(it->v);
    const auto k = static_cast<std::ptrdiff_t>(trend_rank(scratch.size(), quantile));
    std::nth_element(scratch.begin(), scratch.begin() + k, scratch.end());
    return scratch[static_cast<std::size_t>(k)];
  };
  const auto cut = samples.begin() + static_cast<std::ptrdiff_t>(split);
  const double older = median(samples.begin(), cut, 0.5);
  const double newer = median(cut, samples.end(), 0.5);
  if (newer <= older) return 0.0;
  const double q75 = median(samples.begin(), samples.end(), 0.75);
  const double q25 = median(samples.begin(), samples.end(), 0.25);
  auto centre = [](auto first, auto last) { return (first->t + std::prev(last)->t) / 2.0; };
  return rising_slope_from(n, split, older, newer, q75, q25, centre(samples.begin(), cut), centre(cut, samples.end()));
}

}  // namespace tickwire::timesync
