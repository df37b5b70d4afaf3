#pragma once
// The reference game: a small 2D top-down arena that exercises every part
// of the runtime. Players move, dash and shoot; projectiles are spawned by
// the shooter; players push each other (so predictions can fail and must
// be corrected); platforms follow a fixed path by server tick and carry
// whoever stands on them (the elevator problem).
//
// Shared by the dedicated server, the bots and the tests. Its simulate() is
// deterministic: it walks entities in id order, uses only the world's
// quantized state and the tick, and reads no clock or random source.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "tickwire/arena/hitscan.h"
#include "tickwire/arena/nearest_points.h"
#include "tickwire/arena/point_grid.h"
#include "tickwire/core/handshake.h"
#include "tickwire/core/tick.h"
#include "tickwire/prediction/game.h"
#include "tickwire/prediction/net_game.h"
#include "tickwire/prediction/proximity_rule.h"
#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::arena {

using snapshot::EntityId;
using snapshot::Field;
using snapshot::Vec2;

inline constexpr float kHalfSize = 40.0F;  // the arena is 80 m square
inline constexpr float kPlayerRadius = 0.5F;
inline constexpr float kPlayerSpeed = 6.0F;  // m/s, walking
inline constexpr float kDashSpeed = 18.0F;   // m/s, for kDashTicks
inline constexpr int kDashTicks = 8;
inline constexpr int kDashCooldownTicks = 60;
inline constexpr float kProjectileSpeed = 20.0F;
inline constexpr int kProjectileLifeTicks = 90;
inline constexpr int kShootCooldownTicks = 15;
inline constexpr int kMaxHealth = 100;
inline constexpr int kProjectileDamage = 10;
inline constexpr float kPlatformHalfWidth = 2.0F;
inline constexpr int kPlatformPeriodTicks = 480;  // there and back in 8 s at 60 Hz

// What one player asks for in one tick.
struct Input {
  Vec2 move;         // each axis in [-1, 1]
  float aim = 0.0F;  // radians
  bool dash = false;
  bool shoot = false;
  bool fire = false;  // the hitscan weapon (hitscan.h), judged by the server alone
  bool operator==(const Input&) const = default;
};

struct PlayerInput {
  std::uint32_t owner = 0;  // the client id
  Input input;
};

struct Schema {
  snapshot::Schema schema;
  snapshot::TypeId player_type;
  snapshot::TypeId projectile_type;
  snapshot::TypeId platform_type;
  snapshot::TypeId shot_type;
  snapshot::TypeId input_type;

  Field<Vec2> player_position;
  Field<Vec2> player_velocity;
  Field<std::int32_t> player_owner;
  Field<std::int32_t> player_dash_ticks;
  Field<std::int32_t> player_dash_cooldown;
  Field<std::int32_t> player_shoot_cooldown;
  Field<std::int32_t> player_health;
  // Bumped (modulo 4) at every respawn, so clients snap a respawned player
  // to the centre instead of drawing it sliding there.
  Field<std::int32_t> player_teleports;

  Field<Vec2> projectile_position;
  Field<Vec2> projectile_velocity;
  // Owner, spawn tick and index: lets the shooter's client spawn the
  // projectile ahead of the server and match it when the server's arrives.
  prediction::SpawnKey projectile_key;

  Field<Vec2> platform_position;
  Field<std::int32_t> platform_path;

  // A player's latest hitscan shot as the server judged it (hitscan.h):
  // one entity per player that has fired, never predicted.
  Field<std::int32_t> shot_owner;
  Field<std::int32_t> shot_tick;    // the input's tick modulo 65536
  Field<std::int32_t> shot_result;  // a ShotResult
  // The ray as the server cast it: from where the shooter stood, its aim.
  Field<Vec2> shot_origin;
  Field<float> shot_aim;
  // With a hit, the struck player's owner and its shape where the server
  // judged it (rewound to the shooter's view time); -1 and zeros otherwise.
  Field<std::int32_t> shot_target_owner;
  Field<Vec2> shot_target_position;
  Field<float> shot_target_radius;

