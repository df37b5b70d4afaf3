// Pitch's side of the runtime contract (tickwire/prediction/net_game.h):
// the match's scenery, who joins which team, and what a client predicts.

#include <cmath>

#include "pitch/game.h"

namespace pitch {
namespace snapshot = tickwire::snapshot;
namespace prediction = tickwire::prediction;

Game::Game(GameConfig config)
    : config_(config), dt_(0.0F), kickoff_ticks_(0), kick_cooldown_ticks_(0) {
  check_config(config_);
  apply_tick_rate(config_.tick_rate);
}

void Game::set_tick_rate(std::uint32_t tick_rate) {
  GameConfig config = config_;
  config.tick_rate = tick_rate;
  check_config(config);
  apply_tick_rate(tick_rate);
}

void Game::apply_tick_rate(std::uint32_t tick_rate) {
  config_.tick_rate = tick_rate;
  dt_ = 1.0F / static_cast<float>(tick_rate);
  kickoff_ticks_ = ticks_in(kKickoffSeconds, tick_rate);
  kick_cooldown_ticks_ = ticks_in(kKickCooldownSeconds, tick_rate);
}

const snapshot::Schema& Game::schema() const { return pitch::schema().schema; }
snapshot::TypeId Game::input_type() const { return pitch::schema().input_type; }

void Game::populate(snapshot::World& world) { pitch::populate(world, config_); }

void Game::player_joined(snapshot::World& world, prediction::PlayerId player) {
  spawn_player(world, player.value, smaller_team(world));
}

void Game::player_left(snapshot::World& world, prediction::PlayerId player) {
  if (const auto id = find_player(world, player.value)) world.despawn(*id);
}

std::optional<EntityId> Game::avatar(const snapshot::World& world, prediction::PlayerId player) const {
  return find_player(world, player.value);
}

// The avatar always; the ball too while it is near the avatar. The ball
// belongs to nobody, so far from it a client shows it as the server sent
// it, but at the player's feet a prediction lets a touch or a kick move it
// at once instead of a round trip later.
void Game::predicted_entities(const snapshot::World& world, prediction::PlayerId player,
                              std::vector<EntityId>& out) const {
  const auto me = find_player(world, player.value);
  if (!me) return;
  out.push_back(*me);
  const auto ball = find_ball(world);
  if (!ball || config_.ball_predict_radius <= 0.0F) return;
  const Schema& s = pitch::schema();
  const Vec2 a = world.get(*me, s.player_position);
  const Vec2 b = world.get(*ball, s.ball_position);
  if (std::hypot(a.x - b.x, a.y - b.y) <= config_.ball_predict_radius) out.push_back(*ball);
}

// Players and the ball move; the goals stand still.
void Game::motion_fields(std::vector<prediction::MotionFields>& out) const {
  const Schema& s = pitch::schema();
  out.push_back(prediction::MotionFields::of(s.player_position, s.player_velocity, kPlayerRadius));
  out.push_back(prediction::MotionFields::of(s.ball_position, s.ball_velocity, kBallRadius));
}

}  // namespace pitch
