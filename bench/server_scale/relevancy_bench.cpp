// The arena's relevancy, the way the server's tick runs it: the per-tick
// table and grid (before_snapshots), then each client's nearest 64
// entities as a sorted list. Players stand either spread evenly over the
// arena or half of them in tight groups (as bots chasing each other do),
// with the arena's platforms and a shot result for every fourth player;
// between ticks every player takes a walking step (not timed).
// Reports the time per client tick (per_client, in seconds).
//
//   bench_relevancy [--benchmark_out=FILE --benchmark_out_format=json]

#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include "tickwire/arena/arena.h"

namespace {

using namespace tickwire;

void relevancy_per_client(benchmark::State& state) {
  const auto players = static_cast<std::uint32_t>(state.range(0));
  const bool grouped = state.range(1) != 0;
  arena::GameConfig config;
  config.nearest_entities = 64;
  arena::Game game(config);
  snapshot::World world(game.schema());
  game.populate(world);
  const arena::Schema& a = arena::schema();
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> anywhere(-arena::kHalfSize, arena::kHalfSize);
  std::uniform_real_distribution<float> near(-5.0F, 5.0F);
  std::vector<snapshot::Vec2> groups;
  for (int g = 0; g < 6; ++g) groups.push_back({anywhere(rng) * 0.8F, anywhere(rng) * 0.8F});
  for (std::uint32_t p = 1; p <= players; ++p) {
    const snapshot::EntityId id = arena::spawn_player(world, p);
    snapshot::Vec2 at{anywhere(rng), anywhere(rng)};
    if (grouped && p % 2 == 0) at = {groups[p % groups.size()].x + near(rng), groups[p % groups.size()].y + near(rng)};
    world.set(id, a.player_position, at);
    if (p % 4 == 0) world.set(world.spawn(a.shot_type), a.shot_owner, static_cast<std::int32_t>(p));
  }
  // Every player walks (6 m/s, a tick at 60 Hz) on a heading of its own,
  // turning back at the walls, so each tick's answers differ a little.
  std::vector<snapshot::EntityId> ids;
  std::vector<snapshot::Vec2> headings;
  std::uniform_real_distribution<float> turn(0.0F, 6.2831853F);
  for (const snapshot::EntityId id : world.entities(a.player_type)) {
    ids.push_back(id);
    const float h = turn(rng);
    headings.push_back({std::cos(h) * arena::kPlayerSpeed / 60.0F, std::sin(h) * arena::kPlayerSpeed / 60.0F});
  }
  std::size_t listed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    for (std::size_t i = 0; i < ids.size(); ++i) {
      snapshot::Vec2 at = world.get(ids[i], a.player_position);
      if (std::fabs(at.x + headings[i].x) > arena::kHalfSize) headings[i].x = -headings[i].x;
      if (std::fabs(at.y + headings[i].y) > arena::kHalfSize) headings[i].y = -headings[i].y;
      world.set(ids[i], a.player_position, {at.x + headings[i].x, at.y + headings[i].y});
    }
    state.ResumeTiming();
    game.before_snapshots(world);
    for (std::uint32_t p = 1; p <= players; ++p) {
      const snapshot::Relevancy r = game.relevancy(world, prediction::PlayerId{p});
      listed += r.ids().size();
    }
  }
  benchmark::DoNotOptimize(listed);
  const auto clients = state.iterations() * static_cast<benchmark::IterationCount>(players);
  // Seconds per client tick (shown with an SI prefix: 950n is 0.95 us).
  state.counters["per_client"] =
      benchmark::Counter(static_cast<double>(clients), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["listed"] = static_cast<double>(listed) / static_cast<double>(clients);
}

BENCHMARK(relevancy_per_client)
    ->ArgNames({"players", "grouped"})
    ->Args({128, 0})
    ->Args({128, 1})
    ->Args({512, 0})
    ->Args({512, 1})
    ->Args({1000, 1})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
