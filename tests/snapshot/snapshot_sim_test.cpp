// Whole runs over SimNetwork, hostile by default: loss, duplicates and
// reordering in both directions, with acks carried as the client runtime
// will carry them. Spawns and despawns must converge to the server's set,
// and every decoded state must be exactly what the server recorded.

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "snapshot_fixture.h"
#include "tickwire/core/bit_stream.h"
#include "tickwire/transport/sim_network.h"

namespace tickwire::snapshot {
namespace {

using testing::KitchenSink;
using transport::Address;
using transport::Delivery;
using transport::TransportEvent;

struct Match {
  KitchenSink k;
  World world{k.schema};
  transport::SimNetwork net;
  std::unique_ptr<transport::Transport> server;
  std::unique_ptr<transport::Transport> client;
  PeerId to_client;
  PeerId to_server;
  SnapshotSender sender;
  SnapshotReceiver receiver;
  Time now = Time::from_micros(1'000'000);
  std::uint64_t mismatches = 0;
  // What the sender recorded for each snapshot as it sent it: the sender
  // itself may give a state up before its packet arrives (states in
  // flight are thinned), and the client must still decode exactly this.
  std::map<std::uint32_t, WorldState> sent;

  Match(std::uint64_t seed, const transport::LinkConditions& link, SenderConfig sc = {})
      : net(seed), sender(k.schema, sc), receiver(k.schema) {
    net.set_default_link(link);
    server = net.create_endpoint({"server", 1});
    client = net.create_endpoint({"client", 1});
    EXPECT_TRUE(client->connect({"server", 1}, now).ok());
    bool s = false;
    bool c = false;
    for (int i = 0; i < 20000 && !(s && c); ++i) {
      now += Duration::millis(1);
      while (auto ev = server->poll(now)) {
        if (ev->type == TransportEvent::Type::kConnected) {
          to_client = ev->peer;
          s = true;
        }
      }
      while (auto ev = client->poll(now)) {
        if (ev->type == TransportEvent::Type::kConnected) {
          to_server = ev->peer;
          c = true;
        }
      }
    }
    EXPECT_TRUE(s && c) << "no connection";
  }

