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
// decode_thin is the other end of the shared path: 64 clients' snapshots
// (acks spread the same way, every packet delivered) each decoded by a
// receiver of its own, as a thin bot keeps its baseline; only the decoding
// is timed.
//
// encode_coding compares the codings on one thread, with clients acking 2
// to 5 ticks behind (four baselines in use each tick, as round trips
// spread): adaptive models per client, a codebook (trained on the scene's
// first 120 ticks, before the timed ones) with every client coding its own
// entities, and the shared path (the codebook, an EntityBitsCache and one
// reference probe for every client, as the server runs it; its probes are
// timed with the encoding).
//
//   bench_encode_workers [--benchmark_out=FILE --benchmark_out_format=json]

#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <vector>

#include "encode_pool.h"
#include "tickwire/arena/arena.h"
#include "tickwire/snapshot/codebook.h"
#include "tickwire/snapshot/entity_bits_cache.h"
#include "tickwire/snapshot/receiver.h"
#include "tickwire/snapshot/reference_probe.h"
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

enum class Coding { kAdaptive, kCodebook, kShared };

// Adaptive senders over the scene's first ticks train the codebook (the
// timed ticks come after them).
std::shared_ptr<const snapshot::ModelState> codebook() {
  static const std::shared_ptr<const snapshot::ModelState> book = [] {
    const Scene& s = scene();
    snapshot::CodebookTrainer trainer(arena::schema().schema);
    snapshot::WorldHistory history(2 * snapshot::SenderConfig{}.history_ticks);
    snapshot::World world(arena::schema().schema);
    std::vector<std::unique_ptr<snapshot::SnapshotSender>> senders;
    for (std::size_t c = 0; c < 16; ++c) {
      senders.push_back(std::make_unique<snapshot::SnapshotSender>(arena::schema().schema));
      senders.back()->set_relevancy(snapshot::Relevancy::of_ids(s.near[c * (kClients / 16)]));
    }
    std::vector<std::uint8_t> out;
    for (std::uint32_t t = 0; t < kWarmTicks; ++t) {
      snapshot::restore(s.ticks[t], world);
      history.capture(world, s.ticks[t].tick());
      for (auto& sender : senders) {
        sender->encode(history, s.ticks[t].tick(), out);
        const snapshot::WorldState* view = sender->view(s.ticks[t].tick());
        if (view != nullptr && view->models() != nullptr) trainer.add(*view->models(), sender->last_baseline_age());
        const std::uint32_t lag = 2 + static_cast<std::uint32_t>(&sender - senders.data()) % 4;
        if (t >= lag) sender->acknowledge(s.ticks[t - lag].tick());
      }
    }
    return trainer.codebook();
  }();
  return book;
}

