// Computer players, simple on purpose: each aims for one point and kicks
// when the ball lies between it and where it wants the ball to go.

#include "pitch/ai.h"

#include <cmath>

namespace pitch {
namespace {

namespace snapshot = tickwire::snapshot;

Vec2 sub(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
Vec2 add(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
Vec2 scale(Vec2 a, float k) { return {a.x * k, a.y * k}; }
float length(Vec2 a) { return std::sqrt(a.x * a.x + a.y * a.y); }
Vec2 unit(Vec2 a) {
  const float len = length(a);
  return len > 1e-4F ? scale(a, 1.0F / len) : Vec2{};
}

// Full speed towards `target`, slowing for the last half metre.
Vec2 run_to(Vec2 from, Vec2 target) {
  const Vec2 d = sub(target, from);
  const float len = length(d);
  return len > 0.5F ? scale(d, 1.0F / len) : scale(d, 2.0F);
}

struct Scene {
  Vec2 me;
  Vec2 ball;
  std::int32_t team;
};

std::optional<Scene> look(const snapshot::World& world, EntityId me) {
  const Schema& s = schema();
  const auto ball = find_ball(world);
  if (!ball || !world.contains(me) || world.type_of(me) != s.player_type) return std::nullopt;
  return Scene{world.get(me, s.player_position), world.get(*ball, s.ball_position), world.get(me, s.player_team)};
}

// Runs the ball towards `aim`: from behind it, and a kick once lined up.
Input play_towards(const Scene& at, Vec2 aim) {
  constexpr float kReach = kPlayerRadius + kBallRadius + kKickReach;
  const Vec2 line = unit(sub(aim, at.ball));
  const Vec2 behind = sub(at.ball, scale(line, kPlayerRadius + kBallRadius + 1.0F));
  const Vec2 to_ball = sub(at.ball, at.me);
  const float distance = length(to_ball);
  const float cosine = distance > 0.0F ? (to_ball.x * line.x + to_ball.y * line.y) / distance : 0.0F;
  // Lined up, or the ball against a wall with no room behind it: at it,
  // kicking once the kick would go where it should.
  const bool cornered = std::fabs(behind.x) > kHalfLength || std::fabs(behind.y) > kHalfWidth - kPlayerRadius;
  if (cosine > 0.9F || cornered) {
    return Input{run_to(at.me, add(at.ball, line)), distance < kReach && (cosine > 0.97F || cornered)};
  }
  // Behind the ball along the line: straight to the point behind it.
  // Beside it or in front: first to a point beside it, to pass round.
  const Vec2 from_ball = sub(at.me, at.ball);
  if (from_ball.x * line.x + from_ball.y * line.y < -0.5F) return Input{run_to(at.me, behind), false};
  const Vec2 side{-line.y, line.x};
  const float which = from_ball.x * side.x + from_ball.y * side.y >= 0.0F ? 1.0F : -1.0F;
  return Input{run_to(at.me, sub(add(at.ball, scale(side, which * 1.5F)), scale(line, 1.0F))), false};
}

}  // namespace

Input chase_ball(const snapshot::World& world, EntityId me) {
  const auto at = look(world, me);
  if (!at) return {};
  return play_towards(*at, Vec2{-own_goal_x(at->team), 0.0F});
}

Input defend_goal(const snapshot::World& world, EntityId me) {
  const auto at = look(world, me);
  if (!at) return {};
  const Vec2 goal{own_goal_x(at->team), 0.0F};
  // Near the ball and nearer our goal than the ball: clear it up the pitch.
  if (length(sub(at->ball, at->me)) < 5.0F || length(sub(at->ball, goal)) < 8.0F) {
    return play_towards(*at, Vec2{-own_goal_x(at->team), at->ball.y});
  }
  // Defenders of one team spread across the goal by owner, side by side
  // rather than in one heap pushing each other. Joins alternate between
  // the teams, so a team's owners step by two.
  const Vec2 out = unit(sub(at->ball, goal));
  const auto lane = (static_cast<float>(world.get(me, schema().player_owner) / 2 % 4) - 1.5F) * 2.0F;
  const Vec2 guard = add(add(goal, scale(out, 4.0F)), scale(Vec2{-out.y, out.x}, lane));
  return Input{run_to(at->me, guard), false};
}

Input wander(const snapshot::World& world, EntityId me, std::uint64_t seed, Tick tick, std::uint32_t tick_rate) {
  const auto at = look(world, me);
  if (!at) return {};
  if (length(sub(at->ball, at->me)) < 1.5F) return play_towards(*at, Vec2{-own_goal_x(at->team), 0.0F});
  // A new point every four seconds, the same on every run with this seed.
  std::uint64_t h = seed * 0x9E3779B97F4A7C15ULL + tick.value() / (4 * tick_rate);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 29;
  const auto fraction = [](std::uint64_t bits) { return static_cast<float>(bits & 0xFFFF) / 65535.0F; };
  const Vec2 target{(fraction(h) * 2.0F - 1.0F) * (kHalfLength - 2.0F),
                    (fraction(h >> 16) * 2.0F - 1.0F) * (kHalfWidth - 2.0F)};
  return Input{run_to(at->me, target), false};
}

}  // namespace pitch
