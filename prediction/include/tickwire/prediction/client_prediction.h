#pragma once
// A client's prediction of its own entities: it samples the player's input
// once per tick, simulates ahead of the server with it, and when the
// server's state for an older tick arrives, restores the entities that
// state carries and replays the stored inputs up to the present.
//
// The runtime drives it, the game never calls it:
//   each tick the time system fires:   sample_and_simulate(tick); send make_input_packet(...)
//   each snapshot decoded for tick T:  on_authoritative(T, world_at_T, entities_it_carried)
//   each frame:                        render(predicted_time, render_world)
//
// The predicted world holds the entities this client predicts (from
// predict(), plus its predicted spawns) and, read-only for simulate, every
// other entity a snapshot carried (other players, at the snapshot's tick).
// Replays are bounded: prediction never runs more than max_replay_ticks
// past the newest server state; beyond that it waits (inputs are still
// sampled and sent) instead of replaying ever deeper.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "tickwire/core/network_time.h"
#include "tickwire/core/tick.h"
#include "tickwire/prediction/correction_causes.h"
#include "tickwire/prediction/game.h"
#include "tickwire/prediction/input_history.h"
#include "tickwire/prediction/motion.h"
#include "tickwire/prediction/render_smoother.h"
#include "tickwire/prediction/spawn_registry.h"
#include "tickwire/prediction/state_history.h"
#include "tickwire/snapshot/record.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::prediction {

// How far (in quantization steps) one field of a type may differ from the
// server's before it counts as a misprediction, as data a config can carry
// (ClientPrediction::set_tolerance).
struct FieldTolerance {
  snapshot::TypeId type{};
  std::uint16_t offset = 0;  // the field's first slot in its type
  std::uint16_t slots = 0;   // the slots it spans
  std::uint32_t steps = 0;   // 0: exactly

  template <class T>
  static FieldTolerance of(snapshot::Field<T> field, std::uint32_t steps) {
    return {field.type(), field.offset(), static_cast<std::uint16_t>(snapshot::FieldValue<T>::kSlots), steps};
  }
  bool operator==(const FieldTolerance&) const = default;
};

// What a snapshot is checked for against the prediction (docs/prediction.md,
// "On a snapshot"), settable while prediction runs
// (ClientPrediction::set_checks).
struct PredictionChecks {
  // When every entity a snapshot carries matches its prediction, the replay
  // would recompute the same states: skip it. See audit_skipped_replays.
  bool skip_matching_replays = true;
  // Replays anyway when a replay could be skipped, and counts the entities
  // whose state the replay changed (stats().audit_divergences): measures
  // whether skipping holds for a game. Costs what never skipping costs.
  bool audit_skipped_replays = false;
  // Fields compared within a tolerance; the others exactly. A field named
  // twice takes the later tolerance.
  std::vector<FieldTolerance> tolerances;

  // Throws std::invalid_argument naming the first tolerance that is not a
  // field of `schema`.
  void validate(const snapshot::Schema& schema) const;
  bool operator==(const PredictionChecks&) const = default;
};

struct PredictionConfig {
  snapshot::TypeId input_type{};  // a record type of the schema
  PlayerId player{};              // this client's player: owner of its inputs and predicted spawns
  std::uint32_t tick_rate = 60;
  // Deepest replay (1..1024). At 60 Hz, 32 ticks cover a 400 ms round trip
  // plus the lead; prediction waits rather than go further.
  std::uint32_t max_replay_ticks = 32;
  InputHistoryConfig inputs{};
  // The checks to start with (PredictionChecks, where they are explained;
  // tolerances are set by set_tolerance or set_checks).
  bool skip_matching_replays = true;
  bool audit_skipped_replays = false;
  SmoothingConfig smoothing{};
  // Where each type keeps its position and velocity (NetGame::motion_fields):
  // the smoother's default snap threshold and the correction sizes read it.
  std::vector<MotionFields> motion{};
  // A predicted spawn the server has not confirmed once the server's state
  // is this many ticks past its spawn tick is removed.
  std::uint32_t spawn_confirm_ticks = 32;
  // Ids the server may use are below this; predicted spawns get the next
  // max_local_spawns ids, so the two never collide.
  std::uint32_t server_max_entities = 65536;
  std::uint32_t max_local_spawns = 1024;
};

