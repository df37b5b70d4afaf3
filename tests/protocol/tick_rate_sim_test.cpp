// The tick rate reaches the game (NetGame::set_tick_rate) before anything
// that depends on it: on the server at construction, before populate; on a
// client when the Welcome names the server's rate, before the first
// simulate, and again for a later session.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim_match.h"

namespace tickwire {
namespace {

using testing::SimMatch;

// The arena, with every call the runtime makes that matters here written
// down in order. It also runs at 30 Hz, so that the rate told can differ
// from the arena's own.
class RecordingGame final : public prediction::NetGame {
 public:
  std::vector<std::string> calls;
  std::vector<std::uint32_t> rates;

  void set_tick_rate(std::uint32_t tick_rate) override {
    rates.push_back(tick_rate);
    note("set_tick_rate");
  }
  bool supports_tick_rate(std::uint32_t tick_rate) const override { return tick_rate == 60 || tick_rate == 30; }
  void simulate(snapshot::World& world, Tick tick, const prediction::Inputs& inputs,
                prediction::SimContext& ctx) override {
    note("simulate");
    arena_.simulate(world, tick, inputs, ctx);
  }
  void populate(snapshot::World& world) override {
    note("populate");
    arena_.populate(world);
  }
  const snapshot::Schema& schema() const override { return arena_.schema(); }
  snapshot::TypeId input_type() const override { return arena_.input_type(); }
  std::shared_ptr<const snapshot::ModelState> snapshot_codebook() const override { return arena_.snapshot_codebook(); }
  void player_joined(snapshot::World& world, prediction::PlayerId player) override {
    arena_.player_joined(world, player);
  }
  void player_left(snapshot::World& world, prediction::PlayerId player) override { arena_.player_left(world, player); }
  std::optional<snapshot::EntityId> avatar(const snapshot::World& world, prediction::PlayerId player) const override {
    return arena_.avatar(world, player);
  }

 private:
  // Consecutive repeats are noted once: the order is what is checked.
  void note(const char* call) {
    if (calls.empty() || calls.back() != call) calls.emplace_back(call);
  }
  arena::Game arena_;
};

client::Client& add_recorded_client(SimMatch& m, RecordingGame& game) {
  const transport::Address address{"sim-client-recorded", 5000};
  transport::SimEndpointConfig ec;
  ec.max_peers = 1;
  auto sampler = [](Tick /*tick*/, snapshot::Record& input) { input = arena::to_record(arena::Input{}); };
  m.clients.push_back(
      std::make_unique<client::Client>(m.net.create_endpoint(address, ec), game, sampler, client::ClientConfig{}));
  m.client_addresses.push_back(address);
  return *m.clients.back();
}

TEST(TickRateSim, TheServerTellsTheGameBeforePopulate) {
  server::ServerConfig config;
  config.tick_rate = 30;
  RecordingGame game;
  SimMatch m(1, config, {}, &game);
  ASSERT_GE(game.calls.size(), 2U);
  EXPECT_EQ(game.calls[0], "set_tick_rate");
  EXPECT_EQ(game.calls[1], "populate");
  EXPECT_EQ(game.rates, std::vector<std::uint32_t>{30});
}

TEST(TickRateSim, AClientTellsTheGameTheServersRateBeforeItSimulates) {
  server::ServerConfig config;
  config.tick_rate = 30;
  RecordingGame server_game;
  SimMatch m(2, config, {}, &server_game);
  RecordingGame game;
  auto& c = add_recorded_client(m, game);
  EXPECT_TRUE(game.calls.empty()) << "told before the server said";
  ASSERT_TRUE(c.connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return c.stats().predicted_ticks > 10; }, Duration::seconds(3)));
  ASSERT_GE(game.calls.size(), 2U);
  EXPECT_EQ(game.calls[0], "set_tick_rate");
  EXPECT_EQ(game.calls[1], "simulate");
  EXPECT_EQ(game.rates, std::vector<std::uint32_t>{30});

  // A later session is told again, before it simulates.
  c.disconnect(m.clock.now());
  game.calls.clear();
  ASSERT_TRUE(c.connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return c.stats().predicted_ticks > 10; }, Duration::seconds(3)));
  ASSERT_GE(game.calls.size(), 2U);
  EXPECT_EQ(game.calls[0], "set_tick_rate");
  EXPECT_EQ(game.calls[1], "simulate");
  EXPECT_EQ(game.rates, (std::vector<std::uint32_t>{30, 30}));
}

}  // namespace
}  // namespace tickwire
