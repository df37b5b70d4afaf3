#include "sync_check.h"

#include <exception>
#include <string>
#include <vector>

#include "tickwire/prediction/sync_test.h"

namespace tickwire::bots {
namespace {

constexpr std::uint32_t kServerIds = 65536;

SyncCheckResult sync_check(const snapshot::World& world, Tick tick, std::uint32_t player, std::uint32_t tick_rate,
                           const SyncCheckGame& setup, std::uint64_t seed, const SyncCheckConfig& config) {
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
  if (!game) return {0, "BotsSpec::make_game gave no game for the sync test"};
  const std::unique_ptr<BotScript> script = setup.script->make(seed);
  if (!script) return {0, "ScriptInfo::make gave no script for the sync test"};
  // A game whose step depends on the rate replays at the server's, as the
  // bot's own game does.
  if (tick_rate != 0) game->set_tick_rate(tick_rate);
  const std::optional<snapshot::EntityId> avatar = game->avatar(initial, prediction::PlayerId{player});
  const prediction::SyncTest* running = nullptr;
  const prediction::InputSampler sampler = [&](Tick at, snapshot::Record& record) {
    // Steered by the test's own prediction, as the bot is by its own.
    const snapshot::World& now = running != nullptr ? running->prediction().world() : initial;
    BotView view{now, avatar, schema, setup.game->input_type, player};
    view.predicted = &now;
    view.tick_rate = tick_rate;
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

}  // namespace

SyncCheckResult run_sync_check(const snapshot::World& world, Tick tick, std::uint32_t player, std::uint32_t tick_rate,
                               SyncCheckGame setup, std::uint64_t seed, SyncCheckConfig config) {
  try {
    return sync_check(world, tick, player, tick_rate, setup, seed, config);
  } catch (const std::exception& e) {
    return {0, std::string("the sync test stopped: ") + e.what()};
  }
}

}  // namespace tickwire::bots
