// A bots binary's own hooks failing: a make_game that gives no game or
// throws, a script factory that gives no script. run_bots reports them as
// start-up errors (status 2) before any traffic; the sync test is told the
// server's tick rate as the bot's own game was.

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "game_setup.h"
#include "sync_check.h"
#include "tickwire/bots/bots.h"

namespace tickwire::bots {
namespace {

snapshot::Schema tiny_schema() {
  snapshot::SchemaBuilder b;
  b.entity_type("dot").add_bool("alive");
  b.record_type("controls").add_bool("fire");
  return b.build();
}

std::unique_ptr<prediction::NetGame> tiny_game() {
  const snapshot::Schema schema = tiny_schema();
  return make_schema_game(schema, *schema.find_type("controls"));
}

int run(const BotsSpec& spec) {
  const std::vector<const char*> args = {"bots", "--bots", "1", "--duration", "1", "--connect", "127.0.0.1:9"};
  return run_bots(static_cast<int>(args.size()), args.data(), spec);
}

TEST(BotsSpecHooks, AMakeGameGivingNoGameIsAStartUpError) {
  BotsSpec spec;
  spec.make_game = [] { return std::unique_ptr<prediction::NetGame>(); };
  EXPECT_EQ(run(spec), 2);
}

TEST(BotsSpecHooks, AMakeGameThatThrowsIsAStartUpError) {
  BotsSpec spec;
  spec.make_game = []() -> std::unique_ptr<prediction::NetGame> { throw std::runtime_error("no assets"); };
  EXPECT_EQ(run(spec), 2);
  Options o;
  o.script = "generic-walk";
  auto setup = make_game_setup(o, spec);
  ASSERT_FALSE(setup);
  EXPECT_NE(setup.error().detail.find("no assets"), std::string::npos) << setup.error().detail;
}

TEST(BotsSpecHooks, AScriptFactoryGivingNoScriptIsAStartUpError) {
  BotsSpec spec;
  spec.make_game = tiny_game;
  spec.scripts = {{"broken", "gives no script", [](std::uint64_t) { return std::unique_ptr<BotScript>(); }}};
  EXPECT_EQ(run(spec), 2);
}

// A game that notes the tick rate it is told.
class RateGame final : public prediction::NetGame {
 public:
  explicit RateGame(std::shared_ptr<std::uint32_t> told) : inner_(tiny_game()), told_(std::move(told)) {}
  void set_tick_rate(std::uint32_t tick_rate) override { *told_ = tick_rate; }
  void simulate(snapshot::World& world, Tick tick, const prediction::Inputs& inputs,
                prediction::SimContext& ctx) override {
    inner_->simulate(world, tick, inputs, ctx);
  }
  const snapshot::Schema& schema() const override { return inner_->schema(); }
  snapshot::TypeId input_type() const override { return inner_->input_type(); }
  void player_joined(snapshot::World& /*world*/, prediction::PlayerId /*player*/) override {}
  void player_left(snapshot::World& /*world*/, prediction::PlayerId /*player*/) override {}
  std::optional<snapshot::EntityId> avatar(const snapshot::World& /*world*/,
                                           prediction::PlayerId /*player*/) const override {
    return std::nullopt;
  }

 private:
  std::unique_ptr<prediction::NetGame> inner_;
  std::shared_ptr<std::uint32_t> told_;
};

TEST(BotSyncCheck, TheTestsGameIsToldTheServersTickRate) {
  auto told = std::make_shared<std::uint32_t>(0);
  GameSetup setup;
  setup.make_game = [told] { return std::make_unique<RateGame>(told); };
  setup.schema = tiny_schema();
  setup.input_type = *setup.schema.find_type("controls");
  setup.scripts = generic_scripts();
  const snapshot::World world(setup.schema);
  const SyncCheckResult result = run_sync_check(world, Tick(10), 1, 30, {&setup, setup.find("generic-walk")}, 5);
  EXPECT_FALSE(result.failure.has_value()) << *result.failure;
  EXPECT_EQ(*told, 30U);
}

TEST(BotSyncCheck, AGameHookGivingNoGameIsReportedNotFollowed) {
  GameSetup setup;
  setup.make_game = [] { return std::unique_ptr<prediction::NetGame>(); };
  setup.schema = tiny_schema();
  setup.input_type = *setup.schema.find_type("controls");
  setup.scripts = generic_scripts();
  const snapshot::World world(setup.schema);
  const SyncCheckResult result = run_sync_check(world, Tick(10), 1, 30, {&setup, setup.find("generic-walk")}, 5);
  ASSERT_TRUE(result.failure.has_value());
  EXPECT_NE(result.failure->find("make_game"), std::string::npos) << *result.failure;
}

}  // namespace
}  // namespace tickwire::bots
