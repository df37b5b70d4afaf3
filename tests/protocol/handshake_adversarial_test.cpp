// Receiver obligations of the connection protocol (docs/wire-format.md),
// exercised against a real Server over the simulated network by a raw
// endpoint that can send anything.
#include <gtest/gtest.h>

#include <iostream>
#include <random>

#include "raw_peer.h"
#include "sim_match.h"
#include "tickwire/core/client_report.h"
#include "tickwire/core/handshake.h"
#include "tickwire/core/keep_alive.h"
#include "tickwire/core/serialize.h"

namespace tickwire {
namespace {

using testing::RawPeer;
using testing::SimMatch;
using transport::Delivery;
using transport::DisconnectReason;
using transport::TransportEvent;

std::vector<std::uint8_t> hello_bytes(std::uint16_t protocol_id, std::uint8_t version,
                                      ProtocolFingerprint fingerprint) {
  BitWriter w(256);
  PacketPrefix prefix{protocol_id, version, PacketType::kHello};
  Hello hello{fingerprint, "raw"};
  EXPECT_TRUE(serialize(w, prefix) && serialize(w, hello));
  return w.take();
}

ProtocolFingerprint good_fingerprint() { return arena::Game::protocol_fingerprint(); }

TEST(ConnectionObligations, DeniesAnotherProtocolVersionWithItsReason) {
  SimMatch m(11);
  RawPeer raw(m, "raw-version");
  raw.send(Delivery::kReliableOrdered, hello_bytes(kProtocolId, kProtocolVersion + 1, good_fingerprint()));
  ASSERT_TRUE(raw.wait_for_disconnect(Duration::seconds(2)));
  EXPECT_EQ(raw.reason, DisconnectReason::kVersionMismatch);
}

TEST(ConnectionObligations, RejectsAnotherProtocolId) {
  SimMatch m(12);
  RawPeer raw(m, "raw-protocol");
  raw.send(Delivery::kReliableOrdered, hello_bytes(0x1234, kProtocolVersion, good_fingerprint()));
  ASSERT_TRUE(raw.wait_for_disconnect(Duration::seconds(2)));
  EXPECT_EQ(raw.reason, DisconnectReason::kProtocolError);
}

TEST(ConnectionObligations, RejectsGarbageInsteadOfHello) {
  SimMatch m(13);
  RawPeer raw(m, "raw-garbage");
  raw.send(Delivery::kReliableOrdered, {0x54, 0x57});
  ASSERT_TRUE(raw.wait_for_disconnect(Duration::seconds(2)));
  EXPECT_EQ(raw.reason, DisconnectReason::kProtocolError);
}

TEST(ConnectionObligations, TimesOutAPeerThatNeverSaysHello) {
  server::ServerConfig config;
  config.handshake_timeout = Duration::seconds(1);
  SimMatch m(14, config);
  RawPeer raw(m, "raw-stall");
  ASSERT_TRUE(raw.wait_for_disconnect(Duration::seconds(3)));
  EXPECT_EQ(raw.reason, DisconnectReason::kHandshakeTimeout);
}

TEST(ConnectionObligations, IgnoresUnreliablePacketsBeforeTheHandshake) {
  SimMatch m(15);
  RawPeer raw(m, "raw-early");
  for (int i = 0; i < 5; ++i) raw.send(Delivery::kUnreliable, {1, 2, 3});
  m.run_for(Duration::millis(200));
  EXPECT_EQ(m.server->stats().bad_packets(), 5u);
  EXPECT_EQ(m.server->stats().clients, 0u);
  EXPECT_FALSE(raw.reason.has_value());
}

TEST(ConnectionObligations, DisconnectsAPeerThatKeepsSendingGarbage) {
  const std::uint64_t seed = 16;
  std::cout << "seed=" << seed << "\n";
  SimMatch m(seed);
  RawPeer raw(m, "raw-flood");
  ASSERT_TRUE(raw.join());
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 40 && !raw.reason; ++i) {
    std::vector<std::uint8_t> junk(rng() % 64);
    for (auto& b : junk) b = static_cast<std::uint8_t>(rng());
    raw.send(Delivery::kUnreliable, junk);
    m.run_for(Duration::millis(5));
    raw.pump();
  }
  ASSERT_TRUE(raw.wait_for_disconnect(Duration::seconds(2)));
  EXPECT_EQ(raw.reason, DisconnectReason::kProtocolError);
  EXPECT_GT(m.server->stats().bad_packets(), 32u);
}

TEST(ConnectionObligations, DropsDuplicatedPacketsWithoutCountingThemTwice) {
  SimMatch m(17);
  RawPeer raw(m, "raw-dup");
  ASSERT_TRUE(raw.join());
  PacketChannel channel;
  BitWriter w(64);
  PacketHeader header = channel.next_header(PacketType::kKeepAlive, m.clock.now());
  KeepAlive body;
  ASSERT_TRUE(serialize(w, header) && serialize(w, body));
  const auto bytes = w.take();
  for (int i = 0; i < 3; ++i) raw.send(Delivery::kUnreliable, bytes);
  m.run_for(Duration::millis(50));
  const auto clients = m.server->client_stats();
  ASSERT_EQ(clients.size(), 1u);
  EXPECT_EQ(clients[0].duplicate_packets, 2u);
  EXPECT_EQ(m.server->stats().bad_packets(), 0u);
}

TEST(ConnectionObligations, KeepsOnlyClientReportsWhoseTotalsGrow) {
  SimMatch m(18);
  RawPeer raw(m, "raw-report");
  ASSERT_TRUE(raw.join());
  PacketChannel channel;
  auto send_report = [&](std::uint32_t mispredictions) {
    BitWriter w(64);
    PacketHeader header = channel.next_header(PacketType::kReport, m.clock.now());
    ClientReport report;
    report.mispredictions = mispredictions;
    ASSERT_TRUE(serialize(w, header) && serialize(w, report));
    raw.send(Delivery::kUnreliable, w.take());
    m.run_for(Duration::millis(20));
  };
  send_report(50);
  send_report(20);  // a total that shrinks is a lie or a replay
  ASSERT_EQ(m.server->client_stats().size(), 1u);
  ASSERT_TRUE(m.server->client_stats()[0].reported.has_value());
  EXPECT_EQ(m.server->client_stats()[0].reported->mispredictions, 50u);
  EXPECT_EQ(m.server->stats().reported_mispredictions, 50u);
  send_report(70);
  EXPECT_EQ(m.server->stats().reported_mispredictions, 70u);
  // A report cut short is a bad packet and changes nothing.
  BitWriter w(64);
  PacketHeader header = channel.next_header(PacketType::kReport, m.clock.now());
  ASSERT_TRUE(serialize(w, header));
  raw.send(Delivery::kUnreliable, w.take());
  m.run_for(Duration::millis(20));
  EXPECT_EQ(m.server->stats().bad_packets(), 1u);
  EXPECT_EQ(m.server->stats().reported_mispredictions, 70u);
}

}  // namespace
}  // namespace tickwire