// Each client acks `lag(c)` ticks behind.
void run(benchmark::State& state, std::size_t workers, Coding coding, std::uint32_t (*lag)(std::size_t)) {
  const Scene& s = scene();
  server::EncodePool pool(workers);
  std::vector<std::unique_ptr<snapshot::SnapshotSender>> senders;
  std::vector<std::vector<std::uint8_t>> out(kClients);
  snapshot::SenderConfig config;
  if (coding != Coding::kAdaptive) config.codebook = codebook();
  for (std::size_t c = 0; c < kClients; ++c) {
    senders.push_back(std::make_unique<snapshot::SnapshotSender>(arena::schema().schema, config));
    senders.back()->set_relevancy(snapshot::Relevancy::of_ids(s.near[c]));
  }
  // One cache per worker, as the server keeps them, and one probe.
  std::vector<snapshot::EntityBitsCache> caches(coding == Coding::kShared ? workers : 0);
  snapshot::SharedReferenceProbe probe(arena::schema().schema);
  if (coding == Coding::kShared) {
    for (auto& sender : senders) sender->set_shared_probe(&probe);
  }
  // Twice the snapshot history deep, as the server keeps it.
  snapshot::WorldHistory history(2 * snapshot::SenderConfig{}.history_ticks);
  snapshot::World world(arena::schema().schema);
  std::size_t t = kWarmTicks;  // after the codebook's training ticks
  std::uint64_t bytes = 0;
  const server::EncodePool::Job job = [&](std::size_t c, std::size_t worker) {
    senders[c]->encode(history, s.ticks[t].tick(), out[c], caches.empty() ? nullptr : &caches[worker]);
  };
  const auto capture = [&] {
    snapshot::restore(s.ticks[t], world);
    history.capture(world, s.ticks[t].tick());
  };
  const auto one_tick = [&] {
    if (coding == Coding::kShared) probe.update(history, s.ticks[t].tick());
    pool.run(kClients, job);
    for (std::size_t c = 0; c < kClients; ++c) {
      bytes += out[c].size();
      if (t >= lag(c)) senders[c]->acknowledge(s.ticks[t - lag(c)].tick());
    }
    ++t;
  };
  while (t < 2 * kWarmTicks) {
    capture();
    one_tick();
  }
  bytes = 0;
  std::uint64_t hits = 0;
  std::uint64_t lookups = 0;
  for (const auto& c : caches) {
    hits -= c.hits();
    lookups -= c.hits() + c.misses();
  }
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
  for (const auto& c : caches) {
    hits += c.hits();
    lookups += c.hits() + c.misses();
  }
  const auto encoded = state.iterations() * static_cast<benchmark::IterationCount>(kClients);
  state.SetItemsProcessed(encoded);
  state.counters["bytes_per_snapshot"] = static_cast<double>(bytes) / static_cast<double>(encoded);
  state.counters["us_per_snapshot"] =
      benchmark::Counter(static_cast<double>(encoded), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  if (lookups > 0) state.counters["shared_hit_rate"] = static_cast<double>(hits) / static_cast<double>(lookups);
}

std::uint32_t two_behind(std::size_t /*client*/) { return 2; }
// Round trips of 2 to 5 ticks: clients' baselines spread over four ticks.
std::uint32_t spread(std::size_t client) { return 2 + static_cast<std::uint32_t>(client % 4); }

void encode_on_workers(benchmark::State& state) {
  run(state, static_cast<std::size_t>(state.range(0)), Coding::kAdaptive, two_behind);
}

// One worker, acks spread: adaptive models per client (0), a codebook with
// every client coding its own entities (1), and the shared path (2).
void encode_coding(benchmark::State& state) { run(state, 1, static_cast<Coding>(state.range(0)), spread); }

void decode_thin(benchmark::State& state) {
  constexpr std::size_t kReceivers = 64;
  const Scene& s = scene();
  snapshot::SenderConfig config;
  config.codebook = codebook();
  snapshot::ReceiverConfig receiver_config;
  receiver_config.codebook = config.codebook;
  std::vector<std::unique_ptr<snapshot::SnapshotSender>> senders;
  std::vector<std::unique_ptr<snapshot::SnapshotReceiver>> receivers;
  std::vector<std::vector<std::uint8_t>> out(kReceivers);
  snapshot::SharedReferenceProbe probe(arena::schema().schema);
  for (std::size_t c = 0; c < kReceivers; ++c) {
    senders.push_back(std::make_unique<snapshot::SnapshotSender>(arena::schema().schema, config));
    senders.back()->set_relevancy(snapshot::Relevancy::of_ids(s.near[c * (kClients / kReceivers)]));
    senders.back()->set_shared_probe(&probe);
    receivers.push_back(std::make_unique<snapshot::SnapshotReceiver>(arena::schema().schema, receiver_config));
  }
  snapshot::EntityBitsCache cache;
  snapshot::WorldHistory history(2 * snapshot::SenderConfig{}.history_ticks);
  snapshot::World world(arena::schema().schema);
  std::size_t t = kWarmTicks;
  const auto encode_tick = [&] {
    snapshot::restore(s.ticks[t], world);
    history.capture(world, s.ticks[t].tick());
    probe.update(history, s.ticks[t].tick());
    for (std::size_t c = 0; c < kReceivers; ++c) {
      senders[c]->encode(history, s.ticks[t].tick(), out[c], &cache);
      if (t >= spread(c)) senders[c]->acknowledge(s.ticks[t - spread(c)].tick());
    }
    ++t;
  };
  std::uint64_t failed = 0;
  const auto decode_tick = [&] {
    for (std::size_t c = 0; c < kReceivers; ++c) failed += receivers[c]->receive(out[c]).ok() ? 0U : 1U;
  };
  while (t < 2 * kWarmTicks) {
    encode_tick();
    decode_tick();
  }
  for (auto _ : state) {
    if (t == s.ticks.size()) {
      state.SkipWithError("ran out of captured ticks");
      break;
    }
    state.PauseTiming();
    encode_tick();
    state.ResumeTiming();
    decode_tick();
  }
  if (failed > 0) state.SkipWithError("a snapshot failed to decode");
  const auto decoded = state.iterations() * static_cast<benchmark::IterationCount>(kReceivers);
  state.SetItemsProcessed(decoded);
  state.counters["us_per_snapshot"] =
      benchmark::Counter(static_cast<double>(decoded), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK(encode_on_workers)->Arg(1)->Arg(2)->Iterations(1500)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(encode_coding)->Arg(0)->Arg(1)->Arg(2)->Iterations(1500)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(decode_thin)->Iterations(1500)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
