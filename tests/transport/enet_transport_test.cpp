// EnetTransport over real UDP on loopback. Every socket binds port 0 and
// reads its port back, so suites running in parallel never collide; every
// wait is bounded by a deadline of a few seconds.

#include "tickwire/transport/enet_transport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "enet_test_support.h"
#include "raw_enet_peer.h"

namespace tickwire::transport {
namespace {

using namespace enet_testing;  // NOLINT(google-build-using-namespace)

// The payloads `node` received from `peer`, in arrival order.
std::vector<TransportEvent> received_from(const Node& node, PeerId peer) {
  std::vector<TransportEvent> out;
  for (const TransportEvent& e : node.events) {
    if (e.type == Type::kReceived && e.peer == peer) out.push_back(e);
  }
  return out;
}

// A server and a client connected to it.
class EnetPairTest : public ::testing::Test {
 protected:
  bool start(const EnetConfig& server_cfg = server_config(), const EnetConfig& client_cfg = client_config()) {
    server = make_node(server_cfg);
    client = make_node(client_cfg);
    if (!server.transport || !client.transport) return false;
    link = connect_pair(server, client);
    return link.at_server != PeerId();
  }
  Result<void> client_send(Delivery delivery, const std::vector<std::uint8_t>& bytes) {
    return client.transport->send(link.at_client, delivery, bytes, wall_now());
  }
  Result<void> server_send(Delivery delivery, const std::vector<std::uint8_t>& bytes) {
    return server.transport->send(link.at_server, delivery, bytes, wall_now());
  }
  std::vector<TransportEvent> at_server() const { return received_from(server, link.at_server); }
  std::vector<TransportEvent> at_client() const { return received_from(client, link.at_client); }
  bool pump_until(const std::function<bool()>& done) { return transport::pump_until({&server, &client}, done); }
  void pump_for(std::chrono::milliseconds span) { transport::pump_for({&server, &client}, span); }

