#pragma once
// The `keep` points of a list nearest a centre, for many centres over the
// same points (each client's nearest entities, every tick). Nearest means
// smallest by (squared distance, index into the list): a total order, so
// the answer is one exact set whatever the grid, ties included.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tickwire/arena/point_grid.h"

namespace tickwire::arena {

class NearestPoints {
 public:
  // Points over [-half_size, half_size] on both axes (those outside count
  // as in the edge cells), bucketed in square cells of `cell_size`.
  NearestPoints(float half_size, float cell_size) : grid_(half_size, cell_size) {}

  // Replaces the points; keeps its allocations.
  void build(std::span<const Vec2> points);
  std::size_t size() const { return slot_points_.size(); }

  // Indices of the `keep` nearest points to `centre` (all of them when
  // there are fewer), in no particular order. Valid until the next call.
  std::span<const std::uint32_t> select(Vec2 centre, std::size_t keep);

 private:
  // (squared distance's bits, index): for distances >= 0, unsigned order
  // of the bits is the floats' order, so one integer compares both.
  using Key = std::uint64_t;
  Key key(Vec2 centre, std::uint32_t slot) const;
  // Adds the keys of the points in cells x0..x1 of row y (none if x0 > x1)
  // that are below `below`.
  void gather(Vec2 centre, int y, int x0, int x1, Key below);

  PointGrid grid_;
  std::vector<Vec2> slot_points_;  // the points in grid_.items() order, read in runs
  std::vector<Key> keys_;
  std::vector<std::uint32_t> chosen_;
};

}  // namespace tickwire::arena
