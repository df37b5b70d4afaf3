#pragma once
// The arena's hitscan weapon, judged with lag compensation
// (docs/lag-compensation.md): the server records every player's hit shape
// each tick, and a shot is cast against the players as the shooter saw
// them, at the view time the server's rewind policy chose for its input
// (PlayerInput::rewind). Shooter-favoured: a target that had already
// reached cover on the server when the shot is judged is still hit if the
// shooter saw it exposed, within the rewind window.
//
// The arena is flat: a player's shape is a sphere of kPlayerRadius on the
// ground plane (the arena's y is the history's z), and a shot is a ray in
// that plane, so the sphere's cut is the circle a client draws.

#include <cstdint>
#include <optional>
#include <vector>

#include "tickwire/core/network_time.h"
#include "tickwire/core/tick.h"
#include "tickwire/core/time.h"
#include "tickwire/lagcomp/hit_history.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::arena {

inline constexpr float kHitscanRange = 120.0F;  // beyond the arena's diagonal
inline constexpr int kHitscanDamage = 5;

// What the server said about a player's latest hitscan shot, replicated in
// that player's shot entity so its client can score registration.
enum class ShotResult : std::int32_t {
  kNone = 0,
  kMiss = 1,
  kHit = 2,
  // A miss because the rewind stopped at a target's teleport (a respawn
  // inside the window): the shooter aimed at where the target was before.
  kMissTeleported = 3,
  // Refused: the shooter itself respawned after its view time, so the shot
  // came from a life that had already ended on the server (its client had
  // not heard yet). It fires nothing.
  kVoid = 4,
};

struct HitscanConfig {
  std::uint32_t max_players = 64;  // hittable players per tick; more are left out and counted
  Duration max_rewind = Duration::millis(250);
  std::uint32_t tick_rate = 60;  // of the simulation whose ticks it records
};

struct HitscanStats {
  std::uint64_t shots = 0;
  std::uint64_t hits = 0;
  std::uint64_t teleport_blocked = 0;  // misses whose rewind stopped at a teleport
  std::uint64_t unrecorded = 0;        // shots before the history held a tick
  std::uint64_t void_shots = 0;        // from a shooter that respawned after its view time
};

// One shot to judge: the shooter's entity and where it stands, its aim,
// and the view time to judge it at.
struct HitscanShot {
  snapshot::EntityId shooter;
  snapshot::Vec2 origin;
  float aim = 0.0F;
  NetworkTime at;
};

// The shape a hit struck, as the history rewound it to the shot's view
// time: what the shooter's client draws to show how the shot was judged.
struct RewoundTarget {
  snapshot::EntityId entity;
  snapshot::Vec2 centre;  // on the ground plane
  float radius = 0.0F;
};

struct HitscanVerdict {
  ShotResult result = ShotResult::kMiss;
  std::optional<snapshot::EntityId> target;
  std::optional<RewoundTarget> pose;  // with a hit
};

class Hitscan {
 public:
  explicit Hitscan(const HitscanConfig& config);

  // Judges a shot against the players as recorded up to the previous tick.
  HitscanVerdict judge(const HitscanShot& shot);
  // Records every player of `world` at `tick`, after the tick's step;
  // `teleported` lists the players that jumped this tick (respawns).
  void record(const snapshot::World& world, Tick tick, const std::vector<snapshot::EntityId>& teleported);

  const lagcomp::HitHistory& history() const { return history_; }
  const HitscanStats& stats() const { return stats_; }

 private:
  lagcomp::HitHistory history_;
  HitscanStats stats_;
};

}  // namespace tickwire::arena
