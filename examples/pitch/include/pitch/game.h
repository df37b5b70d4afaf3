#pragma once
// Pitch: a top-down ball game on Tickwire. Two teams of round players on a
// walled pitch, one ball that nobody owns, a goal at each end and a
// scoreboard with the match clock. Players push each other and push or
// kick the ball by contact; a goal sends the ball back to the centre spot
// (a jump, marked by the ball's teleport counter) and pauses play for the
// kick-off.
//
// Every constant is per second or in metres; the step length comes from
// the tick rate the game is made with, so the same game runs at any rate
// in [kMinTickRate, kMaxTickRate]. simulate() is deterministic: it walks
// entities in id order, reads only the world's quantized state, the inputs
// and the tick, and keeps nothing between steps but scratch storage.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "tickwire/core/tick.h"
#include "tickwire/prediction/game.h"
#include "tickwire/prediction/net_game.h"
#include "tickwire/prediction/proximity_rule.h"
#include "tickwire/snapshot/record.h"
#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/world.h"

namespace pitch {

using tickwire::Tick;
using tickwire::snapshot::EntityId;
using tickwire::snapshot::Field;
using tickwire::snapshot::Vec2;

// Named in the server's banner and checked by the bots and the viewer.
inline constexpr std::string_view kGameName = "pitch";
inline constexpr std::string_view kGameVersion = "1.0.0";

// The pitch: x runs from goal to goal, the centre spot is (0, 0).
inline constexpr float kHalfLength = 30.0F;
inline constexpr float kHalfWidth = 20.0F;
inline constexpr float kGoalHalfWidth = 4.0F;  // the mouth, along y
inline constexpr float kGoalDepth = 2.0F;      // drawn behind the line

inline constexpr float kPlayerRadius = 0.6F;
inline constexpr float kPlayerSpeed = 7.0F;          // m/s
inline constexpr float kPlayerAcceleration = 40.0F;  // m/s^2, towards the asked velocity
inline constexpr float kBallRadius = 0.35F;
inline constexpr float kBallMaxSpeed = 24.0F;     // m/s
inline constexpr float kBallDeceleration = 5.0F;  // m/s^2, rolling friction
inline constexpr float kWallBounce = 0.7F;        // speed kept off a wall
// Walking into the ball carries it a little faster than the player, so it
// rolls ahead (dribbling) instead of sticking.
inline constexpr float kDribbleFactor = 1.15F;
inline constexpr float kKickSpeed = 18.0F;           // m/s along the kick
inline constexpr float kKickReach = 0.45F;           // beyond touching
inline constexpr float kKickCooldownSeconds = 0.4F;  // between two kicks of one player
inline constexpr float kKickoffSeconds = 1.5F;       // the ball waits on the spot after a goal

inline constexpr std::uint32_t kMinTickRate = 10;
inline constexpr std::uint32_t kMaxTickRate = 240;
inline constexpr std::uint32_t kMaxMatchSeconds = 3600;
// A player's owner field holds its client id in 31 bits: ids only grow, so
// a narrower field would let a long-running server's client k + 2^16 match
// client k's player.
inline constexpr std::int32_t kMaxOwner = 0x7FFFFFFF;
inline std::int32_t owner_code(std::uint32_t client_id) { return static_cast<std::int32_t>(client_id & 0x7FFFFFFFU); }

enum Team : std::int32_t { kHome = 0, kAway = 1 };
// Home defends the goal at x = -kHalfLength and attacks the other one.
float own_goal_x(std::int32_t team);

// What one player asks for in one tick.
struct Input {
  Vec2 move;  // each axis in [-1, 1]; longer than 1 counts as 1
  bool kick = false;
  bool operator==(const Input&) const = default;
};

struct Schema {
  tickwire::snapshot::Schema schema;
  tickwire::snapshot::TypeId player_type;
  tickwire::snapshot::TypeId ball_type;
  tickwire::snapshot::TypeId scoreboard_type;
  tickwire::snapshot::TypeId goal_type;
  tickwire::snapshot::TypeId input_type;

  Field<Vec2> player_position;
  Field<Vec2> player_velocity;
  Field<std::int32_t> player_owner;  // the client id modulo 65536
  Field<std::int32_t> player_team;
  Field<std::int32_t> player_kick_cooldown;  // ticks

  Field<Vec2> ball_position;
  Field<Vec2> ball_velocity;
  // Bumped (modulo 4) whenever the ball is put back on the centre spot, so
  // clients show it there at once instead of sliding it from the net.
  Field<std::int32_t> ball_teleports;
  Field<std::int32_t> ball_last_touch;  // the owner who touched it last, -1 none

  Field<std::int32_t> score_home;
  Field<std::int32_t> score_away;
  Field<std::int32_t> clock;         // ticks played in this match
  Field<std::int32_t> match_ticks;   // a match's length, as the server was configured
  Field<std::int32_t> seconds_left;  // of this match, rounded up
  Field<std::int32_t> kickoff;       // ticks until the ball may be played again
  Field<std::int32_t> last_scorer;   // the team that scored last, -1 none
  Field<std::int32_t> tick_rate;     // so a viewer can read the clock without the game

  Field<Vec2> goal_position;      // the middle of its line
  Field<std::int32_t> goal_team;  // the team that defends it

