#pragma once
// Why a snapshot corrected a predicted entity (CorrectionCause), decided by
// the first rule that applies (docs/prediction.md, "Why corrections
// happen"):
//   1. kSpawn         a predicted spawn the server did otherwise, or an
//                     entity the server removed or replaced;
//   2. kOwnInput      the player's own entity, and the server stood in for
//                     one of the player's inputs since its previous state;
//   3. kRemotePlayer  predicted with a guess of another player's input, or
//                     within touching distance of another player's entity
//                     in the server's state or in the prediction's;
//   4. kUnowned       an entity nobody steers;
//   5. kServerEvent   anything else: the server knew what the client could not.
// The prediction library does not know the game: the runtime hands over
// what it learnt from the game and from the server's feedback as data.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tickwire/prediction/correction_cause.h"
#include "tickwire/prediction/motion.h"
#include "tickwire/prediction/predicted_role.h"
#include "tickwire/prediction/state_history.h"
#include "tickwire/snapshot/ids.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::prediction {

// What one snapshot's corrections are judged against, besides the states.
struct CorrectionContext {
  // The server ran one of this player's ticks without its input (late or
  // missing) after the previous server state applied, up to this one.
  bool own_input_stood_in = false;
  // Entities another player steers (NetGame::guess_input names a player
  // other than this one), predicted or not; sorted by id.
  std::vector<snapshot::EntityId> other_players;
};

// What the rules look at for one corrected entity.
struct CorrectionFacts {
  bool spawn = false;  // rule 1 holds
  PredictedRole role = PredictedRole::kOwn;
  bool own_input_stood_in = false;
  bool near_other_player = false;
};

// The first rule that applies.
CorrectionCause classify_correction(const CorrectionFacts& facts);

// Where an entity is, how far it reaches and how fast it moves.
struct Reach {
  Point position{};
  float radius = 0.0F;
  float speed = 0.0F;  // position units per second
};

// Whether two entities may touch within `seconds`: closer than the sum of
// their radii plus what both can move meanwhile.
bool within_touching_distance(const Reach& a, const Reach& b, double seconds);

// Decides the cause of each corrected entity of a snapshot.
class CorrectionClassifier {
 public:
  // The game's motion fields (NetGame::motion_fields); a type without them
  // is never near anything.
  void set_motion_fields(std::span<const MotionFields> motion);
  // The next snapshots' context, until replaced.
  void set_context(CorrectionContext context);
  const CorrectionContext& context() const { return context_; }

  // The cause of the correction of `id` at a snapshot whose server state is
  // `server` and whose predicted state is `predicted` (the history block of
  // that tick; nullptr when there is none), `seconds` after the previous
  // server state. `spawn`: rule 1 holds.
  CorrectionCause classify(snapshot::EntityId id, PredictedRole role, bool spawn, const snapshot::World& server,
                           const StateBlock* predicted, double seconds) const;

  // Whether `id` was within touching distance of another player's entity,
  // in the server's state or in the prediction's.
  bool near_other_player(snapshot::EntityId id, const snapshot::World& server, const StateBlock* predicted,
                         double seconds) const;

 private:
  const MotionFields* motion_of(snapshot::TypeId type) const;
  std::optional<Reach> reach_in(const snapshot::World& world, snapshot::EntityId id) const;
  std::optional<Reach> reach_in(const StateBlock& block, snapshot::EntityId id) const;
  std::optional<Reach> reach_of(snapshot::TypeId type, std::span<const std::uint32_t> slots) const;

  std::vector<std::optional<MotionFields>> motion_;  // by type value
  CorrectionContext context_;
};

}  // namespace tickwire::prediction
