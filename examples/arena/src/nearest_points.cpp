#include "tickwire/arena/nearest_points.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace tickwire::arena {
namespace {

constexpr std::uint32_t kNanBits = 0x7FC0'0000U;  // one NaN for all: NaN distances tie, then go by index

}  // namespace

void NearestPoints::build(std::span<const Vec2> points) {
  grid_.build(points);
  slot_points_.resize(points.size());
  const auto items = grid_.items();
  for (std::size_t k = 0; k < items.size(); ++k) slot_points_[k] = points[items[k]];
}

NearestPoints::Key NearestPoints::key(Vec2 centre, std::uint32_t slot) const {
  const Vec2 p = slot_points_[slot];
  // Squared distances order the same and need no square root.
  const float dx = p.x - centre.x;
  const float dy = p.y - centre.y;
  const float d2 = dx * dx + dy * dy;
  const std::uint32_t bits = std::isnan(d2) ? kNanBits : std::bit_cast<std::uint32_t>(d2);
  return (static_cast<Key>(bits) << 32) | grid_.items()[slot];
}

void NearestPoints::gather(Vec2 centre, int y, int x0, int x1, Key below) {
  if (x0 > x1) return;
  const auto [first, last] = grid_.row_slots(y, x0, x1);
  for (std::uint32_t slot = first; slot < last; ++slot) {
    const Key k = key(centre, slot);
    if (k < below) keys_.push_back(k);
  }
}

std::span<const std::uint32_t> NearestPoints::select(Vec2 centre, std::size_t keep) {
  chosen_.clear();
  const std::size_t n = size();
  if (keep >= n) {
    for (std::uint32_t i = 0; i < n; ++i) chosen_.push_back(i);
    return chosen_;
  }
  if (keep == 0) return chosen_;
  // The smallest square of cells around the centre's cell that holds
  // `keep` points, counted without looking at them.
  const int last = grid_.side() - 1;
  const int cx = grid_.column(centre.x);
  const int cy = grid_.column(centre.y);
  int x0 = cx;
  int x1 = cx;
  int y0 = cy;
  int y1 = cy;
  for (int r = 0;; ++r) {
    x0 = std::max(cx - r, 0);
    x1 = std::min(cx + r, last);
    y0 = std::max(cy - r, 0);
    y1 = std::min(cy + r, last);
    std::size_t count = 0;
    for (int y = y0; y <= y1; ++y) {
      const auto [first, end] = grid_.row_slots(y, x0, x1);
      count += end - first;
    }
    if (count >= keep) break;  // reached at the latest with the whole grid, as keep < n
  }
  keys_.clear();
  constexpr Key kAll = std::numeric_limits<Key>::max();
  for (int y = y0; y <= y1; ++y) gather(centre, y, x0, x1, kAll);
  const auto kth_at = static_cast<std::ptrdiff_t>(keep) - 1;
  std::nth_element(keys_.begin(), keys_.begin() + kth_at, keys_.end());
  const Key kth = keys_[static_cast<std::size_t>(kth_at)];
  keys_.resize(keep);
  // The keep-th of the square is no nearer than the true keep-th, so every
  // point that belongs lies within its distance: add the cells of that
  // reach outside the square, with a margin for the rounding of the
  // squared distances and of the cell arithmetic.
  const float d2 = std::bit_cast<float>(static_cast<std::uint32_t>(kth >> 32));
  int wide_x0 = 0;
  int wide_x1 = last;
  int wide_y0 = 0;
  int wide_y1 = last;
  if (d2 <= std::numeric_limits<float>::max()) {
    const float reach = std::sqrt(d2) * (1.0F + 1e-4F) + 1e-4F * (std::fabs(centre.x) + std::fabs(centre.y)) + 1e-3F;
    wide_x0 = grid_.column(centre.x - reach);
    wide_x1 = grid_.column(centre.x + reach);
    wide_y0 = grid_.column(centre.y - reach);
    wide_y1 = grid_.column(centre.y + reach);
  }
  for (int y = wide_y0; y <= wide_y1; ++y) {
    if (y < y0 || y > y1) {
      gather(centre, y, wide_x0, wide_x1, kth);
    } else {
      gather(centre, y, wide_x0, std::min(x0 - 1, wide_x1), kth);
      gather(centre, y, std::max(x1 + 1, wide_x0), wide_x1, kth);
    }
  }
  if (keys_.size() > keep) std::nth_element(keys_.begin(), keys_.begin() + kth_at, keys_.end());
  for (std::size_t k = 0; k < keep; ++k) chosen_.push_back(static_cast<std::uint32_t>(keys_[k]));
  return chosen_;
}

}  // namespace tickwire::arena
