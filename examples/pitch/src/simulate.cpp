// One step of the match: players run and push each other, kicks and
// contacts move the ball, the ball rolls, bounces and goes in, and the
// scoreboard counts. On a client only the entities it predicts change.

#include <algorithm>
#include <cmath>
#include <span>

#include "pitch/game.h"

namespace pitch {
namespace snapshot = tickwire::snapshot;
namespace prediction = tickwire::prediction;

namespace {

Vec2 add(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
Vec2 sub(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
Vec2 scale(Vec2 a, float k) { return {a.x * k, a.y * k}; }
float dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }
float length(Vec2 a) { return std::sqrt(dot(a, a)); }

// The unit vector from a to b; along +x when they coincide, so that every
// machine picks the same direction.
Vec2 direction(Vec2 a, Vec2 b, float& distance) {
  const Vec2 d = sub(b, a);
  distance = length(d);
  return distance > 1e-4F ? scale(d, 1.0F / distance) : Vec2{1.0F, 0.0F};
}

Vec2 clamp_length(Vec2 v, float max) {
  const float len = length(v);
  return len > max ? scale(v, max / len) : v;
}

// Players stay on the pitch, with a metre to spare behind the goal lines.
Vec2 keep_on_pitch(Vec2 p) {
  const float x = kHalfLength + 1.0F - kPlayerRadius;
  const float y = kHalfWidth - kPlayerRadius;
  return {std::clamp(p.x, -x, x), std::clamp(p.y, -y, y)};
}

const Input* input_of(std::span<const StepScratch::Owned> inputs, std::int32_t owner) {
  for (const auto& in : inputs) {
    if (owner_code(in.owner) == owner) return &in.input;
  }
  return nullptr;
}

struct Step {
  snapshot::World& world;
  const Schema& s;
  prediction::SimContext& ctx;
  StepScratch& scratch;
  float dt;
};

// Runs towards the asked velocity, no faster than the acceleration allows.
void run_player(const Step& st, EntityId id, const Input* in) {
  const Schema& s = st.s;
  Vec2 move = in != nullptr ? clamp_length(in->move, 1.0F) : Vec2{};
  if (!std::isfinite(move.x) || !std::isfinite(move.y)) move = {};
  const Vec2 target = scale(move, kPlayerSpeed);
  const Vec2 v = st.world.get(id, s.player_velocity);
  const Vec2 change = clamp_length(sub(target, v), kPlayerAcceleration * st.dt);
  const Vec2 velocity = clamp_length(add(v, change), kPlayerSpeed);
  st.world.set(id, s.player_velocity, velocity);
  st.world.set(id, s.player_position, keep_on_pitch(add(st.world.get(id, s.player_position), scale(velocity, st.dt))));
  st.world.set(id, s.player_kick_cooldown, std::max(st.world.get(id, s.player_kick_cooldown) - 1, 0));
}

// A kick needs the ball within reach and the player's foot rested. Decided
// from where the ball stood at the start of the step, whether or not this
// machine moves the ball, so the cooldown agrees with the server's.
void try_kick(const Step& st, EntityId id, const Input* in, const Vec2* ball, bool kickoff,
              std::int32_t cooldown_ticks) {
  if (in == nullptr || !in->kick || ball == nullptr || kickoff) return;
  if (st.world.get(id, st.s.player_kick_cooldown) > 0) return;
  float distance = 0.0F;
  const Vec2 dir = direction(st.world.get(id, st.s.player_position), *ball, distance);
  if (distance > kPlayerRadius + kBallRadius + kKickReach) return;
  st.world.set(id, st.s.player_kick_cooldown, cooldown_ticks);
  st.scratch.kicks.push_back({id, dir});
}

// Overlapping players push each other apart, half each, pairs in id order
// so every machine resolves them alike. A client moves only the players it
// predicts; the other half of a push is the server's to decide.
void push_players(const Step& st) {
  const auto& players = st.scratch.players;
  auto& positions = st.scratch.positions;
  positions.clear();
  for (const EntityId id : players) positions.push_back(st.world.get(id, st.s.player_position));
  constexpr float kDiameter = 2.0F * kPlayerRadius;
  for (std::size_t i = 0; i < players.size(); ++i) {
    for (std::size_t j = i + 1; j < players.size(); ++j) {
      if (!st.ctx.simulates(players[i]) && !st.ctx.simulates(players[j])) continue;
      float distance = 0.0F;
      const Vec2 n = direction(positions[i], positions[j], distance);
      const float overlap = kDiameter - distance;
      if (overlap <= 0.0F) continue;
      if (st.ctx.simulates(players[i])) {
        positions[i] = keep_on_pitch(sub(positions[i], scale(n, overlap * 0.5F)));
        st.world.set(players[i], st.s.player_position, positions[i]);
      }
      if (st.ctx.simulates(players[j])) {
        positions[j] = keep_on_pitch(add(positions[j], scale(n, overlap * 0.5F)));
        st.world.set(players[j], st.s.player_position, positions[j]);
      }
    }
  }
}

// Back on the centre spot, still; the teleport counter tells clients to
// show the jump rather than blend it.
void reset_ball(const Step& st, EntityId ball) {
  st.world.set(ball, st.s.ball_position, Vec2{});
  st.world.set(ball, st.s.ball_velocity, Vec2{});
  st.world.set(ball, st.s.ball_teleports, (st.world.get(ball, st.s.ball_teleports) + 1) % 4);
  st.world.set(ball, st.s.ball_last_touch, -1);
}

// Players in contact push the ball out of them (a player outweighs it) and
// carry it along at a little more than their own speed; kicks then send it
// off. Returns the ball's new velocity; its position is updated in place.
Vec2 touch_ball(const Step& st, EntityId ball, Vec2& p, Vec2 v) {
  const Schema& s = st.s;
  constexpr float kContact = kPlayerRadius + kBallRadius;
  for (std::size_t i = 0; i < st.scratch.players.size(); ++i) {
    const EntityId player = st.scratch.players[i];
    float distance = 0.0F;
    const Vec2 n = direction(st.scratch.positions[i], p, distance);
    if (distance >= kContact) continue;
    p = add(st.scratch.positions[i], scale(n, kContact));
    const float carried = dot(st.world.get(player, s.player_velocity), n) * kDribbleFactor;
    const float along = dot(v, n);
    if (along < carried) v = add(v, scale(n, carried - along));
    st.world.set(ball, s.ball_last_touch, st.world.get(player, s.player_owner));
  }
  for (const StepScratch::Kick& kick : st.scratch.kicks) {
    // Along the kick at full speed; half of any sideways roll stays.
    const Vec2 sideways = sub(v, scale(kick.direction, dot(v, kick.direction)));
    v = add(scale(kick.direction, kKickSpeed), scale(sideways, 0.5F));
    st.world.set(ball, s.ball_last_touch, st.world.get(kick.player, s.player_owner));
  }
  return clamp_length(v, kBallMaxSpeed);
}

// Off a wall at x = +-limit (or y), losing some speed.
void bounce(float& position, float& velocity, float limit) {
  if (position > limit) {
    position = 2.0F * limit - position;
    velocity = -std::fabs(velocity) * kWallBounce;
  } else if (position < -limit) {
    position = -2.0F * limit - position;
    velocity = std::fabs(velocity) * kWallBounce;
  }
}

// Moves the ball one step. Returns the team that scored, if it went in.
std::optional<std::int32_t> roll_ball(const Step& st, EntityId ball, bool kickoff) {
  const Schema& s = st.s;
  if (kickoff) return std::nullopt;  // it waits on the spot
  Vec2 p = st.world.get(ball, s.ball_position);
  Vec2 v = touch_ball(st, ball, p, st.world.get(ball, s.ball_velocity));
  const float speed = length(v);
  const float slower = std::max(speed - kBallDeceleration * st.dt, 0.0F);
  v = speed > 0.0F ? scale(v, slower / speed) : v;
  p = add(p, scale(v, st.dt));
  bounce(p.y, v.y, kHalfWidth - kBallRadius);
  if (std::fabs(p.y) < kGoalHalfWidth - kBallRadius) {
    // In front of a goal mouth: a goal once the whole ball is over the line.
    if (p.x > kHalfLength + kBallRadius) return kHome;
    if (p.x < -kHalfLength - kBallRadius) return kAway;
  } else {
    bounce(p.x, v.x, kHalfLength - kBallRadius);
  }
  // Beside the mouth, beyond the line (it came in past a post): back out.
  p.x = std::clamp(p.x, -kHalfLength - kGoalDepth, kHalfLength + kGoalDepth);
  st.world.set(ball, s.ball_position, p);
  st.world.set(ball, s.ball_velocity, v);
  return std::nullopt;
}

}  // namespace

void Game::simulate(snapshot::World& world, Tick /*tick*/, const prediction::Inputs& inputs,
                    prediction::SimContext& ctx) {
  const Schema& s = pitch::schema();
  StepScratch& scratch = step_;
  const Step st{world, s, ctx, scratch, dt_};
  scratch.inputs.clear();
  for (const prediction::PlayerInput& in : inputs.all())
    scratch.inputs.push_back({in.player.value, from_record(*in.input)});

  const auto board = find_scoreboard(world);
  const auto ball = find_ball(world);
  const std::int32_t clock = board ? world.get(*board, s.clock) + 1 : 0;
  // The match length rides in the scoreboard, so a client predicting the
  // ball ends the match when its server does, whatever that server was told.
  const std::int32_t match_ticks = board ? world.get(*board, s.match_ticks) : 0;
  const bool match_over = board && clock >= match_ticks;
  const bool kickoff = board && world.get(*board, s.kickoff) > 0;
  const Vec2 ball_at = ball ? world.get(*ball, s.ball_position) : Vec2{};

  scratch.players.assign(world.entities(s.player_type).begin(), world.entities(s.player_type).end());
  std::sort(scratch.players.begin(), scratch.players.end());
  scratch.kicks.clear();
  for (const EntityId id : scratch.players) {
    if (!ctx.simulates(id)) continue;
    const Input* in = input_of(scratch.inputs, world.get(id, s.player_owner));
    try_kick(st, id, in, ball ? &ball_at : nullptr, kickoff, kick_cooldown_ticks_);
    run_player(st, id, in);
  }
  push_players(st);

  std::optional<std::int32_t> scored;
  if (ball && ctx.simulates(*ball)) {
    scored = roll_ball(st, *ball, kickoff);
    if (scored || match_over) reset_ball(st, *ball);
  }
  if (!board || !ctx.simulates(*board)) return;
  if (match_over) {
    world.set(*board, s.score_home, 0);
    world.set(*board, s.score_away, 0);
    world.set(*board, s.clock, 0);
    world.set(*board, s.kickoff, kickoff_ticks_);
    world.set(*board, s.last_scorer, -1);
  } else {
    world.set(*board, s.clock, clock);
    world.set(*board, s.kickoff, std::max(world.get(*board, s.kickoff) - 1, 0));
    if (scored) {
      const auto score = *scored == kHome ? s.score_home : s.score_away;
      world.set(*board, score, std::min(world.get(*board, score) + 1, 9999));
      world.set(*board, s.last_scorer, *scored);
      world.set(*board, s.kickoff, kickoff_ticks_);
    }
  }
  const std::int32_t rate = static_cast<std::int32_t>(config_.tick_rate);
  const std::int32_t left = match_ticks - world.get(*board, s.clock);
  world.set(*board, s.seconds_left, (left + rate - 1) / rate);
  world.set(*board, s.tick_rate, rate);
}

}  // namespace pitch