  Node server;
  Node client;
  Link link;
};

TEST_F(EnetPairTest, ConnectedEventsOnBothSides) {
  ASSERT_TRUE(start());
  EXPECT_NE(server.address().port, 0);
  const TransportEvent client_side = client.of_type(Type::kConnected).front();
  EXPECT_EQ(client_side.peer, link.at_client);
  EXPECT_EQ(client_side.address, server.address());
  const TransportEvent server_side = server.of_type(Type::kConnected).front();
  EXPECT_EQ(server_side.address.host, "127.0.0.1");
  EXPECT_EQ(server_side.address.port, client.transport->local_address()->port);
}

// Reliable messages arrive in order; the unreliable one arrives marked as such.
void expect_stream(const std::vector<TransportEvent>& got, std::size_t size, int base, int reliable_count,
                   const std::vector<std::uint8_t>& unreliable) {
  int next = 0;
  int unreliable_seen = 0;
  for (const TransportEvent& e : got) {
    if (e.delivery == Delivery::kUnreliable) {
      EXPECT_EQ(e.data, unreliable);
      ++unreliable_seen;
    } else {
      EXPECT_EQ(e.data, bytes_of(size, static_cast<std::uint8_t>(base + next++)));
    }
  }
  EXPECT_EQ(next, reliable_count);
  EXPECT_EQ(unreliable_seen, 1);
}

TEST_F(EnetPairTest, ExchangesBothWaysOnBothDeliveries) {
  ASSERT_TRUE(start());
  constexpr int kReliableCount = 20;
  for (int i = 0; i < kReliableCount; ++i) {
    ASSERT_TRUE(client_send(Delivery::kReliableOrdered, bytes_of(10, static_cast<std::uint8_t>(i))).ok());
    ASSERT_TRUE(server_send(Delivery::kReliableOrdered, bytes_of(20, static_cast<std::uint8_t>(100 + i))).ok());
  }
  ASSERT_TRUE(client_send(Delivery::kUnreliable, bytes_of(300, 7)).ok());
  ASSERT_TRUE(server_send(Delivery::kUnreliable, bytes_of(400, 9)).ok());
  ASSERT_TRUE(
      pump_until([&] { return at_server().size() == kReliableCount + 1 && at_client().size() == kReliableCount + 1; }));
  expect_stream(at_server(), 10, 0, kReliableCount, bytes_of(300, 7));
  expect_stream(at_client(), 20, 100, kReliableCount, bytes_of(400, 9));
}

// Unreliable payloads queued before one flush leave in batches of one
// sendmmsg each; across the batches' edges every one arrives, in order,
// and each is counted once at the socket.
TEST_F(EnetPairTest, AFlushOfMoreThanOneBatchDeliversEveryDatagramInOrder) {
  ASSERT_TRUE(start());
  constexpr int kCount = 150;  // two full batches and part of a third
  const std::uint64_t sent_before = server.transport->wire_stats()->datagrams_sent;
  for (int i = 0; i < kCount; ++i) {
    ASSERT_TRUE(
        server_send(Delivery::kUnreliable, bytes_of(static_cast<std::size_t>(40 + i % 7), static_cast<std::uint8_t>(i)))
            .ok());
  }
  server.transport->flush(wall_now());
  EXPECT_EQ(server.transport->wire_stats()->datagrams_sent - sent_before, static_cast<std::uint64_t>(kCount));
  ASSERT_TRUE(pump_until([&] { return at_client().size() == kCount; }));
  const auto got = at_client();
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(got[static_cast<std::size_t>(i)].data,
              bytes_of(static_cast<std::size_t>(40 + i % 7), static_cast<std::uint8_t>(i)))
        << i;
  }
}

// Unreliable payloads through ENet's own framing (session datagrams off on
// one end) still arrive, marked unreliable, and each costs the sender
// exactly ENet's 8 more bytes per datagram than a session datagram would.
TEST_F(EnetPairTest, UnreliableThroughEnetFramingWhenSessionDatagramsAreOff) {
  EnetConfig plain = client_config();
  plain.session_datagrams = false;
  ASSERT_TRUE(start(server_config(), plain));
  pump_for(std::chrono::milliseconds(50));  // let the handshake's traffic settle
  const std::uint64_t server_before = server.transport->wire_stats()->bytes_sent;
  const std::uint64_t client_before = client.transport->wire_stats()->bytes_sent;
  ASSERT_TRUE(client_send(Delivery::kUnreliable, bytes_of(100, 3)).ok());
  ASSERT_TRUE(server_send(Delivery::kUnreliable, bytes_of(100, 4)).ok());
  ASSERT_TRUE(pump_until([&] { return at_server().size() == 1 && at_client().size() == 1; }));
  EXPECT_EQ(at_server().front().delivery, Delivery::kUnreliable);
  EXPECT_EQ(at_server().front().data, bytes_of(100, 3));
  EXPECT_EQ(at_client().front().data, bytes_of(100, 4));
  // Session datagram: 2 + 100 bytes. ENet's unsequenced send: a 2-byte
  // header (4 with a sent time, when an acknowledgement rides along) and an
  // 8-byte command, so at least 110.
  const std::uint64_t server_sent = server.transport->wire_stats()->bytes_sent - server_before;
  const std::uint64_t client_sent = client.transport->wire_stats()->bytes_sent - client_before;
  EXPECT_GE(server_sent, 102U);
  EXPECT_GE(client_sent, 110U);
}

// A buffer given back carries a later datagram: a receiver that recycles
// what it has read allocates nothing per datagram once warm.
TEST_F(EnetPairTest, RecycledBuffersCarryLaterDatagrams) {
  ASSERT_TRUE(start());
  std::vector<const std::uint8_t*> given_back;
  // Allocated after each hand-back, so that a buffer freed rather than
  // kept would go to them, not to the next datagram.
  std::vector<std::vector<std::uint8_t>> decoys;
  std::size_t reused = 0;
  for (int i = 0; i < 20; ++i) {
    const auto sent = bytes_of(100, static_cast<std::uint8_t>(i));
    ASSERT_TRUE(client_send(Delivery::kUnreliable, sent).ok());
    client.transport->flush(wall_now());
    std::optional<TransportEvent> got;
    const auto deadline = Clock::now() + 3s;
    while (Clock::now() < deadline) {
      client.transport->poll(wall_now());
      got = server.transport->poll(wall_now());
      if (got && got->type == Type::kReceived) break;
      std::this_thread::sleep_for(1ms);
    }
    ASSERT_TRUE(got && got->type == Type::kReceived) << "datagram " << i;
    EXPECT_EQ(got->data, sent);
    if (std::find(given_back.begin(), given_back.end(), got->data.data()) != given_back.end()) ++reused;
    given_back.push_back(got->data.data());
    server.transport->recycle(std::move(got->data));
    decoys.emplace_back(100);
  }
  EXPECT_GE(reused, 18U) << "each datagram after the first should reuse a buffer given back";
  // A buffer larger than any datagram is not kept, and nothing breaks.
  server.transport->recycle(std::vector<std::uint8_t>(1 << 20));
  server.transport->recycle({});
}

TEST_F(EnetPairTest, DisconnectCarriesReasonAndInitiatorSeesNothing) {
  ASSERT_TRUE(start());
  const std::size_t server_events = server.events.size();
  server.transport->disconnect(link.at_server, DisconnectReason::kServerShuttingDown, wall_now());
  EXPECT_FALSE(server.transport->stats(link.at_server).has_value());
  EXPECT_EQ(server_send(Delivery::kReliableOrdered, bytes_of(4, 0)).error().code, ErrorCode::kNotConnected);

  ASSERT_TRUE(pump_until([&] { return client.has(Type::kDisconnected, link.at_client); }));
  EXPECT_EQ(client.of_type(Type::kDisconnected).front().reason, DisconnectReason::kServerShuttingDown);
  // ENet's own disconnect acknowledgement must not surface on the server.
  pump_for(300ms);
  EXPECT_EQ(server.events.size(), server_events);
}

TEST_F(EnetPairTest, UnknownReasonTravelsAsRequested) {
  ASSERT_TRUE(start());
  client.transport->disconnect(link.at_client, DisconnectReason::kUnknown, wall_now());
  ASSERT_TRUE(pump_until([&] { return server.has(Type::kDisconnected, link.at_server); }));
  // kUnknown is 0 on the wire, which ENet uses for timeouts, so it is sent as kRequested.
  EXPECT_EQ(server.of_type(Type::kDisconnected).front().reason, DisconnectReason::kRequested);
  EXPECT_TRUE(client.of_type(Type::kDisconnected).empty());
}

TEST(EnetTransportTest, FullServerDeniesTheSecondClient) {
  EnetConfig config = server_config();
  config.max_peers = 1;
  Node server = make_node(config);
  Node first = make_node(client_config());
  ASSERT_NE(connect_pair(server, first).at_server, PeerId());

  // Address validation sees there is no slot and says so, rather than
  // letting ENet ignore the connect until the client gives up.
  Node second = make_node(client_config());
  auto peer = second.transport->connect(server.address(), wall_now());
  ASSERT_TRUE(peer.ok());
  ASSERT_TRUE(pump_until({&server, &first, &second}, [&] { return second.has(Type::kDisconnected, *peer); }));
  EXPECT_EQ(second.of_type(Type::kDisconnected).front().reason, DisconnectReason::kServerFull);
  EXPECT_TRUE(second.of_type(Type::kConnected).empty());
  EXPECT_EQ(server.of_type(Type::kConnected).size(), 1u);
}

TEST(EnetTransportTest, ConnectToClosedPortFails) {
  const Address closed = make_node(server_config()).address();  // bound, then closed again
  EnetConfig config = client_config();
  config.timeout = Duration::millis(200);
  Node client = make_node(config);
  auto peer = client.transport->connect(closed, wall_now());
  ASSERT_TRUE(peer.ok());
  ASSERT_TRUE(pump_until({&client}, [&] { return client.has(Type::kDisconnected, *peer); }));
  EXPECT_EQ(client.of_type(Type::kDisconnected).front().reason, DisconnectReason::kConnectFailed);
}

TEST_F(EnetPairTest, SilentPeerTimesOut) {
  EnetConfig config = server_config();
  config.timeout = Duration::millis(300);
  config.ping_interval = Duration::millis(50);
  ASSERT_TRUE(start(config));
  client.transport.reset();  // gone without a goodbye
  const auto start_time = Clock::now();
  ASSERT_TRUE(pump_until([&] { return server.has(Type::kDisconnected, link.at_server); }));
  EXPECT_GE(Clock::now() - start_time, 250ms);
  EXPECT_EQ(server.of_type(Type::kDisconnected).front().reason, DisconnectReason::kTimeout);
}

TEST_F(EnetPairTest, OversizedUnreliableIsRefusedNeverMadeReliable) {
  ASSERT_TRUE(start());
  const std::size_t limit = client.transport->limits().max_unreliable_payload;
  auto refused = client_send(Delivery::kUnreliable, bytes_of(limit + 1, 1));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kTooLarge);

