#pragma once
// Small statistics for the benchmark's figures.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace tickwire::bench {

// Nearest-rank percentile, q in [0, 1]; 0 for no samples. Reorders `v`.
inline double percentile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1) + 0.5);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(rank), v.end());
  return v[rank];
}

inline double mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

inline double ratio(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0 : static_cast<double>(part) / static_cast<double>(whole);
}

// Counts changes of sign of a signed quantity, ignoring zeros: +, 0, - is
// one change, +, 0, + none.
class SignCounter {
 public:
  void add(double v) {
    const int sign = v > 0 ? 1 : (v < 0 ? -1 : 0);
    if (sign == 0) return;
    if (last_ != 0 && sign != last_) ++changes_;
    last_ = sign;
  }
  std::uint64_t changes() const { return changes_; }

 private:
  int last_ = 0;
  std::uint64_t changes_ = 0;
};

}  // namespace tickwire::bench
