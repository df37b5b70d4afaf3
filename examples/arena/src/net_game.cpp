// The arena's side of the runtime contract (prediction/net_game.h): who
// joins and leaves, who sees what, and what a client predicts.

#include <algorithm>
#include <cmath>

#include "tickwire/arena/arena.h"

namespace tickwire::arena {
namespace {

float distance(Vec2 a, Vec2 b) { return std::hypot(a.x - b.x, a.y - b.y); }

Vec2 position_of(const snapshot::World& world, EntityId id) {
  const Schema& s = schema();
  const auto type = world.type_of(id);
  if (type == s.player_type) return world.get(id, s.player_position);
  if (type == s.projectile_type) return world.get(id, s.projectile_position);
  return world.get(id, s.platform_position);
}

}  // namespace

const snapshot::Schema& Game::schema() const { return arena::schema().schema; }
snapshot::TypeId Game::input_type() const { return arena::schema().input_type; }

void Game::populate(snapshot::World& world) { arena::populate(world); }

void Game::player_joined(snapshot::World& world, prediction::PlayerId player) { spawn_player(world, player.value); }

void Game::player_left(snapshot::World& world, prediction::PlayerId player) {
  const Schema& s = arena::schema();
  if (auto id = find_player(world, player.value)) world.despawn(*id);
  // Its projectiles in flight go with it.
  std::vector<EntityId> owned;
  for (EntityId id : world.entities(s.projectile_type)) {
    if (world.get(id, s.projectile_key.owner) == static_cast<std::int32_t>(player.value % 65536)) owned.push_back(id);
  }
  for (EntityId id : owned) world.despawn(id);
}

void Game::before_snapshots(const snapshot::World& world) {
  positions_.clear();
  if (config_.nearest_entities == 0 || world.size() <= config_.nearest_entities) return;
  world.for_each([&](EntityId id) { positions_.emplace_back(id, position_of(world, id)); });
}

snapshot::Relevancy Game::relevancy(const snapshot::World& world, prediction::PlayerId player) {
  if (config_.nearest_entities == 0 || world.size() <= config_.nearest_entities) return {};
  const auto me = find_player(world, player.value);
  if (!me) return {};
  if (positions_.empty()) before_snapshots(world);  // a caller that skipped the hook
  const Vec2 centre = world.get(*me, arena::schema().player_position);
  by_distance_.clear();
  // Squared distances order the same and need no square root.
  for (const auto& [id, p] : positions_) {
    const float dx = p.x - centre.x;
    const float dy = p.y - centre.y;
    by_distance_.emplace_back(dx * dx + dy * dy, id);
  }
  const auto keep = static_cast<std::ptrdiff_t>(config_.nearest_entities);
  std::nth_element(by_distance_.begin(), by_distance_.begin() + keep - 1, by_distance_.end());
  relevant_.assign(world.id_limit(), 0);
  for (auto it = by_distance_.begin(); it != by_distance_.begin() + keep; ++it) relevant_[it->second.value] = 1;
  relevant_[me->value] = 1;
  // Valid until the next call: the runtime encodes with it at once.
  return [this](EntityId id, snapshot::TypeId /*type*/) { return id.value < relevant_.size() && relevant_[id.value]; };
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