  // Exactly at the limit still goes out unreliable, as one datagram.
  ASSERT_TRUE(client_send(Delivery::kUnreliable, bytes_of(limit, 2)).ok());
  ASSERT_TRUE(client_send(Delivery::kReliableOrdered, bytes_of(3, 3)).ok());
  ASSERT_TRUE(pump_until([&] { return at_server().size() == 2; }));
  pump_for(50ms);
  ASSERT_EQ(at_server().size(), 2u);
  for (const TransportEvent& e : at_server()) {
    EXPECT_EQ(e.data, e.delivery == Delivery::kUnreliable ? bytes_of(limit, 2) : bytes_of(3, 3));
  }
  EXPECT_EQ(client.transport->stats(link.at_client)->packets_sent, 2u);
}

TEST_F(EnetPairTest, OversizedReliableIsRefused) {
  ASSERT_TRUE(start());
  const std::size_t limit = client.transport->limits().max_reliable_payload;
  auto refused = client_send(Delivery::kReliableOrdered, bytes_of(limit + 1, 1));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kTooLarge);

  // The largest allowed message is fragmented by ENet and reassembled whole.
  ASSERT_TRUE(client_send(Delivery::kReliableOrdered, bytes_of(limit, 5)).ok());
  ASSERT_TRUE(pump_until([&] { return at_server().size() == 1; }));
  EXPECT_EQ(at_server().front().data, bytes_of(limit, 5));
  EXPECT_EQ(at_server().front().delivery, Delivery::kReliableOrdered);
}

