#pragma once
// What the server and client runtimes need of a game beyond simulate: its
// schema and input type, what happens when players come and go, which
// entities a client predicts and which a client is sent. One object of the
// game's class serves one runtime (a server, or one client); it may keep
// state of its own between calls, but simulate must stay a pure function of
// the world, the inputs and the tick (game.h).

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "tickwire/prediction/game.h"
#include "tickwire/prediction/motion.h"
#include "tickwire/snapshot/record.h"
#include "tickwire/snapshot/body_models.h"
#include "tickwire/snapshot/delta.h"
#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::prediction {

class NetGame : public Game {
 public:
  // The schema every world of this game uses; its hash() is part of the
  // protocol fingerprint, so a client of another build is turned away.
  virtual const snapshot::Schema& schema() const = 0;
  // The record type of an input.
  virtual TypeId input_type() const = 0;
  // Whether the game runs at `tick_rate` ticks per second (a game whose
  // constants are per tick supports one rate).
  virtual bool supports_tick_rate(std::uint32_t /*tick_rate*/) const { return true; }
  // The rate the runtime runs the game at, ticks per second: one that
  // supports_tick_rate accepted, told before the first call that depends on
  // it, so a game can turn per-second constants (speeds, cooldowns, a
  // step's duration) into per-tick ones. The server tells it once, at its
  // construction, before populate. A client tells it when the server's
  // Welcome names the rate, before that session's first simulate, and
  // again at each later session (whose server may run another rate). The
  // same rate reaches every end, so simulate stays the same function on
  // the server and on its clients. Code that drives the game without a
  // runtime (a test, a benchmark) tells it the rate itself.
  virtual void set_tick_rate(std::uint32_t /*tick_rate*/) {}
  // The snapshot codebook the game ships (snapshot/codebook.h), trained on
  // its own play. Servers and clients of the game code snapshots with it
  // unless configured otherwise (ServerConfig and ClientConfig:
  // snapshot_codebook, adaptive_snapshot_models), and a server then shares
  // each entity's coded change between clients (the shared path). Null:
  // adaptive models.
  virtual std::shared_ptr<const snapshot::ModelState> snapshot_codebook() const { return nullptr; }

  // Server: puts the scenery into a fresh world, before the first tick.
  virtual void populate(snapshot::World& /*world*/) {}
  // Server, between ticks: `player` joined (spawn its avatar) or left
  // (remove what it owned).
  virtual void player_joined(snapshot::World& world, PlayerId player) = 0;
  virtual void player_left(snapshot::World& world, PlayerId player) = 0;
  // Server, once per tick that sends snapshots, before the first: a chance
  // to compute what every client's relevancy shares (positions, a grid).
  virtual void before_snapshots(const snapshot::World& /*world*/) {}
  // Server, before each snapshot to `player`: which entities it is sent.
  // Empty means every entity. The filter may refer to the game's state; it
  // is used at once, before the next call.
  virtual snapshot::Relevancy relevancy(const snapshot::World& /*world*/, PlayerId /*player*/) { return {}; }

  // Client: the entity `player` controls in `world` (the newest server
  // state), once the server has spawned it.
  virtual std::optional<EntityId> avatar(const snapshot::World& world, PlayerId player) const = 0;
  // Client: every entity `player` predicts, given the newest server state:
  // its avatar and whatever moves it (a platform it stands on). The runtime
  // starts and stops predicting to match after each snapshot. The default
  // predicts the avatar alone.
  virtual void predicted_entities(const snapshot::World& world, PlayerId player, std::vector<EntityId>& out) const {
    if (auto id = avatar(world, player)) out.push_back(*id);
  }
  // Client: where each entity type keeps its position and velocity (see
  // motion.h). The runtime measures corrections and visual pops, compares
  // smoothing thresholds and measures distances with them. The default
  // states none.
  virtual void motion_fields(std::vector<MotionFields>& /*out*/) const {}
  // Client: for an entity this client predicts but does not control
  // (another player's avatar near its own), a guess of the input that
  // steers it in the ticks after `world` (the newest server state): for
  // example its last move, repeated, as the server does for an input that
  // never arrived. Writes the guess into `input` (reset to the input
  // type's defaults) and returns the player whose input it stands for;
  // nullopt when nobody steers the entity (a ball), which then simulates
  // with no input of its own.
  virtual std::optional<PlayerId> guess_input(const snapshot::World& /*world*/, EntityId /*entity*/,
                                              snapshot::Record& /*input*/) const {
    return std::nullopt;
  }

 protected:
  NetGame() = default;
  NetGame(const NetGame&) = default;
  NetGame& operator=(const NetGame&) = default;
};

}  // namespace tickwire::prediction
