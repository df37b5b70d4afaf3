// Measures what SimNetwork's links do against what LinkConditions asked
// for. Each test connects two endpoints over a perfect link, then applies
// the conditions and streams numbered unreliable datagrams through them.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "tickwire/transport/link_model.h"
#include "tickwire/transport/sim_network.h"

namespace tickwire::transport {
namespace {

std::uint64_t announce_seed(std::uint64_t seed) {
  std::cout << "[   SEED   ] " << seed << std::endl;
  return seed;
}

std::vector<std::uint8_t> numbered(std::uint32_t seq, std::size_t size) {
  std::vector<std::uint8_t> bytes(std::max<std::size_t>(size, 4), 0xAB);
  for (std::size_t i = 0; i < 4; ++i) bytes[i] = static_cast<std::uint8_t>(seq >> (8 * i));
  return bytes;
}

std::uint32_t number_of(const std::vector<std::uint8_t>& bytes) {
  std::uint32_t seq = 0;
  for (std::size_t i = 0; i < 4 && i < bytes.size(); ++i) seq |= std::uint32_t{bytes[i]} << (8 * i);
  return seq;
}

// Two connected endpoints, a and b, on one seeded network.
class Harness {
 public:
  explicit Harness(std::uint64_t seed) : net(announce_seed(seed)) {
    ta = net.create_endpoint(a);
    tb = net.create_endpoint(b);
    auto id = ta->connect(b, now);
    EXPECT_TRUE(id.ok());
    for (int i = 0; i < 1000 && !(a_to_b && b_to_a); ++i) {
      now += Duration::millis(1);
      for (auto& e : drain(*ta))
        if (e.type == TransportEvent::Type::kConnected) a_to_b = e.peer;
      for (auto& e : drain(*tb))
        if (e.type == TransportEvent::Type::kConnected) b_to_a = e.peer;
    }
    EXPECT_TRUE(a_to_b && b_to_a);
  }

  std::vector<TransportEvent> drain(Transport& t) {
    std::vector<TransportEvent> events;
    while (auto e = t.poll(now)) events.push_back(std::move(*e));
    return events;
  }

  // Sends `count` numbered datagrams a -> b, `batch` of them every `gap`,
  // polls both sides after each batch, then waits `settle`; returns the
  // numbers b received, in arrival order, duplicates included.
  std::vector<std::uint32_t> stream(std::uint32_t count, Duration gap, std::size_t size = 32,
                                    Duration settle = Duration::seconds(1), std::uint32_t batch = 1) {
    std::vector<std::uint32_t> received;
    auto collect = [&] {
      for (auto& e : drain(*tb)) {
        if (e.type == TransportEvent::Type::kReceived) received.push_back(number_of(e.data));
      }
      drain(*ta);
    };
    for (std::uint32_t i = 0; i < count; ++i) {
      EXPECT_TRUE(ta->send(*a_to_b, Delivery::kUnreliable, numbered(i, size), now).ok());
      if ((i + 1) % batch != 0) continue;
      now += gap;
      collect();
    }
    for (Time end = now + settle; now < end;) {
      now += Duration::millis(10);
      collect();
    }
    return received;
  }