TEST_F(EnetPairTest, PeerBreakingTheLimitIsDisconnectedForProtocolError) {
  EnetConfig config = server_config();
  config.limits.max_reliable_payload = 1024;
  ASSERT_TRUE(start(config));  // the client allows 16 KiB, more than the server accepts
  ASSERT_TRUE(client_send(Delivery::kReliableOrdered, bytes_of(1500, 0)).ok());
  ASSERT_TRUE(pump_until([&] {
    return server.has(Type::kDisconnected, link.at_server) && client.has(Type::kDisconnected, link.at_client);
  }));
  EXPECT_EQ(server.of_type(Type::kDisconnected).front().reason, DisconnectReason::kProtocolError);
  EXPECT_EQ(client.of_type(Type::kDisconnected).front().reason, DisconnectReason::kProtocolError);
  EXPECT_TRUE(at_server().empty());
}

TEST(EnetTransportTest, BindToPortInUseFailsWithIo) {
  Node first = make_node(server_config());
  ASSERT_TRUE(first.transport);
  EnetConfig config = server_config();
  config.bind = first.address();
  auto second = EnetTransport::create(config);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, ErrorCode::kIo);
  EXPECT_NE(second.error().detail.find(first.address().to_string()), std::string::npos) << second.error().detail;
  EXPECT_NE(second.error().detail.find("in use"), std::string::npos) << second.error().detail;
}

TEST(EnetTransportTest, PeerIdsAreNeverReused) {
  // One slot on each side forces ENet to reuse the same peer slot.
  EnetConfig config = server_config();
  config.max_peers = 1;
  Node server = make_node(config);
  Node client = make_node(client_config());
  std::vector<PeerId> client_ids;
  std::vector<PeerId> server_ids;
  for (int round = 0; round < 3; ++round) {
    const Link link = connect_pair(server, client);
    ASSERT_NE(link.at_server, PeerId());
    client_ids.push_back(link.at_client);
    server_ids.push_back(link.at_server);
    client.transport->disconnect(link.at_client, DisconnectReason::kRequested, wall_now());
    ASSERT_TRUE(pump_until({&server, &client}, [&] { return server.has(Type::kDisconnected, link.at_server); }));
    // Give the client time to take ENet's acknowledgement and free its slot.
    pump_for({&server, &client}, 50ms);
  }
  EXPECT_TRUE(client.of_type(Type::kDisconnected).empty());
  for (const auto* ids : {&client_ids, &server_ids}) {
    for (std::size_t i = 1; i < ids->size(); ++i) EXPECT_LT((*ids)[i - 1], (*ids)[i]);
  }
  // A stale handle addresses nobody.
  EXPECT_EQ(client.transport->send(client_ids.front(), Delivery::kUnreliable, bytes_of(1, 0), wall_now()).error().code,
            ErrorCode::kNotConnected);
}

