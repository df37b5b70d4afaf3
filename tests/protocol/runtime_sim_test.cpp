// Whole matches of the arena: the Server and Client runtimes over the
// simulated network in stepped time. Clients must converge to the server's
// state, corrections must happen and be absorbed, and a predicted platform
// must carry its rider without corrections.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>

#include "sim_match.h"

namespace tickwire {
namespace {

using testing::SimMatch;

constexpr float kTwoPi = 6.2831853F;

transport::LinkConditions link_150ms_rtt(double loss) {
  transport::LinkConditions link;
  link.latency = Duration::millis(75);
  link.jitter = Duration::millis(5);
  link.loss = loss;
  return link;
}

// Players circle the centre on rings that cross, so they meet and push.
arena::Input circling(std::size_t index, Time now) {
  const float t = static_cast<float>(now.micros()) * 1e-6F;
  const float phase = t * (0.5F + 0.1F * static_cast<float>(index)) + static_cast<float>(index);
  arena::Input in;
  in.move = {std::cos(phase * kTwoPi / 4.0F), std::sin(phase * kTwoPi / 4.0F)};
  in.aim = phase;
  in.shoot = (static_cast<int>(t * 2.0F) + static_cast<int>(index)) % 5 == 0;
  in.dash = (static_cast<int>(t) + static_cast<int>(index)) % 7 == 0;
  return in;
}

snapshot::Vec2 server_position(SimMatch& m, std::uint32_t client_id) {
  const auto id = arena::find_player(m.server->world(), client_id);
  return id ? m.server->world().get(*id, arena::schema().player_position) : snapshot::Vec2{1e9F, 1e9F};
}

// Records each client's predicted position at every predicted tick, and the
// server's position at every tick, for comparison afterwards.
struct Recorder {
  std::vector<std::map<std::uint32_t, snapshot::Vec2>> predicted;
  std::vector<std::map<std::uint32_t, snapshot::Vec2>> server;

  void sample(SimMatch& m) {
    predicted.resize(m.clients.size());
    server.resize(m.clients.size());
    for (std::size_t i = 0; i < m.clients.size(); ++i) {
      client::Client& c = *m.clients[i];
      if (!c.client_id()) continue;
      server[i][m.server->tick().value()] = server_position(m, *c.client_id());
      const auto* world = c.predicted_world();
      if (world == nullptr || !c.avatar() || !c.predicted_tick() || !world->contains(*c.avatar())) continue;
      predicted[i][c.predicted_tick()->value()] = world->get(*c.avatar(), arena::schema().player_position);
    }
  }

  // Ticks from `from` on where the client's prediction differed from what
  // the server then computed, and how many ticks were compared.
  std::pair<int, int> mismatches(std::size_t client, std::uint32_t from) const {
    int differ = 0;
    int compared = 0;
    for (const auto& [tick, p] : predicted[client]) {
      if (tick < from) continue;
      const auto it = server[client].find(tick);
      if (it == server[client].end()) continue;
      ++compared;
      if (!(it->second == p)) ++differ;
    }
    return {differ, compared};
  }
};

TEST(RuntimeSim, FourPlayersConvergeAt150msRttAnd5PercentLoss) {
  const std::uint64_t seed = 601;
  std::cout << "seed=" << seed << "\n";
  SimMatch m(seed);
  m.client_frame = Duration::micros(16667);
  m.net.set_default_link(link_150ms_rtt(0.05));
  for (int i = 0; i < 4; ++i) m.add_client();
  for (auto& c : m.clients) ASSERT_TRUE(c->connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));

  Recorder rec;
  bool playing = true;
  m.on_frame = [&](Time now) {
    for (std::size_t i = 0; i < m.inputs.size(); ++i) m.inputs[i] = playing ? circling(i, now) : arena::Input{};
  };
  m.client_frame = Duration::micros(16667);
  m.run_for(Duration::seconds(290));
  ASSERT_TRUE(m.all_connected());

