// Sealed sessions over real UDP on loopback, watched from the path: what
// leaves the socket, what a server does with forged, altered and replayed
// copies of real datagrams, and how the handshake's settings meet.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "enet_test_support.h"
#include "tickwire/transport/server_identity.h"
#include "udp_tap.h"

namespace tickwire::transport::enet_testing {
namespace {

const std::string kMarker = "plain-words-anyone-on-the-path-could-read";

std::vector<std::uint8_t> marker_bytes() { return {kMarker.begin(), kMarker.end()}; }

bool holds_marker(const std::vector<std::uint8_t>& datagram) {
  return std::search(datagram.begin(), datagram.end(), kMarker.begin(), kMarker.end()) != datagram.end();
}

bool is_handshake(const std::vector<std::uint8_t>& d) { return !d.empty() && d[0] == 0xC7; }

struct Session {
  Node server;
  Node client;
  std::unique_ptr<UdpTap> tap;
  Link link;

  void pump_for(std::chrono::milliseconds span) {
    pump_until(
        {&server, &client}, [&] { tap->pump(); return false; }, span);
  }
  bool pump_until_done(const std::function<bool()>& done) {
    return pump_until({&server, &client}, [&] {
      tap->pump();
      return done();
    });
  }
  // Both ways, reliable and unreliable.
  void exchange_marker() {
    for (Delivery d : {Delivery::kReliableOrdered, Delivery::kUnreliable}) {
      EXPECT_TRUE(client.transport->send(link.at_client, d, marker_bytes(), wall_now()).ok());
      EXPECT_TRUE(server.transport->send(link.at_server, d, marker_bytes(), wall_now()).ok());
    }
    client.transport->flush(wall_now());
    server.transport->flush(wall_now());
  }
  std::size_t received_by(Node& node) const {
    return static_cast<std::size_t>(std::count_if(node.events.begin(), node.events.end(), [](const TransportEvent& e) {
      return e.type == Type::kReceived && e.data == marker_bytes();
    }));
  }
};

Session open_session(EnetConfig server_cfg, EnetConfig client_cfg) {
  Session s;
  s.server = make_node(server_cfg);
  s.client = make_node(client_cfg);
  s.tap = std::make_unique<UdpTap>(s.server.address());
  auto peer = s.client.transport->connect(s.tap->front(), wall_now());
  EXPECT_TRUE(peer.ok());
  if (!peer.ok()) return s;
  const bool up = s.pump_until_done([&] {
    return s.client.has(Type::kConnected, *peer) && !s.server.of_type(Type::kConnected).empty();
  });
  EXPECT_TRUE(up) << "connection did not complete";
  if (up) s.link = Link{*peer, s.server.of_type(Type::kConnected).back().peer};
  return s;
}

TEST(EnetSealedNet, NothingAfterTheHandshakeLeavesInClear) {
  Session s = open_session(server_config(), client_config());
  s.exchange_marker();
  ASSERT_TRUE(s.pump_until_done([&] { return s.received_by(s.server) == 2 && s.received_by(s.client) == 2; }));
  std::size_t sealed = 0;
  for (const auto& d : s.tap->seen) {
    EXPECT_FALSE(holds_marker(d.bytes)) << "a datagram of " << d.bytes.size() << " bytes carried the payload in clear";
    if (is_handshake(d.bytes)) continue;
    ASSERT_FALSE(d.bytes.empty());
    EXPECT_EQ(d.bytes[0] & 0xC0, 0x40) << "a datagram after the handshake that is not sealed";
    ++sealed;
  }
  EXPECT_GT(sealed, 4U);
  const ValidationStats stats = s.server.transport->validation_stats();
  EXPECT_EQ(stats.failed_to_verify + stats.replayed + stats.unknown_connection + stats.unsealed_dropped, 0U);
}

TEST(EnetSealedNet, PlaintextOnBothEndsIsReadableOnThePath) {
  EnetConfig server = server_config();
  EnetConfig client = client_config();
  server.plaintext = true;
  client.plaintext = true;
  Session s = open_session(server, client);
  s.exchange_marker();
  ASSERT_TRUE(s.pump_until_done([&] { return s.received_by(s.server) == 2 && s.received_by(s.client) == 2; }));
  // The capture can see a payload when it is there to see.
  EXPECT_TRUE(std::any_of(s.tap->seen.begin(), s.tap->seen.end(), [](const auto& d) { return holds_marker(d.bytes); }));
}

TEST(EnetSealedNet, ServerRefusesAPlaintextClientUnlessItAllowsIt) {
  Node server = make_node(server_config());
  EnetConfig plain = client_config();
  plain.plaintext = true;
  Node client = make_node(plain);
  auto peer = client.transport->connect(server.address(), wall_now());
  ASSERT_TRUE(peer.ok());
  ASSERT_TRUE(pump_until({&server, &client}, [&] { return client.has(Type::kDisconnected, *peer); }));
  EXPECT_EQ(client.of_type(Type::kDisconnected).back().reason, DisconnectReason::kPlaintextRefused);
  EXPECT_TRUE(server.of_type(Type::kConnected).empty());
}

TEST(EnetSealedNet, APinnedServerKeyAdmitsItsServerOnly) {
  const ServerIdentity identity = ServerIdentity::generate();
  EnetConfig server = server_config();
  server.validation.server_identity = identity;
  EnetConfig right = client_config();
  right.validation.server_key = identity.public_key();
  Session s = open_session(server, right);
  EXPECT_NE(s.link.at_server, PeerId());

  EnetConfig wrong = client_config();
  wrong.validation.server_key = ServerIdentity::generate().public_key();
  Node client = make_node(wrong);
  auto peer = client.transport->connect(s.server.address(), wall_now());
  ASSERT_TRUE(peer.ok());
  ASSERT_TRUE(pump_until({&s.server, &client}, [&] { return client.has(Type::kDisconnected, *peer); }));
  EXPECT_EQ(client.of_type(Type::kDisconnected).back().reason, DisconnectReason::kServerKeyMismatch);
}

// Someone on the path copies real datagrams and sends them on altered,
// renumbered or as they were: none is accepted, and the session goes on.
TEST(EnetSealedNet, AlteredRenumberedAndReplayedCopiesChangeNothing) {
  Session s = open_session(server_config(), client_config());
  s.exchange_marker();
  ASSERT_TRUE(s.pump_until_done([&] { return s.received_by(s.server) == 2; }));
  std::vector<std::vector<std::uint8_t>> captured;
  for (const auto& d : s.tap->seen) {
    if (d.to_server && !is_handshake(d.bytes)) captured.push_back(d.bytes);
  }
  ASSERT_FALSE(captured.empty());
  const std::size_t before = s.server.events.size();
  for (const auto& original : captured) {
    s.tap->inject(true, original);  // as it was
    auto altered = original;
    altered.back() ^= 0x5A;  // the tag
    s.tap->inject(true, altered);
    auto renumbered = original;
    renumbered[5] = static_cast<std::uint8_t>(renumbered[5] + 40);  // a fresh packet number
    s.tap->inject(true, renumbered);
    auto rewritten = original;
    if (rewritten.size() > 8) rewritten[7] ^= 0xFF;  // the payload
    s.tap->inject(true, rewritten);
  }
  s.pump_for(300ms);
  EXPECT_EQ(s.server.events.size(), before) << "a copy was accepted as the client's";
  const ValidationStats stats = s.server.transport->validation_stats();
  // A copy that keeps a number already seen is refused as a replay before
  // its tag is even checked; a renumbered one fails on its tag.
  EXPECT_EQ(stats.replayed + stats.failed_to_verify, 4 * captured.size());
  EXPECT_GE(stats.failed_to_verify, 1U);
  s.exchange_marker();
  EXPECT_TRUE(s.pump_until_done([&] { return s.received_by(s.server) == 4 && s.received_by(s.client) == 4; }))
      << "the session did not go on";
}

// A real datagram of the session, sent again from another address: the
// connection id is live, the source is not its session's.
TEST(EnetSealedNet, ARealDatagramFromAnotherAddressIsRefused) {
  Session s = open_session(server_config(), client_config());
  s.exchange_marker();
  ASSERT_TRUE(s.pump_until_done([&] { return s.received_by(s.server) == 2; }));
  std::vector<std::uint8_t> real;
  for (const auto& d : s.tap->seen) {
    if (d.to_server && !is_handshake(d.bytes)) real = d.bytes;
  }
  ASSERT_FALSE(real.empty());
  UdpTap elsewhere(s.server.address());  // its back socket: a new source
  const std::size_t before = s.server.events.size();
  elsewhere.inject(true, real);
  s.pump_for(200ms);
  EXPECT_EQ(s.server.events.size(), before);
  EXPECT_EQ(s.server.transport->validation_stats().wrong_source, 1U);
}

// The peer itself, keys and all, sending an unreliable payload over the
// server's limit: that is the peer's own doing, and closes it.
TEST(EnetSealedNet, AVerifiedPayloadOverTheLimitClosesItsPeer) {
  EnetConfig server = server_config();
  server.limits.max_unreliable_payload = 100;
  Session s = open_session(server, client_config());
  ASSERT_TRUE(s.client.transport->send(s.link.at_client, Delivery::kUnreliable, bytes_of(400, 1), wall_now()).ok());
  s.client.transport->flush(wall_now());
  ASSERT_TRUE(s.pump_until_done([&] { return s.server.has(Type::kDisconnected, s.link.at_server); }));
  EXPECT_EQ(s.server.of_type(Type::kDisconnected).back().reason, DisconnectReason::kProtocolError);
}

}  // namespace
}  // namespace tickwire::transport::enet_testing
