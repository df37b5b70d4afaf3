#include "sync_check.h"

#include <vector>

#include "tickwire/prediction/sync_test.h"

namespace tickwire::bots {
namespace {

constexpr std::uint32_t kServerIds = 65536;

}  // namespace

SyncCheckResult run_sync_check(const snapshot::World& world, Tick tick, std::uint32_t player, SyncCheckGame setup,
                               std::uint64_t seed, SyncCheckConfig config) {
  const snapshot::Schema& schema = setup.game->schema;
  snapshot::World initial(schema, {kServerIds});
  std::vector<snapshot::EntityId> ids;
  world.for_each([&](snapshot::EntityId id) {
    if (id.value < kServerIds) ids.push_back(id);
  });
  for (const snapshot::EntityId id : ids) initial.copy_entity(world, id);

  // The test owns its game object and script: the bot's own must not see
  // these ticks.
  const std::unique_ptr<prediction::NetGame> game = setup.game->make_game();
  const std::unique_ptr<BotScript> script = setup.script->make(seed);
  const std::optional<snapshot::EntityId> avatar = game->avatar(initial, prediction::PlayerId{player});
  const prediction::SyncTest* running = nullptr;
  const prediction::InputSampler sampler = [&](Tick at, snapshot::Record& record) {
    // Steered by the test's own prediction, as the bot is by its own.
    const snapshot::World& now = running != nullptr ? running->prediction().world() : initial;
    BotView view{now, avatar, schema, setup.game->input_type, player};
    view.predicted = &now;
    script->input(view, at, record);
  };
  prediction::SyncTestConfig test_config;
  test_config.input_type = setup.game->input_type;
  test_config.player = prediction::PlayerId{player};
  test_config.check_distance = config.check_distance;
  prediction::SyncTest test(schema, *game, sampler, initial, tick, test_config);
  running = &test;

  SyncCheckResult result;
  for (std::uint32_t i = 0; i < config.ticks; ++i) {
    if (auto failure = test.advance()) {
      result.failure = failure->describe();
      break;
    }
  }
  result.checks = test.checks();
  return result;
}

}  // namespace tickwire::bots
