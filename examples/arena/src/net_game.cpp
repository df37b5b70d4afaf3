// The arena's side of the runtime contract (prediction/net_game.h): who
// joins and leaves, who sees what, and what a client predicts.

#include <algorithm>
#include <bit>
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

namespace {

// Each owner's first entity in `entities` order, as (owner, index into
// `ids`), sorted by owner: a stable sort keeps the first first.
void first_by_owner(const snapshot::World& world, std::span<const EntityId> entities, Field<std::int32_t> owner,
                    std::span<const EntityId> ids, std::vector<std::pair<std::uint32_t, std::uint32_t>>& out) {
  out.clear();
  for (const EntityId id : entities) {
    const auto index = static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
    out.emplace_back(static_cast<std::uint32_t>(world.get(id, owner)), index);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

std::optional<std::uint32_t> find_by_owner(std::span<const std::pair<std::uint32_t, std::uint32_t>> table,
                                           std::uint32_t owner) {
  const auto key = owner % 65536;
  const auto it = std::lower_bound(table.begin(), table.end(), key,
                                   [](const auto& entry, std::uint32_t v) { return entry.first < v; });
  if (it == table.end() || it->first != key) return std::nullopt;
  return it->second;
}

}  // namespace

// Players and projectiles move by their velocity; platforms follow their
// paths (a player's velocity leaves out a platform's carry).
void Game::motion_fields(std::vector<prediction::MotionFields>& out) const {
  const Schema& s = arena::schema();
  out.push_back(prediction::MotionFields::of(s.player_position, s.player_velocity, kPlayerRadius));
  out.push_back(prediction::MotionFields::of(s.projectile_position, s.projectile_velocity));
  out.push_back(prediction::MotionFields::of(s.platform_position, kPlatformHalfWidth * std::sqrt(2.0F)));  // to a corner
}

void Game::before_snapshots(const snapshot::World& world) {
  positions_.clear();
  position_ids_.clear();
  players_by_owner_.clear();
  shots_by_owner_.clear();
  if (config_.nearest_entities == 0 || world.size() <= config_.nearest_entities) return;
  for (const EntityId id : world.ids()) {
    position_ids_.push_back(id);
    positions_.push_back(position_of(world, id));
  }
  nearest_.build(positions_);
  marks_.assign((positions_.size() + 63) / 64, 0);
  // find_player's and find_shot's answers for every owner at once.
  const Schema& s = arena::schema();
  first_by_owner(world, world.entities(s.player_type), s.player_owner, position_ids_, players_by_owner_);
  first_by_owner(world, world.entities(s.shot_type), s.shot_owner, position_ids_, shots_by_owner_);
}

snapshot::Relevancy Game::relevancy(const snapshot::World& world, prediction::PlayerId player) {
  if (config_.nearest_entities == 0 || world.size() <= config_.nearest_entities) return {};
  if (positions_.empty()) before_snapshots(world);  // a caller that skipped the hook
  const auto me = find_by_owner(players_by_owner_, player.value);
  if (!me) return {};
  // The chosen entities are marked by index, which is id order, so the
  // list comes out sorted and without repeats with no sort.
  const auto mark = [&](std::uint32_t i) { marks_[i / 64] |= std::uint64_t{1} << (i % 64); };
  // Start from the keep-th distance of this avatar's last query, plus
  // what a tick or two of movement may change: a disc with a few more than
  // needed. Ids reused by another player only make a worse first guess.
  const std::uint32_t avatar = position_ids_[*me].value;
  if (avatar >= reach_by_avatar_.size()) reach_by_avatar_.resize(avatar + 1, 0.0F);
  float& reach = reach_by_avatar_[avatar];
  const float hint = reach > 0.0F ? reach * 1.02F + 0.5F : 0.0F;
  for (const std::uint32_t i : nearest_.select(positions_[*me], config_.nearest_entities, hint)) mark(i);
  const float kth = nearest_.kth_square();
  reach = kth > 0.0F && kth <= std::numeric_limits<float>::max() ? std::sqrt(kth) : 0.0F;
  mark(*me);
  if (const auto shot = find_by_owner(shots_by_owner_, player.value)) mark(*shot);
  relevant_.clear();
  for (std::size_t w = 0; w < marks_.size(); ++w) {
    for (std::uint64_t bits = marks_[w]; bits != 0; bits &= bits - 1) {
      relevant_.push_back(position_ids_[w * 64 + static_cast<std::size_t>(std::countr_zero(bits))]);
    }
    marks_[w] = 0;
  }
  // Valid until the next call: the runtime encodes with it at once.
  return snapshot::Relevancy::of_ids(relevant_);
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
  // Touching, or about to within a snapshot or two.
  constexpr float kContact = 2.0F * kPlayerRadius + 0.3F;
  remote_rule_.begin();
  if (config_.remote_predict_radius > 0.0F) {
    for (EntityId id : world.entities(s.player_type)) {
      if (id == *me) continue;
      const float d = distance(p, world.get(id, s.player_position));
      if (remote_rule_.wants(id, d, d <= kContact)) out.push_back(id);
    }
  }
  remote_rule_.end();
}

std::optional<prediction::PlayerId> Game::guess_input(const snapshot::World& world, EntityId entity,
                                                      snapshot::Record& input) const {
  const Schema& s = arena::schema();
  if (world.type_of(entity) != s.player_type) return std::nullopt;
  // A player's velocity is its move times its speed (without a platform's
  // carry, which the platform adds by itself).
  const float speed = world.get(entity, s.player_dash_ticks) > 0 ? kDashSpeed : kPlayerSpeed;
  const Vec2 v = world.get(entity, s.player_velocity);
  Input in;
  in.move = {std::clamp(v.x / speed, -1.0F, 1.0F), std::clamp(v.y / speed, -1.0F, 1.0F)};
  to_record(in, input);
  return prediction::PlayerId{static_cast<std::uint32_t>(world.get(entity, s.player_owner))};
}

}  // namespace tickwire::arena
