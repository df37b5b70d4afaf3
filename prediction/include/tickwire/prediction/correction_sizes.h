#pragma once
// How far corrections moved what was drawn: the size of each one (see
// RenderSmoother) over a bounded window of the most recent, so a long
// session keeps a steady memory and its quantiles follow the present.

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tickwire::prediction {

class CorrectionSizes {
 public:
  static constexpr std::size_t kWindow = 4096;  // the newest sizes the quantiles cover

  CorrectionSizes();

  // Never allocates: the window is a fixed ring.
  void record(float size);
  // Sizes recorded since construction (the window holds the newest kWindow).
  std::uint64_t count() const { return count_; }
  // The q-quantile (q in [0, 1], nearest rank) of the sizes in the window;
  // 0 when there are none. Sorts a copy: for stats, not for every frame.
  double quantile(double q) const;

 private:
  std::array<float, kWindow> ring_{};
  std::uint64_t count_ = 0;
  mutable std::vector<float> sorted_;  // quantile()'s scratch, reserved once
};

}  // namespace tickwire::prediction
