// The game's schema, its input record and the world's fixed parts: what
// a fresh match holds and where players come in.

#include <cmath>
#include <stdexcept>
#include <string>

#include "pitch/game.h"

namespace pitch {
namespace snapshot = tickwire::snapshot;

namespace {

// The most ticks any counter may hold, at the highest tick rate.
constexpr std::int32_t kMaxMatchTicks = static_cast<std::int32_t>(kMaxMatchSeconds * kMaxTickRate);
constexpr std::int32_t kMaxPauseTicks = 1023;

Schema make_schema() {
  Schema s;
  snapshot::SchemaBuilder b;
  // Players may stand a little beyond the lines; the ball goes into a net.
  const Vec2 lo{-kHalfLength - kGoalDepth - 1.0F, -kHalfWidth - 1.0F};
  const Vec2 hi{kHalfLength + kGoalDepth + 1.0F, kHalfWidth + 1.0F};
  {
    auto t = b.entity_type("player");
    t.priority(4.0F);
    s.player_type = t.id();
    s.player_position = t.add_vec2("position", lo, hi, 0.001F);
    s.player_velocity = t.add_vec2("velocity", {-kPlayerSpeed, -kPlayerSpeed}, {kPlayerSpeed, kPlayerSpeed}, 0.01F);
    s.player_owner = t.add_int("owner", 0, kMaxOwner);
    s.player_team = t.add_int("team", 0, 1);
    s.player_kick_cooldown = t.add_int("kick_cooldown", 0, kMaxPauseTicks);
  }
  {
    auto t = b.entity_type("ball");
    t.priority(4.0F);
    s.ball_type = t.id();
    s.ball_position = t.add_vec2("position", lo, hi, 0.001F);
    s.ball_velocity = t.add_vec2("velocity", {-kBallMaxSpeed, -kBallMaxSpeed}, {kBallMaxSpeed, kBallMaxSpeed}, 0.001F);
    s.ball_teleports = t.add_int("teleports", 0, 3, snapshot::Interpolation::kTeleportCounter);
    s.ball_last_touch = t.add_int("last_touch", -1, kMaxOwner);
  }
  {
    auto t = b.entity_type("scoreboard");
    s.scoreboard_type = t.id();
    s.score_home = t.add_int("home", 0, 9999);
    s.score_away = t.add_int("away", 0, 9999);
    s.clock = t.add_int("clock", 0, kMaxMatchTicks);
    s.match_ticks = t.add_int("match_ticks", 1, kMaxMatchTicks);
    s.seconds_left = t.add_int("seconds_left", 0, static_cast<std::int32_t>(kMaxMatchSeconds));
    s.kickoff = t.add_int("kickoff", 0, kMaxPauseTicks);
    s.last_scorer = t.add_int("last_scorer", -1, 1);
    s.tick_rate = t.add_int("tick_rate", 0, static_cast<std::int32_t>(kMaxTickRate));
  }
  {
    auto t = b.entity_type("goal");
    t.priority(0.5F);
    s.goal_type = t.id();
    s.goal_position = t.add_vec2("position", lo, hi, 0.01F);
    s.goal_team = t.add_int("team", 0, 1);
  }
  {
    auto t = b.record_type("input");
    s.input_type = t.id();
    s.input_move = t.add_vec2("move", {-1.0F, -1.0F}, {1.0F, 1.0F}, 1.0F / 127.0F);
    s.input_kick = t.add_bool("kick");
  }
  s.schema = b.build();
  return s;
}

std::optional<EntityId> first_of(const snapshot::World& world, snapshot::TypeId type) {
  const auto ids = world.entities(type);
  if (ids.empty()) return std::nullopt;
  EntityId first = ids.front();
  for (const EntityId id : ids) first = id < first ? id : first;
  return first;
}

}  // namespace

const Schema& schema() {
  // Built on first use and never changed afterwards: a constant, not state.
  static const Schema kSchema = make_schema();
  return kSchema;
}

float own_goal_x(std::int32_t team) { return team == kHome ? -kHalfLength : kHalfLength; }

void check_config(const GameConfig& config) {
  if (config.tick_rate < kMinTickRate || config.tick_rate > kMaxTickRate) {
    throw std::invalid_argument("pitch: tick rate " + std::to_string(config.tick_rate) + " outside [" +
                                std::to_string(kMinTickRate) + ", " + std::to_string(kMaxTickRate) + "]");
  }
  if (config.match_seconds < 1 || config.match_seconds > kMaxMatchSeconds) {
    throw std::invalid_argument("pitch: match length " + std::to_string(config.match_seconds) + " s outside [1, " +
                                std::to_string(kMaxMatchSeconds) + "]");
  }
  if (!std::isfinite(config.ball_predict_radius) || config.ball_predict_radius < 0.0F) {
    throw std::invalid_argument("pitch: the ball's prediction radius must be finite and not negative");
  }
  if (!std::isfinite(config.ball_release_radius) || config.ball_release_radius < config.ball_predict_radius) {
    throw std::invalid_argument("pitch: the ball's release radius must be finite and at least its prediction radius");
  }
  if (!std::isfinite(config.remote_predict_radius) || config.remote_predict_radius < 0.0F ||
      !std::isfinite(config.remote_release_radius) || config.remote_release_radius < config.remote_predict_radius) {
    throw std::invalid_argument(
        "pitch: other players' prediction radius must be finite and not negative, their release radius at least it");
  }
}

std::int32_t ticks_in(float seconds, std::uint32_t tick_rate) {
  const auto ticks = static_cast<std::int32_t>(std::lround(seconds * static_cast<float>(tick_rate)));
  return ticks < 1 ? 1 : ticks;
}

void populate(snapshot::World& world, const GameConfig& config) {
  const Schema& s = schema();
  const EntityId ball = world.spawn(s.ball_type);
  world.set(ball, s.ball_last_touch, -1);
  const EntityId board = world.spawn(s.scoreboard_type);
  world.set(board, s.seconds_left, static_cast<std::int32_t>(config.match_seconds));
  world.set(board, s.match_ticks, ticks_in(static_cast<float>(config.match_seconds), config.tick_rate));
  world.set(board, s.kickoff, ticks_in(kKickoffSeconds, config.tick_rate));
  world.set(board, s.last_scorer, -1);
  world.set(board, s.tick_rate, static_cast<std::int32_t>(config.tick_rate));
  for (const std::int32_t team : {kHome, kAway}) {
    const EntityId goal = world.spawn(s.goal_type);
    world.set(goal, s.goal_position, Vec2{own_goal_x(team), 0.0F});
    world.set(goal, s.goal_team, team);
  }
  world.quantize();
}

std::int32_t smaller_team(const snapshot::World& world) {
  const Schema& s = schema();
  int home = 0;
  int away = 0;
  for (const EntityId id : world.entities(s.player_type)) (world.get(id, s.player_team) == kHome ? home : away) += 1;
  return home <= away ? kHome : kAway;
}

EntityId spawn_player(snapshot::World& world, std::uint32_t owner, std::int32_t team) {
  const Schema& s = schema();
  const EntityId id = world.spawn(s.player_type);
  // Halfway between its goal and the centre line, spread across the width
  // by owner so that players who join together stand apart.
  const float x = own_goal_x(team) * 0.5F;
  const auto lane = static_cast<float>(owner % 11) - 5.0F;
  world.set(id, s.player_position, Vec2{x, lane * 3.0F});
  world.set(id, s.player_owner, owner_code(owner));
  world.set(id, s.player_team, team);
  world.quantize(id);
  return id;
}

std::optional<EntityId> find_player(const snapshot::World& world, std::uint32_t owner) {
  const Schema& s = schema();
  for (const EntityId id : world.entities(s.player_type)) {
    if (world.get(id, s.player_owner) == owner_code(owner)) return id;
  }
  return std::nullopt;
}

std::optional<EntityId> find_ball(const snapshot::World& world) { return first_of(world, schema().ball_type); }

std::optional<EntityId> find_scoreboard(const snapshot::World& world) {
  return first_of(world, schema().scoreboard_type);
}

snapshot::Record to_record(const Input& input) {
  snapshot::Record r(schema().schema, schema().input_type);
  to_record(input, r);
  return r;
}

void to_record(const Input& input, snapshot::Record& out) {
  const Schema& s = schema();
  if (out.type() != s.input_type) out = snapshot::Record(s.schema, s.input_type);
  out.set(s.input_move, input.move);
  out.set(s.input_kick, input.kick);
  out.quantize();
}

Input from_record(const snapshot::Record& r) {
  const Schema& s = schema();
  return Input{r.get(s.input_move), r.get(s.input_kick)};
}

}  // namespace pitch
