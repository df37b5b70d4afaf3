// ConditionedTransport over a scripted fake transport: the link model's
// loss, delay, duplication and reordering applied per direction to the
// unreliable channel, the reliable channel and connection events passed
// through untouched. Counts are checked against the configured figures
// with bounds several standard deviations wide; the seed is printed.

#include "tickwire/transport/conditioned_transport.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <vector>

namespace tickwire::transport {
namespace {

using Type = TransportEvent::Type;

std::uint64_t announce_seed(std::uint64_t seed) {
  std::cout << "[   SEED   ] " << seed << std::endl;
  return seed;
}

struct Sent {
  PeerId peer;
  Delivery delivery;
  std::vector<std::uint8_t> bytes;
  Time at;
};

// Records what is sent through it and hands out the events queued in it.
class FakeTransport final : public Transport {
 public:
  std::vector<Sent>* sent = nullptr;
  std::deque<TransportEvent>* events = nullptr;

  Result<PeerId> connect(const Address&, Time) override { return PeerId(1); }
  Result<void> send(PeerId peer, Delivery delivery, std::span<const std::uint8_t> bytes, Time now) override {
    sent->push_back(Sent{peer, delivery, {bytes.begin(), bytes.end()}, now});
    return {};
  }
  std::optional<TransportEvent> poll(Time) override {
    if (events->empty()) return std::nullopt;
    TransportEvent e = std::move(events->front());
    events->pop_front();
    return e;
  }
  void flush(Time) override {}
  void disconnect(PeerId, DisconnectReason, Time) override {}
  std::optional<PeerStats> stats(PeerId) const override { return PeerStats{}; }
  std::optional<Address> local_address() const override { return Address{"127.0.0.1", 5000}; }
  const TransportLimits& limits() const override { return limits_; }

 private:
  TransportLimits limits_;
};

TransportEvent received(std::uint32_t index, Delivery delivery = Delivery::kUnreliable) {
  TransportEvent e;
  e.type = Type::kReceived;
  e.peer = PeerId(1);
  e.delivery = delivery;
  e.data = {static_cast<std::uint8_t>(index), static_cast<std::uint8_t>(index >> 8),
            static_cast<std::uint8_t>(index >> 16)};
  return e;
}

std::uint32_t index_of(const std::vector<std::uint8_t>& b) {
  return b[0] | (std::uint32_t{b[1]} << 8) | (std::uint32_t{b[2]} << 16);
}

// A conditioned transport over a fake, already connected to peer 1.
struct Rig {
  std::vector<Sent> sent;
  std::deque<TransportEvent> events;
  std::unique_ptr<ConditionedTransport> link;

  explicit Rig(ConditionedConfig config) {
    auto fake = std::make_unique<FakeTransport>();
    fake->sent = &sent;
    fake->events = &events;
    link = std::make_unique<ConditionedTransport>(std::move(fake), config);
    TransportEvent up;
    up.type = Type::kConnected;
    up.peer = PeerId(1);
    events.push_back(up);
    auto e = link->poll(Time());
    if (!e || e->type != Type::kConnected) throw std::logic_error("connection event did not pass through");
  }

  void send(std::uint32_t index, Time now, Delivery delivery = Delivery::kUnreliable) {
    const std::vector<std::uint8_t> bytes = received(index).data;
    if (!link->send(PeerId(1), delivery, bytes, now)) throw std::logic_error("send failed");
  }

