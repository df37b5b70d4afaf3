#pragma once
// The `keep` points of a list nearest a centre, for many centres over the
// same points (each client's nearest entities, every tick). Nearest means
// smallest by (squared distance, index into the list): a total order, so
// the answer is one exact set whatever the grid, ties included.

#include <array>
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
  std::size_t size() const { return xs_.size(); }

  // Indices of the `keep` nearest points to `centre` (all of them when
  // there are fewer), in no particular order. Valid until the next call.
  // `hint`, when positive, is the first radius to look within: the answer
  // is the same whatever it is, only quicker when it holds a few more
  // than `keep` points (such as the last keep-th distance for this centre,
  // plus how far things may have moved since).
  std::span<const std::uint32_t> select(Vec2 centre, std::size_t keep, float hint = 0.0F);
  // The last select's keep-th squared distance (NaN when it chose every
  // point or none).
  float kth_square() const { return kth_square_; }

 private:
  // (squared distance's bits, index): for distances >= 0, unsigned order
  // of the bits is the floats' order, so one integer compares both.
  using Key = std::uint64_t;
  // Adds the keys of the points in cells x0..x1 of row y (none if x0 > x1)
  // that are below `below`.
  // Inlined: it runs for every row of every query.
  [[gnu::always_inline]] inline void gather(Vec2 centre, int y, int x0, int x1, Key below);
  // Adds the keys of every point within `radius` of the centre (all of
  // them for an infinite or NaN radius); true when it looked at every cell.
  bool gather_disc(Vec2 centre, float radius);
  float radius_for(Vec2 centre, float area) const;
  float guess_radius(Vec2 centre, std::size_t keep) const;
  // Fills chosen_ with the `keep` smallest found keys' indices.
  void choose_smallest(std::size_t keep);

  PointGrid grid_;
  // The points' coordinates in grid_.items() order, read in runs.
  std::vector<float> xs_;
  std::vector<float> ys_;
  static constexpr std::uint32_t kBuckets = 64;
  float scale_ = 0.0F;     // buckets per squared metre of this query; 0 for none
  std::vector<Key> keys_;  // one per point; the first found_ are this query's
  std::size_t found_ = 0;
  std::vector<Key> boundary_;          // one per point
  std::vector<float> squares_;         // per found key, its squared distance
  std::vector<std::uint8_t> buckets_;  // per found key, its bucket
  std::vector<std::uint32_t> chosen_;  // one per point; the first chosen_count_ are the answer
  std::size_t chosen_count_ = 0;
  float kth_square_ = 0.0F;
};

}  // namespace tickwire::arena