  // One 60 Hz tick: the server sends a snapshot of `world`, the client
  // acks its newest decoded tick, both sides poll in 1 ms steps.
  void tick(std::uint32_t t) {
    WorldState state;
    capture(world, Tick(t), state);
    (void)server->send(to_client, Delivery::kUnreliable, sender.encode(state), now);
    if (const WorldState* view = sender.view(Tick(t))) sent[t] = *view;
    while (!sent.empty() && sent.begin()->first + 256 < t) sent.erase(sent.begin());
    BitWriter w(8);
    bool has = receiver.newest().has_value();
    std::uint32_t ack = has ? receiver.newest()->value() : 0;
    w.boolean(has);
    if (has) w.bits(ack, 32);
    (void)client->send(to_server, Delivery::kUnreliable, w.take(), now);
    for (int ms = 0; ms < 16; ++ms) {
      now += Duration::millis(1);
      while (auto ev = server->poll(now)) {
        if (ev->type != TransportEvent::Type::kReceived) continue;
        BitReader r(ev->data);
        bool a = false;
        std::uint32_t tick_value = 0;
        if (r.boolean(a) && a && r.bits(tick_value, 32)) sender.acknowledge(Tick(tick_value));
      }
      while (auto ev = client->poll(now)) {
        if (ev->type != TransportEvent::Type::kReceived) continue;
        const auto got = receiver.receive(ev->data);
        if (!got.ok()) continue;  // duplicates and stale copies are expected here
        const WorldState* mine = receiver.state(got.value());
        const auto theirs = sent.find(got.value().value());
        if (theirs == sent.end() || !mine->same_content(theirs->second, k.schema)) ++mismatches;
      }
    }
  }
};

transport::LinkConditions hostile(double loss) {
  transport::LinkConditions c;
  c.latency = Duration::millis(40);
  c.jitter = Duration::millis(10);
  c.loss = loss;
  c.duplicate = 0.05;
  c.reorder = 0.05;
  return c;
}

TEST(SnapshotSim, SpawnAndDespawnConvergeUnderHeavyLoss) {
  const auto seed = testing::test_seed("SnapshotSim.SpawnAndDespawnConvergeUnderHeavyLoss");
  Match m(seed, hostile(0.30));
  std::mt19937_64 rng(seed);
  std::vector<EntityId> alive;
  std::uint32_t t = 1;
  // Three seconds of churn: entities come and go every tick.
  for (; t <= 180; ++t) {
    for (int i = 0; i < 3; ++i) {
      const EntityId id = m.world.spawn(rng() % 2 == 0 ? m.k.thing : m.k.pebble);
      if (m.world.type_of(id) == m.k.thing) testing::randomize_thing(m.k, m.world, id, rng);
      alive.push_back(id);
    }
    for (int i = 0; i < 2 && !alive.empty(); ++i) {
      const std::size_t pick = static_cast<std::size_t>(rng() % alive.size());
      m.world.despawn(alive[pick]);
      alive.erase(alive.begin() + static_cast<std::ptrdiff_t>(pick));
    }
    m.tick(t);
  }
  // Then quiet: the client must end up holding exactly the server's world.
  for (; t <= 300; ++t) m.tick(t);
  ASSERT_TRUE(m.receiver.newest().has_value());
  WorldState truth;
  capture(m.world, *m.receiver.newest(), truth);
  EXPECT_TRUE(testing::same_entities(m.k.schema, truth, *m.receiver.state(*m.receiver.newest())));
  EXPECT_EQ(m.mismatches, 0U);
  EXPECT_GT(m.sender.stats().removals_sent, m.world.size() / 2);
}

TEST(SnapshotSim, MovingWorldStaysExactUnderLossAndReordering) {
  const auto seed = testing::test_seed("SnapshotSim.MovingWorldStaysExactUnderLossAndReordering");
  Match m(seed, hostile(0.10));
  std::mt19937_64 rng(seed);
  std::vector<EntityId> ids;
  for (int i = 0; i < 60; ++i) {
    ids.push_back(m.world.spawn(m.k.thing));
    testing::randomize_thing(m.k, m.world, ids.back(), rng);
  }
  for (std::uint32_t t = 1; t <= 300; ++t) {
    for (EntityId id : ids) {
      Vec3 p = m.world.get(id, m.k.position);
      p.x += 0.05F * static_cast<float>(id.value % 7);
      m.world.set(id, m.k.position, p);
      m.world.set(id, m.k.yaw, m.world.get(id, m.k.yaw) + 0.03F);
      if (rng() % 20 == 0) testing::randomize_thing(m.k, m.world, id, rng);
    }
    m.tick(t);
  }
  EXPECT_EQ(m.mismatches, 0U);
  EXPECT_GT(m.receiver.stats().decoded, 200U);
  EXPECT_EQ(m.receiver.stats().dropped_for(DropReason::kMalformed), 0U);
}

TEST(SnapshotSim, ClientThatLostEverythingRecoversWithAFullSnapshot) {
  const auto seed = testing::test_seed("SnapshotSim.ClientThatLostEverythingRecoversWithAFullSnapshot");
  Match m(seed, hostile(0.05));
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 30; ++i) testing::randomize_pebble(m.k, m.world, m.world.spawn(m.k.pebble), rng);
  std::uint32_t t = 1;
  for (; t <= 60; ++t) m.tick(t);
  // The client forgets its states (say it restarted its snapshot system):
  // snapshots against baselines it no longer has are dropped as such until
  // the server's baselines age out and it sends a full snapshot.
  m.receiver.reset();
  for (; t <= 240; ++t) m.tick(t);
  EXPECT_GT(m.receiver.stats().dropped_for(DropReason::kMissingBaseline), 0U);
  ASSERT_TRUE(m.receiver.newest().has_value());
  EXPECT_GT(m.receiver.newest()->value(), 200U);
  EXPECT_EQ(m.mismatches, 0U);
}

}  // namespace
}  // namespace tickwire::snapshot
