// The sender gives back the storage of states no snapshot can use again:
// those older than the newest acknowledged one, unless acknowledged and
// within a reference's reach. On an in-order link that changes no byte;
// on a lossy, late one the snapshots still decode to exactly the states
// the sender recorded; and what a client costs stays bounded by the reach.

#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <random>
#include <vector>

#include "tickwire/snapshot/receiver.h"
#include "tickwire/snapshot/sender.h"
#include "tickwire/snapshot/state_ring.h"
#include "tickwire/snapshot/world.h"
#include "test_seed.h"

namespace tickwire::snapshot {
namespace {

constexpr std::uint32_t kHistory = 64;

// Movers on circles of their own (first-order motion only, as the arena's
// players), with a counter that ticks now and then.
struct Movers {
  TypeId mover;  // set by make(), so declared before schema
  Field<Vec2> position;
  Field<std::int32_t> counter;
  Schema schema;
  World world;
  std::vector<EntityId> ids;

  static Schema make(TypeId& type, Field<Vec2>& p, Field<std::int32_t>& c) {
    SchemaBuilder b;
    TypeBuilder t = b.entity_type("mover");
    type = t.id();
    p = t.add_vec2("position", {-100.0F, -100.0F}, {100.0F, 100.0F}, 0.01F);
    c = t.add_int("counter", 0, 1000);
    return b.build();
  }
  Movers() : schema(make(mover, position, counter)), world(schema) {
    for (int i = 0; i < 24; ++i) ids.push_back(world.spawn(mover));
  }
  void step(std::uint32_t t) {
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const float phase = 0.03F * static_cast<float>(t) * (1.0F + 0.1F * static_cast<float>(i));
      const float r = 5.0F + static_cast<float>(i);
      world.set(ids[i], position, Vec2{r * std::cos(phase), r * std::sin(phase)});
      if ((t + i) % 17 == 0) world.set(ids[i], counter, static_cast<std::int32_t>((t / 17) % 1000));
    }
    world.quantize();
  }
};

SenderConfig config(std::uint32_t reach) {
  SenderConfig sc;
  sc.history_ticks = kHistory;
  sc.reference_reach = reach;
  return sc;
}

ReceiverConfig receiver_config() {
  ReceiverConfig rc;
  rc.history_ticks = kHistory;
  return rc;
}

// States a sender holds, of the ticks its history could hold.
std::size_t held(const SnapshotSender& s, std::uint32_t now) {
  std::size_t n = 0;
  for (std::uint32_t t = now >= kHistory ? now - kHistory + 1 : 1; t <= now; ++t) n += s.view(Tick(t)) != nullptr;
  return n;
}

TEST(ViewRelease, InOrderAcksChangeNoByteAndHoldOnlyTheReach) {
  Movers m;
  SnapshotSender releasing(m.schema, config(0));       // the automatic reach: 16
  SnapshotSender keeping(m.schema, config(kHistory));  // keeps every acknowledged state
  WorldHistory history(2 * kHistory);
  std::size_t most_held = 0;
  for (std::uint32_t t = 1; t <= 400; ++t) {
    m.step(t);
    history.capture(m.world, Tick(t));
    std::vector<std::uint8_t> a;
    std::vector<std::uint8_t> b;
    releasing.encode(history, Tick(t), a);
    keeping.encode(history, Tick(t), b);
    ASSERT_EQ(a, b) << "tick " << t;
    if (t > 2) {  // acks two snapshots late, every one
      releasing.acknowledge(Tick(t - 2));
      keeping.acknowledge(Tick(t - 2));
    }
    if (t > 100) most_held = std::max(most_held, held(releasing, t));
  }
  // The baseline, 16 behind it and the two in flight (and this one).
  EXPECT_LE(most_held, 1U + 16U + 3U);
  EXPECT_EQ(held(keeping, 400), kHistory);
  EXPECT_GT(releasing.stats().views_released, 0U);
}

TEST(ViewRelease, LossyLateAcksStillDecodeExactly) {
  const std::uint64_t seed = testing::test_seed("ViewRelease.LossyLateAcksStillDecodeExactly");
  std::mt19937_64 rng(seed);
  Movers m;
  SnapshotSender sender(m.schema, config(8));
  SnapshotReceiver receiver(m.schema, receiver_config());
  WorldHistory history(2 * kHistory);
  std::deque<std::pair<std::uint32_t, Tick>> acks;  // (due tick, acked tick)
  std::size_t decoded = 0;
  for (std::uint32_t t = 1; t <= 600; ++t) {
    m.step(t);
    history.capture(m.world, Tick(t));
    std::vector<std::uint8_t> out;
    sender.encode(history, Tick(t), out);
    // A quarter lost in bursts, acks 1 to 12 ticks late and so out of order.
    const bool lost = (t / 9) % 4 == 0 && rng() % 2 == 0;
    if (!lost) {
      auto got = receiver.receive(out);
      ASSERT_TRUE(got.ok()) << "tick " << t;
      const WorldState* theirs = receiver.state(got.value());
      const WorldState* ours = sender.view(got.value());
      ASSERT_TRUE(theirs != nullptr && ours != nullptr && theirs->same_content(*ours, m.schema)) << "tick " << t;
      ++decoded;
      acks.emplace_back(t + 1 + static_cast<std::uint32_t>(rng() % 12), got.value());
    }
    for (auto it = acks.begin(); it != acks.end();) {
      if (it->first <= t) {
        sender.acknowledge(it->second);
        it = acks.erase(it);
      } else {
        ++it;
      }
    }
  }
  EXPECT_GT(decoded, 400U);
  EXPECT_GT(sender.stats().views_released, 0U);
  // Late acks of released states are ignored, not taken as references.
  EXPECT_GT(sender.stats().acks_ignored, 0U);
}

}  // namespace
}  // namespace tickwire::snapshot