  std::vector<TransportEvent> drain(Time now) {
    std::vector<TransportEvent> out;
    while (auto e = link->poll(now)) out.push_back(std::move(*e));
    return out;
  }
};

constexpr int kPackets = 10'000;

TEST(ConditionedTransport, UplinkDropsAboutTheConfiguredFraction) {
  ConditionedConfig config;
  config.seed = announce_seed(11);
  config.up.loss = 0.10;
  Rig rig(config);
  for (int i = 0; i < kPackets; ++i) rig.send(static_cast<std::uint32_t>(i), Time());
  const double delivered = static_cast<double>(rig.sent.size());
  // 10% of 10,000 has a standard deviation of 30 datagrams: allow 5 of them.
  EXPECT_NEAR(kPackets - delivered, 1000.0, 150.0);
  EXPECT_EQ(rig.link->uplink_stats().dropped_loss, kPackets - rig.sent.size());
}

TEST(ConditionedTransport, DownlinkDropsAboutTheConfiguredFraction) {
  ConditionedConfig config;
  config.seed = announce_seed(12);
  config.down.loss = 0.25;
  Rig rig(config);
  for (int i = 0; i < kPackets; ++i) rig.events.push_back(received(static_cast<std::uint32_t>(i)));
  const auto got = rig.drain(Time());
  EXPECT_NEAR(static_cast<double>(kPackets - static_cast<int>(got.size())), 2500.0, 220.0);
  // The uplink is untouched by the downlink's conditions.
  rig.send(1, Time());
  EXPECT_EQ(rig.sent.size(), 1U);
}

TEST(ConditionedTransport, LatencyHoldsASendUntilItsTime) {
  ConditionedConfig config;
  config.up.latency = Duration::millis(50);
  Rig rig(config);
  rig.send(7, Time());
  EXPECT_TRUE(rig.sent.empty());
  rig.drain(Time::from_micros(49'999));
  EXPECT_TRUE(rig.sent.empty()) << "sent before its delivery time";
  rig.drain(Time::from_micros(50'000));
  ASSERT_EQ(rig.sent.size(), 1U);
  EXPECT_EQ(index_of(rig.sent[0].bytes), 7U);
  EXPECT_EQ(rig.sent[0].at, Time::from_micros(50'000));
}

TEST(ConditionedTransport, ConditionsChangedLiveApplyToLaterDatagrams) {
  Rig rig(ConditionedConfig{});
  rig.send(1, Time());
  ASSERT_EQ(rig.sent.size(), 1U);  // a perfect link: out at once
  LinkConditions up;
  up.latency = Duration::millis(30);
  LinkConditions down;
  down.loss = 1.0;
  ASSERT_TRUE(rig.link->set_conditions(up, down).ok());
  EXPECT_EQ(rig.link->up_conditions().latency, Duration::millis(30));
  rig.send(2, Time::from_micros(1'000));
  rig.drain(Time::from_micros(30'999));
  EXPECT_EQ(rig.sent.size(), 1U) << "the new latency did not hold the send";
  rig.drain(Time::from_micros(31'000));
  ASSERT_EQ(rig.sent.size(), 2U);
  EXPECT_EQ(index_of(rig.sent[1].bytes), 2U);
  rig.events.push_back(received(5));
  EXPECT_TRUE(rig.drain(Time::from_micros(40'000)).empty()) << "the new downlink loss let a datagram through";
  // Back to a perfect link.
  ASSERT_TRUE(rig.link->set_conditions({}, {}).ok());
  rig.events.push_back(received(6));
  const auto got = rig.drain(Time::from_micros(41'000));
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(index_of(got[0].data), 6U);
}

TEST(ConditionedTransport, InvalidLiveConditionsAreRefusedAndChangeNothing) {
  Rig rig(ConditionedConfig{});
  LinkConditions bad;
  bad.loss = 1.5;
  const auto result = rig.link->set_conditions(LinkConditions{}, bad);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().detail.find("down"), std::string::npos) << result.error().detail;
  EXPECT_EQ(rig.link->down_conditions().loss, 0.0);
  rig.send(1, Time());
  EXPECT_EQ(rig.sent.size(), 1U);
}

TEST(ConditionedTransport, LatencyHoldsAReceiveUntilItsTime) {
  ConditionedConfig config;
  config.down.latency = Duration::millis(40);
  Rig rig(config);
  rig.events.push_back(received(3));
  // Its delay counts from the poll that took it from the inner transport.
  EXPECT_TRUE(rig.drain(Time()).empty());
  EXPECT_TRUE(rig.drain(Time::from_micros(39'999)).empty());
  const auto got = rig.drain(Time::from_micros(40'000));
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(index_of(got[0].data), 3U);
}

TEST(ConditionedTransport, ServiceBetweenPollsTakesArrivalsWhenTheyHappen) {
  ConditionedConfig config;
  config.up.latency = Duration::millis(20);
  config.down.latency = Duration::millis(20);
  Rig rig(config);
  rig.send(1, Time());
  rig.events.push_back(received(2));
  // A frame of 16 ms polls at 0 and 16 and 32; service() runs in between.
  rig.link->service(Time::from_micros(4'000));
  EXPECT_TRUE(rig.drain(Time::from_micros(16'000)).empty());
  rig.link->service(Time::from_micros(20'000));
  ASSERT_EQ(rig.sent.size(), 1U) << "the uplink released on time by service()";
  EXPECT_EQ(rig.sent[0].at, Time::from_micros(20'000));
  const auto got = rig.drain(Time::from_micros(24'000));
  ASSERT_EQ(got.size(), 1U) << "delay counted from the service() that took it, not the next poll";
  EXPECT_EQ(index_of(got[0].data), 2U);
}

TEST(ConditionedTransport, WithoutDelayEverythingKeepsItsArrivalOrder) {
  Rig rig(ConditionedConfig{});
  rig.events.push_back(received(1));
  rig.events.push_back(received(2, Delivery::kReliableOrdered));
  rig.events.push_back(received(3));
  const auto got = rig.drain(Time());
  ASSERT_EQ(got.size(), 3U);
  for (std::uint32_t i = 0; i < 3; ++i) EXPECT_EQ(index_of(got[i].data), i + 1);
}

TEST(ConditionedTransport, DuplicatesAppear) {
  ConditionedConfig config;
  config.seed = announce_seed(13);
  config.up.duplicate = 0.2;
  config.down.duplicate = 0.2;
  Rig rig(config);
  for (int i = 0; i < kPackets; ++i) rig.send(static_cast<std::uint32_t>(i), Time());
  rig.drain(Time::from_micros(1'000'000));
  EXPECT_NEAR(static_cast<double>(rig.sent.size() - kPackets), 2000.0, 250.0);
  for (int i = 0; i < 1000; ++i) rig.events.push_back(received(static_cast<std::uint32_t>(i)));
  EXPECT_GT(rig.drain(Time::from_micros(2'000'000)).size(), 1100U);
}

TEST(ConditionedTransport, NothingArrivesBeforeItsTimeUnderJitterAndReordering) {
  ConditionedConfig config;
  config.seed = announce_seed(14);
  config.up.latency = Duration::millis(30);
  config.up.jitter = Duration::millis(20);
  config.up.reorder = 0.1;
  Rig rig(config);
  // One send per millisecond; each is stamped with the millisecond it left.
  for (std::uint32_t ms = 0; ms < 2000; ++ms) {
    const Time now = Time::from_micros(std::int64_t{ms} * 1000);
    rig.drain(now);
    rig.send(ms, now);
  }
  rig.drain(Time::from_micros(10'000'000));
  ASSERT_EQ(rig.sent.size(), 2000U);
  bool out_of_order = false;
  for (std::size_t i = 0; i < rig.sent.size(); ++i) {
    const std::int64_t sent_ms = index_of(rig.sent[i].bytes);
    EXPECT_GE(rig.sent[i].at.micros(), (sent_ms + 10) * 1000) << "datagram " << sent_ms << " arrived early";
    if (i > 0 && index_of(rig.sent[i].bytes) < index_of(rig.sent[i - 1].bytes)) out_of_order = true;
  }
  EXPECT_TRUE(out_of_order) << "reordering never happened";
}

TEST(ConditionedTransport, ReliableMessagesPassUnconditioned) {
  ConditionedConfig config;
  config.up.loss = 1.0;
  config.down.loss = 1.0;
  config.up.latency = Duration::millis(500);
  Rig rig(config);
  rig.send(1, Time(), Delivery::kReliableOrdered);
  ASSERT_EQ(rig.sent.size(), 1U);
  EXPECT_EQ(rig.sent[0].delivery, Delivery::kReliableOrdered);
  rig.events.push_back(received(2, Delivery::kReliableOrdered));
  rig.events.push_back(received(3));
  const auto got = rig.drain(Time());
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].delivery, Delivery::kReliableOrdered);
}

TEST(ConditionedTransport, RefusesWhatTheInnerTransportWouldRefuse) {
  Rig rig(ConditionedConfig{});
  const std::vector<std::uint8_t> huge(rig.link->limits().max_unreliable_payload + 1);
  auto r = rig.link->send(PeerId(1), Delivery::kUnreliable, huge, Time());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kTooLarge);
  const std::vector<std::uint8_t> small{1, 2, 3};
  r = rig.link->send(PeerId(9), Delivery::kUnreliable, small, Time());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kNotConnected);
}

TEST(ConditionedTransport, ADisconnectPassesThroughAndDiscardsWhatIsHeld) {
  ConditionedConfig config;
  config.up.latency = Duration::millis(100);
  config.down.latency = Duration::millis(100);
  Rig rig(config);
  rig.send(1, Time());
  rig.events.push_back(received(2));
  EXPECT_TRUE(rig.drain(Time()).empty());
  EXPECT_EQ(rig.link->held(), 2U);
  TransportEvent gone;
  gone.type = Type::kDisconnected;
  gone.peer = PeerId(1);
  gone.reason = DisconnectReason::kTimeout;
  rig.events.push_back(gone);
  const auto got = rig.drain(Time::from_micros(1000));
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].type, Type::kDisconnected);
  EXPECT_EQ(got[0].reason, DisconnectReason::kTimeout);
  EXPECT_EQ(rig.link->held(), 0U);
  EXPECT_TRUE(rig.drain(Time::from_micros(1'000'000)).empty());
  EXPECT_TRUE(rig.sent.empty());
}

TEST(ConditionedTransport, TheSameSeedGivesTheSameFates) {
  const auto run = [](std::uint64_t seed) {
    ConditionedConfig config;
    config.seed = seed;
    config.up.loss = 0.3;
    Rig rig(config);
    for (std::uint32_t i = 0; i < 500; ++i) rig.send(i, Time());
    std::vector<std::uint32_t> kept;
    for (const Sent& s : rig.sent) kept.push_back(index_of(s.bytes));
    return kept;
  };
  EXPECT_EQ(run(announce_seed(5)), run(5));
  EXPECT_NE(run(5), run(6));
}

TEST(ConditionedTransport, RejectsBadConditions) {
  ConditionedConfig config;
  config.down.loss = 1.5;
  EXPECT_THROW(ConditionedTransport(std::make_unique<FakeTransport>(), config), std::invalid_argument);
  EXPECT_THROW(ConditionedTransport(nullptr, ConditionedConfig{}), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire::transport
