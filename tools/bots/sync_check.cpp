#include "sync_check.h"

#include <vector>

#include "scripts.h"
#include "tickwire/arena/arena.h"
#include "tickwire/prediction/sync_test.h"

namespace tickwire::bots {
namespace {

constexpr std::uint32_t kServerIds = 65536;

}  // namespace

SyncCheckResult run_sync_check(const snapshot::World& world, Tick tick, std::uint32_t player, std::uint64_t seed,
                               SyncCheckConfig config) {
  const arena::Schema& s = arena::schema();
  snapshot::World initial(s.schema, {kServerIds});
  std::vector<snapshot::EntityId> ids;
  world.for_each([&](snapshot::EntityId id) {
    if (id.value < kServerIds) ids.push_back(id);
  });
  for (const snapshot::EntityId id : ids) initial.copy_entity(world, id);

  // The test owns its game object: the bot's own must not see these ticks.
  arena::Game game;
  Wander wander(seed);
  const std::optional<snapshot::EntityId> avatar = arena::find_player(initial, player);
  const prediction::SyncTest* running = nullptr;
  const prediction::InputSampler sampler = [&](Tick, snapshot::Record& record) {
    // Steer by where the test's own prediction has the avatar, as a bot would.
    const snapshot::World& now = running != nullptr ? running->prediction().world() : initial;
    BotView view;
    if (avatar && now.contains(*avatar)) view.self = now.get(*avatar, s.player_position);
    arena::Input input;
    wander.input(view, input);
    record = arena::to_record(input);
  };
  prediction::SyncTestConfig test_config;
  test_config.input_type = s.input_type;
  test_config.player = prediction::PlayerId{player};
  test_config.check_distance = config.check_distance;
  prediction::SyncTest test(s.schema, game, sampler, initial, tick, test_config);
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
