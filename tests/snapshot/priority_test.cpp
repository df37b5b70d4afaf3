// The byte budget and the priority accumulator: when the changes do not
// fit, the most important and longest-waiting go first, and every entity
// is refreshed within a bounded number of packets.

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <map>
#include <random>

#include "snapshot_fixture.h"

namespace tickwire::snapshot {
namespace {

using testing::KitchenSink;
using testing::Link;

struct Crowd {
  KitchenSink k;
  World world{k.schema};
  std::vector<EntityId> ids;
  std::mt19937_64 rng;
  explicit Crowd(std::uint64_t seed, int count) : rng(seed) {
    for (int i = 0; i < count; ++i) {
      ids.push_back(world.spawn(k.thing));
      testing::randomize_thing(k, world, ids.back(), rng);
    }
  }
  // Every entity changes unpredictably every tick: the worst case.
  void scramble() {
    for (EntityId id : ids) {
      if (world.contains(id)) testing::randomize_thing(k, world, id, rng);
    }
  }
};

TEST(Priority, EveryPacketFitsAndEveryEntityIsRefreshedInBoundedPackets) {
  Crowd crowd(testing::test_seed("Priority.EveryPacketFitsAndEveryEntityIsRefreshedInBoundedPackets"), 120);
  SenderConfig sc;
  sc.max_payload = 200;  // room for about a tenth of the changes
  Link link(crowd.k.schema, sc);
  std::map<std::uint32_t, std::uint32_t> last_refresh;  // id -> tick its values came from
  std::uint32_t worst_wait = 0;
  for (std::uint32_t t = 1; t <= 320; ++t) {
    crowd.scramble();
    WorldState s;
    capture(crowd.world, Tick(t), s);
    const auto got = link.send(s, false, 2);
    ASSERT_TRUE(got.has_value());
    EXPECT_LE(link.sent.back().size(), sc.max_payload) << "tick " << t;
    if (t < 120) continue;  // the initial spawns take a while to get through
    const WorldState* view = link.receiver.state(*got);
    ASSERT_EQ(view->size(), crowd.ids.size()) << "tick " << t;
    for (const EntityState& e : view->entities()) {
      worst_wait = std::max(worst_wait, t - e.updated.value());
    }
  }
  // The bound, reasoned: acks arrive two sends late, so packet t deltas
  // against t - 3 and the states form three interleaved chains, each
  // served by every third packet. A packet's claims are the waits in its
  // own chain, so each chain refreshes its oldest first: a round of all
  // 120 takes 120 / (updates per packet) of its packets, 3 ticks apart.
  // One packet of slack per chain for packets that hold fewer than the mean.
  const double per_packet = static_cast<double>(link.sender.stats().changed_sent) / 320.0;
  constexpr std::uint32_t kChains = 3;
  const auto round = static_cast<std::uint32_t>(std::ceil(120.0 / per_packet));
  const std::uint32_t bound = kChains * (round + 1);
  std::cout << "[ info     ] longest wait " << worst_wait << " ticks; " << per_packet
            << " updates per packet, so a round of " << round << " packets per chain and a bound of " << bound << "\n";
  // 200 bytes hold five or six scrambled entities (their every field
  // changes at random), not more: the bound is about 66 ticks.
  EXPECT_GT(per_packet, 5.0);
  EXPECT_LE(worst_wait, bound);
  EXPECT_GT(link.sender.stats().changed_deferred, 0U);
}

TEST(Priority, HigherPriorityIsRefreshedMoreOften) {
  Crowd crowd(testing::test_seed("Priority.HigherPriorityIsRefreshedMoreOften"), 60);
  SenderConfig sc;
  sc.max_payload = 150;
  Link link(crowd.k.schema, sc);
  const EntityId vip = crowd.ids[30];
  link.sender.set_priority([&](EntityId id, TypeId) { return id == vip ? 20.0F : 1.0F; });
  std::uint64_t vip_age = 0;
  std::uint64_t others_age = 0;
  std::uint64_t samples = 0;
  for (std::uint32_t t = 1; t <= 300; ++t) {
    crowd.scramble();
    WorldState s;
    capture(crowd.world, Tick(t), s);
    const auto got = link.send(s, false, 2);
    ASSERT_TRUE(got.has_value());
    if (t < 100) continue;
    const WorldState* view = link.receiver.state(*got);
    for (const EntityState& e : view->entities()) {
      (e.id == vip ? vip_age : others_age) += t - e.updated.value();
    }
    ++samples;
  }
  EXPECT_LT(static_cast<double>(vip_age) / static_cast<double>(samples),
            static_cast<double>(others_age) / static_cast<double>(samples * 59) / 2.0);
}

TEST(Priority, BytesPerSecondBoundsTheAverage) {
  Crowd crowd(testing::test_seed("Priority.BytesPerSecondBoundsTheAverage"), 100);
  SenderConfig sc;
  sc.tick_rate = 60;
  sc.bytes_per_second = 6000;  // 100 bytes a tick on average
  Link link(crowd.k.schema, sc);
  std::size_t total = 0;
  const std::uint32_t ticks = 300;
  for (std::uint32_t t = 1; t <= ticks; ++t) {
    crowd.scramble();
    WorldState s;
    capture(crowd.world, Tick(t), s);
    ASSERT_TRUE(link.send(s, false, 2).has_value());
    total += link.sent.back().size();
  }
  // Five seconds at 6000 bytes per second, plus the burst allowance.
  EXPECT_LE(total, 6000U * 5U + sc.max_payload + 600U);
  EXPECT_GE(total, 6000U * 4U);
}

TEST(Priority, DespawnsAreNeverDeferred) {
  Crowd crowd(testing::test_seed("Priority.DespawnsAreNeverDeferred"), 120);
  SenderConfig sc;
  sc.max_payload = 150;
  Link link(crowd.k.schema, sc);
  for (std::uint32_t t = 1; t <= 60; ++t) {
    crowd.scramble();
    WorldState s;
    capture(crowd.world, Tick(t), s);
    ASSERT_TRUE(link.send(s, false, 1).has_value());
  }
  for (int i = 0; i < 30; ++i) crowd.world.despawn(crowd.ids[static_cast<std::size_t>(i) * 4]);
  crowd.scramble();  // the living keep changing: their updates compete for the packet
  WorldState s;
  capture(crowd.world, Tick(61), s);
  const auto got = link.send(s, false, 1);
  ASSERT_TRUE(got.has_value());
  for (int i = 0; i < 30; ++i)
    EXPECT_EQ(link.receiver.state(*got)->find(crowd.ids[static_cast<std::size_t>(i) * 4]), nullptr);
}

}  // namespace
}  // namespace tickwire::snapshot
