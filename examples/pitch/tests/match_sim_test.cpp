// A match on the real runtimes over a simulated network: a server and
// computer players as predicting clients, 40 ms each way, at 30 Hz. The
// players' clients predict the ball near their feet; a watching client
// that never predicts it checks that the ball's return to the centre
// spot (at the end of each short match, after every goal) is shown as a
// jump, never drawn sliding back across the pitch.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "pitch/ai.h"
#include "pitch/game.h"
#include "tickwire/client/client.h"
#include "tickwire/server/server.h"
#include "tickwire/transport/sim_network.h"

namespace pitch {
namespace {

using namespace tickwire;

struct Player {
  std::unique_ptr<Game> game;
  std::unique_ptr<client::Client> client;
};

// Each client samples its input from what it shows: the computer player
// `chase` or `wander` on the client's own view.
Player add_player(transport::SimNetwork& net, const std::string& name, bool chases, float ball_predict_radius,
                  bool predict_remote_players = false) {
  Player p;
  GameConfig config;
  config.ball_predict_radius = ball_predict_radius;
  p.game = std::make_unique<Game>(config);
  auto slot = std::make_shared<client::Client*>(nullptr);
  auto sampler = [slot, chases](Tick tick, snapshot::Record& out) {
    const client::Client& c = **slot;
    Input in;
    if (c.avatar() && c.view().contains(*c.avatar())) {
      in = chases ? chase_ball(c.view(), *c.avatar()) : wander(c.view(), *c.avatar(), 7, tick, 30);
    }
    to_record(in, out);
  };
  transport::SimEndpointConfig ec;
  ec.max_peers = 1;
  client::ClientConfig cc;
  cc.name = name;
  cc.predict_remote_players = predict_remote_players;
  p.client = std::make_unique<client::Client>(net.create_endpoint({name, 5000}, ec), *p.game, sampler, cc);
  *slot = p.client.get();
  return p;
}

TEST(PitchMatchSim, PlayersPredictAndTheBallJumpsBackToTheSpot) {
  transport::SimNetwork net(42);
  transport::LinkConditions link;
  link.latency = Duration::millis(40);
  net.set_default_link(link);
  Game server_game(GameConfig{.match_seconds = 4});
  server::ServerConfig config;
  config.tick_rate = 30;
  config.send_rate = 30;
  const transport::Address server_address{"pitch-server", 7777};
  Time now = Time::from_micros(1'000'000);
  server::Server server(net.create_endpoint(server_address), server_game, config, now);

  std::vector<Player> players;
  for (int i = 0; i < 4; ++i) players.push_back(add_player(net, "player-" + std::to_string(i), i % 2 == 0, 4.0F));
  players.push_back(add_player(net, "watcher", false, 0.0F));
  for (auto& p : players) ASSERT_TRUE(p.client->connect(server_address, now).ok());

  const Schema& s = schema();
  const client::Client& watcher = *players.back().client;
  std::optional<Vec2> last_seen;
  std::int32_t last_teleports = -1;
  int jumps = 0;
  float longest_step = 0.0F;
  // 14 s of play at 1 ms steps, clients' frames every 16 ms.
  for (int ms = 0; ms < 14'000; ++ms) {
    now = now + Duration::millis(1);
    server.update(now);
    if (ms % 16 != 0) continue;
    for (auto& p : players) p.client->update(now);
    const auto ball = find_ball(watcher.view());
    if (watcher.state() != client::ClientState::kConnected || !ball) continue;
    const Vec2 at = watcher.view().get(*ball, s.ball_position);
    const std::int32_t teleports = watcher.view().get(*ball, s.ball_teleports);
    if (last_seen && teleports != last_teleports) {
      ++jumps;
      EXPECT_LT(std::hypot(at.x, at.y), 0.01F) << "after a teleport the ball is on the spot, at " << ms << " ms";
    } else if (last_seen) {
      // Never faster than the ball goes (a frame is 16 ms), with room for
      // the interpolation's steps between snapshots.
      const float step = std::hypot(at.x - last_seen->x, at.y - last_seen->y);
      longest_step = std::max(longest_step, step);
      EXPECT_LT(step, kBallMaxSpeed * 0.016F * 2.5F) << "the ball slid " << step << " m in a frame at " << ms << " ms";
    }
    last_seen = at;
    last_teleports = teleports;
  }
  for (auto& p : players) {
    EXPECT_EQ(p.client->state(), client::ClientState::kConnected);
    EXPECT_EQ(p.client->stats().hard_resets, 0u);
    EXPECT_GT(p.client->stats().predicted_ticks, 300u);
  }
  // Three matches ended in 14 s; goals add more jumps.
  EXPECT_GE(jumps, 3);
  const auto board = *find_scoreboard(server.world());
  std::printf("teleports seen %d, longest frame step %.3f m, score %d - %d, mispredictions %llu\n", jumps,
              static_cast<double>(longest_step), server.world().get(board, s.score_home),
              server.world().get(board, s.score_away),
              static_cast<unsigned long long>(players.front().client->stats().mispredictions));
}

struct ContactPlay {
  std::uint64_t mispredictions = 0;
  std::uint64_t entities = 0;  // corrected entities
  std::uint64_t predicted_ticks = 0;
  double seconds = 0.0;
};

// Eight players all chasing the ball (pushing one another around it), or
// wandering, for 20 s over 40 ms each way at 60 Hz; what their clients
// mispredicted.
ContactPlay contact_play(bool predict_remote_players, bool chase = true) {
  transport::SimNetwork net(7);
  transport::LinkConditions link;
  link.latency = Duration::millis(40);
  link.jitter = Duration::millis(5);
  net.set_default_link(link);
  Game server_game(GameConfig{.match_seconds = 600});
  server::ServerConfig config;
  config.tick_rate = 60;
  config.send_rate = 60;
  const transport::Address server_address{"pitch-server", 7777};
  Time now = Time::from_micros(1'000'000);
  server::Server server(net.create_endpoint(server_address), server_game, config, now);
  std::vector<Player> players;
  for (int i = 0; i < 8; ++i) {
    players.push_back(add_player(net, "player-" + std::to_string(i), chase, 4.0F, predict_remote_players));
  }
  for (auto& p : players) EXPECT_TRUE(p.client->connect(server_address, now).ok());
  constexpr int kMillis = 22'000;
  std::vector<std::uint64_t> at_start(players.size(), 0);
  for (int ms = 0; ms < kMillis; ++ms) {
    now = now + Duration::millis(1);
    server.update(now);
    if (ms % 16 != 0) continue;
    for (std::size_t i = 0; i < players.size(); ++i) {
      players[i].client->update(now);
      // The first 2 s are joining and the first run at the ball.
      if (ms < 2000) at_start[i] = players[i].client->stats().mispredictions;
    }
  }
  ContactPlay play;
  for (std::size_t i = 0; i < players.size(); ++i) {
    EXPECT_EQ(players[i].client->state(), client::ClientState::kConnected);
    play.mispredictions += players[i].client->stats().mispredictions - at_start[i];
    play.predicted_ticks += players[i].client->stats().predicted_ticks;
    play.entities += players[i].client->prediction()->stats().mispredicted_entities;
  }
  play.seconds = static_cast<double>(players.size()) * (kMillis - 2000) / 1000.0;
  return play;
}

// Deterministic per seed; prints the figures for the two settings.
TEST(PitchMatchSim, ContactPlayWithAndWithoutRemotePrediction) {
  const ContactPlay off = contact_play(false);
  const ContactPlay on = contact_play(true);
  const auto per_minute = [](const ContactPlay& p) { return static_cast<double>(p.mispredictions) * 60.0 / p.seconds; };
  const auto entities = [](const ContactPlay& p) { return static_cast<double>(p.entities) * 60.0 / p.seconds; };
  std::printf(
      "per client-minute: remote prediction off %.0f mispredictions (%.0f corrected entities), on %.0f (%.0f)\n",
      per_minute(off), entities(off), per_minute(on), entities(on));
  EXPECT_GT(off.predicted_ticks, 0U);
  EXPECT_GT(on.predicted_ticks, 0U);
  const ContactPlay wander_off = contact_play(false, false);
  const ContactPlay wander_on = contact_play(true, false);
  std::printf("wandering, per client-minute: off %.0f mispredictions (%.0f corrected entities), on %.0f (%.0f)\n",
              per_minute(wander_off), entities(wander_off), per_minute(wander_on), entities(wander_on));
}

}  // namespace
}  // namespace pitch
