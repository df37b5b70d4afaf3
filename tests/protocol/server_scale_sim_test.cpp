// What the server's scale work must not change: the phases it times are
// all charged, a thin client plays the whole protocol, and encoding on
// several threads sends the same bytes as on one.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <memory>

#include "sim_match.h"

namespace tickwire {
namespace {

using testing::SimMatch;

arena::Input walking(std::size_t index, Time now) {
  const float t = static_cast<float>(now.micros()) * 1e-6F;
  arena::Input in;
  in.move = {std::cos(t + static_cast<float>(index)), std::sin(t * 0.7F + static_cast<float>(index))};
  in.aim = t;
  return in;
}

void play(SimMatch& m, Duration span) {
  m.on_frame = [&m](Time now) {
    for (std::size_t i = 0; i < m.inputs.size(); ++i) m.inputs[i] = walking(i, now);
  };
  m.run_for(span);
}

TEST(ServerScaleSim, EveryPhaseOfTheTickIsTimed) {
  const std::uint64_t seed = 4101;
  std::cout << "seed=" << seed << "\n";
  server::ServerConfig config;
  // A clock that moves a microsecond per reading: every phase bracketed by
  // two readings is charged at least that.
  auto readings = std::make_shared<std::int64_t>(0);
  config.clock = [readings] { return Time::from_micros(++*readings); };
  SimMatch m(seed, config);
  m.client_frame = Duration::micros(16667);
  for (int i = 0; i < 2; ++i) m.add_client();
  for (auto& c : m.clients) ASSERT_TRUE(c->connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));
  play(m, Duration::seconds(2));
  const server::PhaseTimes& p = m.server->stats().phases;
  EXPECT_GT(p.receive_us, 0U);
  EXPECT_GT(p.simulate_us, 0U);
  EXPECT_GT(p.relevancy_us, 0U);
  EXPECT_GT(p.encode_us, 0U);
  EXPECT_GT(p.send_us, 0U);
  // Each client's sender holds a few states on this short link: its
  // baseline, those in flight and its references.
  const server::ServerStats s = m.server->stats();
  EXPECT_GE(s.views_held, 2U * 2U);
  EXPECT_LE(s.views_held, 2U * 40U);
}

TEST(ServerScaleSim, UntimedTicksChargeNoPhase) {
  SimMatch m(4102);
  m.add_client();
  ASSERT_TRUE(m.clients[0]->connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));
  play(m, Duration::seconds(1));
  const server::PhaseTimes& p = m.server->stats().phases;
  EXPECT_EQ(p.receive_us + p.simulate_us + p.relevancy_us + p.encode_us + p.send_us, 0U);
}

// A thin client beside a full one: it joins, keeps in time, decodes every
// snapshot and acks them (so its snapshots are deltas as small as the full
// client's), and its inputs move its player on the server; it simulates
// and draws nothing.
TEST(ServerScaleSim, AThinClientPlaysTheWholeProtocolWithoutPredicting) {
  const std::uint64_t seed = 4103;
  std::cout << "seed=" << seed << "\n";
  SimMatch m(seed);
  m.client_frame = Duration::micros(16667);
  client::ClientConfig thin;
  thin.thin = true;
  client::Client& t = m.add_client(thin);
  client::Client& full = m.add_client();
  for (auto& c : m.clients) ASSERT_TRUE(c->connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));
  const auto start = arena::find_player(m.server->world(), *t.client_id());
  ASSERT_TRUE(start.has_value());
  const snapshot::Vec2 from = m.server->world().get(*start, arena::schema().player_position);
  play(m, Duration::seconds(5));
  ASSERT_TRUE(m.all_connected());

  const client::ClientStats& s = t.stats();
  EXPECT_GT(s.snapshots, 140U);  // 30 a second for 5 s
  EXPECT_EQ(s.snapshots_dropped, 0U);
  EXPECT_EQ(s.predicted_ticks, 0U);
  EXPECT_TRUE(t.view().ids().empty());
  EXPECT_FALSE(t.avatar().has_value());
  ASSERT_TRUE(t.time_system() != nullptr && t.time_system()->initialized());
  // Acked baselines keep the snapshots deltas: the same order of bytes as
  // the full client's, not full snapshots every time.
  EXPECT_LT(static_cast<double>(s.bytes_in), 1.3 * static_cast<double>(full.stats().bytes_in));
  // Its inputs arrive and move its player.
  for (const server::ClientStats& c : m.server->client_stats()) {
    if (c.id != *t.client_id()) continue;
    EXPECT_GT(c.inputs, 280U);  // 60 a second
    EXPECT_LT(c.missing_inputs, c.inputs / 20);
  }
  const auto now_at = arena::find_player(m.server->world(), *t.client_id());
  ASSERT_TRUE(now_at.has_value());
  const snapshot::Vec2 to = m.server->world().get(*now_at, arena::schema().player_position);
  EXPECT_GT(std::hypot(to.x - from.x, to.y - from.y), 1.0F);
}