  // While they move: every other player is drawn where the server had it
  // at the drawing client's interpolation time (its history, interpolated
  // between ticks), not where it is now and not where it stood still.
  std::vector<std::map<std::uint32_t, snapshot::Vec2>> history(m.clients.size());
  std::vector<double> errors;  // drawn vs the server at the interpolation time
  std::vector<double> lags;    // drawn vs the server now: how far the motion carries it
  m.on_frame = [&](Time now) {
    for (std::size_t i = 0; i < m.inputs.size(); ++i) m.inputs[i] = circling(i, now);
    for (std::size_t i = 0; i < m.clients.size(); ++i) {
      history[i][m.server->tick().value()] = server_position(m, *m.clients[i]->client_id());
    }
    for (auto& c : m.clients) {
      const double t = c->interpolation_time().ticks_f();
      const auto from = static_cast<std::uint32_t>(std::floor(t));
      for (std::size_t o = 0; o < m.clients.size(); ++o) {
        if (m.clients[o] == c) continue;
        const auto a = history[o].find(from);
        const auto b = history[o].find(from + 1);
        const auto id = arena::find_player(c->view(), *m.clients[o]->client_id());
        if (a == history[o].end() || b == history[o].end() || !id) continue;
        const auto f = static_cast<float>(t - from);
        const snapshot::Vec2 truth{a->second.x + (b->second.x - a->second.x) * f,
                                   a->second.y + (b->second.y - a->second.y) * f};
        const auto drawn = c->view().get(*id, arena::schema().player_position);
        const auto current = server_position(m, *m.clients[o]->client_id());
        errors.push_back(std::hypot(drawn.x - truth.x, drawn.y - truth.y));
        lags.push_back(std::hypot(drawn.x - current.x, drawn.y - current.y));
      }
    }
  };
  m.run_for(Duration::seconds(10));
  ASSERT_GT(errors.size(), 1000U);
  std::sort(errors.begin(), errors.end());
  std::sort(lags.begin(), lags.end());
  const auto at = [](const std::vector<double>& v, double q) {
    return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
  };
  std::cout << "interpolation error p50 " << at(errors, 0.5) << " p95 " << at(errors, 0.95)
            << ", behind the server p50 " << at(lags, 0.5) << "\n";
  // The players move: the drawn position lags the server's current one.
  EXPECT_GT(at(lags, 0.5), 0.3);
  // Yet it is the server's own past: snapshots carry the quantized
  // positions the server simulates with, so between two snapshots the only
  // error is the straight line drawn across a curve (5% of them lost).
  EXPECT_LT(at(errors, 0.5), 0.01);
  EXPECT_LT(at(errors, 0.95), 0.05);

  std::uint64_t mispredictions = 0;
  for (auto& c : m.clients) mispredictions += c->stats().mispredictions;
  // The players meet and push each other: predictions fail and are corrected.
  EXPECT_GT(mispredictions, 0u);
  // The clients tell the server (once a second, over a lossy link).
  EXPECT_LE(m.server->stats().reported_mispredictions, mispredictions);
  EXPECT_GE(m.server->stats().reported_mispredictions, mispredictions * 9 / 10);

  // Then everyone stands still; once the last inputs are through, every
  // prediction matches what the server computes for the same tick.
  playing = false;
  m.on_frame = [&](Time now) {
    for (auto& in : m.inputs) in = arena::Input{};
    (void)now;
    rec.sample(m);
  };
  m.run_for(Duration::seconds(1));
  const std::uint32_t settled = m.server->tick().value() + 60;
  m.run_for(Duration::seconds(5));
  for (std::size_t i = 0; i < m.clients.size(); ++i) {
    const auto [differ, compared] = rec.mismatches(i, settled);
    EXPECT_GT(compared, 200) << "client " << i;
    EXPECT_EQ(differ, 0) << "client " << i;
  }