struct PredictionStats {
  std::uint64_t predicted_ticks = 0;  // ticks simulated for the first time
  std::uint64_t stalled_ticks = 0;    // ticks not predicted: replay depth bound reached
  std::uint64_t missing_inputs = 0;   // ticks simulated with no stored input (previous one used)
  std::uint64_t snapshots = 0;        // authoritative states applied
  std::uint64_t stale_snapshots = 0;  // not newer than the last applied (ignored)
  std::uint64_t resets = 0;           // applied without replay: at or past the predicted tick
  std::uint64_t mispredictions = 0;   // snapshots where a predicted entity differed
  std::uint64_t mispredicted_entities = 0;
  std::uint64_t unverified_entities = 0;  // carried, predicted, but no prediction for that tick
  std::uint64_t replays = 0;
  std::uint64_t replayed_ticks = 0;
  std::uint64_t skipped_replays = 0;
  std::uint64_t audited_skips = 0;
  std::uint64_t audit_divergences = 0;  // entities a skipped replay would have changed
  std::uint32_t max_replay_depth = 0;
  std::uint64_t spawns_predicted = 0;
  std::uint64_t spawns_confirmed = 0;
  std::uint64_t spawns_rejected = 0;
  // Corrected entities (mispredicted_entities) by cause, and by type
  // (indexed by TypeId value; see correction_causes.h).
  CorrectionCounts corrections_by_cause{};
  std::vector<std::uint64_t> corrections_by_type;
};

enum class TickOutcome : std::uint8_t {
  kPredicted,  // the world is at the tick asked for
  kStalled,    // max_replay_ticks past the newest server state: waiting for it
  kWaiting,    // no server state yet to predict from
};

enum class SnapshotOutcome : std::uint8_t {
  kMatched,   // every carried entity matched its prediction: no replay
  kReplayed,  // restored and replayed
  kReset,     // at or past the predicted tick: restored, nothing to replay
  kStale,     // not newer than the last state applied: ignored
};

// Fills in the player's input for a tick; called once per predicted tick
// with a record reset to the input type's defaults.
using InputSampler = std::function<void(Tick tick, snapshot::Record& input)>;

class ClientPrediction final : private SpawnHook {
 public:
  // Throws std::invalid_argument for a bad config (unknown or non-record
  // input type, zero or out-of-range sizes). `game` must outlive this.
  ClientPrediction(snapshot::Schema schema, Game& game, InputSampler sampler, PredictionConfig config);
  ClientPrediction(const ClientPrediction&) = delete;
  ClientPrediction& operator=(const ClientPrediction&) = delete;

  // Predicts server entity `id` (this player's avatar) from the next
  // authoritative state that carries it.
  void predict(EntityId id, PredictedRole role = PredictedRole::kOwn);
  // Leaves `id` to the snapshots again (it stays in the world, unsimulated).
  void stop_predicting(EntityId id);
  bool predicts(EntityId id) const { return id.value < full_mask_.size() && full_mask_[id.value] != 0; }
  // The role `id` was predicted with; kOwn for an entity not predicted.
  PredictedRole role(EntityId id) const {
    return id.value < roles_.size() ? static_cast<PredictedRole>(roles_[id.value]) : PredictedRole::kOwn;
  }
  // The input that steers kRemotePlayer entity `id` (another player's,
  // `player`) in every tick predicted or replayed from now on, until the
  // next guess: simulate sees it as that player's input, marked fallback
  // (NetGame::guess_input makes it from the newest server state). Ignored
  // for an entity not predicted as kRemotePlayer, for this client's own
  // player, and for a record not of the input type.
  void guess_input(EntityId id, PlayerId player, const snapshot::Record& input);
  // The guess steering `id`, if any.
  const snapshot::Record* guessed_input(EntityId id) const;

