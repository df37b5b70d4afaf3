#pragma once
// The contract between a game and the prediction runtime: an input type
// (a record type of the game's schema), one `simulate` step that the server
// and every client run, and the context that step is called with.
//
//   struct MyGame : prediction::Game {
//     void simulate(World& world, Tick tick, const Inputs& inputs, SimContext& ctx) override {
//       for (const PlayerInput& in : inputs.all()) {
//         EntityId avatar = find_avatar(world, in.player);
//         if (!ctx.simulates(avatar)) continue;      // not ours to move on this machine
//         move(world, avatar, in.input->get(move_field));
//         if (in.input->get(fire_field) && !ctx.resimulating()) play_sound();
//       }
//     }
//   };
//
// The runtime calls simulate; the game never rolls back by itself. The
// state at tick T is what simulate(T) leaves in the world, starting from
// the state at T - 1. After each step the runtime snaps the simulated
// entities to their quantized values (the server does the same), so the
// client predicts from exactly what the server holds and sends.

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tickwire/core/network_time.h"
#include "tickwire/core/tick.h"
#include "tickwire/snapshot/ids.h"
#include "tickwire/snapshot/record.h"
#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::prediction {

using snapshot::EntityId;
using snapshot::TypeId;

// A player as the server numbers them (the client id of the handshake).
struct PlayerId {
  std::uint32_t value = 0;
  constexpr auto operator<=>(const PlayerId&) const = default;
};

// One player's input for the tick being simulated.
struct PlayerInput {
  PlayerId player;
  const snapshot::Record* input = nullptr;  // never null when handed to simulate
  // On the server: the client's input for this tick never arrived and this
  // is the stand-in (its last input, or a neutral one). On a client: the
  // history had no input for the tick.
  bool fallback = false;
  // On the server: the interpolation time the client says it drew the
  // other entities at when it sampled this input (range-checked on
  // receipt), for lag compensation. The client's word: pass it through
  // lagcomp::RewindPolicy before rewinding to it. Absent with a stand-in,
  // on a client, and from clients that send no view times.
  std::optional<NetworkTime> view;
  // On the server: the view time to judge this input's shots at, as the
  // server's rewind policy decided it (docs/lag-compensation.md, section
  // 3): the claim, or the server's own estimate when the claim is missing
  // or strays too far from it, clamped into the rewind window that ends at
  // the previous tick. Absent with a stand-in and on a client.
  std::optional<NetworkTime> rewind;
};

// The inputs of one tick: on the server every connected player's, on a
// client only its own. A view; the runtime owns the records.
class Inputs {
 public:
  Inputs() = default;
  explicit Inputs(std::span<const PlayerInput> all) : all_(all) {}
  std::span<const PlayerInput> all() const { return all_; }
  // The input of `player`, or nullptr when this tick has none for them.
  const snapshot::Record* find(PlayerId player) const {
    for (const PlayerInput& p : all_) {
      if (p.player == player) return p.input;
    }
    return nullptr;
  }

 private:
  std::span<const PlayerInput> all_;
};

// Fields an entity type needs if clients may spawn it ahead of the server
// (a projectile): who spawned it, at which tick, and which of that player's
// spawns in that tick it was. The client matches its local entity with the
// server's by these three. Add them once per type with add_spawn_key.
struct SpawnKey {
  snapshot::Field<std::int32_t> owner;
  snapshot::Field<std::int32_t> tick;   // the spawn tick modulo 65536
  snapshot::Field<std::int32_t> index;  // 0..kMaxSpawnsPerTick - 1
};

inline constexpr std::int32_t kMaxSpawnsPerTick = 64;
inline constexpr std::int32_t kSpawnTickModulus = 65536;

// Adds the three key fields ("spawn_owner", "spawn_tick", "spawn_index") to
// an entity type. Player ids above max_player_id cannot spawn this type
// (SimContext::spawn throws). Throws std::invalid_argument when
// max_player_id is negative.
SpawnKey add_spawn_key(snapshot::TypeBuilder& type, std::int32_t max_player_id);

// How a client's runtime places predicted spawns; the server has none and
// spawns for real.
class SpawnHook {
 public:
  virtual ~SpawnHook() = default;
  virtual EntityId spawn(snapshot::World& world, TypeId type, const SpawnKey& key, PlayerId owner, Tick tick,
                         std::uint32_t index) = 0;

 protected:
  SpawnHook() = default;
  SpawnHook(const SpawnHook&) = default;
  SpawnHook& operator=(const SpawnHook&) = default;
};

// What simulate may ask about the step it is running.
class SimContext {
 public:
  // An authoritative step (the server, or a test): every entity simulates
  // and spawns are real.
  explicit SimContext(Tick tick, bool resimulating = false) : tick_(tick), resimulating_(resimulating) {}
  // A client's step: only the entities marked in `simulated` (indexed by
  // entity id) simulate, and spawns go through `hook`.
  SimContext(Tick tick, bool resimulating, std::span<const std::uint8_t> simulated, SpawnHook& hook)
      : tick_(tick), resimulating_(resimulating), authority_(false), simulated_(simulated), hook_(&hook) {}

  Tick tick() const { return tick_; }
  // True when this machine already simulated this tick once and is running
  // it again after a correction: skip sounds, particles and anything else
  // that must happen once.
  bool resimulating() const { return resimulating_; }
  // True on the server: the result is the truth, not a prediction.
  bool authority() const { return authority_; }

  // Whether this step may change entity `id`. On a client, entities it does
  // not predict (other players, shown interpolated) are present for reading
  // but must be left alone, and so are predicted entities that a partial
  // snapshot did not roll back (they are already at the newest tick).
  bool simulates(EntityId id) const {
    if (authority_) return true;
    return id.value < simulated_.size() && simulated_[id.value] != 0;
  }

  // Spawns an entity that clients may predict: on the server a real spawn,
  // on the spawning player's client a local entity that is matched with the
  // server's when it arrives (and removed if it never does). Sets the key
  // fields; the caller sets the rest. Throws std::length_error past
  // kMaxSpawnsPerTick spawns by one owner in one step, and
  // std::invalid_argument for an owner id the key's field cannot hold.
  EntityId spawn(snapshot::World& world, TypeId type, const SpawnKey& key, PlayerId owner);

 private:
  Tick tick_;
  bool resimulating_ = false;
  bool authority_ = true;
  std::span<const std::uint8_t> simulated_;
  SpawnHook* hook_ = nullptr;
  std::vector<std::pair<PlayerId, std::uint32_t>> spawn_counts_;  // per owner, this step
};

class Game {
 public:
  virtual ~Game() = default;
  // Advances `world` from the state at tick - 1 to the state at `tick`.
  // Must be a function of the world, the inputs and the tick alone: the
  // same call must give the same result on the server, on every client and
  // when a client runs it again (the sync test checks this).
  virtual void simulate(snapshot::World& world, Tick tick, const Inputs& inputs, SimContext& ctx) = 0;

 protected:
  Game() = default;
  Game(const Game&) = default;
  Game& operator=(const Game&) = default;
};

// The server's step: simulate with authority, then snap every entity to its
// quantized value, as clients will see it.
void step_authoritative(Game& game, snapshot::World& world, Tick tick, const Inputs& inputs);

// Writes the spawn key fields of an entity (used by both spawn paths).
void write_spawn_key(snapshot::World& world, EntityId id, const SpawnKey& key, PlayerId owner, Tick tick,
                     std::uint32_t index);

}  // namespace tickwire::prediction
