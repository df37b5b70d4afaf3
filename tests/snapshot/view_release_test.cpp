// The sender gives back the storage of states no snapshot can use again:
// those older than the newest acknowledged one, unless acknowledged and
// within a reference's reach. On an in-order link that changes no byte;
// on a lossy, late one the snapshots still decode to exactly the states
// the sender recorded; and what a client costs stays bounded by the reach.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <functional>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <vector>

#include "circle_movers.h"
#include "test_seed.h"
#include "tickwire/snapshot/receiver.h"
#include "tickwire/snapshot/sender.h"
#include "tickwire/snapshot/state_ring.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::snapshot {
namespace {

constexpr std::uint32_t kHistory = 64;

using Movers = testing::CircleMovers;

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

// Acks that arrive when due, each at a tick of its own (so out of order).
class DelayedAcks {
 public:
  void send(std::uint32_t due, Tick acked) { acks_.emplace_back(due, acked); }
  // Hands every ack due by `now` to each sender.
  void deliver(std::uint32_t now, std::initializer_list<SnapshotSender*> senders) {
    for (auto it = acks_.begin(); it != acks_.end();) {
      if (it->first > now) {
        ++it;
        continue;
      }
      for (SnapshotSender* s : senders) s->acknowledge(it->second);
      it = acks_.erase(it);
    }
  }

