// The server's per-client snapshot path allocates nothing once warm: with
// a thousand clients at 60 Hz, an allocation per client per tick is
// 60,000 trips through the allocator a second, and memory that churns.
// Counts every operator new of this test executable (it has no other
// tests, so the count is this test's alone).

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>

#include "snapshot_fixture.h"
#include "tickwire/snapshot/codebook.h"
#include "tickwire/snapshot/entity_bits_cache.h"
#include "tickwire/snapshot/state_ring.h"

namespace {
std::atomic<std::uint64_t> g_allocations{0};
// With TICKWIRE_ALLOC_TRAP set, the first allocation in the warm ticks
// aborts, so a debugger shows where it came from.
std::atomic<bool> g_trap{false};
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (g_trap.load(std::memory_order_relaxed)) std::abort();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// The nothrow forms too (std::stable_sort's temporary buffer takes one),
// so nothing slips past the count and every delete frees what malloc gave.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (g_trap.load(std::memory_order_relaxed)) std::abort();
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace tickwire::snapshot {
namespace {

using testing::KitchenSink;

// A world of moving things and falling pebbles; every tick some move, a
// few change at random.
struct Scene {
  KitchenSink k;
  World world{k.schema};
  std::vector<EntityId> ids;
  std::mt19937_64 rng;

  explicit Scene(std::uint64_t seed) : rng(seed) {
    for (int i = 0; i < 160; ++i) {
      const EntityId id = world.spawn(i % 3 == 0 ? k.pebble : k.thing);
      if (i % 3 == 0) {
        testing::randomize_pebble(k, world, id, rng);
      } else {
        testing::randomize_thing(k, world, id, rng);
      }
      ids.push_back(id);
    }
  }
  void step(int t) {
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (i % 3 == 0) {
        const Vec3 p = world.get(ids[i], k.falling);
        world.set(ids[i], k.falling, Vec3{p.x + 0.1F, p.y - 0.02F * static_cast<float>(t % 40), p.z});
      } else {
        const Vec3 p = world.get(ids[i], k.position);
        world.set(ids[i], k.position, Vec3{p.x + 0.3F, p.y, p.z - 0.1F});
        if (rng() % 16 == 0) world.set(ids[i], k.health, static_cast<std::int32_t>(rng() % 201) - 100);
      }
    }
    world.quantize();
  }
  // Every other entity, from the client's index on.
  std::vector<EntityId> relevant_to(int client) const {
    std::vector<EntityId> out;
    for (std::size_t i = static_cast<std::size_t>(client); i < ids.size(); i += 2) out.push_back(ids[i]);
    return out;
  }
};

constexpr int kClients = 4;
constexpr int kWarm = 1500;

// Acks arrive a few ticks late, and one snapshot in seven is lost.
void acknowledge(SnapshotSender& s, int t, int client) {
  const int acked = t - 3 - client;
  if (acked > 0 && acked % 7 != 0) s.acknowledge(Tick(static_cast<std::uint32_t>(acked)));
}

// Each client sees its own list of entities (as a game's relevancy gives),
// acks with a delay and loses some snapshots; a tight budget makes the
// sender choose (the extra encoding passes).
TEST(SenderAllocations, SteadyStateEncodeAllocatesNothing) {
  Scene scene(testing::test_seed("SenderAllocations"));
  std::vector<std::unique_ptr<SnapshotSender>> senders;
  std::vector<std::vector<EntityId>> relevant;
  std::vector<std::vector<std::uint8_t>> out(kClients);
  for (int c = 0; c < kClients; ++c) {
    relevant.push_back(scene.relevant_to(c));
    SenderConfig config;
    config.max_payload = c == 0 ? 300 : 1100;  // client 0's budget forces selection
    // Clients 2 and 3 keep few references: their states are released and
    // their storage reused.
    if (c >= 2) config.reference_reach = 4;
    senders.push_back(std::make_unique<SnapshotSender>(scene.k.schema, config));
  }
  WorldState current;
  std::uint64_t during = 0;
  for (int t = 1; t <= kWarm + 300; ++t) {
    scene.step(t);
    capture(scene.world, Tick(static_cast<std::uint32_t>(t)), current);
    const std::uint64_t before = g_allocations.load();
    g_trap = t > kWarm && std::getenv("TICKWIRE_ALLOC_TRAP") != nullptr;
    for (int c = 0; c < kClients; ++c) {
      SnapshotSender& s = *senders[static_cast<std::size_t>(c)];
      s.set_relevancy(Relevancy::of_ids(relevant[static_cast<std::size_t>(c)]));
      s.encode(current, out[static_cast<std::size_t>(c)]);
      acknowledge(s, t, c);
    }
    g_trap = false;
    if (t > kWarm) during += g_allocations.load() - before;
  }
  EXPECT_GT(senders[0]->stats().extra_passes, 0U) << "the tight budget was meant to force selection";
  EXPECT_GT(senders[2]->stats().views_released, 0U) << "the short reach was meant to release states";
  EXPECT_EQ(during, 0U) << "allocations in 300 warm ticks of " << kClients << " clients";
}

// The shared path as a server runs it: a codebook, a shared history of
// captures and one cache of coded changes for every client.
TEST(SenderAllocations, TheSharedPathAllocatesNothingOnceWarm) {
  Scene scene(testing::test_seed("SenderAllocations.TheSharedPath"));
  CodebookTrainer trainer(scene.k.schema);
  {
    SnapshotSender adaptive(scene.k.schema);
    WorldState state;
    for (int t = 1; t <= 200; ++t) {
      scene.step(t);
      capture(scene.world, Tick(static_cast<std::uint32_t>(t)), state);
      adaptive.encode(state);
      const WorldState* v = adaptive.view(Tick(static_cast<std::uint32_t>(t)));
      if (v != nullptr && v->models() != nullptr) trainer.add(*v->models(), adaptive.last_baseline_age());
      acknowledge(adaptive, t, 0);
    }
  }
  SenderConfig config;
  config.codebook = trainer.codebook();
  std::vector<std::unique_ptr<SnapshotSender>> senders;
  std::vector<std::vector<EntityId>> relevant;
  for (int c = 0; c < kClients; ++c) {
    senders.push_back(std::make_unique<SnapshotSender>(scene.k.schema, config));
    relevant.push_back(scene.relevant_to(c / 2));  // two pairs of clients see and ack alike
  }
  std::vector<std::vector<std::uint8_t>> out(kClients);
  WorldHistory history(2 * config.history_ticks);
  EntityBitsCache cache;
  std::uint64_t during = 0;
  for (int t = 201; t <= 200 + kWarm + 300; ++t) {
    scene.step(t);
    history.capture(scene.world, Tick(static_cast<std::uint32_t>(t)));
    const std::uint64_t before = g_allocations.load();
    for (int c = 0; c < kClients; ++c) {
      SnapshotSender& s = *senders[static_cast<std::size_t>(c)];
      s.set_relevancy(Relevancy::of_ids(relevant[static_cast<std::size_t>(c)]));
      s.encode(history, Tick(static_cast<std::uint32_t>(t)), out[static_cast<std::size_t>(c)], &cache);
      acknowledge(s, t, c / 2);
    }
    if (t > 200 + kWarm) during += g_allocations.load() - before;
  }
  EXPECT_GT(cache.hits(), 0U);
  EXPECT_EQ(during, 0U) << "allocations in 300 warm ticks of " << kClients << " clients on the shared path";
}

}  // namespace
}  // namespace tickwire::snapshot