  // How far (in quantization steps) a field may differ from the server's
  // before it counts as a misprediction; 0, the default, means exactly.
  template <class T>
  void set_tolerance(snapshot::Field<T> field, std::uint32_t steps) {
    set_tolerance(FieldTolerance::of(field, steps));
  }
  // Throws std::invalid_argument for a field not in the schema.
  void set_tolerance(const FieldTolerance& tolerance);
  // Replaces the checks (PredictionConfig's skip_matching_replays and
  // audit_skipped_replays, and every tolerance) from the next snapshot on.
  // Throws std::invalid_argument for a bad tolerance, changing nothing.
  void set_checks(const PredictionChecks& checks);

  // Samples the input of every tick after the newest sampled up to `tick`
  // and predicts as far toward `tick` as max_replay_ticks allows. `view`:
  // the interpolation time remote entities are drawn at while these inputs
  // are sampled, which each input then claims for lag compensation.
  TickOutcome sample_and_simulate(Tick tick, std::optional<NetworkTime> view = std::nullopt);

  // The server's state at `tick`: `authoritative` holds it for every entity
  // in `carried` (an id absent from `authoritative` was removed).
  SnapshotOutcome on_authoritative(Tick tick, const snapshot::World& authoritative, std::span<const EntityId> carried);

  // Rolls every predicted entity back to its own predicted state at `tick`
  // and replays to the present, taking that state as confirmed (the
  // stall bound counts from it). What the sync test does every N ticks;
  // false when `tick` is not in the history or not before the present.
  bool resimulate_from(Tick tick);

  // Writes the drawn state of every predicted entity into `out` (whose
  // config must admit world_config().max_entities ids), spawning and
  // removing them there to match. The state drawn is the one at
  // predicted_time minus one tick, blended between the two ticks around
  // it, plus what remains of any correction's error (see RenderSmoother).
  void render(const NetworkTime& predicted_time, snapshot::World& out);
  // Off: render() draws the unsmoothed state, so a correction shows as the
  // jump it is (a viewer's teaching toggle). The smoother keeps tracking
  // corrections either way, so turning it back on resumes cleanly.
  void set_smoothing(bool on) { smoothing_ = on; }
  bool smoothing() const { return smoothing_; }

  // The next input packet body (see InputHistory::make_packet).
  std::optional<InputPacket> make_input_packet(std::optional<Tick> snapshot_ack,
                                               std::optional<std::uint32_t> copies = std::nullopt) const {
    return inputs_.make_packet(snapshot_ack, copies);
  }
  bool make_input_packet(std::optional<Tick> snapshot_ack, std::optional<std::uint32_t> copies,
                         InputPacket& out) const {
    return inputs_.make_packet(snapshot_ack, copies, out);
  }
  InputHistory& inputs() { return inputs_; }
  const InputHistory& inputs() const { return inputs_; }

  const snapshot::World& world() const { return world_; }
  snapshot::WorldConfig world_config() const { return world_.config(); }
  std::optional<Tick> predicted_tick() const { return predicted_tick_; }
  std::optional<Tick> authoritative_tick() const { return authoritative_tick_; }
  std::span<const EntityId> predicted_entities() const { return predicted_; }
  const StateHistory& history() const { return history_; }
  const PredictionStats& stats() const { return stats_; }
  const RenderSmoother& smoother() const { return smoother_; }
  std::vector<SpawnEvent> take_spawn_events();
  // What corrections are blamed on: the runtime sets the game's motion
  // fields once and the context before each snapshot.
  CorrectionClassifier& correction_classifier() { return causes_; }

 private:
  // Where the entities of a rollback get their state at the restored tick:
  // a snapshot's world, or (for resimulate_from) a history block.
  struct Source {
    const snapshot::World* world = nullptr;
    const StateBlock* block = nullptr;
  };

  EntityId spawn(snapshot::World& world, TypeId type, const SpawnKey& key, PlayerId owner, Tick tick,
                 std::uint32_t index) override;

