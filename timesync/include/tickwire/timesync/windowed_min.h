#pragma once
// The minimum of the values seen in a sliding time window, kept as the
// minima of equal slices of the window: constant memory whatever the sample
// rate (a peer decides how often we sample), and exact to one slice.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "tickwire/core/time.h"

namespace tickwire::timesync {

template <class T>
class WindowedMin {
 public:
  // Throws std::invalid_argument for a non-positive window or zero slices.
  WindowedMin(Duration window, std::size_t slices) : slice_us_(slice_of(window, slices)), ring_(slices) {}

  void add(Time now, const T& value) {
    const std::int64_t index = floor_div(now.micros(), slice_us_);
    Slot& slot = ring_[position(index)];
    if (!slot.used || slot.index != index) {
      slot = Slot{index, value, true};
    } else if (value < slot.min) {
      slot.min = value;
    }
    if (!newest_ || index > *newest_) newest_ = index;
  }

  // The minimum over the slices that overlap (now - window, now]; empty when
  // none holds a value.
  std::optional<T> min(Time now) const {
    const std::int64_t current = floor_div(now.micros(), slice_us_);
    const auto count = static_cast<std::int64_t>(ring_.size());
    std::optional<T> best;
    for (const Slot& slot : ring_) {
      if (!slot.used || slot.index > current || slot.index <= current - count) continue;
      if (!best || slot.min < *best) best = slot.min;
    }
    return best;
  }

  void clear() {
    for (Slot& slot : ring_) slot.used = false;
    newest_.reset();
  }

 private:
  struct Slot {
    std::int64_t index = 0;
    T min{};
    bool used = false;
  };

  static std::int64_t slice_of(Duration window, std::size_t slices) {
    if (window <= Duration::zero() || slices == 0) {
      throw std::invalid_argument("WindowedMin needs a positive window and at least one slice");
    }
    const std::int64_t us = window.micros() / static_cast<std::int64_t>(slices);
    return us > 0 ? us : 1;
  }
  static std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    std::int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
  std::size_t position(std::int64_t index) const {
    const auto n = static_cast<std::int64_t>(ring_.size());
    return static_cast<std::size_t>(((index % n) + n) % n);
  }

  std::int64_t slice_us_;
  std::vector<Slot> ring_;
  std::optional<std::int64_t> newest_;
};

}  // namespace tickwire::timesync