  Field<Vec2> input_move;
  Field<bool> input_kick;
};

// The game's types, built once on first use.
const Schema& schema();

struct GameConfig {
  // Ticks per second until the runtime tells the game its rate
  // (set_tick_rate); a test or a tool that steps the game alone sets it here.
  std::uint32_t tick_rate = 60;
  // A match's length; at the end the scores and the clock start again.
  std::uint32_t match_seconds = 300;
  // A client predicts the ball (besides its player) while it is this close
  // to its player, so that dribbling and kicking answer at once; further
  // away it is shown as the server sent it. 0: never.
  float ball_predict_radius = 4.0F;
  // ... until it is further than this (at least ball_predict_radius), so
  // a ball at the edge does not switch timelines every snapshot.
  float ball_release_radius = 5.0F;
  // Other players are listed among the predicted from closer than
  // remote_predict_radius to the client's player, until further than
  // remote_release_radius, and for contact_hold_snapshots snapshots after
  // they last touched it: pushes are then simulated against where they
  // will be. A client predicts them only when its runtime is configured
  // to (ClientConfig::predict_remote_players), steered by guess_input.
  // 0: never.
  float remote_predict_radius = 3.0F;
  float remote_release_radius = 4.5F;
  std::uint32_t contact_hold_snapshots = 15;
};

// Throws std::invalid_argument for a tick rate or match length out of range.
void check_config(const GameConfig& config);

// Ticks in `seconds` at `tick_rate`, at least one.
std::int32_t ticks_in(float seconds, std::uint32_t tick_rate);

// The scenery of a fresh server world: the ball on the centre spot, the
// scoreboard and both goals (in that order, so the ball is entity 0).
void populate(tickwire::snapshot::World& world, const GameConfig& config);

// Spawns the player of client `owner` on `team`, in its own half.
EntityId spawn_player(tickwire::snapshot::World& world, std::uint32_t owner, std::int32_t team);
// The team with fewer players (home on a tie).
std::int32_t smaller_team(const tickwire::snapshot::World& world);

std::optional<EntityId> find_player(const tickwire::snapshot::World& world, std::uint32_t owner);
std::optional<EntityId> find_ball(const tickwire::snapshot::World& world);
std::optional<EntityId> find_scoreboard(const tickwire::snapshot::World& world);

// Conversions between the game's input and its wire record.
tickwire::snapshot::Record to_record(const Input& input);
void to_record(const Input& input, tickwire::snapshot::Record& out);  // reuses out's storage
Input from_record(const tickwire::snapshot::Record& record);

// What simulate reuses between steps so that a warm step allocates
// nothing. It carries no state: each step refills it.
struct StepScratch {
  struct Owned {
    std::uint32_t owner;
    Input input;
  };
  struct Kick {
    EntityId player;
    Vec2 direction;  // unit, from the player to the ball
  };
  std::vector<Owned> inputs;
  std::vector<EntityId> players;  // sorted by id
  std::vector<Vec2> positions;    // of `players`, kept equal to the world's
  std::vector<Kick> kicks;        // this step's, in player id order
};

class Game final : public tickwire::prediction::NetGame {
 public:
  explicit Game(GameConfig config = {});

  const GameConfig& config() const { return config_; }

  void simulate(tickwire::snapshot::World& world, Tick tick, const tickwire::prediction::Inputs& inputs,
                tickwire::prediction::SimContext& ctx) override;

  const tickwire::snapshot::Schema& schema() const override;
  tickwire::snapshot::TypeId input_type() const override;
  // Any rate in [kMinTickRate, kMaxTickRate]: the step length and the
  // counters in ticks follow from the rate the runtime tells it.
  bool supports_tick_rate(std::uint32_t tick_rate) const override {
    return tick_rate >= kMinTickRate && tick_rate <= kMaxTickRate;
  }
  // Throws std::invalid_argument for a rate supports_tick_rate refuses.
  void set_tick_rate(std::uint32_t tick_rate) override;
  void populate(tickwire::snapshot::World& world) override;
  void player_joined(tickwire::snapshot::World& world, tickwire::prediction::PlayerId player) override;
  void player_left(tickwire::snapshot::World& world, tickwire::prediction::PlayerId player) override;
  std::optional<EntityId> avatar(const tickwire::snapshot::World& world,
                                 tickwire::prediction::PlayerId player) const override;
  void predicted_entities(const tickwire::snapshot::World& world, tickwire::prediction::PlayerId player,
                          std::vector<EntityId>& out) const override;
  void motion_fields(std::vector<tickwire::prediction::MotionFields>& out) const override;
  // Another player's last move, repeated: the move that keeps its present
  // velocity (what the server does with an input that never arrived). No
  // kick: a guessed kick would send the ball off on a guess.
  std::optional<tickwire::prediction::PlayerId> guess_input(const tickwire::snapshot::World& world, EntityId entity,
                                                            tickwire::snapshot::Record& input) const override;

 private:
  // The step length and the counters' lengths in ticks at `tick_rate`.
  void apply_tick_rate(std::uint32_t tick_rate);

  GameConfig config_;
  float dt_;
  std::int32_t kickoff_ticks_;
  std::int32_t kick_cooldown_ticks_;
  StepScratch step_;
  // Which entities this client predicts, with hysteresis (predicted_set.cpp).
  mutable tickwire::prediction::ProximityRule ball_rule_;
  mutable tickwire::prediction::ProximityRule remote_rule_;
};

}  // namespace pitch