TEST_F(EnetPairTest, StatsCountPayloadBytes) {
  ASSERT_TRUE(start());
  ASSERT_TRUE(client_send(Delivery::kReliableOrdered, bytes_of(100, 0)).ok());
  ASSERT_TRUE(client_send(Delivery::kUnreliable, bytes_of(50, 0)).ok());
  ASSERT_TRUE(server_send(Delivery::kReliableOrdered, bytes_of(7, 0)).ok());
  ASSERT_TRUE(pump_until([&] { return at_server().size() == 2 && at_client().size() == 1; }));

  const PeerStats client_stats = *client.transport->stats(link.at_client);
  EXPECT_EQ(client_stats.bytes_sent, 150u);
  EXPECT_EQ(client_stats.packets_sent, 2u);
  EXPECT_EQ(client_stats.bytes_received, 7u);
  EXPECT_EQ(client_stats.packets_received, 1u);
  const PeerStats server_stats = *server.transport->stats(link.at_server);
  EXPECT_EQ(server_stats.bytes_received, 150u);
  EXPECT_EQ(server_stats.packets_received, 2u);
  EXPECT_EQ(server_stats.bytes_sent, 7u);
  // The round trip is ENet's measurement, not its opening guess: ENet
  // starts every peer at 500 ms and moves an eighth of the way toward each
  // acknowledged sample, and the connect and the reliable messages above
  // were acknowledged over loopback. Its integer smoothing never reaches 0.
  EXPECT_LT(server_stats.rtt, Duration::millis(500));
  // (The server's sample is the client's acknowledgement of the connect.)
  EXPECT_GT(server_stats.rtt, Duration::zero());
  // ENet works out loss only every 10 s, so a short exchange reads exactly
  // 0, never a value from another field or scale.
  EXPECT_EQ(server_stats.packet_loss, 0.0);
  EXPECT_EQ(client_stats.packet_loss, 0.0);
  EXPECT_FALSE(server.transport->stats(PeerId(9999)).has_value());
}

TEST_F(EnetPairTest, WaitForTrafficWakesOnDatagram) {
  // With no peers nothing can arrive, so the wait lasts about as long as asked.
  Node idle = make_node(server_config());
  auto start_time = Clock::now();
  idle.transport->wait_for_traffic(Duration::millis(30));
  EXPECT_GE(Clock::now() - start_time, 20ms);

  ASSERT_TRUE(start());

  ASSERT_TRUE(client_send(Delivery::kUnreliable, bytes_of(8, 0)).ok());
  client.transport->flush(wall_now());
  start_time = Clock::now();
  server.transport->wait_for_traffic(Duration::seconds(2));
  EXPECT_LT(Clock::now() - start_time, 1s);
  ASSERT_TRUE(pump_until([&] { return at_server().size() == 1; }));
}

TEST_F(EnetPairTest, WaitForAnyNamesTheTransportsWithTraffic) {
  ASSERT_TRUE(start());
  Node idle = make_node(server_config());
  std::vector<EnetTransport*> transports{nullptr, idle.transport.get(), server.transport.get()};
  std::vector<std::size_t> ready{99};
  // Nothing sent: the wait lasts about as long as asked and names nobody.
  auto start_time = Clock::now();
  EnetTransport::wait_for_any(transports, Duration::millis(30), ready);
  EXPECT_GE(Clock::now() - start_time, 20ms);
  EXPECT_TRUE(ready.empty());

  ASSERT_TRUE(client_send(Delivery::kUnreliable, bytes_of(8, 0)).ok());
  client.transport->flush(wall_now());
  start_time = Clock::now();
  EnetTransport::wait_for_any(transports, Duration::seconds(2), ready);
  EXPECT_LT(Clock::now() - start_time, 1s);
  EXPECT_EQ(ready, std::vector<std::size_t>{2});
  ASSERT_TRUE(pump_until([&] { return at_server().size() == 1; }));

  // No transport to wait on: back at once.
  start_time = Clock::now();
  const std::vector<EnetTransport*> none{nullptr};
  EnetTransport::wait_for_any(none, Duration::seconds(2), ready);
  EXPECT_LT(Clock::now() - start_time, 1s);
  EXPECT_TRUE(ready.empty());
}