 private:
  std::deque<std::pair<std::uint32_t, Tick>> acks_;  // (due tick, acked tick)
};

// The receiver decodes `bytes` to exactly the state the sender recorded;
// returns the tick.
Tick decodes_to_senders_state(SnapshotReceiver& receiver, const SnapshotSender& sender,
                              const std::vector<std::uint8_t>& bytes, const Schema& schema, std::uint32_t t) {
  auto got = receiver.receive(bytes);
  EXPECT_TRUE(got.ok()) << "tick " << t;
  if (!got.ok()) return Tick(0);
  const WorldState* theirs = receiver.state(got.value());
  const WorldState* ours = sender.view(got.value());
  EXPECT_TRUE(theirs != nullptr && ours != nullptr && theirs->same_content(*ours, schema)) << "tick " << t;
  return got.value();
}

// A quarter of the packets lost, in bursts.
bool lost_in_a_burst(std::uint32_t t, std::mt19937_64& rng) { return (t / 9) % 4 == 0 && rng() % 2 == 0; }

// States a sender holds, of the ticks its history could hold.
std::size_t held(const SnapshotSender& s, std::uint32_t now) {
  std::size_t n = 0;
  for (std::uint32_t t = now >= kHistory ? now - kHistory + 1 : 1; t <= now; ++t) n += s.view(Tick(t)) != nullptr;
  return n;
}

// Runs two senders over the same moving world for `ticks` ticks, acking
// each snapshot `lag` ticks late; both must send the same bytes every
// tick. `each` (if set) is handed every tick and the first's bytes.
void expect_same_bytes(Movers& m, SnapshotSender& a, SnapshotSender& b, std::uint32_t ticks, std::uint32_t lag,
                       const std::function<void(std::uint32_t, const std::vector<std::uint8_t>&)>& each = {}) {
  WorldHistory history(2 * kHistory);
  for (std::uint32_t t = 1; t <= ticks; ++t) {
    m.step(t);
    history.capture(m.world, Tick(t));
    std::vector<std::uint8_t> out_a;
    std::vector<std::uint8_t> out_b;
    a.encode(history, Tick(t), out_a);
    b.encode(history, Tick(t), out_b);
    ASSERT_EQ(out_a, out_b) << "tick " << t;
    if (each) each(t, out_a);
    if (t > lag) {
      a.acknowledge(Tick(t - lag));
      b.acknowledge(Tick(t - lag));
    }
  }
}

TEST(ViewRelease, InOrderAcksChangeNoByteAndHoldOnlyTheReach) {
  Movers m;
  SnapshotSender releasing(m.schema, config(0));       // the automatic reach: 16
  SnapshotSender keeping(m.schema, config(kHistory));  // keeps every acknowledged state
  std::size_t most_held = 0;
  // Acks two snapshots late, every one.
  expect_same_bytes(m, releasing, keeping, 400, 2, [&](std::uint32_t t, const std::vector<std::uint8_t>&) {
    if (t > 100) most_held = std::max(most_held, held(releasing, t));
  });
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
  DelayedAcks acks;
  std::size_t decoded = 0;
  for (std::uint32_t t = 1; t <= 600; ++t) {
    m.step(t);
    history.capture(m.world, Tick(t));
    std::vector<std::uint8_t> out;
    sender.encode(history, Tick(t), out);
    // A quarter lost in bursts, acks 1 to 12 ticks late and so out of order.
    if (!lost_in_a_burst(t, rng)) {
      const Tick got = decodes_to_senders_state(receiver, sender, out, m.schema, t);
      ASSERT_FALSE(::testing::Test::HasFailure()) << "seed " << seed;
      ++decoded;
      acks.send(t + 1 + static_cast<std::uint32_t>(rng() % 12), got);
    }
    acks.deliver(t, {&sender});
  }
  EXPECT_GT(decoded, 400U);
  EXPECT_GT(sender.stats().views_released, 0U);
  // Late acks of released states are ignored, not taken as references.
  EXPECT_GT(sender.stats().acks_ignored, 0U);
}

// A round trip longer than the history: every ack names a state already
// overwritten, so none can be a baseline. Once the acks show it, the sender
// keeps no states at all (a whole history of them a client otherwise) and
// every snapshot is a full one that decodes on its own. When the link
// shortens, the first ack in time brings the states back, and with them
// delta snapshots that decode to exactly the states recorded.
TEST(ViewRelease, AcksBeyondTheHistoryKeepNoStatesUntilTheLinkShortens) {
  Movers m;
  SnapshotSender sender(m.schema, config(0));
  SnapshotReceiver receiver(m.schema, receiver_config());
  WorldHistory history(2 * kHistory);
  DelayedAcks acks;
  constexpr std::uint32_t kLong = 100;  // ticks from a snapshot to its ack, beyond the 64 of history
  constexpr std::uint32_t kShortFrom = 600;
  constexpr std::uint32_t kShort = 3;
  std::size_t most_held_while_long = 0;
  std::uint64_t full_while_short = 0;
  for (std::uint32_t t = 1; t <= 900; ++t) {
    m.step(t);
    history.capture(m.world, Tick(t));
    std::vector<std::uint8_t> out;
    const std::uint64_t full_before = sender.stats().full_snapshots;
    sender.encode(history, Tick(t), out);
    const auto got = receiver.receive(out);
    ASSERT_TRUE(got.ok()) << "tick " << t;
    // Kept or not, what the client holds is the world at that tick.
    const WorldState* theirs = receiver.state(got.value());
    ASSERT_TRUE(theirs != nullptr && theirs->same_content(*history.find(Tick(t)), m.schema)) << "tick " << t;
    if (const WorldState* ours = sender.view(Tick(t))) {
      ASSERT_TRUE(theirs->same_content(*ours, m.schema)) << "tick " << t;
    }
    acks.send(t + (t < kShortFrom ? kLong : kShort), got.value());
    acks.deliver(t, {&sender});
    // From the first ack on, until acks from the short link arrive.
    if (t > kLong + 1 && t < kShortFrom + kShort) {
      most_held_while_long = std::max(most_held_while_long, sender.views_held());
      EXPECT_EQ(sender.stats().full_snapshots, full_before + 1) << "tick " << t;
    }
    if (t > kShortFrom + 20) full_while_short += sender.stats().full_snapshots - full_before;
  }
  EXPECT_EQ(most_held_while_long, 0U);
  EXPECT_GT(sender.stats().views_not_kept, 400U);
  // The short link's acks bring deltas back: after the first round trip,
  // no snapshot is a full one, and the states held are bounded by the
  // reach as on any short link.
  EXPECT_EQ(full_while_short, 0U);
  EXPECT_LE(sender.views_held(), 1U + 16U + kShort + 1U);
  EXPECT_GT(sender.views_held(), 0U);
}

// A client that stops answering for a while (no acks at all) tells the
// sender nothing about the round trip: states stay kept, bounded by the
// history, so the first ack after the silence still finds its state.
TEST(ViewRelease, ASilentClientKeepsItsStates) {
  Movers m;
  SenderConfig sc = config(0);
  sc.max_views_in_flight = 0;  // every state in flight kept (ViewThinning bounds them)
  SnapshotSender sender(m.schema, sc);
  WorldHistory history(2 * kHistory);
  for (std::uint32_t t = 1; t <= 400; ++t) {
    m.step(t);
    history.capture(m.world, Tick(t));
    std::vector<std::uint8_t> out;
    sender.encode(history, Tick(t), out);
    // Acks two ticks late, then nothing from tick 100 to tick 399.
    if (t > 2 && t < 100) sender.acknowledge(Tick(t - 2));
  }
  EXPECT_EQ(sender.stats().views_not_kept, 0U);
  EXPECT_EQ(sender.views_held(), kHistory);
  sender.acknowledge(Tick(398));
  EXPECT_EQ(*sender.newest_acked(), Tick(398));
}

// A reference span longer than any state held ranks the states as the
// longest held span does: the oldest acknowledged one within the history,
// found as fast (the search never runs past the history).
TEST(ReferenceChoice, ASpanBeyondTheHistoryTakesTheOldestStateHeld) {
  Movers m;
  SenderConfig far = config(0);
  far.reference_span = 0xFFFF'FFFFU;
  SenderConfig whole = config(0);
  whole.reference_span = kHistory;
  SnapshotSender a(m.schema, far);
  SnapshotSender b(m.schema, whole);
  SnapshotReceiver receiver(m.schema, receiver_config());
  expect_same_bytes(m, a, b, 200, 3, [&](std::uint32_t t, const std::vector<std::uint8_t>& bytes) {
    decodes_to_senders_state(receiver, a, bytes, m.schema, t);
  });
}

SenderConfig thinning(std::uint32_t models_in_flight) {
  SenderConfig sc = config(0);
  sc.max_models_in_flight = models_in_flight;
  sc.max_views_in_flight = 0;  // the states themselves all kept: ViewThinning below
  return sc;
}

// While no more states are in flight than the bound, thinning changes no
// byte.
TEST(ModelThinning, ShortFlightsAreNeverThinned) {
  Movers m;
  SnapshotSender bounded(m.schema, thinning(4));
  SnapshotSender unbounded(m.schema, thinning(0));
  expect_same_bytes(m, bounded, unbounded, 300, 3);  // three in flight, the bound is four
  EXPECT_EQ(bounded.stats().models_thinned, 0U);
}

struct Flight {
  std::uint64_t seed = 0;
  std::size_t decoded = 0;
  std::uint64_t bytes = 0;            // sent by the sender under test
  std::uint64_t unbounded_bytes = 0;  // by the one without its bound
};

// A long, lossy flight for 900 ticks: acks 20 to 40 ticks late, out of
// order, a quarter of the packets lost in bursts, the same to `sender` and
// `unbounded`. Every packet of `sender` that arrives must decode to exactly
// its state, and each of `unbounded` must decode; `each` sees every tick
// once both encoded.
Flight long_lossy_flight(const char* test, Movers& m, SnapshotSender& sender, SnapshotSender& unbounded, bool churn,
                         const std::function<void(std::uint32_t)>& each) {
  Flight f;
  f.seed = testing::test_seed(test);
  std::mt19937_64 rng(f.seed);
  SnapshotReceiver receiver(m.schema, receiver_config());
  SnapshotReceiver unbounded_receiver(m.schema, receiver_config());
  WorldHistory history(2 * kHistory);
  DelayedAcks acks;
  for (std::uint32_t t = 1; t <= 900; ++t) {
    m.step(t, churn);
    history.capture(m.world, Tick(t));
    std::vector<std::uint8_t> out;
    std::vector<std::uint8_t> out_unbounded;
    sender.encode(history, Tick(t), out);
    unbounded.encode(history, Tick(t), out_unbounded);
    f.bytes += out.size();
    f.unbounded_bytes += out_unbounded.size();
    each(t);
    if (!lost_in_a_burst(t, rng)) {
      const Tick got = decodes_to_senders_state(receiver, sender, out, m.schema, t);
      EXPECT_TRUE(unbounded_receiver.receive(out_unbounded).ok()) << "tick " << t;
      if (::testing::Test::HasFailure()) {
        ADD_FAILURE() << "seed " << f.seed;
        return f;
      }
      ++f.decoded;
      acks.send(t + 20 + static_cast<std::uint32_t>(rng() % 21), got);
    }
    acks.deliver(t, {&sender, &unbounded});
  }
  return f;
}

// A long, lossy flight: acks 20 to 40 ticks late, out of order, a quarter
// of the packets lost in bursts. With models on at most four states in
// flight, every snapshot still decodes to exactly the sender's state
// (packets whose baseline gave up its models start from an older state's,
// which the client holds too), and the sender never holds more than the
// four and the state the models come from.
TEST(ModelThinning, LongLossyFlightsDecodeExactlyWithFewModels) {
  Movers m;
  SnapshotSender sender(m.schema, thinning(4));
  SnapshotSender unbounded(m.schema, thinning(0));
  std::size_t most_models = 0;
  const Flight f =
      long_lossy_flight("ModelThinning.LongLossyFlightsDecodeExactlyWithFewModels", m, sender, unbounded, false,
                        [&](std::uint32_t) { most_models = std::max(most_models, sender.states_with_models()); });
  EXPECT_GT(f.decoded, 700U);
  EXPECT_LE(most_models, 4U + 1U);
  EXPECT_GT(unbounded.states_with_models(), 20U);  // the premise: a long flight
  EXPECT_GT(sender.stats().models_thinned, 0U);
  EXPECT_GT(sender.stats().models_from_older, 0U);
  std::printf("seed %llu: %llu bytes with the bound, %llu without; %llu from older, %llu fresh, %llu full %llu\n",
              static_cast<unsigned long long>(f.seed), static_cast<unsigned long long>(f.bytes),
              static_cast<unsigned long long>(f.unbounded_bytes),
              static_cast<unsigned long long>(sender.stats().models_from_older),
              static_cast<unsigned long long>(sender.stats().fresh_models),
              static_cast<unsigned long long>(sender.stats().full_snapshots),
              static_cast<unsigned long long>(unbounded.stats().full_snapshots));
}

// Thinning that leaves no acknowledged state with models within the
// history sends fresh models, which decode as well.
TEST(ModelThinning, NoModelsLeftMeansFreshModels) {
  Movers m;
  SnapshotSender sender(m.schema, thinning(1));
  SnapshotReceiver receiver(m.schema, receiver_config());
  WorldHistory history(2 * kHistory);
  for (std::uint32_t t = 1; t <= 200; ++t) {
    m.step(t);
    history.capture(m.world, Tick(t));
    std::vector<std::uint8_t> out;
    sender.encode(history, Tick(t), out);
    decodes_to_senders_state(receiver, sender, out, m.schema, t);
    ASSERT_FALSE(::testing::Test::HasFailure());
    // Acks only of every tenth state, each 5 ticks late: with one state
    // keeping models, the acked one has mostly given them up.
    if (t > 5 && (t - 5) % 10 == 0) sender.acknowledge(Tick(t - 5));
  }
  EXPECT_GT(sender.stats().models_thinned, 0U);
  EXPECT_GT(sender.stats().fresh_models + sender.stats().models_from_older, 0U);
}

SenderConfig views_in_flight(std::uint32_t bound) {
  SenderConfig sc = config(0);
  sc.max_views_in_flight = bound;
  return sc;
}

// The states held newer than the newest acknowledged one, oldest first.
std::vector<std::uint32_t> in_flight(const SnapshotSender& s, std::uint32_t now) {
  std::vector<std::uint32_t> ticks;
  const std::uint32_t acked = s.newest_acked() ? s.newest_acked()->value() : 0;
  for (std::uint32_t t = std::max(acked + 1, now >= kHistory ? now - kHistory + 1 : 1); t <= now; ++t) {
    if (s.view(Tick(t)) != nullptr) ticks.push_back(t);
  }
  return ticks;
}

// While no more states are in flight than the bound, nothing is thinned
// and no byte changes.
TEST(ViewThinning, ShortFlightsAreNeverThinned) {
  Movers m;
  SnapshotSender bounded(m.schema, views_in_flight(8));
  SnapshotSender unbounded(m.schema, views_in_flight(0));
  expect_same_bytes(m, bounded, unbounded, 300, 6);
  EXPECT_EQ(bounded.stats().views_thinned, 0U);
}

TEST(ViewThinning, ABoundOfOneIsRefused) {
  Movers m;
  EXPECT_THROW(SnapshotSender(m.schema, views_in_flight(1)), std::invalid_argument);
}

// A long, lossy flight (acks 20 to 40 ticks late, out of order, a quarter
// of the packets lost in bursts) with adaptive models: at most 8 states in
// flight, spread over it (no gap between kept states over 4 times the
// longest flight / 8), every snapshot still decodes to exactly the
// sender's state, and the bytes stay near those of keeping every state.
TEST(ViewThinning, LongLossyFlightsDecodeExactlyWithFewStates) {
  Movers m;
  SnapshotSender sender(m.schema, views_in_flight(8));
  SnapshotSender unbounded(m.schema, views_in_flight(0));
  std::size_t most_in_flight = 0;
  std::size_t most_unbounded = 0;
  std::uint32_t widest_gap = 0;
  const Flight f = long_lossy_flight("ViewThinning.LongLossyFlightsDecodeExactlyWithFewStates", m, sender, unbounded,
                                     true, [&](std::uint32_t t) {
                                       const std::vector<std::uint32_t> flight = in_flight(sender, t);
                                       most_in_flight = std::max(most_in_flight, flight.size());
                                       most_unbounded = std::max(most_unbounded, in_flight(unbounded, t).size());
                                       for (std::size_t i = 1; t > 200 && i < flight.size(); ++i) {
                                         widest_gap = std::max(widest_gap, flight[i] - flight[i - 1]);
                                       }
                                     });
  std::printf("seed %llu: %llu bytes with 8 in flight, %llu with all (%zu at most); widest gap %u ticks\n",
              static_cast<unsigned long long>(f.seed), static_cast<unsigned long long>(f.bytes),
              static_cast<unsigned long long>(f.unbounded_bytes), most_unbounded, widest_gap);
  EXPECT_GT(f.decoded, 700U);
  EXPECT_LE(most_in_flight, 8U);
  EXPECT_GT(most_unbounded, 20U);  // the premise: a long flight
  EXPECT_GT(sender.stats().views_thinned, 0U);
  EXPECT_LE(widest_gap, 4U * 40U / 8U);
  EXPECT_LT(static_cast<double>(f.bytes), 1.1 * static_cast<double>(f.unbounded_bytes));
}

}  // namespace
}  // namespace tickwire::snapshot