  // The input as a record type, for the wire.
  Field<Vec2> input_move;
  Field<float> input_aim;
  Field<bool> input_dash;
  Field<bool> input_shoot;
  Field<bool> input_fire;
};

// Registers the game's types. Call once at start-up; the result's
// schema.hash() goes into the protocol fingerprint.
const Schema& schema();

// Puts the fixed scenery (the platforms) into a fresh server world.
void populate(snapshot::World& world);

// Spawns the entity a newly joined client controls.
EntityId spawn_player(snapshot::World& world, std::uint32_t owner);

// The shot entity of a client (its latest hitscan result), if any.
std::optional<EntityId> find_shot(const snapshot::World& world, std::uint32_t owner);

// The player entity of a client, if any.
std::optional<EntityId> find_player(const snapshot::World& world, std::uint32_t owner);

// Where platform `path` stands at `tick`: a pure function of the tick, so a
// client can predict a platform exactly.
Vec2 platform_position_at(std::int32_t path, Tick tick);

// The game as the runtimes drive it: the same simulate on the server, on
// the predicting client and in the sync test. Entities the context does not
// let this step simulate (other players, on a client) are left alone.
struct GameConfig {
  // Each client is sent its nearest this many entities (by distance from
  // its player); 0 sends every entity.
  std::size_t nearest_entities = 0;
  // A client predicts a platform while its player is this close to it, so
  // that standing on one shows no correction (the elevator problem).
  float platform_predict_radius = 2.0F * kPlatformHalfWidth + 2.0F;
  // Other players are listed among the predicted from closer than
  // remote_predict_radius to the client's player, until further than
  // remote_release_radius, and for contact_hold_snapshots snapshots after
  // they last touched it, so a push is simulated against where they will
  // be. A client predicts them only when its runtime is configured to
  // (ClientConfig::predict_remote_players), steered by guess_input. 0: never.
  float remote_predict_radius = 3.0F;
  float remote_release_radius = 4.5F;
  std::uint32_t contact_hold_snapshots = 15;
  // Lag compensation for the hitscan weapon: how far back its hit history
  // reaches (the server app's --max-rewind-ms) and how many players it
  // records per tick.
  Duration max_rewind = Duration::millis(250);
  std::uint32_t max_hittable = 64;
};

// What Game::simulate reuses from step to step, so that a step allocates
// nothing once warm. It carries nothing over: each step refills it.
struct StepScratch {
  struct PlatformMove {
    Vec2 before;
    Vec2 delta;
  };
  struct Shot {
    Vec2 position;
    Vec2 velocity;
    std::uint32_t owner;
  };
  std::vector<PlayerInput> decoded;
  std::vector<PlatformMove> platforms;
  std::vector<Shot> shots;
  std::vector<EntityId> players;         // sorted by id
  std::vector<Vec2> positions;           // of `players`, kept equal to the world's
  std::vector<std::uint32_t> simulated;  // indices into `players` this machine simulates
  std::vector<EntityId> projectiles;
  std::vector<EntityId> gone;
  PointGrid player_grid{kHalfSize, 2.0F};
  std::vector<std::uint32_t> candidates;  // indices into `players`
  std::vector<std::uint8_t> moved;        // per player: sent back to the centre by a hit
  std::vector<std::uint32_t> moved_list;
  std::vector<EntityId> teleported;  // players sent back to the centre this step
  struct Verdict {
    std::uint32_t owner;
    Vec2 origin;  // the ray as cast
    float aim;
    HitscanVerdict verdict;
  };
  std::vector<Verdict> verdicts;  // the step's hitscan shots, judged before any lands
};

class Game final : public prediction::NetGame {
 public:
  // Throws std::invalid_argument for bad remote prediction radii.
  explicit Game(GameConfig config = {})
      : config_(config),
        remote_rule_({config.remote_predict_radius, config.remote_release_radius, config.contact_hold_snapshots}) {}