// The epoll set kept between waits: it names what has traffic, and follows
// the transports from call to call, a socket closed and its number taken
// by a newer transport at another index included.
TEST_F(EnetPairTest, WaitSetFollowsTransportsThatComeAndGo) {
  ASSERT_TRUE(start());
  EnetWaitSet set;
  std::vector<std::size_t> ready{99};
  auto idle = std::make_unique<Node>(make_node(server_config()));
  std::vector<EnetTransport*> transports{nullptr, idle->transport.get(), server.transport.get()};
  auto start_time = Clock::now();
  set.wait(transports, Duration::millis(30), ready);
  EXPECT_GE(Clock::now() - start_time, 20ms);
  EXPECT_TRUE(ready.empty());
  EXPECT_EQ(set.watched(), 2u);

  ASSERT_TRUE(client_send(Delivery::kUnreliable, bytes_of(8, 0)).ok());
  client.transport->flush(wall_now());
  set.wait(transports, Duration::seconds(2), ready);
  EXPECT_EQ(ready, std::vector<std::size_t>{2});
  ASSERT_TRUE(pump_until([&] { return at_server().size() == 1; }));

  // The idle transport goes; a new one, at index 0, likely gets its socket's
  // number. Index 1 letting go of its old number must not take the new
  // transport's socket out of the set.
  idle.reset();
  Node fresh = make_node(server_config());
  transports = {fresh.transport.get(), nullptr, server.transport.get()};
  RawEnetPeer stranger;
  ASSERT_TRUE(stranger.bound());
  const std::vector<std::uint8_t> datagram(4, 0xAB);
  stranger.send_datagram(*fresh.transport->local_address(), datagram);
  start_time = Clock::now();
  set.wait(transports, Duration::seconds(2), ready);
  EXPECT_LT(Clock::now() - start_time, 1s);
  // The server may have heard from its client meanwhile too.
  EXPECT_TRUE(std::find(ready.begin(), ready.end(), 0U) != ready.end()) << ready.size();
  EXPECT_EQ(set.watched(), 2u);

  // Nobody left to wait on: back at once.
  const std::vector<EnetTransport*> none{nullptr, nullptr};
  start_time = Clock::now();
  set.wait(none, Duration::seconds(2), ready);
  EXPECT_LT(Clock::now() - start_time, 1s);
  EXPECT_TRUE(ready.empty());
  EXPECT_EQ(set.watched(), 0u);
}

TEST(EnetTransportTest, RejectsMisuse) {
  Node client = make_node(client_config());
  ASSERT_TRUE(client.transport);
  EXPECT_EQ(client.transport->send(PeerId(1), Delivery::kReliableOrdered, bytes_of(1, 0), wall_now()).error().code,
            ErrorCode::kNotConnected);
  EXPECT_EQ(client.transport->connect(Address{"::1", 7777}, wall_now()).error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(client.transport->connect(Address{"127.0.0.1", 0}, wall_now()).error().code, ErrorCode::kInvalidArgument);
  client.transport->disconnect(PeerId(42), DisconnectReason::kKicked, wall_now());  // unknown: a no-op

  EnetConfig too_big = client_config();
  too_big.limits.max_unreliable_payload = 1400;  // would need fragmenting
  EXPECT_EQ(EnetTransport::create(too_big).error().code, ErrorCode::kInvalidArgument);
  EnetConfig no_peers = client_config();
  no_peers.max_peers = 0;
  EXPECT_EQ(EnetTransport::create(no_peers).error().code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace tickwire::transport