  SimNetwork net;
  Address a{"10.0.0.1", 1000};
  Address b{"10.0.0.2", 2000};
  Time now;
  std::unique_ptr<Transport> ta;
  std::unique_ptr<Transport> tb;
  std::optional<PeerId> a_to_b;
  std::optional<PeerId> b_to_a;
};

std::size_t distinct(std::vector<std::uint32_t> seqs) {
  std::sort(seqs.begin(), seqs.end());
  return static_cast<std::size_t>(std::unique(seqs.begin(), seqs.end()) - seqs.begin());
}

// Mean length of runs of consecutive missing numbers in [0, count).
double mean_loss_run(const std::vector<std::uint32_t>& received, std::uint32_t count) {
  std::vector<bool> got(count, false);
  for (auto s : received) got[s] = true;
  std::size_t runs = 0;
  std::size_t missing = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    if (got[i]) continue;
    ++missing;
    if (i == 0 || got[i - 1]) ++runs;
  }
  return runs == 0 ? 0.0 : static_cast<double>(missing) / static_cast<double>(runs);
}

// Datagrams that arrive after one with a higher number (first arrivals only).
std::size_t overtaken(const std::vector<std::uint32_t>& received) {
  std::size_t count = 0;
  std::uint32_t highest = 0;
  std::set<std::uint32_t> seen;
  for (auto s : received) {
    if (!seen.insert(s).second) continue;  // a duplicate copy
    if (s < highest) ++count;
    highest = std::max(highest, s);
  }
  return count;
}

TEST(SimConditions, UniformLossMatchesSetting) {
  Harness h(101);
  LinkConditions c;
  c.loss = 0.10;
  h.net.set_link(h.a, h.b, c);
  constexpr std::uint32_t kCount = 20000;
  const auto received = h.stream(kCount, Duration::millis(10), 32, Duration::seconds(1), 20);
  const double lost = 1.0 - static_cast<double>(distinct(received)) / kCount;
  EXPECT_NEAR(lost, 0.10, 0.01);
  const SimLinkStats s = h.net.stats(h.a, h.b);
  EXPECT_NEAR(static_cast<double>(s.dropped_loss) / static_cast<double>(s.sent), 0.10, 0.01);
}

TEST(SimConditions, LatencyAndJitterFollowTheTriangularDistribution) {
  Harness h(102);
  std::vector<TraceEntry> trace;
  h.net.set_trace(&trace);
  LinkConditions c;
  c.latency = Duration::millis(50);
  c.jitter = Duration::millis(20);
  h.net.set_link(h.a, h.b, c);
  // Spaced wider than the jitter spread, so FIFO order adds no delay, except
  // to a datagram sent right behind a keep-alive ping: those are left out.
  h.stream(4000, Duration::millis(50));
  std::vector<double> delays;
  std::optional<Time> previous;
  for (const auto& t : trace) {
    if (t.from != h.a) continue;
    const bool queued_behind = previous && t.sent - *previous < c.jitter * 2;
    previous = t.sent;
    if (t.delivered && !queued_behind) delays.push_back((*t.delivered - t.sent).millis_f());
  }
  ASSERT_GT(delays.size(), 3000U);
  double sum = 0;
  for (double d : delays) sum += d;
  const double mean = sum / static_cast<double>(delays.size());
  double var = 0;
  for (double d : delays) var += (d - mean) * (d - mean);
  const double stddev = std::sqrt(var / static_cast<double>(delays.size()));
  EXPECT_NEAR(mean, 50.0, 1.0);
  EXPECT_NEAR(stddev, 20.0 / std::sqrt(6.0), 0.8);
  EXPECT_GE(*std::min_element(delays.begin(), delays.end()), 30.0);
  EXPECT_LE(*std::max_element(delays.begin(), delays.end()), 70.0);
}

TEST(SimConditions, BurstyLossMakesLongerRunsThanUniformAtTheSameAverage) {
  constexpr std::uint32_t kCount = 20000;
  Harness uniform(103);
  LinkConditions u;
  u.loss = 0.10;
  uniform.net.set_link(uniform.a, uniform.b, u);
  const auto got_uniform = uniform.stream(kCount, Duration::millis(10), 32, Duration::seconds(1), 20);

  Harness bursty(104);
  LinkConditions g;
  g.burst_enter = 0.02;  // bad 10% of the time, spells of 1 / 0.18 = 5.6 datagrams
  g.burst_exit = 0.18;
  g.burst_loss = 1.0;
  bursty.net.set_link(bursty.a, bursty.b, g);
  const auto got_bursty = bursty.stream(kCount, Duration::millis(10), 32, Duration::seconds(1), 20);

  const double loss_uniform = 1.0 - static_cast<double>(distinct(got_uniform)) / kCount;
  const double loss_bursty = 1.0 - static_cast<double>(distinct(got_bursty)) / kCount;
  EXPECT_NEAR(loss_uniform, 0.10, 0.01);
  // Bursts correlate the losses, so the average wanders about three times
  // as far as uniform loss does over the same count.
  EXPECT_NEAR(loss_bursty, 0.10, 0.03);
  const double run_uniform = mean_loss_run(got_uniform, kCount);
  const double run_bursty = mean_loss_run(got_bursty, kCount);
  EXPECT_NEAR(run_uniform, 1.0 / 0.9, 0.1);
  EXPECT_GT(run_bursty, 4.0);
  EXPECT_GT(run_bursty, 3.0 * run_uniform);
}

TEST(SimConditions, DuplicationRateMatchesSetting) {
  Harness h(105);
  LinkConditions c;
  c.duplicate = 0.2;
  c.latency = Duration::millis(10);
  c.jitter = Duration::millis(5);
  h.net.set_link(h.a, h.b, c);
  constexpr std::uint32_t kCount = 10000;
  const auto received = h.stream(kCount, Duration::millis(10), 32, Duration::seconds(1), 10);
  EXPECT_EQ(distinct(received), kCount);
  EXPECT_NEAR(static_cast<double>(received.size()) / kCount, 1.2, 0.02);
  const SimLinkStats s = h.net.stats(h.a, h.b);
  EXPECT_NEAR(static_cast<double>(s.duplicated) / static_cast<double>(s.sent), 0.2, 0.02);
}

TEST(SimConditions, ReorderingHappensOnlyWhenSet) {
  Harness plain(106);
  LinkConditions c;
  c.latency = Duration::millis(50);
  c.jitter = Duration::millis(20);  // jitter alone keeps the order
  plain.net.set_link(plain.a, plain.b, c);
  const auto in_order = plain.stream(5000, Duration::millis(5), 32, Duration::seconds(1), 5);
  EXPECT_EQ(overtaken(in_order), 0U);
  EXPECT_EQ(plain.net.stats(plain.a, plain.b).reordered, 0U);

  Harness shuffled(107);
  c.reorder = 0.1;
  c.reorder_delay = Duration::millis(30);
  shuffled.net.set_link(shuffled.a, shuffled.b, c);
  const auto out_of_order = shuffled.stream(5000, Duration::millis(5), 32, Duration::seconds(1), 5);
  EXPECT_EQ(distinct(out_of_order), 5000U);
  EXPECT_NEAR(static_cast<double>(overtaken(out_of_order)) / 5000.0, 0.1, 0.02);
  EXPECT_NEAR(static_cast<double>(shuffled.net.stats(shuffled.a, shuffled.b).reordered) /
                  static_cast<double>(shuffled.net.stats(shuffled.a, shuffled.b).sent),
              0.1, 0.02);
}

TEST(SimConditions, DatagramsOverTheMtuAreDroppedAndCounted) {
  Harness h(108);
  LinkConditions c;
  c.mtu = 500;
  h.net.set_link(h.a, h.b, c);
  const auto small = h.stream(10, Duration::millis(1), 400);
  EXPECT_EQ(small.size(), 10U);
  const auto large = h.stream(10, Duration::millis(1), 600);
  EXPECT_TRUE(large.empty());
  EXPECT_EQ(h.net.stats(h.a, h.b).dropped_mtu, 10U);
}

TEST(SimConditions, BandwidthCapLimitsThroughput) {
  Harness h(109);
  LinkConditions c;
  c.bandwidth_bytes_per_second = 100'000;
  h.net.set_link(h.a, h.b, c);
  const SimLinkStats before = h.net.stats(h.a, h.b);
  const Time start = h.now;
  // 1000 bytes every 5 ms offers twice the cap for 10 s.
  h.stream(2000, Duration::millis(5), 1000, Duration::zero());
  const SimLinkStats after = h.net.stats(h.a, h.b);
  const double seconds = (h.now - start).seconds_f();
  const double rate = static_cast<double>(after.bytes_delivered - before.bytes_delivered) / seconds;
  EXPECT_NEAR(rate, 100'000.0, 5'000.0);
  EXPECT_GT(after.dropped_queue, 0U);

  // Once the queue has drained, nothing under the cap is dropped.
  h.stream(0, Duration::millis(5), 1000, Duration::seconds(2));
  const auto below = h.stream(200, Duration::millis(20), 1000);
  EXPECT_EQ(distinct(below), 200U);
}

TEST(SimConditions, LinksAreAsymmetric) {
  Harness h(110);
  LinkConditions forward;
  forward.latency = Duration::millis(30);
  LinkConditions backward;
  backward.latency = Duration::millis(80);
  h.net.set_link(h.a, h.b, forward);
  h.net.set_link(h.b, h.a, backward);
  const SimLinkStats ab0 = h.net.stats(h.a, h.b);
  const SimLinkStats ba0 = h.net.stats(h.b, h.a);
  h.stream(500, Duration::millis(10));
  const SimLinkStats ab = h.net.stats(h.a, h.b);
  const SimLinkStats ba = h.net.stats(h.b, h.a);
  ASSERT_GT(ba.delivered, ba0.delivered);  // pongs and pings flow back
  EXPECT_EQ((ab.total_delay - ab0.total_delay) / static_cast<std::int64_t>(ab.delivered - ab0.delivered),
            Duration::millis(30));
  EXPECT_EQ((ba.total_delay - ba0.total_delay) / static_cast<std::int64_t>(ba.delivered - ba0.delivered),
            Duration::millis(80));
  EXPECT_EQ(h.net.link(h.a, h.b).latency, Duration::millis(30));
  EXPECT_EQ(h.net.link(h.b, h.a).latency, Duration::millis(80));
}

TEST(SimConditions, ScriptedLatencyStepAppliesFromItsTime) {
  Harness h(111);
  std::vector<TraceEntry> trace;
  h.net.set_trace(&trace);
  LinkConditions c;
  c.latency = Duration::millis(20);
  h.net.set_link(h.a, h.b, c);
  const Time step = Time::from_micros(0) + Duration::seconds(180);
  h.net.schedule(step, [&h](SimNetwork& net) {
    LinkConditions slower = net.link(h.a, h.b);
    slower.latency = Duration::millis(120);
    net.set_link(h.a, h.b, slower);
  });
  h.stream(2000, Duration::millis(100));
  ASSERT_GT(h.now, step);
  std::size_t before = 0;
  std::size_t after = 0;
  for (const auto& t : trace) {
    if (t.from != h.a || !t.delivered) continue;
    const Duration delay = *t.delivered - t.sent;
    if (t.sent < step) {
      EXPECT_EQ(delay, Duration::millis(20));
      ++before;
    } else {
      EXPECT_EQ(delay, Duration::millis(120));
      ++after;
    }
  }
  EXPECT_GT(before, 1000U);
  EXPECT_GT(after, 100U);
}

TEST(SimConditions, DelaySpikesStallTheLink) {
  Harness h(112);
  std::vector<TraceEntry> trace;
  h.net.set_trace(&trace);
  LinkConditions c;
  c.latency = Duration::millis(10);
  c.delay_spike_rate = 0.002;
  c.delay_spike_min = Duration::millis(100);
  c.delay_spike_max = Duration::millis(300);
  h.net.set_link(h.a, h.b, c);
  const auto received = h.stream(5000, Duration::millis(2));
  EXPECT_EQ(overtaken(received), 0U);
  Duration worst;
  std::size_t delayed = 0;
  for (const auto& t : trace) {
    if (t.from != h.a || !t.delivered) continue;
    const Duration delay = *t.delivered - t.sent;
    worst = std::max(worst, delay);
    if (delay >= Duration::millis(100)) ++delayed;
  }
  EXPECT_LE(worst, Duration::millis(310));
  EXPECT_GE(worst, Duration::millis(100));
  // A stall holds up the datagrams queued behind it, so far more are late
  // than the 0.2% that drew a spike.
  EXPECT_GT(delayed, 50U);
}

TEST(SimConditions, ParetoDelaySpikesHaveAHeavyTailUpToTheCap) {
  LinkConditions c;
  c.latency = Duration::millis(10);
  c.delay_spike_rate = 1.0;  // every datagram, so each delay is one draw
  c.delay_spike_min = Duration::millis(5);
  c.delay_spike_max = Duration::millis(50);
  c.delay_spike_pareto_shape = 1.5;
  // One link on its own, fed further apart than the longest spike: no
  // datagram waits behind another, so each delay is exactly its own draw.
  SimLink link;
  SimRng rng(announce_seed(114));
  std::vector<double> extra_ms;
  Time now;
  for (int i = 0; i < 20000; ++i) {
    now += Duration::millis(60);
    const LinkVerdict v = link.admit(c, rng, now, 100);
    ASSERT_EQ(v.fate, SimFate::kDelivered);
    extra_ms.push_back((v.deliver - now - c.latency).millis_f());
    link.on_delivered(now, v.deliver, 100);
  }
  const auto share_above = [&](double ms) {
    const auto n = std::count_if(extra_ms.begin(), extra_ms.end(), [&](double e) { return e > ms; });
    return static_cast<double>(n) / static_cast<double>(extra_ms.size());
  };
  EXPECT_GE(*std::min_element(extra_ms.begin(), extra_ms.end()), 5.0);
  EXPECT_LE(*std::max_element(extra_ms.begin(), extra_ms.end()), 50.0);
  // P(length > x) = (5 / x)^1.5: 35% above 10 ms, 12.5% above 20 ms, and
  // the 3.2% that would go beyond 50 ms held at the cap.
  EXPECT_NEAR(share_above(10.0), std::pow(0.5, 1.5), 0.015);
  EXPECT_NEAR(share_above(20.0), std::pow(0.25, 1.5), 0.01);
  EXPECT_NEAR(share_above(49.999), std::pow(0.1, 1.5), 0.005);
}

// A datagram the link delivered from a (the stream's and the endpoints'
// own), in send order: its send time after the first traced, its delay.
struct Sent {
  Duration at;  // after the first traced
  Duration delay;
};

// Streams `count` datagrams a -> b, one every `gap`, over a link of 20 ms
// and whatever `shape` adds, and returns what the link delivered from a.
std::vector<Sent> stream_delays(std::uint64_t seed, const std::function<void(LinkConditions&)>& shape,
                                std::uint32_t count, Duration gap) {
  Harness h(seed);
  std::vector<TraceEntry> trace;
  h.net.set_trace(&trace);
  LinkConditions c;
  c.latency = Duration::millis(20);
  shape(c);
  h.net.set_link(h.a, h.b, c);
  h.stream(count, gap);
  std::vector<Sent> out;
  std::optional<Time> first;
  for (const auto& t : trace) {
    if (t.from != h.a) continue;
    if (!first) first = t.sent;
    if (t.delivered) out.push_back({t.sent - *first, *t.delivered - t.sent});
  }
  return out;
}

TEST(SimConditions, RisingDelayClimbsOverEachPeriodThenDrops) {
  const auto rise = [](LinkConditions& c) {
    c.rise_delay = Duration::millis(100);
    c.rise_period = Duration::seconds(10);
  };
  const auto sent = stream_delays(114, rise, 250, Duration::millis(100));  // 25 s: two drops
  ASSERT_GT(sent.size(), 240U);
  std::size_t drops = 0;
  Duration highest = Duration::zero();
  // The link's first datagram was the handshake's, before the trace: the
  // first traced one's extra delay says how long before (10 us a ms).
  const std::int64_t origin_us = (sent[0].delay - Duration::millis(20)).micros() * 100;
  ASSERT_LT(origin_us, 100'000);
  for (std::size_t i = 0; i < sent.size(); ++i) {
    // 20 ms, and 10 ms more for each second into the period.
    const std::int64_t into_us = (sent[i].at.micros() + origin_us) % 10'000'000;
    const Duration expected = Duration::millis(20) + Duration::micros(into_us / 100);
    EXPECT_LE(std::abs((sent[i].delay - expected).micros()), 1) << i << " at " << sent[i].at.micros() << " us";
    highest = std::max(highest, sent[i].delay);
    if (i > 0 && sent[i].delay < sent[i - 1].delay) ++drops;
  }
  EXPECT_EQ(drops, 2U);
  EXPECT_GE(highest, Duration::millis(118));
}

TEST(SimConditions, AFlappingRouteSwitchesBetweenTwoDelaysEachPeriod) {
  const auto flap = [](LinkConditions& c) {
    c.flap_delay = Duration::millis(60);
    c.flap_period = Duration::seconds(5);
  };
  // 22 s: longer in 5-10 s and 15-20 s.
  const auto sent = stream_delays(115, flap, 440, Duration::millis(50));
  ASSERT_GT(sent.size(), 430U);
  std::size_t longer = 0;
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const bool long_route = (sent[i].at.micros() / 5'000'000) % 2 == 1;
    longer += long_route ? 1U : 0U;
    if (long_route) {
      EXPECT_EQ(sent[i].delay, Duration::millis(80)) << i;
      continue;
    }
    // Back on the short route, a datagram may still queue behind the
    // last one sent on the long route (first in, first out).
    const Time arrives = Time::from_micros(0) + sent[i].at + sent[i].delay;
    const Time behind = i > 0 ? Time::from_micros(0) + sent[i - 1].at + sent[i - 1].delay : arrives;
    EXPECT_TRUE(sent[i].delay == Duration::millis(20) || (sent[i].delay > Duration::millis(20) && arrives == behind))
        << i << ": " << sent[i].delay.micros() << " us";
  }
  EXPECT_GT(longer, 190U);
  EXPECT_LT(longer, sent.size() - 190U);
}

TEST(SimConditions, ValidateRejectsNonsense) {
  EXPECT_TRUE(LinkConditions{}.validate().ok());
  LinkConditions negative;
  negative.latency = Duration::millis(-1);
  EXPECT_FALSE(negative.validate().ok());
  LinkConditions nan;
  nan.loss = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(nan.validate().ok());
  LinkConditions over;
  over.duplicate = 1.5;
  EXPECT_FALSE(over.validate().ok());
  LinkConditions spikes;
  spikes.delay_spike_min = Duration::millis(10);
  EXPECT_FALSE(spikes.validate().ok());
  EXPECT_EQ(over.validate().error().code, ErrorCode::kInvalidArgument);
  LinkConditions pareto;
  pareto.delay_spike_min = Duration::millis(10);
  pareto.delay_spike_max = Duration::millis(100);
  pareto.delay_spike_pareto_shape = 1.2;
  EXPECT_TRUE(pareto.validate().ok());
  for (const double bad : {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    LinkConditions shape = pareto;
    shape.delay_spike_pareto_shape = bad;
    EXPECT_FALSE(shape.validate().ok()) << bad;
  }
  LinkConditions no_scale = pareto;
  no_scale.delay_spike_min = Duration::zero();
  EXPECT_FALSE(no_scale.validate().ok());
  LinkConditions rise_without_period;
  rise_without_period.rise_delay = Duration::millis(50);
  EXPECT_FALSE(rise_without_period.validate().ok());
  LinkConditions flap_without_period;
  flap_without_period.flap_delay = Duration::millis(50);
  EXPECT_FALSE(flap_without_period.validate().ok());
  LinkConditions negative_period;
  negative_period.flap_period = Duration::millis(-5);
  EXPECT_FALSE(negative_period.validate().ok());

  SimNetwork net(announce_seed(113));
  EXPECT_THROW(net.set_link({"x", 1}, {"y", 2}, nan), std::invalid_argument);
  EXPECT_THROW(net.set_default_link(negative), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::transport