  void simulate(snapshot::World& world, Tick tick, const prediction::Inputs& inputs,
                prediction::SimContext& ctx) override;

  const snapshot::Schema& schema() const override;
  snapshot::TypeId input_type() const override;
  // Its speeds and cooldowns are per tick of a 60 Hz simulation.
  bool supports_tick_rate(std::uint32_t tick_rate) const override { return tick_rate == 60; }
  // The hitscan weapon's hit history times its ticks with it.
  void set_tick_rate(std::uint32_t tick_rate) override { tick_rate_ = tick_rate; }
  std::uint32_t tick_rate() const { return tick_rate_; }
  // The codebook trained on the arena's play (data/arena.twcb, made by
  // scripts/train_codebook.sh); null if it does not fit the schema, which
  // a test guards against.
  std::shared_ptr<const snapshot::ModelState> snapshot_codebook() const override;
  // The protocol fingerprint a client of the arena as it ships sends: the
  // schema's hash and the shipped codebook's. For tools that speak the
  // protocol by hand.
  static ProtocolFingerprint protocol_fingerprint();
  void populate(snapshot::World& world) override;
  void player_joined(snapshot::World& world, prediction::PlayerId player) override;
  void player_left(snapshot::World& world, prediction::PlayerId player) override;
  void before_snapshots(const snapshot::World& world) override;
  void motion_fields(std::vector<prediction::MotionFields>& out) const override;
  snapshot::Relevancy relevancy(const snapshot::World& world, prediction::PlayerId player) override;
  std::optional<EntityId> avatar(const snapshot::World& world, prediction::PlayerId player) const override;
  void predicted_entities(const snapshot::World& world, prediction::PlayerId player,
                          std::vector<EntityId>& out) const override;
  // Another player's last move, repeated: the move its velocity shows (a
  // dash's while it dashes). It neither shoots nor starts a dash: a
  // guessed shot would spawn what the player never fired.
  std::optional<prediction::PlayerId> guess_input(const snapshot::World& world, EntityId entity,
                                                  snapshot::Record& input) const override;

 private:
  // The hitscan shots of this step's inputs, on the server only.
  void fire_hitscan(snapshot::World& world, Tick tick, const prediction::Inputs& inputs);

 public:
  // The hitscan weapon's judge (none before the first authoritative step).
  const Hitscan* hitscan() const { return hitscan_.get(); }

 private:
  GameConfig config_;
  std::uint32_t tick_rate_ = 60;  // until the runtime says (set_tick_rate)
  StepScratch step_;
  // Where every entity is this tick, once for all the clients' relevancy:
  // ids in id order, their positions, and those bucketed for nearest
  // queries. Cells of 4 m: finer ones mean more rows to visit per query
  // for fewer points to look at, which measured slower (bench_relevancy).
  std::vector<EntityId> position_ids_;
  std::vector<Vec2> positions_;
  NearestPoints nearest_{kHalfSize, 4.0F};
  // find_player and find_shot: (owner, index into position_ids_), by owner.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> players_by_owner_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> shots_by_owner_;
  // Per avatar id, the keep-th distance of its last nearest query (0: none).
  std::vector<float> reach_by_avatar_;
  std::vector<std::uint64_t> marks_;  // one bit per index of position_ids_, all clear between calls
  std::vector<EntityId> relevant_;    // sorted
  std::unique_ptr<Hitscan> hitscan_;
  std::vector<EntityId> joined_;  // players spawned since the last step
  mutable prediction::ProximityRule remote_rule_;  // which other players a client predicts
};

// Conversions between the game's input and its wire record.
snapshot::Record to_record(const Input& input);
// The same into `out`, reusing its storage when it already holds an input
// (a client samples one every tick).
void to_record(const Input& input, snapshot::Record& out);
Input from_record(const snapshot::Record& record);

// Checks an input decoded from the network: finite, in range.
bool valid_input(const Input& input);

}  // namespace tickwire::arena
