// The reference probe shared by every client of a world: it chooses what a
// client's own probe would, given the same states; senders given it use
// its choice and code the bytes a shared cache reproduces; it probes each
// age set once an interval, spread over the interval, and only once the
// history holds what it needs.

#include "tickwire/snapshot/reference_probe.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "circle_movers.h"
#include "sharing_client.h"
#include "snapshot_fixture.h"
#include "tickwire/snapshot/codebook.h"
#include "tickwire/snapshot/entity_bits_cache.h"
#include "tickwire/snapshot/receiver.h"
#include "tickwire/snapshot/sender.h"
#include "tickwire/snapshot/state_ring.h"

namespace tickwire::snapshot {
namespace {

constexpr std::uint32_t kHistory = 64;

SenderConfig sender_config(std::shared_ptr<const ModelState> codebook = nullptr) {
  SenderConfig c;
  c.history_ticks = kHistory;
  c.codebook = std::move(codebook);
  return c;
}

TEST(ReferenceProbe, ChoosesWhatAClientSeeingAndAcknowledgingEverythingWouldChoose) {
  tickwire::testing::CircleMovers m;
  WorldHistory history(2 * kHistory);
  SnapshotSender sender(m.schema, sender_config());
  // The sender probes at its first packet with a reference (tick 3) and
  // every 64 packets after: tick 67 is a probe with the whole ladder held.
  for (std::uint32_t t = 0; t <= 67; ++t) {
    if (t > 0) m.step(t);
    history.capture(m.world, Tick(t));
    std::vector<std::uint8_t> out;
    sender.encode(history, Tick(t), out);
    sender.acknowledge(Tick(t));
  }
  SharedReferenceProbe probe(m.schema, 64, 32);  // the sender's sample
  probe.update(history, Tick(67));
  const ReferenceChoice* shared = probe.choice(1);
  ASSERT_NE(shared, nullptr);
  const ReferenceChoice& own = sender.own_reference_choice();
  EXPECT_GT(own.span, 0);
  EXPECT_EQ(shared->span, own.span);
  EXPECT_EQ(shared->motion, own.motion);
}

TEST(ReferenceProbe, HasNoChoiceUntilTheHistoryHoldsABaselineAndAReference) {
  tickwire::testing::CircleMovers m;
  WorldHistory history(2 * kHistory);
  SharedReferenceProbe probe(m.schema);
  history.capture(m.world, Tick(0));
  probe.update(history, Tick(0));
  probe.update(history, Tick(5));  // not captured: nothing to do
  EXPECT_EQ(probe.choice(1), nullptr);
  m.step(1);
  history.capture(m.world, Tick(1));
  probe.update(history, Tick(1));  // a baseline (0) but nothing before it
  EXPECT_EQ(probe.choice(1), nullptr);
  EXPECT_EQ(probe.probes(), 0U);
  m.step(2);
  history.capture(m.world, Tick(2));
  probe.update(history, Tick(2));
  ASSERT_NE(probe.choice(1), nullptr);
  EXPECT_EQ(probe.choice(1)->span, 1);
  EXPECT_EQ(probe.choice(2), nullptr);  // its baseline (0) has nothing before it
  EXPECT_EQ(probe.choice(40), nullptr);
  EXPECT_THROW(SharedReferenceProbe(m.schema, 0), std::invalid_argument);
  EXPECT_THROW(SharedReferenceProbe(m.schema, 64, 0), std::invalid_argument);
}

TEST(ReferenceProbe, ProbesEachAgeSetOnceAnIntervalAndNoTwoOnOneTick) {
  tickwire::testing::CircleMovers m;
  WorldHistory history(2 * kHistory);
  SharedReferenceProbe probe(m.schema, 64);
  std::uint64_t before = 0;
  std::uint32_t first_full = 0;
  for (std::uint32_t t = 0; t <= 300; ++t) {
    if (t > 0) m.step(t);
    history.capture(m.world, Tick(t));
    probe.update(history, Tick(t));
    const std::uint64_t now = probe.probes();
    bool all = true;
    for (std::size_t set = 0; set < kAgeSets; ++set) all = all && probe.choice(SharedReferenceProbe::typical_age(set));
    if (all && first_full == 0) first_full = t;
    if (first_full != 0 && t > first_full) {
      EXPECT_LE(now - before, 1U) << "tick " << t;
    }
    before = now;
  }
  ASSERT_GT(first_full, 0U);
  // After every set has its first choice, one probe per set per interval.
  const double intervals = static_cast<double>(300 - first_full) / 64.0;
  const double per_set = static_cast<double>(probe.probes() - kAgeSets) / static_cast<double>(kAgeSets);
  EXPECT_NEAR(per_set, intervals, 1.0);
}

// Codebook senders given the shared probe take its choice instead of
// probing (their own choice stays empty), clients sharing a cache get the
// bytes each would have coded alone, a client that sees and acks as
// another codes nothing new, and every packet decodes to what the sender
// recorded.
TEST(ReferenceProbe, SendersGivenTheProbeUseItsChoiceAndShareTheirCodedChanges) {
  tickwire::testing::CircleMovers m({.count = 40});
  WorldHistory history(2 * kHistory);
  tickwire::testing::CircleMovers warm({.count = 40, .speed = 1.3F});
  const auto book =
      snapshot::testing::train_codebook(warm.world, 200, 2, kHistory, [&warm](std::uint32_t t) { warm.step(t); });
  SharedReferenceProbe probe(m.schema);
  ReceiverConfig rc;
  rc.history_ticks = kHistory;
  rc.codebook = book;
  std::vector<std::unique_ptr<snapshot::testing::SharingClient>> clients;
  for (int c = 0; c < 4; ++c) {
    clients.push_back(std::make_unique<snapshot::testing::SharingClient>(m.schema, sender_config(book), rc));
    clients.back()->shared.set_shared_probe(&probe);
    clients.back()->alone.set_shared_probe(&probe);
  }
  EntityBitsCache cache;
  // Clients join once the history reaches back far enough for every age
  // set: from then on the probe always has a choice.
  constexpr std::uint32_t kJoin = 60;
  for (std::uint32_t t = 1; t <= 300; ++t) {
    m.step(t, true);
    history.capture(m.world, Tick(t));
    probe.update(history, Tick(t));
    if (t < kJoin) continue;
    for (std::size_t c = 0; c < clients.size(); ++c) {
      snapshot::testing::SharingClient& cl = *clients[c];
      // Clients 0 and 1 see one part of the world, 2 and 3 another.
      std::vector<EntityId> ids;
      for (std::size_t i = 0; i < m.ids.size(); ++i) {
        if ((i + c / 2 + t / 30) % 4 != 0) ids.push_back(m.ids[i]);
      }
      cl.see(std::move(ids));
      const std::uint64_t misses = cache.misses();
      const std::string where = "client " + std::to_string(c) + ", tick " + std::to_string(t);
      ASSERT_TRUE(cl.step(history, Tick(t), cache, false, where).has_value()) << where;
      if (c % 2 == 1) {  // sees and acks as the client before it
        EXPECT_EQ(cache.misses(), misses) << where;
      }
      // Clients 0 and 1 ack a tick late, 2 and 3 three ticks.
      const std::uint32_t late = 1 + 2 * static_cast<std::uint32_t>(c / 2);
      if (t >= kJoin + late) cl.acknowledge(Tick(static_cast<Tick::Rep>(t - late)));
    }
  }
  for (const auto& cl : clients) EXPECT_EQ(cl->shared.own_reference_choice().span, 0);
  EXPECT_GT(probe.probes(), 0U);
  EXPECT_GT(cache.hits(), 0U);
}

// Two senders given one probe over movers: one keeps the states the
// probe's spans reach, the other a fixed reach of 16; and a client of the
// first.
struct ProbedAndKeeping {
  tickwire::testing::CircleMovers m;
  WorldHistory history{2 * kHistory};
  SharedReferenceProbe probe{m.schema};
  SnapshotSender probed{m.schema, sender_config()};
  SnapshotSender keeping{m.schema, reach_of_16()};
  SnapshotReceiver receiver{m.schema, ReceiverConfig{kHistory}};

