#include "tickwire/arena/nearest_points.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>

namespace tickwire::arena {
namespace {

constexpr std::uint32_t kNanBits = 0x7FC0'0000U;  // one NaN for all: NaN distances tie, then go by index

}  // namespace

void NearestPoints::build(std::span<const Vec2> points) {
  grid_.build(points);
  xs_.resize(points.size());
  ys_.resize(points.size());
  const auto items = grid_.items();
  for (std::size_t k = 0; k < items.size(); ++k) {
    xs_[k] = points[items[k]].x;
    ys_[k] = points[items[k]].y;
  }
  // A query looks at each point at most once: room for all of them.
  keys_.resize(points.size());
  boundary_.resize(points.size());
  squares_.resize(points.size());
  buckets_.resize(points.size());
  chosen_.resize(points.size());
}

inline void NearestPoints::gather(Vec2 centre, int y, int x0, int x1, Key below) {
  if (x0 > x1) return;
  const auto [first, last] = grid_.row_slots(y, x0, x1);
  const auto items = grid_.items();
  // Written always, kept when below: no branch to mispredict. The slot
  // written is free, as at most every point is looked at once.
  std::size_t count = found_;
  for (std::uint32_t slot = first; slot < last; ++slot) {
    // Squared distances order the same and need no square root.
    const float dx = xs_[slot] - centre.x;
    const float dy = ys_[slot] - centre.y;
    const float d2 = dx * dx + dy * dy;
    const std::uint32_t bits = std::isnan(d2) ? kNanBits : std::bit_cast<std::uint32_t>(d2);
    const Key k = (static_cast<Key>(bits) << 32) | items[slot];
    keys_[count] = k;
    squares_[count] = d2;
    count += k < below ? 1 : 0;
  }
  found_ = count;
}

// A guess from the density of the smallest square of cells around the
// centre's that holds `keep` points (counted without looking at them),
// aiming at a disc of 1.3 times `keep` points.
float NearestPoints::guess_radius(Vec2 centre, std::size_t keep) const {
  const int last = grid_.side() - 1;
  const int cx = grid_.column(centre.x);
  const int cy = grid_.column(centre.y);
  float area = 0.0F;
  std::size_t count = 0;
  for (int r = 0; count < keep; ++r) {  // reached at the latest with the whole grid, as keep < n
    const int x0 = std::max(cx - r, 0);
    const int x1 = std::min(cx + r, last);
    const int y0 = std::max(cy - r, 0);
    const int y1 = std::min(cy + r, last);
    count = 0;
    for (int y = y0; y <= y1; ++y) {
      const auto [first, end] = grid_.row_slots(y, x0, x1);
      count += end - first;
    }
    area = static_cast<float>((x1 - x0 + 1) * (y1 - y0 + 1)) * grid_.cell_size() * grid_.cell_size();
  }
  return radius_for(centre, 1.3F * static_cast<float>(keep) * area / static_cast<float>(count));
}

std::span<const std::uint32_t> NearestPoints::select(Vec2 centre, std::size_t keep, float hint) {
  const std::size_t n = size();
  kth_square_ = std::numeric_limits<float>::quiet_NaN();
  if (keep >= n) {
    for (std::uint32_t i = 0; i < n; ++i) chosen_[i] = i;
    return std::span(chosen_).first(n);
  }
  if (keep == 0) return {};
  // Every point within a radius, then the keep nearest of those: exact as
  // soon as the disc holds `keep` points, as none outside can be nearer.
  float radius = hint > 0.0F && hint <= std::numeric_limits<float>::max() ? hint : guess_radius(centre, keep);
  for (;;) {
    found_ = 0;
    const bool whole = gather_disc(centre, radius);
    if (found_ >= keep) break;
    // Too few (the disc reaches past the arena's edge, or the guess was
    // off): grow it to hold about 1.3 times `keep` at the density found.
    // The whole grid holds n > keep, so this ends.
    if (whole) radius = std::numeric_limits<float>::infinity();
    const float grow = found_ == 0 ? 2.0F : std::sqrt(1.3F * static_cast<float>(keep) / static_cast<float>(found_));
    radius *= std::max(grow, 1.25F);
  }
  choose_smallest(keep);
  return std::span(chosen_).first(chosen_count_);
}

// The `keep` smallest of the found keys: every key of the buckets below
// the keep-th's is in, and only the keep-th's own bucket needs sorting out.
void NearestPoints::choose_smallest(std::size_t keep) {
  const std::span<Key> found(keys_.data(), found_);
  if (scale_ == 0.0F) {
    // No usable scale (everything at one place, or no finite limit).
    std::nth_element(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(keep) - 1, found.end());
    for (std::size_t k = 0; k < keep; ++k) chosen_[k] = static_cast<std::uint32_t>(found[k]);
    chosen_count_ = keep;
    kth_square_ = std::bit_cast<float>(static_cast<std::uint32_t>(found[keep - 1] >> 32));
    return;
  }
  // Each key's bucket, monotonic in its squared distance (NaN in the
  // last), counted in four interleaved tables: neighbours (often in one
  // bucket) do not wait on each other's increment.
  std::array<std::array<std::uint32_t, kBuckets>, 4> counts{};
  for (std::size_t i = 0; i < found.size(); ++i) {
    const float at = squares_[i] * scale_;
    const auto b = static_cast<std::uint8_t>(at < static_cast<float>(kBuckets - 1) ? at : kBuckets - 1);
    buckets_[i] = b;
    ++counts[i % 4][b];
  }
  std::uint32_t cut = 0;
  std::size_t below = 0;
  for (;; ++cut) {
    const std::size_t here = counts[0][cut] + counts[1][cut] + counts[2][cut] + counts[3][cut];
    if (below + here >= keep) break;
    below += here;
  }
  // Every key of a lower bucket is in; those of the cut's bucket wait.
  // Both written always and kept by condition: no branch to mispredict
  // (both buffers have room for every point).
  std::size_t in = 0;
  std::size_t waiting = 0;
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::uint32_t b = buckets_[i];
    chosen_[in] = static_cast<std::uint32_t>(found[i]);
    in += b < cut ? 1 : 0;
    boundary_[waiting] = found[i];
    waiting += b == cut ? 1 : 0;
  }
  const auto boundary = std::span(boundary_).first(waiting);
  const std::size_t rest = keep - below;
  std::nth_element(boundary.begin(), boundary.begin() + static_cast<std::ptrdiff_t>(rest) - 1, boundary.end());
  for (std::size_t k = 0; k < rest; ++k) chosen_[in + k] = static_cast<std::uint32_t>(boundary[k]);
  chosen_count_ = keep;
  kth_square_ = std::bit_cast<float>(static_cast<std::uint32_t>(boundary[rest - 1] >> 32));
}

