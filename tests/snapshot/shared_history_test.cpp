// Senders whose views point into one shared history of captures instead of
// holding copies: the same bytes as senders that copy, exact states at the
// client, and copies only for values the history would overwrite while a
// view still needs them.

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "snapshot_fixture.h"
#include "tickwire/snapshot/sender.h"
#include "tickwire/snapshot/state_ring.h"

namespace tickwire::snapshot {
namespace {

using testing::KitchenSink;

constexpr std::uint32_t kHistory = 32;

// A world of things that move every tick, pebbles that mostly rest, and
// entities that come and go.
struct Churn {
  KitchenSink k;
  World world{k.schema};
  std::mt19937_64 rng;
  std::vector<EntityId> live;

  explicit Churn(std::uint64_t seed) : rng(seed) {
    for (int i = 0; i < 30; ++i) spawn();
  }
  void spawn() {
    const bool thing = rng() % 2 == 0;
    const EntityId id = world.spawn(thing ? k.thing : k.pebble);
    if (thing) {
      testing::randomize_thing(k, world, id, rng);
    } else {
      testing::randomize_pebble(k, world, id, rng);
    }
    live.push_back(id);
  }
  void step() {
    for (EntityId id : live) {
      if (world.type_of(id) == k.thing) {
        Vec3 p = world.get(id, k.position);
        p.x += 0.5F * static_cast<float>(rng() % 3);
        world.set(id, k.position, p);
        world.set(id, k.yaw, world.get(id, k.yaw) + 0.05F);
      } else if (rng() % 8 == 0) {
        testing::randomize_pebble(k, world, id, rng);
      }
    }
    if (rng() % 6 == 0 && !live.empty()) {
      const std::size_t at = rng() % live.size();
      world.despawn(live[at]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(at));
    }
    if (rng() % 5 == 0) spawn();
  }
};

struct Client {
  SnapshotSender sender;
  SnapshotReceiver receiver;
  std::vector<Tick> pending;
  Client(const KitchenSink& k, SenderConfig sc, ReceiverConfig rc) : sender(k.schema, sc), receiver(k.schema, rc) {
    // Pebbles wait far longer than things before they win a place, so some
    // stay stale for longer than the history reaches.
    sender.set_priority([&k](EntityId, TypeId type) { return type == k.pebble ? 0.02F : 1.0F; });
  }
};

SenderConfig sender_config(std::size_t max_payload) {
  SenderConfig sc;
  sc.history_ticks = kHistory;
  sc.max_payload = max_payload;
  return sc;
}

ReceiverConfig receiver_config() {
  ReceiverConfig rc;
  rc.history_ticks = kHistory;
  rc.max_payload = 64 * 1024;
  return rc;
}

// Plays one world to three clients, identical but for where their sender
// takes the current state from: a private capture, a history just deeper
// than the snapshot history (most stale values get copied), and one twice
// as deep (as the server keeps it). Returns how many own codes the deep
// one's views held, summed over the ticks.
std::size_t play(std::uint64_t seed, std::size_t max_payload, std::size_t& stale_copies) {
  Churn churn(seed);
  const auto sc = sender_config(max_payload);
  Client copying(churn.k, sc, receiver_config());
  Client shallow(churn.k, sc, receiver_config());
  Client deep(churn.k, sc, receiver_config());
  WorldHistory shallow_history(kHistory + 2);
  WorldHistory deep_history(2 * kHistory);
  std::mt19937_64 loss(seed ^ 0x5eed);
  std::size_t own_codes = 0;
  stale_copies = 0;
  for (std::uint32_t t = 1; t <= 400; ++t) {
    churn.step();
    const Tick tick(t);
    WorldState private_capture;
    capture(churn.world, tick, private_capture);
    shallow_history.capture(churn.world, tick);
    deep_history.capture(churn.world, tick);
    const auto a = copying.sender.encode(private_capture);
    std::vector<std::uint8_t> b;
    std::vector<std::uint8_t> c;
    shallow.sender.encode(shallow_history, tick, b);
    deep.sender.encode(deep_history, tick, c);
    EXPECT_EQ(a, b) << "tick " << t;
    EXPECT_EQ(a, c) << "tick " << t;
    if (a != b || a != c) return own_codes;
    own_codes += deep.sender.view(tick)->code_count();
    stale_copies += shallow.sender.view(tick)->code_count();
    const bool lost = loss() % 10 == 0;
    for (Client* client : {&copying, &shallow, &deep}) {
      if (lost) continue;
      auto got = client->receiver.receive(a);
      EXPECT_TRUE(got.ok()) << "tick " << t;
      if (!got.ok()) return own_codes;
      const WorldState* theirs = client->receiver.state(got.value());
      const WorldState* ours = client->sender.view(got.value());
      EXPECT_TRUE(theirs != nullptr && ours != nullptr && theirs->same_content(*ours, churn.k.schema)) << "tick " << t;
      client->pending.push_back(got.value());
      // Acks come back 1 to 6 snapshots later, in order.
      while (client->pending.size() > 1 + t % 6) {
        client->sender.acknowledge(client->pending.front());
        client->pending.erase(client->pending.begin());
      }
    }
  }
  return own_codes;
}

TEST(SharedHistory, SameBytesAndExactStatesUnderATightBudget) {
  std::size_t stale_copies = 0;
  play(testing::test_seed("SharedHistory.SameBytesAndExactStatesUnderATightBudget"), 160, stale_copies);
  // The premise: starved values outlived the shallow history's reach and
  // were copied into the views.
  EXPECT_GT(stale_copies, 0U);
}

TEST(SharedHistory, ViewsHoldNoCodesWhenNothingStarves) {
  std::size_t stale_copies = 0;
  const std::size_t own =
      play(testing::test_seed("SharedHistory.ViewsHoldNoCodesWhenNothingStarves"), 64 * 1024, stale_copies);
  EXPECT_EQ(own, 0U);
}

TEST(SharedHistory, RejectsTicksItDoesNotHoldOrThatGoBack) {
  KitchenSink k;
  World world(k.schema);
  world.spawn(k.thing);
  WorldHistory history(8);
  history.capture(world, Tick(5));
  EXPECT_THROW(history.capture(world, Tick(5)), std::invalid_argument);
  EXPECT_THROW(history.capture(world, Tick(4)), std::invalid_argument);
  SnapshotSender sender(k.schema, sender_config(1100));
  std::vector<std::uint8_t> out;
  EXPECT_THROW(sender.encode(history, Tick(6), out), std::invalid_argument);
  sender.encode(history, Tick(5), out);
  EXPECT_FALSE(out.empty());
}

// A history no deeper than the snapshot history cannot keep a view's
// values alive for as long as the view is used: the sender copies.
TEST(SharedHistory, AShallowHistoryIsCopiedFrom) {
  KitchenSink k;
  World world(k.schema);
  world.spawn(k.thing);
  WorldHistory history(kHistory);
  history.capture(world, Tick(1));
  SnapshotSender sender(k.schema, sender_config(1100));
  std::vector<std::uint8_t> out;
  sender.encode(history, Tick(1), out);
  EXPECT_EQ(sender.view(Tick(1))->shared(), nullptr);
  EXPECT_GT(sender.view(Tick(1))->code_count(), 0U);
}

}  // namespace
}  // namespace tickwire::snapshot
