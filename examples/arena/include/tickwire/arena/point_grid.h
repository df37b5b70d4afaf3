#pragma once
// A uniform grid of points over the arena, for questions like "which
// players are within reach of this projectile" or "which entities are
// nearest this player" without looking at every point. Built once per use
// from a list of positions; answers with indices into that list. Points
// outside the arena count as in its edge cells, so no point is ever lost.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "tickwire/snapshot/math.h"

namespace tickwire::arena {

using snapshot::Vec2;

class PointGrid {
 public:
  // Square cells of `cell_size` over [-half_size, half_size] on both axes.
  PointGrid(float half_size, float cell_size)
      : half_size_(half_size),
        cell_size_(cell_size),
        per_cell_(1.0F / cell_size),
        side_(static_cast<int>(std::ceil(2.0F * half_size / cell_size))) {}

  // Replaces the content with `points`; keeps its allocations.
  void build(std::span<const Vec2> points) {
    cell_of_point_.resize(points.size());
    start_.assign(static_cast<std::size_t>(side_ * side_) + 1, 0);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::size_t c = cell_index(column(points[i].x), column(points[i].y));
      cell_of_point_[i] = static_cast<std::uint32_t>(c);
      ++start_[c + 1];
    }
    for (std::size_t c = 1; c < start_.size(); ++c) start_[c] += start_[c - 1];
    // Counting sort: within a cell, points keep their order in the list.
    items_.resize(points.size());
    fill_.assign(start_.begin(), start_.end() - 1);
    for (std::size_t i = 0; i < points.size(); ++i) items_[fill_[cell_of_point_[i]]++] = static_cast<std::uint32_t>(i);
  }

  int side() const { return side_; }
  float cell_size() const { return cell_size_; }
  float half_size() const { return half_size_; }
  // The column (or row) of a coordinate, clamped into the grid.
  int column(float v) const {
    const float c = (v + half_size_) * per_cell_;
    if (!(c >= 0.0F)) return 0;  // also NaN
    // From here the conversion's truncation is the floor (and cheaper).
    return c >= static_cast<float>(side_) ? side_ - 1 : static_cast<int>(c);
  }
  // Points in cell (x, y), both in [0, side()).
  std::span<const std::uint32_t> cell(int x, int y) const {
    const std::size_t c = cell_index(x, y);
    return std::span(items_).subspan(start_[c], start_[c + 1] - start_[c]);
  }
  // The item slots of cells x0..x1 (x0 <= x1) of row y, as [first, last):
  // a row's cells are stored one after another, so a run of them is one
  // range of items().
  std::pair<std::uint32_t, std::uint32_t> row_slots(int y, int x0, int x1) const {
    return {start_[cell_index(x0, y)], start_[cell_index(x1, y) + 1]};
  }
  // Every point's index, cell after cell, row after row.
  std::span<const std::uint32_t> items() const { return items_; }
  // Calls fn(index) for every point in the cells that the square of
  // half-width `reach` around p touches: a superset of those within reach.
  template <class Fn>
  void near(Vec2 p, float reach, Fn&& fn) const {
    const int x1 = column(p.x + reach);
    const int y1 = column(p.y + reach);
    for (int y = column(p.y - reach); y <= y1; ++y) {
      for (int x = column(p.x - reach); x <= x1; ++x) {
        for (const std::uint32_t i : cell(x, y)) fn(i);
      }
    }
  }

 private:
  std::size_t cell_index(int x, int y) const { return static_cast<std::size_t>(y * side_ + x); }

  float half_size_;
  float cell_size_;
  float per_cell_;  // cells per metre: a product is quicker than a division
  int side_;
  std::vector<std::uint32_t> start_;  // per cell, its first item; one more at the end
  std::vector<std::uint32_t> fill_;
  std::vector<std::uint32_t> items_;
  std::vector<std::uint32_t> cell_of_point_;
};

}  // namespace tickwire::arena
