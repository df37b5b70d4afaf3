// Snapshot encoding on worker threads (ServerConfig::workers): how many
// clients' snapshots per second 1 and 2 workers encode, the way the
// server's tick does it. An arena of 256 moving players, each client sent
// its nearest 64 with a sender of its own, acks two ticks behind. As in
// the server, every sender encodes from one shared history of captures
// (SnapshotSender::encode(history, tick, out)), so the views point into it
// and states beyond a reference's reach are released. The world's ticks
// are computed before timing starts and each is captured into the history
// with the timer paused, so only encoding and the hand-out of clients to
// threads are timed.
//
//   bench_encode_workers [--benchmark_out=FILE --benchmark_out_format=json]

#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <vector>

#include "encode_pool.h"
#include "tickwire/arena/arena.h"
#include "tickwire/snapshot/sender.h"
#include "tickwire/snapshot/state_ring.h"
#include "tickwire/snapshot/world.h"
#include "tickwire/snapshot/world_state.h"

namespace {

using namespace tickwire;

constexpr std::size_t kClients = 256;
constexpr std::uint32_t kWarmTicks = 120;
constexpr std::uint32_t kTicks = kWarmTicks + 2000;

struct Scene {
  std::vector<snapshot::WorldState> ticks;            // captured, tick 1..kTicks
  std::vector<std::vector<snapshot::EntityId>> near;  // each client's nearest 64, from the first tick
};

// Players walk on circles of their own, so every snapshot carries changes.
const Scene& scene() {
  static const Scene s = [] {
    Scene out;
    arena::GameConfig config;
    config.nearest_entities = 64;
    arena::Game game(config);
    snapshot::World world(game.schema());
    game.populate(world);
    std::vector<snapshot::EntityId> players;
    for (std::uint32_t p = 1; p <= kClients; ++p) players.push_back(arena::spawn_player(world, p));
    const arena::Schema& a = arena::schema();
    for (std::uint32_t t = 1; t <= kTicks; ++t) {
      for (std::size_t i = 0; i < players.size(); ++i) {
        const float phase = 0.02F * static_cast<float>(t) + static_cast<float>(i);
        const float r = 3.0F + static_cast<float>(i % 17);
        const snapshot::Vec2 centre{static_cast<float>(i % 16) * 4.0F - 30.0F,
                                    static_cast<float>(i / 16) * 4.0F - 30.0F};
        world.set(players[i], a.player_position, {centre.x + r * std::cos(phase), centre.y + r * std::sin(phase)});
        world.set(players[i], a.player_velocity, {-r * std::sin(phase) * 1.2F, r * std::cos(phase) * 1.2F});
      }
      world.quantize();
      out.ticks.emplace_back();
      snapshot::capture(world, Tick(t), out.ticks.back());
      if (t == 1) {
        game.before_snapshots(world);
        for (std::uint32_t p = 1; p <= kClients; ++p) {
          const snapshot::Relevancy r = game.relevancy(world, prediction::PlayerId{p});
          out.near.emplace_back(r.ids().begin(), r.ids().end());
        }
      }
    }
    return out;
  }();
  return s;
}

void encode_on_workers(benchmark::State& state) {
  const Scene& s = scene();
  const auto workers = static_cast<std::size_t>(state.range(0));
  server::EncodePool pool(workers);
  std::vector<std::unique_ptr<snapshot::SnapshotSender>> senders;
  std::vector<std::vector<std::uint8_t>> out(kClients);
  for (std::size_t c = 0; c < kClients; ++c) {
    senders.push_back(std::make_unique<snapshot::SnapshotSender>(arena::schema().schema));
    senders.back()->set_relevancy(snapshot::Relevancy::of_ids(s.near[c]));
  }
  // Twice the snapshot history deep, as the server keeps it.
  snapshot::WorldHistory history(2 * snapshot::SenderConfig{}.history_ticks);
  snapshot::World world(arena::schema().schema);
  std::size_t t = 0;
  std::uint64_t bytes = 0;
  const server::EncodePool::Job job = [&](std::size_t c, std::size_t /*worker*/) {
    senders[c]->encode(history, s.ticks[t].tick(), out[c]);
  };
  const auto capture = [&] {
    snapshot::restore(s.ticks[t], world);
    history.capture(world, s.ticks[t].tick());
  };
  const auto one_tick = [&] {
    pool.run(kClients, job);
    for (std::size_t c = 0; c < kClients; ++c) {
      bytes += out[c].size();
      if (t >= 2) senders[c]->acknowledge(s.ticks[t - 2].tick());
    }
    ++t;
  };
  while (t < kWarmTicks) {
    capture();
    one_tick();
  }
  bytes = 0;
  for (auto _ : state) {
    if (t == s.ticks.size()) {
      state.SkipWithError("ran out of captured ticks");
      break;
    }
    state.PauseTiming();
    capture();
    state.ResumeTiming();
    one_tick();
  }
  const auto encoded = state.iterations() * static_cast<benchmark::IterationCount>(kClients);
  state.SetItemsProcessed(encoded);
  state.counters["bytes_per_snapshot"] = static_cast<double>(bytes) / static_cast<double>(encoded);
}

BENCHMARK(encode_on_workers)->Arg(1)->Arg(2)->Iterations(1500)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