struct Totals {
  std::uint64_t server_bytes_out = 0;
  std::uint64_t server_snapshots = 0;
  std::vector<std::uint64_t> client_bytes_in;
  std::vector<std::uint64_t> client_snapshots;
};

Totals run_with_workers(std::uint32_t workers, std::uint64_t seed) {
  server::ServerConfig config;
  config.workers = workers;
  config.send_rate = 60;
  SimMatch m(seed, config);
  m.client_frame = Duration::micros(16667);
  for (int i = 0; i < 6; ++i) m.add_client();
  for (auto& c : m.clients) EXPECT_TRUE(c->connect(m.server_address, m.clock.now()).ok());
  EXPECT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));
  play(m, Duration::seconds(4));
  Totals t;
  t.server_bytes_out = m.server->stats().bytes_out;
  t.server_snapshots = m.server->stats().snapshots;
  for (auto& c : m.clients) {
    t.client_bytes_in.push_back(c->stats().bytes_in);
    t.client_snapshots.push_back(c->stats().snapshots);
  }
  return t;
}

TEST(ServerScaleSim, EncodingOnWorkersSendsTheSameBytes) {
  const std::uint64_t seed = 4104;
  std::cout << "seed=" << seed << "\n";
  const Totals one = run_with_workers(1, seed);
  const Totals three = run_with_workers(3, seed);
  EXPECT_GT(one.server_snapshots, 1000U);
  EXPECT_EQ(one.server_bytes_out, three.server_bytes_out);
  EXPECT_EQ(one.server_snapshots, three.server_snapshots);
  EXPECT_EQ(one.client_bytes_in, three.client_bytes_in);
  EXPECT_EQ(one.client_snapshots, three.client_snapshots);
}

TEST(ServerScaleSim, ABadWorkerCountIsRefused) {
  server::ServerConfig config;
  config.workers = 0;
  EXPECT_THROW(config.validate(), std::invalid_argument);
  config.workers = 65;
  EXPECT_THROW(config.validate(), std::invalid_argument);
}

TEST(ServerScaleSim, ModelsInFlightBeyondTheFormatAreRefused) {
  server::ServerConfig config;
  config.snapshot_models_in_flight = 0;  // no bound
  EXPECT_NO_THROW(config.validate());
  config.snapshot_models_in_flight = 4097;
  EXPECT_THROW(config.validate(), std::invalid_argument);
}

TEST(ServerScaleSim, ViewsInFlightOfOneOrBeyondTheFormatAreRefused) {
  server::ServerConfig config;
  config.snapshot_views_in_flight = 0;  // no bound
  EXPECT_NO_THROW(config.validate());
  config.snapshot_views_in_flight = 2;
  EXPECT_NO_THROW(config.validate());
  for (std::uint32_t bad : {1U, 4097U}) {
    config.snapshot_views_in_flight = bad;
    EXPECT_THROW(config.validate(), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace tickwire
