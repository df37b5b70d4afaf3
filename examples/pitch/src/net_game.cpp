// Pitch's side of the runtime contract (tickwire/prediction/net_game.h):
// the match's scenery, who joins which team, and what a client predicts.

#include <cmath>

#include "pitch/game.h"

namespace pitch {
namespace snapshot = tickwire::snapshot;
namespace prediction = tickwire::prediction;

Game::Game(GameConfig config)
    : config_(config),
      dt_(0.0F),
      kickoff_ticks_(0),
      kick_cooldown_ticks_(0),
      ball_rule_({config.ball_predict_radius, config.ball_release_radius, config.contact_hold_snapshots}),
      remote_rule_({config.remote_predict_radius, config.remote_release_radius, config.contact_hold_snapshots}) {
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

// Players and the ball move; the goals stand still.
void Game::motion_fields(std::vector<prediction::MotionFields>& out) const {
  const Schema& s = pitch::schema();
  out.push_back(prediction::MotionFields::of(s.player_position, s.player_velocity, kPlayerRadius));
  out.push_back(prediction::MotionFields::of(s.ball_position, s.ball_velocity, kBallRadius));
}

}  // namespace pitch