  explicit ProbedAndKeeping(tickwire::testing::CircleMoversShape shape = {}) : m(shape) {
    probed.set_shared_probe(&probe);
    keeping.set_shared_probe(&probe);
  }
  static SenderConfig reach_of_16() {
    SenderConfig c = sender_config();
    c.reference_reach = 16;
    return c;
  }
  // Runs tick t; from `join` on, both senders encode it (into a and b) and
  // the client decodes the first's packet, which must be exactly the
  // state the sender holds for it (while it holds one).
  bool step(std::uint32_t t, std::uint32_t join, std::vector<std::uint8_t>& a, std::vector<std::uint8_t>& b) {
    m.step(t);
    history.capture(m.world, Tick(t));
    probe.update(history, Tick(t));
    if (t < join) return false;
    a.clear();
    b.clear();
    probed.encode(history, Tick(t), a);
    keeping.encode(history, Tick(t), b);
    const auto got = receiver.receive(a);
    EXPECT_TRUE(got.ok()) << "tick " << t;
    if (!got.ok()) return false;
    const WorldState* sent = probed.view(got.value());
    EXPECT_TRUE(sent == nullptr || receiver.state(got.value())->same_content(*sent, m.schema)) << "tick " << t;
    return true;
  }
  void acknowledge(Tick tick) {
    probed.acknowledge(tick);
    keeping.acknowledge(tick);
  }
};

// Given the probe, a sender keeps the acknowledged states only as far
// behind its baseline as the probe's longest chosen span and a slack of 4,
// not the 16 its own probe would try: where the probe chooses short spans
// it holds fewer states, and with every snapshot acknowledged
// (the state at each span held) it sends exactly the bytes of a sender
// that keeps all 16.
TEST(ReferenceProbe, SendersGivenTheProbeKeepOnlyTheStatesItsSpansReach) {
  ProbedAndKeeping p;                  // slow turns: the probe chooses short spans
  constexpr std::uint32_t kJoin = 60;  // every age set probed by then
  constexpr std::uint32_t kLate = 2;
  std::size_t most_probed = 0;
  std::size_t most_keeping = 0;
  std::int64_t longest = 0;
  std::vector<std::uint8_t> a;
  std::vector<std::uint8_t> b;
  for (std::uint32_t t = 1; t <= 400; ++t) {
    if (!p.step(t, kJoin, a, b)) continue;
    ASSERT_EQ(a, b) << "tick " << t;
    if (t >= kJoin + kLate) p.acknowledge(Tick(t - kLate));
    if (t > kJoin + 40) {
      most_probed = std::max(most_probed, p.probed.views_held());
      most_keeping = std::max(most_keeping, p.keeping.views_held());
      longest = std::max(longest, p.probe.longest_span());
    }
  }
  std::printf("longest span %lld: %zu states held at most, %zu with a reach of 16\n", static_cast<long long>(longest),
              most_probed, most_keeping);
  ASSERT_LT(longest + 4, 16);  // the premise: short spans
  // The baseline, the reach behind it, and those in flight (this one too).
  EXPECT_LE(most_probed, 1U + static_cast<std::size_t>(longest + 4) + kLate);
  EXPECT_EQ(most_keeping, 1U + 16U + kLate);
}

// The reach follows the age sets of the client's own baselines, not the
// longest span the probe chose for any age: with fast turns the probe
// predicts young baselines from the state a tick behind and old ones from
// 16 behind, so a client whose acks come 2 ticks late keeps the states a
// span of 1 reaches (plus the slack) however old other clients' baselines
// are, and sends exactly the bytes of a sender keeping 16. When its acks
// turn 30 ticks late its baselines are old, and the states 16 behind are
// kept again: once they are held, the bytes are again the same.
TEST(ReferenceProbe, ASendersReachFollowsTheAgesOfItsOwnBaselines) {
  tickwire::testing::CircleMoversShape fast;
  fast.speed = 3.0F;
  ProbedAndKeeping p(fast);
  constexpr std::uint32_t kJoin = 60;
  constexpr std::uint32_t kShortLate = 2;
  constexpr std::uint32_t kTurn = 400;  // the acks turn 30 late here
  constexpr std::uint32_t kLongLate = 30;
  std::size_t most_short = 0;
  std::size_t most_long = 0;
  std::size_t differing_late = 0;
  std::vector<std::uint8_t> a;
  std::vector<std::uint8_t> b;
  for (std::uint32_t t = 1; t <= 800; ++t) {
    if (!p.step(t, kJoin, a, b)) continue;
    if (t < kTurn) {
      ASSERT_EQ(a, b) << "tick " << t;
    }
    // Two history windows after the turn the states 16 behind are held.
    if (t >= kTurn + 2 * kHistory + kLongLate && a != b) ++differing_late;
    const std::uint32_t late = t < kTurn ? kShortLate : kLongLate;
    if (t >= kJoin + late) p.acknowledge(Tick(t - late));
    if (t > kJoin + 40 && t < kTurn) most_short = std::max(most_short, p.probed.views_held());
    if (t > kTurn + 2 * kHistory) most_long = std::max(most_long, p.probed.views_held());
  }
  const auto span_of = [&p](std::int64_t age) { return p.probe.choice(age)->span; };
  std::printf("spans: age 2 %lld, age 24 %lld; states held at most: %zu (acks 2 late), %zu (30 late)\n",
              static_cast<long long>(span_of(2)), static_cast<long long>(span_of(24)), most_short, most_long);
  // The premise: young baselines refer a tick back, old ones 16.
  ASSERT_EQ(span_of(2), 1);
  ASSERT_EQ(p.probe.longest_span(), 16);
  // The baseline, the reach (span 1 and the slack) and those in flight.
  EXPECT_LE(most_short, 1U + 1U + 4U + kShortLate);
  // With old baselines the reach is 16 again, besides those in flight.
  EXPECT_GT(most_long, 16U);
  EXPECT_EQ(differing_late, 0U);
}

}  // namespace
}  // namespace tickwire::snapshot
