// What a pitch client predicts besides its player, and how it guesses
// the others' inputs. The ball belongs to nobody: far from it a client
// shows it as the server sent it, but at the player's feet a prediction
// lets a touch or a kick move it at once instead of a round trip later.
// Other players near it are listed too, so a push is simulated against
// where they will be rather than where the snapshots last put them.

#include <algorithm>
#include <cmath>

#include "pitch/game.h"

namespace pitch {
namespace snapshot = tickwire::snapshot;
namespace prediction = tickwire::prediction;

namespace {

// Touching, or about to within a snapshot or two.
constexpr float kContactMargin = 0.3F;

float distance(Vec2 a, Vec2 b) { return std::hypot(a.x - b.x, a.y - b.y); }

}  // namespace

void Game::predicted_entities(const snapshot::World& world, prediction::PlayerId player,
                              std::vector<EntityId>& out) const {
  const auto me = find_player(world, player.value);
  if (!me) return;
  out.push_back(*me);
  const Schema& s = pitch::schema();
  const Vec2 at = world.get(*me, s.player_position);
  ball_rule_.begin();
  if (const auto ball = find_ball(world); ball && config_.ball_predict_radius > 0.0F) {
    const float d = distance(at, world.get(*ball, s.ball_position));
    if (ball_rule_.wants(*ball, d, d <= kPlayerRadius + kBallRadius + kContactMargin)) out.push_back(*ball);
  }
  ball_rule_.end();
  remote_rule_.begin();
  if (config_.remote_predict_radius > 0.0F) {
    for (const EntityId id : world.entities(s.player_type)) {
      if (id == *me) continue;
      const float d = distance(at, world.get(id, s.player_position));
      if (remote_rule_.wants(id, d, d <= 2.0F * kPlayerRadius + kContactMargin)) out.push_back(id);
    }
  }
  remote_rule_.end();
}

std::optional<prediction::PlayerId> Game::guess_input(const snapshot::World& world, EntityId entity,
                                                      snapshot::Record& input) const {
  const Schema& s = pitch::schema();
  if (world.type_of(entity) != s.player_type) return std::nullopt;
  // A player runs towards move x kPlayerSpeed: at a steady run its
  // velocity is that, so velocity / kPlayerSpeed is the move it holds.
  const Vec2 v = world.get(entity, s.player_velocity);
  Input in;
  in.move = {std::clamp(v.x / kPlayerSpeed, -1.0F, 1.0F), std::clamp(v.y / kPlayerSpeed, -1.0F, 1.0F)};
  to_record(in, input);
  return prediction::PlayerId{static_cast<std::uint32_t>(world.get(entity, s.player_owner))};
}

}  // namespace pitch
