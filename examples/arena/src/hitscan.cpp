#include "tickwire/arena/hitscan.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "tickwire/arena/arena.h"

namespace tickwire::arena {

namespace {

lagcomp::HistoryConfig history_config(const HitscanConfig& c) {
  lagcomp::HistoryConfig h;
  h.tick_rate = c.tick_rate;
  h.max_entities = c.max_players;
  h.max_shapes_per_entity = 1;
  h.max_rewind = c.max_rewind;
  return h;
}

lagcomp::Vec3 on_ground(Vec2 p) { return {p.x, 0.0F, p.y}; }

}  // namespace

Hitscan::Hitscan(const HitscanConfig& config) : history_(history_config(config)) {}

HitscanVerdict Hitscan::judge(const HitscanShot& shot) {
  ++stats_.shots;
  const auto range = history_.range();
  if (!range) {
    ++stats_.unrecorded;
    return {};
  }
  // The server's policy clamped the time to its window; the history may
  // hold less (just started, or after a gap), so clamp again into it.
  NetworkTime at = shot.at;
  if (at < range->oldest) at = range->oldest;
  if (at > range->newest) at = range->newest;
  // Who may shoot is the server's present: a shooter that died and
  // respawned after the view it aimed in fires from a life that is over.
  if (const auto self = history_.rewind(shot.shooter, at); self && self->teleport_blocked) {
    ++stats_.void_shots;
    return {ShotResult::kVoid, std::nullopt, std::nullopt};
  }
  lagcomp::Ray ray;
  ray.origin = on_ground(shot.origin);
  ray.direction = {std::cos(shot.aim), 0.0F, std::sin(shot.aim)};
  ray.max_distance = kHitscanRange;
  const auto cast = history_.ray_cast(ray, at, {.ignore = shot.shooter});
  if (!cast.ok()) return {ShotResult::kMiss, std::nullopt, std::nullopt};
  if (cast->hit) {
    ++stats_.hits;
    // The arena records one sphere per player: its centre is the player's
    // rewound position, its cut by the ground plane the circle drawn.
    const lagcomp::Shape& shape = cast->hit->shape;
    const RewoundTarget pose{cast->hit->entity, {shape.a.x, shape.a.z}, shape.radius};
    return {ShotResult::kHit, cast->hit->entity, pose};
  }
  // Would it have hit a player as the shooter saw it, one that respawned
  // since? Then the teleport rule refused it (a dead player is not hit
  // again), which the shooter is told apart from a plain miss.
  const auto seen = history_.ray_cast(ray, at, {.ignore = shot.shooter, .broad_phase = false, .cross_teleports = true});
  if (seen.ok() && seen->hit && seen->hit->teleport_blocked) {
    ++stats_.teleport_blocked;
    return {ShotResult::kMissTeleported, std::nullopt, std::nullopt};
  }
  return {ShotResult::kMiss, std::nullopt, std::nullopt};
}

void Hitscan::record(const snapshot::World& world, Tick tick, const std::vector<snapshot::EntityId>& teleported) {
  const Schema& s = schema();
  if (!history_.begin_tick(tick).ok()) return;
  for (const snapshot::EntityId id : world.entities(s.player_type)) {
    const Vec2 p = world.get(id, s.player_position);
    const std::array<lagcomp::Shape, 1> shapes{lagcomp::Shape::sphere(on_ground(p), kPlayerRadius)};
    const bool jumped = std::find(teleported.begin(), teleported.end(), id) != teleported.end();
    // A refusal (over max_players) is counted by the history; the tick goes on.
    (void)history_.record(id, on_ground(p), shapes,
                          jumped ? lagcomp::Motion::kTeleported : lagcomp::Motion::kContinuous);
  }
  (void)history_.end_tick();
}

}  // namespace tickwire::arena