  // Simulates `tick` for the entities marked in `mask`, snaps them and
  // records the tick; `selective`: unmarked entities keep their history.
  void run_tick(Tick tick, std::vector<std::uint8_t>& mask, bool selective);
  enum class Comparison : std::uint8_t { kSame, kDiffers, kUnknown };
  Comparison compare(const snapshot::World& authoritative, EntityId id, const StateBlock& block);
  bool adopt_spawn(const snapshot::World& authoritative, EntityId id);
  void restore(EntityId id, const Source& source);
  // Restores restore_ from `source` at `tick` and replays to the present.
  void rollback(Tick tick, const Source& source, bool count);
  void audit_skip(Tick tick, const snapshot::World& authoritative);
  void expire_spawns(Tick authoritative_tick);
  void reject_spawn(const PendingSpawn& spawn);
  // Corrections (client_corrections.cpp): counts one corrected entity under
  // its cause and type.
  void count_correction(EntityId id, TypeId type, bool spawn, const snapshot::World& authoritative,
                        const StateBlock* block, Tick tick);
  void count_differing(EntityId id, const snapshot::World& authoritative, const StateBlock* block, Tick tick);
  void count_adopted(EntityId id, EntityId local, const snapshot::World& authoritative, const StateBlock* block,
                     Tick tick);
  Comparison compare_slots(TypeId type, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b);
  void add_predicted(EntityId id, PredictedRole role = PredictedRole::kOwn);
  void remove_predicted(EntityId id);
  bool base_state(EntityId id, TypeId type, double ticks, std::span<std::uint32_t> out) const;
  // This player's input for a tick followed by every guessed one
  // (client_guesses.cpp); valid until the next call.
  std::span<const PlayerInput> tick_inputs(const PlayerInput& own);
  void forget_guess(EntityId id);

  snapshot::Schema schema_;
  Game& game_;
  InputSampler sampler_;
  PredictionConfig config_;
  snapshot::World world_;
  InputHistory inputs_;
  StateHistory history_;
  RenderSmoother smoother_;
  SpawnRegistry spawns_;

  std::vector<EntityId> predicted_;                    // sorted
  std::vector<std::uint8_t> full_mask_;                // by id: predicted
  std::vector<std::uint8_t> roles_;                    // by id: PredictedRole of a predicted entity
  std::vector<std::uint8_t> replay_mask_;              // by id: rolled back by the current selective replay
  std::vector<EntityId> restore_;                      // entities the current snapshot rolls back
  std::vector<std::vector<std::uint32_t>> tolerance_;  // per type, per slot; empty: exact
  std::vector<std::uint8_t>* run_mask_ = nullptr;      // the mask of the step in progress, for spawns

  std::optional<Tick> predicted_tick_;
  std::optional<Tick> authoritative_tick_;
  std::optional<Tick> simulated_through_;  // newest tick ever simulated: later ones are not resimulations

  snapshot::Record neutral_;
  snapshot::Record sample_;
  std::vector<std::uint32_t> codes_a_;
  std::vector<std::uint32_t> codes_b_;
  std::vector<std::uint32_t> base_;
  std::vector<std::uint32_t> base_then_;
  std::vector<std::uint32_t> drawn_;
  std::vector<EntityId> rendered_;
  std::vector<EntityId> still_rendered_;

  // Other players' guessed inputs, by entity id (sorted).
  struct GuessedInput {
    EntityId id;
    PlayerId player;
    snapshot::Record input;
  };
  std::vector<GuessedInput> guesses_;
  std::vector<PlayerInput> tick_inputs_;

  StateBlock audit_before_;
  StateBlock audit_after_;

  std::vector<SpawnEvent> events_;
  CorrectionClassifier causes_;
  std::optional<Tick> correcting_at_;  // the snapshot being applied: spawns rejected now are its corrections
  PredictionStats stats_;
  bool smoothing_ = true;
};

}  // namespace tickwire::prediction
