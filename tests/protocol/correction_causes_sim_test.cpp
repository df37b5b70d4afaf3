// Why corrections happen, end to end: arena matches of the Server and
// Client runtimes over the simulated network in stepped time, where a
// client's stalled uplink is blamed on its own input and contact between
// two players on the other player.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iostream>
#include <memory>

#include "sim_match.h"

namespace tickwire {
namespace {

using prediction::CorrectionCause;
using snapshot::EntityId;
using snapshot::TypeId;
using testing::SimMatch;

std::uint64_t of(const client::ClientStats& s, CorrectionCause cause) {
  return s.mispredictions_by_cause[static_cast<std::size_t>(cause)];
}

std::uint64_t corrected(const client::ClientStats& s) {
  std::uint64_t n = 0;
  for (const std::uint64_t c : s.mispredictions_by_cause) n += c;
  return n;
}

void print(const char* who, const client::ClientStats& s) {
  std::cout << who << ": mispredictions " << s.mispredictions << ", corrected entities";
  for (std::size_t i = 0; i < prediction::kCorrectionCauses; ++i) {
    std::cout << " " << prediction::to_string(static_cast<CorrectionCause>(i)) << " " << s.mispredictions_by_cause[i];
  }
  std::cout << ", missing inputs " << s.missing_inputs << "\n";
}

// The arena, plus whose input steers each player (the owner's), which
// the arena itself does not state yet.
class ArenaWithOwners final : public prediction::NetGame {
 public:
  explicit ArenaWithOwners(bool name_owners = true) : name_owners_(name_owners) {}
  const snapshot::Schema& schema() const override { return game_.schema(); }
  TypeId input_type() const override { return game_.input_type(); }
  bool supports_tick_rate(std::uint32_t rate) const override { return game_.supports_tick_rate(rate); }
  void set_tick_rate(std::uint32_t rate) override { game_.set_tick_rate(rate); }
  std::shared_ptr<const snapshot::ModelState> snapshot_codebook() const override { return game_.snapshot_codebook(); }
  void populate(snapshot::World& world) override { game_.populate(world); }
  void player_joined(snapshot::World& world, prediction::PlayerId p) override { game_.player_joined(world, p); }
  void player_left(snapshot::World& world, prediction::PlayerId p) override { game_.player_left(world, p); }
  std::optional<EntityId> avatar(const snapshot::World& world, prediction::PlayerId player) const override {
    return game_.avatar(world, player);
  }
  void predicted_entities(const snapshot::World& world, prediction::PlayerId player,
                          std::vector<EntityId>& out) const override {
    game_.predicted_entities(world, player, out);
  }
  void motion_fields(std::vector<prediction::MotionFields>& out) const override { game_.motion_fields(out); }
  std::optional<prediction::PlayerId> guess_input(const snapshot::World& world, EntityId entity,
                                                  snapshot::Record& /*input*/) const override {
    if (!name_owners_ || world.type_of(entity) != arena::schema().player_type) return std::nullopt;
    return prediction::PlayerId{static_cast<std::uint32_t>(world.get(entity, arena::schema().player_owner))};
  }
  void simulate(snapshot::World& world, Tick tick, const prediction::Inputs& inputs,
                prediction::SimContext& ctx) override {
    game_.simulate(world, tick, inputs, ctx);
  }

