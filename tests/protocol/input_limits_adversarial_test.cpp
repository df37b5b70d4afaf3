// The server's limits on what a joined client sends (ServerConfig: the
// packet budget per second, refused inputs per window, bad packets),
// exercised by raw peers that each break one rule while an honest client
// plays in the same match and must not notice.
#include <gtest/gtest.h>

#include "raw_peer.h"

namespace tickwire {
namespace {

using testing::RawPeer;
using testing::SimMatch;
using transport::Delivery;
using transport::DisconnectReason;

// A match with one honest client playing, connected and sending inputs.
void start_honest(SimMatch& m) {
  client::ClientConfig cc;
  cc.name = "honest";
  m.add_client(cc);
  ASSERT_TRUE(m.clients[0]->connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(3)));
  m.run_for(Duration::millis(500));
}

server::ClientStats stats_of(const SimMatch& m, const std::string& name) {
  for (const auto& c : m.server->client_stats()) {
    if (c.name == name) return c;
  }
  ADD_FAILURE() << "no client named " << name;
  return {};
}

// The honest client of start_honest() is still in and saw none of it.
void expect_honest_unaffected(SimMatch& m) {
  EXPECT_EQ(m.clients[0]->state(), client::ClientState::kConnected);
  const server::ClientStats honest = stats_of(m, "honest");
  EXPECT_EQ(honest.bad_packets, 0u);
  EXPECT_EQ(honest.rejected_inputs, 0u);
  EXPECT_EQ(honest.rate_limited_packets, 0u);
  EXPECT_GT(honest.inputs, 0u);
}

TEST(InputLimits, FloodBeyondTheBudgetIsDroppedThenDisconnected) {
  server::ServerConfig config;
  config.max_input_packets_per_second = 120;
  SimMatch m(31, config);
  start_honest(m);
  RawPeer raw(m, "raw-flood");
  ASSERT_TRUE(raw.join());
  // Ten over the budget within a second: the excess is dropped unread.
  for (int i = 0; i < 130; ++i) raw.send(Delivery::kUnreliable, raw.inputs(m.server->tick() + 1));
  m.run_for(Duration::millis(50));
  raw.pump();
  EXPECT_FALSE(raw.reason.has_value());
  EXPECT_EQ(stats_of(m, "raw").rate_limited_packets, 10u);
  EXPECT_EQ(m.server->stats().rate_limited_packets, 10u);
  // Past twice the budget within the same second: a flood, disconnected.
  for (int i = 0; i < 120; ++i) raw.send(Delivery::kUnreliable, raw.inputs(m.server->tick() + 1));
  ASSERT_TRUE(raw.wait_for_disconnect(Duration::seconds(2)));
  EXPECT_EQ(raw.reason, DisconnectReason::kFlooding);
  EXPECT_GE(m.server->stats().rate_limited_packets, 120u);
  m.run_for(Duration::seconds(1));
  expect_honest_unaffected(m);
}

TEST(InputLimits, ABudgetRenewsEverySecond) {
  server::ServerConfig config;
  config.max_input_packets_per_second = 120;
  SimMatch m(32, config);
  RawPeer raw(m, "raw-steady");
  ASSERT_TRUE(raw.join());
  // Right at the budget, second after second, is allowed.
  for (int second = 0; second < 3; ++second) {
    for (int i = 0; i < 110; ++i) raw.send(Delivery::kUnreliable, raw.inputs(m.server->tick() + 1));
    m.run_for(Duration::millis(1100));
  }
  raw.pump();
  EXPECT_FALSE(raw.reason.has_value());
  EXPECT_EQ(m.server->stats().rate_limited_packets, 0u);
}

TEST(InputLimits, FutureTicksAreRefusedThenDisconnected) {
  SimMatch m(33);
  start_honest(m);
  RawPeer raw(m, "raw-future");
  ASSERT_TRUE(raw.join());
  const int limit = m.server->config().max_rejected_inputs;
  // Every claim is refused (and buys nothing); up to the limit the peer stays.
  for (int i = 0; i < limit; ++i) {
    raw.send(Delivery::kUnreliable, raw.inputs(m.server->tick() + 1000));
    m.run_for(Duration::millis(5));
  }
  raw.pump();
  EXPECT_FALSE(raw.reason.has_value());
  EXPECT_EQ(stats_of(m, "raw").rejected_inputs, static_cast<std::uint64_t>(limit));
  EXPECT_EQ(stats_of(m, "raw").inputs, 0u);
  raw.send(Delivery::kUnreliable, raw.inputs(m.server->tick() + 1000));
  ASSERT_TRUE(raw.wait_for_disconnect(Duration::seconds(2)));
  EXPECT_EQ(raw.reason, DisconnectReason::kProtocolError);
  m.run_for(Duration::seconds(1));
  expect_honest_unaffected(m);
}

// An input with every code all ones where that is outside the field's
// range: what a client that puts NaN or infinity on the wire unclamped sends.
std::vector<std::uint8_t> out_of_range_input(RawPeer& raw, Tick tick) {
  const arena::Schema& s = arena::schema();
  PacketHeader header = raw.channel.next_header(PacketType::kInput, raw.match.clock.now());
  BitWriter w(1200);
  std::uint32_t first = tick.value();
  std::uint32_t count_minus_one = 0;
  bool has_ack = false;
  EXPECT_TRUE(serialize(w, header) && w.bits(first, 32) && w.bits(count_minus_one, 6) && w.boolean(has_ack));
  bool any_outside = false;
  for (const snapshot::ComponentSpec& c : s.schema.type(s.input_type).components) {
    if (c.bits == 0) continue;
    const std::uint32_t all_ones = c.bits >= 32 ? 0xFFFFFFFFU : (1U << c.bits) - 1U;
    any_outside = any_outside || all_ones > c.max_code;
    std::uint32_t code = all_ones > c.max_code ? all_ones : 0U;
    EXPECT_TRUE(w.bits(code, c.bits));
  }
  EXPECT_TRUE(any_outside) << "the arena input has no field whose all-ones code is out of range";
  return w.take();
}

TEST(InputLimits, OutOfRangeInputCodesAreBadPacketsAndDisconnect) {
  SimMatch m(34);
  start_honest(m);
  RawPeer raw(m, "raw-nan");
  ASSERT_TRUE(raw.join());
  const int limit = m.server->config().max_bad_packets;
  for (int i = 0; i <= limit && !raw.reason; ++i) {
    raw.send(Delivery::kUnreliable, out_of_range_input(raw, m.server->tick() + 1));
    m.run_for(Duration::millis(5));
    raw.pump();
  }
  ASSERT_TRUE(raw.wait_for_disconnect(Duration::seconds(2)));
  EXPECT_EQ(raw.reason, DisconnectReason::kProtocolError);
  const auto out_of_range = static_cast<std::size_t>(ErrorCode::kOutOfRange);
  EXPECT_EQ(m.server->stats().bad_packets_by_reason[out_of_range], static_cast<std::uint64_t>(limit) + 1);
  EXPECT_EQ(m.server->stats().rejected_inputs, 0u);  // nothing reached the queue
  m.run_for(Duration::seconds(1));
  expect_honest_unaffected(m);
}

TEST(InputLimits, RejectsABudgetBelowTheTickRate) {
  server::ServerConfig config;
  config.max_input_packets_per_second = 30;
  EXPECT_THROW(config.validate(), std::invalid_argument);
  config.max_input_packets_per_second.reset();
  config.max_rejected_inputs = 0;
  EXPECT_THROW(config.validate(), std::invalid_argument);
}

}  // namespace
}  // namespace tickwire