// The radius of a disc around the centre whose part inside the arena has
// about the given area: near an edge, the disc must reach further.
float NearestPoints::radius_for(Vec2 centre, float area) const {
  constexpr float kPi = 3.14159265F;
  const float h = grid_.half_size();
  // How far the centre is inside each side (negative: outside).
  const std::array<float, 4> inside{centre.x + h, h - centre.x, centre.y + h, h - centre.y};
  float radius = std::sqrt(area / kPi);
  for (int step = 0; step < 4 && std::isfinite(radius) && radius > 0.0F; ++step) {
    // The disc less what lies beyond each side (corners are taken twice,
    // which only makes the disc larger).
    float in = kPi * radius * radius;
    for (const float a : inside) {
      if (a >= radius) continue;
      if (a <= -radius) {
        in = 0.0F;
        break;
      }
      in -= radius * radius * std::acos(a / radius) - a * std::sqrt(radius * radius - a * a);
    }
    if (in >= area) break;
    radius *= std::min(std::sqrt(area / std::max(in, area * 0.01F)), 2.0F);
  }
  return radius;
}

bool NearestPoints::gather_disc(Vec2 centre, float radius) {
  const int last = grid_.side() - 1;
  const float limit = radius * radius;
  // Buckets of squared distance over [0, limit]: about evenly filled, as
  // the area within a distance grows with its square.
  scale_ = static_cast<float>(kBuckets) / limit;
  if (!(scale_ <= std::numeric_limits<float>::max())) scale_ = 0.0F;  // a limit of 0
  if (!(limit <= std::numeric_limits<float>::max())) {
    scale_ = 0.0F;
    // No finite radius: every point, NaN distances included.
    for (int y = 0; y <= last; ++y) gather(centre, y, 0, last, std::numeric_limits<Key>::max());
    return true;
  }
  // Keys of squared distances up to `limit`, any index.
  const Key below = (static_cast<Key>(std::bit_cast<std::uint32_t>(limit)) + 1) << 32;
  // The cells to look in, with a margin for the rounding of the squared
  // distances and of the cell arithmetic: every point within the radius
  // is in a cell the widened disc touches.
  const float reach = radius * (1.0F + 1e-4F) + 1e-4F * (std::fabs(centre.x) + std::fabs(centre.y)) + 1e-3F;
  const float lo = -grid_.half_size();
  const float cell = grid_.cell_size();
  const int y0 = grid_.column(centre.y - reach);
  const int y1 = grid_.column(centre.y + reach);
  bool whole = y0 == 0 && y1 == last;
  for (int y = y0; y <= y1; ++y) {
    // The row's nearest edge to the centre; the edge rows reach beyond
    // the arena, as their points may.
    const float bottom = lo + static_cast<float>(y) * cell;
    const float top = bottom + cell;
    float dy = 0.0F;
    if (y > 0 && centre.y < bottom) dy = bottom - centre.y;
    if (y < last && centre.y > top) dy = centre.y - top;
    const float half = std::sqrt(std::max(reach * reach - dy * dy, 0.0F));
    const int x0 = grid_.column(centre.x - half);
    const int x1 = grid_.column(centre.x + half);
    whole = whole && x0 == 0 && x1 == last;
    gather(centre, y, x0, x1, below);
  }
  return whole;
}

}  // namespace tickwire::arena
