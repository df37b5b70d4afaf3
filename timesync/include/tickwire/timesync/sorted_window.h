#pragma once
// The values of a sliding range [lo, hi) of a sequence, kept sorted, so
// that a median or quantile of a window that moves by a sample or two at a
// time costs a lookup instead of a selection over the whole window.
//
// Positions are absolute (they keep counting as the sequence drops its
// oldest values), so the range survives the sequence's own storage being a
// deque trimmed at the front. The caller tells the window about each value
// dropped from the front before it goes (drop_front), and moves the range
// with the value of any position still stored (move_to).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace tickwire::timesync {

class SortedWindow {
 public:
  std::uint64_t lo() const { return lo_; }
  std::uint64_t hi() const { return hi_; }
  std::size_t size() const { return sorted_.size(); }
  // The k-th smallest (0-based); k < size().
  double kth(std::size_t k) const { return sorted_[k]; }
  const std::vector<double>& sorted() const { return sorted_; }

  // Empties the window and places it at `at`.
  void reset(std::uint64_t at) {
    sorted_.clear();
    lo_ = at;
    hi_ = at;
  }

  // Makes the window hold [new_lo, new_hi); value_at(position) gives the
  // value of any position in that range or in the current one.
  template <class ValueAt>
  void move_to(std::uint64_t new_lo, std::uint64_t new_hi, ValueAt&& value_at) {
    if (new_hi < new_lo) new_hi = new_lo;
    if (new_lo >= hi_ || new_hi <= lo_) {
      // No overlap: rebuild.
      sorted_.clear();
      for (std::uint64_t p = new_lo; p < new_hi; ++p) sorted_.push_back(value_at(p));
      std::sort(sorted_.begin(), sorted_.end());
      lo_ = new_lo;
      hi_ = new_hi;
      return;
    }
    for (; lo_ < new_lo; ++lo_) erase(value_at(lo_));
    while (lo_ > new_lo) insert(value_at(--lo_));
    for (; hi_ < new_hi; ++hi_) insert(value_at(hi_));
    while (hi_ > new_hi) erase(value_at(--hi_));
  }

  // The sequence is about to drop its value at `position` (its oldest).
  void drop_front(std::uint64_t position, double value) {
    if (position < lo_ || position >= hi_) return;
    erase(value);
    ++lo_;
  }

 private:
  void insert(double v) { sorted_.insert(std::upper_bound(sorted_.begin(), sorted_.end(), v), v); }
  void erase(double v) {
    const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), v);
    if (it != sorted_.end() && *it == v) sorted_.erase(it);
  }

  std::vector<double> sorted_;
  std::uint64_t lo_ = 0;
  std::uint64_t hi_ = 0;
};

// The k-th smallest (0-based) of the union of two sorted vectors; k <
// a.size() + b.size().
inline double kth_of_two(const std::vector<double>& a, const std::vector<double>& b, std::size_t k) {
  std::size_t i = 0;
  std::size_t j = 0;
  for (;;) {
    const bool take_a = j == b.size() || (i < a.size() && a[i] <= b[j]);
    const double v = take_a ? a[i++] : b[j++];
    if (k-- == 0) return v;
  }
}

}  // namespace tickwire::timesync
