// Prediction switching on the real client over a simulated link: another
// player walks straight past this client's player (and is predicted from
// 3 m, with predict_remote_players) and on (interpolated beyond 4.5 m). Its
// drawing must never move further in a frame than its velocity explains
// by more than a visual pop's distance, in either direction.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "sim_match.h"

namespace tickwire {
namespace {

using testing::SimMatch;

constexpr std::uint64_t kSeed = 4517;
constexpr float kPopDistance = 0.25F;

struct SwitchRun {
  int switches_in = 0;
  int switches_out = 0;
  float worst_unexplained = 0.0F;  // frame step beyond |v| dt, metres
  std::uint64_t mispredictions = 0;
};

SwitchRun walk_up_and_away(Duration blend, bool predict_remote_players = true) {
  SimMatch m{kSeed};
  m.client_frame = Duration::micros(16667);
  transport::LinkConditions link;
  link.latency = Duration::millis(40);
  m.net.set_default_link(link);
  client::ClientConfig watching;
  watching.predict_remote_players = predict_remote_players;
  watching.prediction_switch_blend = blend;
  m.add_client(watching);
  m.add_client();
  for (auto& c : m.clients) EXPECT_TRUE(c->connect(m.server_address, m.clock.now()).ok());
  EXPECT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));
  m.run_for(Duration::millis(500));
  const arena::Schema& s = arena::schema();
  client::Client& me = *m.clients[0];
  const auto other = arena::find_player(me.authoritative_world(), *m.clients[1]->client_id());
  const auto mine = me.avatar();
  EXPECT_TRUE(other && mine);
  if (!other || !mine) return {};

  SwitchRun run;
  // The walker heads, at full speed and never turning, for a point 1.5 m
  // to one side of this client's player: it passes by and walks on.
  const snapshot::World& w = m.server->world();
  const snapshot::Vec2 a = w.get(*mine, s.player_position);
  const snapshot::Vec2 b = w.get(*other, s.player_position);
  const float d = std::hypot(a.x - b.x, a.y - b.y);
  const snapshot::Vec2 side{-(a.y - b.y) / d, (a.x - b.x) / d};
  const snapshot::Vec2 aim{a.x + 1.5F * side.x - b.x, a.y + 1.5F * side.y - b.y};
  const float len = std::hypot(aim.x, aim.y);
  m.inputs[1].move = {aim.x / len, aim.y / len};
  bool predicted = false;
  std::optional<snapshot::Vec2> last;
  m.on_frame = [&](Time) {
    const bool now_predicted = me.prediction()->predicts(*other);
    if (now_predicted != predicted) (now_predicted ? run.switches_in : run.switches_out)++;
    predicted = now_predicted;
    if (now_predicted) {
      EXPECT_EQ(me.prediction()->role(*other), prediction::PredictedRole::kRemotePlayer);
    }
    EXPECT_EQ(me.prediction()->role(*mine), prediction::PredictedRole::kOwn);
    const snapshot::World& view = me.view();
    if (!view.contains(*other)) return;
    const snapshot::Vec2 p = view.get(*other, s.player_position);
    const snapshot::Vec2 v = view.get(*other, s.player_velocity);
    if (last) {
      const float step = std::hypot(p.x - last->x, p.y - last->y);
      const float explained = std::hypot(v.x, v.y) * static_cast<float>(m.client_frame.seconds_f());
      run.worst_unexplained = std::max(run.worst_unexplained, step - explained);
    }
    last = p;
  };
  m.run_for(Duration::seconds(3));
  run.mispredictions = me.stats().mispredictions;
  return run;
}

TEST(PredictionSwitching, AnotherPlayerSwitchesInAndOutWithoutAJump) {
  std::cout << "seed=" << kSeed << "\n";
  const SwitchRun blended = walk_up_and_away(Duration::millis(200));
  EXPECT_GE(blended.switches_in, 1);
  EXPECT_GE(blended.switches_out, 1);
  EXPECT_LT(blended.worst_unexplained, kPopDistance);
  // Walking straight, its guessed input (its last move, repeated) is right.
  EXPECT_EQ(blended.mispredictions, 0U);
  // The same walk drawn without the blend jumps: what the test would see.
  const SwitchRun jumping = walk_up_and_away(Duration::zero());
  EXPECT_GT(jumping.worst_unexplained, kPopDistance);
  // Without predict_remote_players the game's list is not enough: the
  // other player stays interpolated.
  const SwitchRun interpolated = walk_up_and_away(Duration::millis(200), false);
  EXPECT_EQ(interpolated.switches_in, 0);
  EXPECT_LT(interpolated.worst_unexplained, kPopDistance);
  std::cout << "worst frame step beyond its velocity: blended " << blended.worst_unexplained << " m, unblended "
            << jumping.worst_unexplained << " m\n";
}

}  // namespace
}  // namespace tickwire
