// The arena's side of the runtime contract (prediction/net_game.h): who
// joins and leaves, who sees what, and what a client predicts.

#include <algorithm>
#include <cmath>
#include <limits>

#include "tickwire/arena/arena.h"

namespace tickwire::arena {
namespace {

float distance(Vec2 a, Vec2 b) { return std::hypot(a.x - b.x, a.y - b.y); }

Vec2 position_of(const snapshot::World& world, EntityId id) {
  const Schema& s = schema();
  const auto type = world.type_of(id);
  if (type == s.player_type) return world.get(id, s.player_position);
  if (type == s.projectile_type) return world.get(id, s.projectile_position);
  // A shot result has no place; its owner is always sent it (relevancy).
  if (type == s.shot_type) return Vec2{kHalfSize * 4.0F, kHalfSize * 4.0F};
  return world.get(id, s.platform_position);
}

}  // namespace

const snapshot::Schema& Game::schema() const { return arena::schema().schema; }
snapshot::TypeId Game::input_type() const { return arena::schema().input_type; }

void Game::populate(snapshot::World& world) { arena::populate(world); }

void Game::player_joined(snapshot::World& world, prediction::PlayerId player) {
  // A new player may reuse a departed one's id: its history starts here.
  joined_.push_back(spawn_player(world, player.value));
}

void Game::player_left(snapshot::World& world, prediction::PlayerId player) {
  const Schema& s = arena::schema();
  if (auto id = find_player(world, player.value)) world.despawn(*id);
  if (auto id = find_shot(world, player.value)) world.despawn(*id);
  // Its projectiles in flight go with it.
  std::vector<EntityId> owned;
  for (EntityId id : world.entities(s.projectile_type)) {
    if (world.get(id, s.projectile_key.owner) == static_cast<std::int32_t>(player.value % 65536)) owned.push_back(id);
  }
  for (EntityId id : owned) world.despawn(id);
}

void Game::before_snapshots(const snapshot::World& world) {
  positions_.clear();
  position_ids_.clear();
  players_by_owner_.clear();
  if (config_.nearest_entities == 0 || world.size() <= config_.nearest_entities) return;
  for (const EntityId id : world.ids()) {
    position_ids_.push_back(id);
    positions_.push_back(position_of(world, id));
  }
  entity_grid_.build(positions_);
  // find_player's answer for every owner at once: the first player of the
  // owner in entities() order, which a stable sort keeps first.
  const Schema& s = arena::schema();
  for (const EntityId id : world.entities(s.player_type)) {
    players_by_owner_.emplace_back(static_cast<std::uint32_t>(world.get(id, s.player_owner)), id);
  }
  std::stable_sort(players_by_owner_.begin(), players_by_owner_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

std::optional<EntityId> Game::player_of(std::uint32_t owner) const {
  const auto key = owner % 65536;
  const auto it = std::lower_bound(players_by_owner_.begin(), players_by_owner_.end(), key,
                                   [](const auto& entry, std::uint32_t v) { return entry.first < v; });
  if (it == players_by_owner_.end() || it->first != key) return std::nullopt;
  return it->second;
}

snapshot::Relevancy Game::relevancy(const snapshot::World& world, prediction::PlayerId player) {
  if (config_.nearest_entities == 0 || world.size() <= config_.nearest_entities) return {};
  if (positions_.empty()) before_snapshots(world);  // a caller that skipped the hook
  const auto me = player_of(player.value);
  if (!me) return {};
  const Vec2 centre = world.get(*me, arena::schema().player_position);
  nearest(centre, config_.nearest_entities);
  relevant_.clear();
  const std::size_t keep = std::min(config_.nearest_entities, by_distance_.size());
  for (std::size_t k = 0; k < keep; ++k) relevant_.push_back(by_distance_[k].second);
  relevant_.push_back(*me);
  if (const auto shot = find_shot(world, player.value)) relevant_.push_back(*shot);
  std::sort(relevant_.begin(), relevant_.end());
  relevant_.erase(std::unique(relevant_.begin(), relevant_.end()), relevant_.end());
  // Valid until the next call: the runtime encodes with it at once.
  return snapshot::Relevancy::of_ids(relevant_);
}

// Leaves in the first `keep` places of by_distance_ the entities with the
// smallest (squared distance, id): the grid's cells are taken in rings
// around the centre until no entity outside them can be nearer than the
// keep-th found so far.
void Game::nearest(Vec2 centre, std::size_t keep) {
  by_distance_.clear();
  const PointGrid& grid = entity_grid_;
  const int cx = grid.column(centre.x);
  const int cy = grid.column(centre.y);
  const auto add = [&](int x, int y) {
    if (x < 0 || y < 0 || x >= grid.side() || y >= grid.side()) return;
    for (const std::uint32_t i : grid.cell(x, y)) {
      // Squared distances order the same and need no square root.
      const float dx = positions_[i].x - centre.x;
      const float dy = positions_[i].y - centre.y;
      by_distance_.emplace_back(dx * dx + dy * dy, position_ids_[i]);
    }
  };
  for (int r = 0;; ++r) {
    if (r == 0) {
      add(cx, cy);
    } else {
      for (int x = cx - r; x <= cx + r; ++x) {
        add(x, cy - r);
        add(x, cy + r);
      }
      for (int y = cy - r + 1; y <= cy + r - 1; ++y) {
        add(cx - r, y);
        add(cx + r, y);
      }
    }
    const bool everything = cx - r <= 0 && cy - r <= 0 && cx + r >= grid.side() - 1 && cy + r >= grid.side() - 1;
    if (by_distance_.size() < keep) {
      if (everything) break;
      continue;
    }
    const auto kth = by_distance_.begin() + static_cast<std::ptrdiff_t>(keep) - 1;
    std::nth_element(by_distance_.begin(), kth, by_distance_.end());
    if (everything) return;
    // The nearest an entity outside the rings can be: the distance to the
    // rings' edge (a side at the grid's edge has nothing beyond it), less
    // a margin for the rounding of the squared distances.
    const float cell = grid.cell_size();
    const float lo = -kHalfSize;
    float gap = std::numeric_limits<float>::infinity();
    if (cx - r > 0) gap = std::min(gap, centre.x - (lo + static_cast<float>(cx - r) * cell));
    if (cx + r < grid.side() - 1) gap = std::min(gap, lo + static_cast<float>(cx + r + 1) * cell - centre.x);
    if (cy - r > 0) gap = std::min(gap, centre.y - (lo + static_cast<float>(cy - r) * cell));
    if (cy + r < grid.side() - 1) gap = std::min(gap, lo + static_cast<float>(cy + r + 1) * cell - centre.y);
    gap -= 1e-3F;
    if (gap > 0.0F && kth->first < gap * gap) return;
  }
}

std::optional<EntityId> Game::avatar(const snapshot::World& world, prediction::PlayerId player) const {
  return find_player(world, player.value);
}

void Game::predicted_entities(const snapshot::World& world, prediction::PlayerId player,
                              std::vector<EntityId>& out) const {
  const auto me = find_player(world, player.value);
  if (!me) return;
  out.push_back(*me);
  const Schema& s = arena::schema();
  const Vec2 p = world.get(*me, s.player_position);
  for (EntityId platform : world.entities(s.platform_type)) {
    if (distance(p, world.get(platform, s.platform_position)) <= config_.platform_predict_radius) {
      out.push_back(platform);
    }
  }
}

}  // namespace tickwire::arena
