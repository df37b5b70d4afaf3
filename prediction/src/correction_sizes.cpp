#include "tickwire/prediction/correction_sizes.h"

#include <algorithm>
#include <cmath>

namespace tickwire::prediction {

CorrectionSizes::CorrectionSizes() { sorted_.reserve(kWindow); }

void CorrectionSizes::record(float size) {
  ring_[static_cast<std::size_t>(count_ % kWindow)] = std::isfinite(size) ? size : 0.0F;
  ++count_;
}

double CorrectionSizes::quantile(double q) const {
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(count_, kWindow));
  if (n == 0) return 0.0;
  sorted_.assign(ring_.begin(), ring_.begin() + static_cast<std::ptrdiff_t>(n));
  const double rank = std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(n));
  const std::size_t k = rank < 1.0 ? 0 : static_cast<std::size_t>(rank) - 1;
  std::nth_element(sorted_.begin(), sorted_.begin() + static_cast<std::ptrdiff_t>(k), sorted_.end());
  return static_cast<double>(sorted_[k]);
}

}  // namespace tickwire::prediction
