// A hostile client in a match over SimNetwork: it claims ticks far in the
// future, sends inputs whose codes lie outside their ranges (the only way
// to say NaN, infinity or "faster than allowed" on this wire), and garbage.
// Its inputs must all be refused, and the honest clients must not notice.

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "sim_match.h"
#include "test_seed.h"
#include "tickwire/core/bit_stream.h"
#include "tickwire/core/packet_channel.h"
#include "tickwire/core/packet_header.h"
#include "tickwire/prediction/input_packet.h"

namespace tickwire::prediction {
namespace {

using snapshot::Vec2;

#ifdef NDEBUG
constexpr int kRunSeconds = 60;
#else
constexpr int kRunSeconds = 15;  // under sanitizers; the Release suite plays a minute
#endif

struct Hostile {
  std::unique_ptr<transport::Transport> endpoint;
  std::optional<PeerId> server;
  bool connected = false;
  PacketChannel channel;
  Time next_send;
  std::uint64_t sent = 0;
};

void send(Hostile& h, BitWriter& w, Time now) {
  (void)h.endpoint->send(*h.server, transport::Delivery::kUnreliable, w.data(), now);
  ++h.sent;
}

TEST(PredictionSimAdversarial, AHostileClientIsRefusedWhileOthersPlayOn) {
  testing::MatchSetup m;
  m.seed = 5150;
  m.link.latency = Duration::millis(75);
  m.link.loss = 0.05;
  std::printf("seed %llu, rtt 150 ms, loss 5%%\n", static_cast<unsigned long long>(m.seed));
  const testing::TestSchema schema;
  testing::SimMatch match(m, 2, [&schema](std::size_t client, Tick t, snapshot::Record& r) {
    const float a = static_cast<float>(t.value() / 40 + client) * 1.3F;
    r.set(schema.move, Vec2{std::cos(a), std::sin(a)});
    r.set(schema.fire, t.value() % 50 == 0);
  });
  std::mt19937_64 rng(::tickwire::testing::test_seed("AHostileClientIsRefusedWhileOthersPlayOn garbage"));

  Hostile h;
  transport::SimEndpointConfig ec;
  ec.max_peers = 1;
  h.endpoint = match.net().create_endpoint(transport::Address{"hostile", 6000}, ec);
  h.server = h.endpoint->connect(match.server_address(), match.now()).value();
  const auto& s = match.schema();
  match.extra_step = [&](Time now) {
    while (auto e = h.endpoint->poll(now)) {
      if (e->type == transport::TransportEvent::Type::kConnected) h.connected = true;
    }
    if (!h.connected || now < h.next_send) return;
    h.next_send = now + Duration::millis(16);
    const Tick server_tick = match.server_time(now).tick();
    // 1. Well-formed inputs for ticks far in the future: full stick, every tick.
    {
      InputPacket p;
      p.first_tick = server_tick + 1000;
      snapshot::Record r(s.schema, s.input);
      r.set(s.move, Vec2{1, 1});
      r.set(s.fire, true);
      p.inputs.assign(kMaxInputsPerPacket, r);
      BitWriter w(1200);
      PacketHeader header = h.channel.next_header(PacketType::kInput, now);
      serialize(w, header);
      serialize_input_packet(w, p, s.schema, s.input);
      send(h, w, now);
    }
    // 2. Inputs for the right ticks whose codes are past the top of their
    //    range: a stick at 1e30, or NaN, as this wire can put it.
    {
      BitWriter w(1200);
      PacketHeader header = h.channel.next_header(PacketType::kInput, now);
      serialize(w, header);
      std::uint32_t first = (server_tick + 3).value();
      std::uint32_t count = 0;
      bool has_ack = false;
      std::uint32_t x = 255;  // the range's top code is 254
      std::uint32_t y = 255;
      std::uint32_t fire = 1;
      w.bits(first, 32);
      w.bits(count, 6);
      w.boolean(has_ack);
      w.bits(x, 8);
      w.bits(y, 8);
      w.bits(fire, 1);
      send(h, w, now);
    }
    // 3. Garbage after a valid header, and garbage alone.
    {
      BitWriter w(1200);
      PacketHeader header = h.channel.next_header(PacketType::kInput, now);
      serialize(w, header);
      for (std::uint64_t i = 0, n = rng() % 40; i < n; ++i) {
        std::uint32_t b = static_cast<std::uint32_t>(rng() & 0xFF);
        w.bits(b, 8);
      }
      send(h, w, now);
      std::vector<std::uint8_t> junk(1 + rng() % 100);
      for (auto& b : junk) b = static_cast<std::uint8_t>(rng());
      (void)h.endpoint->send(*h.server, transport::Delivery::kUnreliable, junk, now);
    }
  };

  match.run_for(Duration::seconds(kRunSeconds));

  const auto* hostile = match.remote(PlayerId{200});
  ASSERT_NE(hostile, nullptr);
  const InputQueueStats& q = hostile->queue.stats();
  std::printf(
      "hostile: %llu packets sent, %llu bad, %llu inputs too far ahead, %llu accepted; %llu of %llu ticks "
      "consumed with the stand-in\n",
      static_cast<unsigned long long>(h.sent), static_cast<unsigned long long>(hostile->bad_packets),
      static_cast<unsigned long long>(q.too_far_ahead), static_cast<unsigned long long>(q.accepted),
      static_cast<unsigned long long>(q.missing), static_cast<unsigned long long>(q.consumed));
  EXPECT_GT(h.sent, static_cast<std::uint64_t>(kRunSeconds) * 150);
  EXPECT_EQ(q.accepted, 0U);
  // Every far-ahead input is refused: counted by the queue, or dropped with
  // its packet as stale. The hostile's own junk sometimes decodes whole as
  // a packet from far along its sequence space (the header is short), which
  // moves its receive window; its next packets are then stale before their
  // inputs are looked at. Either way nothing is accepted (above).
  const std::uint64_t stale_inputs = hostile->channel.stats().stale * kMaxInputsPerPacket;
  std::printf("hostile: %llu packets dropped as stale\n",
              static_cast<unsigned long long>(hostile->channel.stats().stale));
  EXPECT_GT(q.too_far_ahead + stale_inputs, static_cast<std::uint64_t>(kRunSeconds) * 3000);
  EXPECT_GT(hostile->bad_packets, static_cast<std::uint64_t>(kRunSeconds) * 100);
  EXPECT_EQ(q.missing, q.consumed);
  EXPECT_EQ(hostile->queue.pending(), 0U);
  // Never simulated with its claims: the hostile avatar has not moved and never fired.
  EXPECT_EQ(match.server_world().get(hostile->avatar, s.velocity), (Vec2{0, 0}));
  for (EntityId shot : match.server_world().entities(s.projectile)) {
    EXPECT_NE(match.server_world().get(shot, s.shot_key.owner), 200);
  }

  for (const auto& c : match.clients()) {
    const auto* r = match.remote(c.player);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(c.prediction->stats().mispredictions, 0U) << c.index;
    EXPECT_EQ(r->queue.stats().late, 0U) << c.index;
    EXPECT_EQ(r->queue.stats().invalid, 0U) << c.index;
    EXPECT_EQ(r->bad_packets, 0U) << c.index;
    EXPECT_GT(c.prediction->stats().spawns_confirmed, static_cast<std::uint64_t>(kRunSeconds) / 2) << c.index;
  }
}

}  // namespace
}  // namespace tickwire::prediction