 private:
  arena::Game game_;
  bool name_owners_;
};

// A client of the match playing `game`, whose player does what
// m.inputs[its index] says.
client::Client& add_client(SimMatch& m, prediction::NetGame& game) {
  const std::size_t index = m.clients.size();
  const transport::Address address{"sim-client-" + std::to_string(index), 5000};
  transport::SimEndpointConfig ec;
  ec.max_peers = 1;
  m.inputs.emplace_back();
  auto sampler = [&m, index](Tick, snapshot::Record& input) { input = arena::to_record(m.inputs[index]); };
  m.clients.push_back(
      std::make_unique<client::Client>(m.net.create_endpoint(address, ec), game, sampler, client::ClientConfig{}));
  m.client_addresses.push_back(address);
  return *m.clients.back();
}

transport::LinkConditions link_80ms_rtt() {
  transport::LinkConditions link;
  link.latency = Duration::millis(40);
  return link;
}

// Turning all the time: an input the server repeats is always wrong.
arena::Input turning(Time now, float rate) {
  const float t = static_cast<float>(now.micros()) * 1e-6F * rate;
  arena::Input in;
  in.move = {std::cos(t), std::sin(t)};
  in.aim = t;
  return in;
}

TEST(CorrectionCausesSim, InputsTheServerHadToStandInForAreThePlayersOwn) {
  const std::uint64_t seed = 701;
  std::cout << "seed=" << seed << "\n";
  SimMatch m(seed);
  m.net.set_default_link(link_80ms_rtt());
  m.client_frame = Duration::micros(16667);
  ArenaWithOwners game;
  client::Client& c = add_client(m, game);
  ASSERT_TRUE(c.connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));
  m.on_frame = [&](Time now) { m.inputs[0] = turning(now, 3.0F); };
  m.run_for(Duration::seconds(3));
  const client::ClientStats before = c.stats();
  // The client stalls (a long frame): the server runs its ticks without
  // its inputs, repeating the last one, while it turns.
  for (int i = 0; i < 5; ++i) {
    m.next_frame = m.clock.now() + Duration::millis(150);
    m.run_for(Duration::seconds(2));
  }
  const client::ClientStats& after = c.stats();
  print("stalled client", after);
  EXPECT_GT(after.missing_inputs, before.missing_inputs);
  EXPECT_GT(of(after, CorrectionCause::kOwnInput), of(before, CorrectionCause::kOwnInput));
  EXPECT_EQ(of(after, CorrectionCause::kRemotePlayer), 0U) << "alone in the arena";
  // Every corrected entity counts once, under one cause and its type.
  std::uint64_t by_type = 0;
  for (const std::uint64_t n : after.mispredictions_by_type) by_type += n;
  EXPECT_EQ(by_type, corrected(after));
  EXPECT_GE(corrected(after), after.mispredictions);
}

// Two players who run at each other and keep pushing, for 20 s; the
// games say whose input steers each player when `name_owners`.
std::array<client::ClientStats, 2> pushing_match(std::uint64_t seed, bool name_owners) {
  std::cout << "seed=" << seed << "\n";
  SimMatch m(seed);
  m.net.set_default_link(link_80ms_rtt());
  m.client_frame = Duration::micros(16667);
  ArenaWithOwners game_a(name_owners);
  ArenaWithOwners game_b(name_owners);
  client::Client& a = add_client(m, game_a);
  client::Client& b = add_client(m, game_b);
  EXPECT_TRUE(a.connect(m.server_address, m.clock.now()).ok());
  EXPECT_TRUE(b.connect(m.server_address, m.clock.now()).ok());
  EXPECT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));
  // Each runs at the other, as the server last had it, and keeps pushing.
  const auto& s = arena::schema();
  m.on_frame = [&](Time) {
    for (std::size_t i = 0; i < 2; ++i) {
      const auto me = arena::find_player(m.server->world(), *m.clients[i]->client_id());
      const auto them = arena::find_player(m.server->world(), *m.clients[1 - i]->client_id());
      m.inputs[i] = arena::Input{};
      if (!me || !them) continue;
      const auto p = m.server->world().get(*me, s.player_position);
      const auto q = m.server->world().get(*them, s.player_position);
      const float len = std::hypot(q.x - p.x, q.y - p.y);
      if (len > 1e-3F) m.inputs[i].move = {(q.x - p.x) / len, (q.y - p.y) / len};
    }
  };
  m.run_for(Duration::seconds(20));
  EXPECT_TRUE(m.all_connected());
  print("pushing client", a.stats());
  print("pushing client", b.stats());
  return {a.stats(), b.stats()};
}

TEST(CorrectionCausesSim, PushesBetweenPlayersAreTheOtherPlayers) {
  for (const client::ClientStats& st : pushing_match(702, true)) {
    EXPECT_GT(of(st, CorrectionCause::kRemotePlayer), 0U);
    EXPECT_GE(of(st, CorrectionCause::kRemotePlayer), corrected(st) / 2) << "most corrections are the pushes";
    EXPECT_EQ(of(st, CorrectionCause::kOwnInput), 0U) << "every input arrived";
    EXPECT_GE(corrected(st), st.mispredictions);
  }
}

TEST(CorrectionCausesSim, WithoutKnowingWhoSteersWhatPushesAreServerEvents) {
  // The control: the same match, the games naming no player's entity.
  for (const client::ClientStats& st : pushing_match(702, false)) {
    EXPECT_EQ(of(st, CorrectionCause::kRemotePlayer), 0U);
    EXPECT_GT(of(st, CorrectionCause::kServerEvent), 0U);
  }
}

}  // namespace
}  // namespace tickwire