  for (auto& c : m.clients) {
    const client::ClientStats& s = c->stats();
    std::cout << "client " << *c->client_id() << ": rtt " << s.rtt.millis_f() << " ms, lead " << s.lead.millis_f()
              << " ms, interpolation delay " << s.interpolation_delay.millis_f() << " ms, loss " << s.loss
              << ", mispredictions " << s.mispredictions << ", max rollback " << s.max_rollback_depth
              << ", late inputs " << s.late_inputs << " of " << s.predicted_ticks << ", corrections drawn "
              << s.corrections_drawn << " (p50 " << s.correction_p50 << ", p99 " << s.correction_p99 << "), visual pops "
              << s.visual_pops << " in " << s.frames_drawn << " frames\n";
    // Every frame is measured, and the pushes' corrections moved the drawing.
    EXPECT_GT(s.frames_drawn, 290U * 60U);
    EXPECT_GT(s.corrections_drawn, 0U);
    EXPECT_GE(s.correction_p99, s.correction_p50);
    EXPECT_NEAR(s.rtt.millis_f(), 150.0, 15.0);
    EXPECT_NEAR(s.loss, 0.05, 0.02);
    // Every other player is drawn, interpolated, near where the server has it.
    for (auto& other : m.clients) {
      if (other == c) continue;
      const auto id = arena::find_player(c->view(), *other->client_id());
      ASSERT_TRUE(id.has_value());
      const auto drawn = c->view().get(*id, arena::schema().player_position);
      const auto truth = server_position(m, *other->client_id());
      EXPECT_LT(std::hypot(drawn.x - truth.x, drawn.y - truth.y), 1.5F);
    }
    // Inputs arrive in time: redundancy covers the loss, the lead the delay.
    EXPECT_LT(static_cast<double>(s.late_inputs), 0.001 * static_cast<double>(s.predicted_ticks) + 5);
  }
  EXPECT_EQ(m.server->stats().disconnects, 0u);
}

// Walks the player onto platform 0 and lets it ride.
struct Rider {
  SimMatch& m;
  bool boarded = false;
  void steer() {
    client::Client& c = *m.clients[0];
    const auto* world = c.predicted_world();
    m.inputs[0] = arena::Input{};
    if (world == nullptr || !c.avatar() || !world->contains(*c.avatar())) return;
    const auto& s = arena::schema();
    const auto me = world->get(*c.avatar(), s.player_position);
    const auto at = arena::platform_position_at(0, *c.predicted_tick());
    const float dx = at.x - me.x;
    const float dy = at.y - me.y;
    const float len = std::hypot(dx, dy);
    if (boarded || len < 0.3F) {
      boarded = true;
      return;
    }
    m.inputs[0].move = {dx / len, dy / len};
  }
};

std::uint64_t ride(arena::GameConfig config, std::uint64_t seed) {
  std::cout << "seed=" << seed << "\n";
  SimMatch m(seed);
  m.net.set_default_link(link_150ms_rtt(0.0));
  m.client_frame = Duration::micros(16667);
  m.games.reserve(1);
  client::Client& c = m.add_client();
  *m.games[0] = arena::Game(config);
  EXPECT_TRUE(c.connect(m.server_address, m.clock.now()).ok());
  Rider rider{m};
  m.on_frame = [&](Time) { rider.steer(); };
  EXPECT_TRUE(m.run_until([&] { return rider.boarded; }, Duration::seconds(30)));
  m.run_for(Duration::seconds(2));  // the last walking inputs settle
  const std::uint64_t before = c.stats().mispredictions;
  m.run_for(Duration::seconds(10));  // more than a full trip there and back
  const auto id = arena::find_player(m.server->world(), *c.client_id());
  const auto platform = arena::platform_position_at(0, m.server->tick());
  const auto at = m.server->world().get(*id, arena::schema().player_position);
  EXPECT_LT(std::fabs(at.x - platform.x), arena::kPlatformHalfWidth) << "the rider fell off";
  std::cout << "boarded by " << (m.clock.now() - Time::from_micros(1'000'000)).seconds_f() - 12.0
            << " s, mispredictions while riding " << c.stats().mispredictions - before << " of " << c.stats().snapshots
            << " snapshots\n";
  return c.stats().mispredictions - before;
}

TEST(RuntimeSim, PredictedPlatformCarriesItsRiderWithoutCorrections) { EXPECT_EQ(ride(arena::GameConfig{}, 602), 0u); }

TEST(RuntimeSim, AnUnpredictedPlatformMakesItsRiderMispredict) {
  // The control: the same ride with the platform left to the snapshots.
  arena::GameConfig config;
  config.platform_predict_radius = 0.0F;
  EXPECT_GT(ride(config, 603), 10u);
}

TEST(RuntimeSim, AServerRefusesATickRateItsGameDoesNotRunAt) {
  transport::SimNetwork net(1);
  arena::Game game;
  server::ServerConfig config;
  config.tick_rate = 30;
  config.send_rate = 30;
  EXPECT_THROW(server::Server(net.create_endpoint({"s", 1}, {}), game, config, Time()), std::invalid_argument);
  config.tick_rate = 60;
  config.max_snapshot_bytes = 1190;  // no room left for the packet header
  EXPECT_THROW(server::Server(net.create_endpoint({"s", 2}, {}), game, config, Time()), std::invalid_argument);
}

TEST(RuntimeSim, AClientNeedsAnInputSampler) {
  transport::SimNetwork net(1);
  arena::Game game;
  EXPECT_THROW(client::Client(net.create_endpoint({"c", 1}, {}), game, nullptr, {}), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire
