// Raw datagrams of every length against EnetTransport over real UDP on
// loopback, with address validation on and off: none may crash the server,
// become a peer on the validating one or draw an answer, and a stream of
// empty or oversize datagrams, which end ENet's receive pass, must not
// stall the packets behind them. Fragment attacks over a connected raw ENet
// peer are in enet_fragment_adversarial_test.cpp.

#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "enet_test_support.h"
#include "raw_enet_peer.h"
#include "tickwire/transport/connect_challenge.h"

namespace tickwire::transport {
namespace {

using namespace enet_testing;  // NOLINT(google-build-using-namespace)

// ---------------------------------------------------------------------------
// 2. Random datagrams of every length, from a plain socket.

// Sealed by its first byte (0x40 to 0x7F); on the open server, a session
// datagram by the same bits.
bool sealed_datagram(const std::vector<std::uint8_t>& d) { return !d.empty() && (d[0] & 0xC0U) == 0x40U; }

TEST(EnetRawDatagramLength, RandomDatagramsOfEveryLengthAreHarmless) {
  std::mt19937_64 rng(test_seed());
  Node guarded = make_node(server_config());  // validation on
  Node open = make_node(without_validation(server_config()));
  ASSERT_TRUE(guarded.transport && open.transport);
  Node guarded_client = make_node(client_config());
  Node open_client = make_node(without_validation(client_config()));
  const Link guarded_link = connect_pair(guarded, guarded_client);
  const Link open_link = connect_pair(open, open_client);
  ASSERT_NE(guarded_link.at_server, PeerId());
  ASSERT_NE(open_link.at_server, PeerId());

  std::vector<std::size_t> sizes;
  for (std::size_t n = 0; n <= 1500; ++n) sizes.push_back(n);
  // Beyond ENet's 4096-byte receive buffer the kernel truncates and ENet
  // drops the datagram; 65507 is the largest a UDP/IPv4 datagram carries.
  for (std::size_t n : {2047u, 2048u, 2049u, 4095u, 4096u, 4097u, 8192u, 65507u}) sizes.push_back(n);

  const ValidationStats before = guarded.transport->validation_stats();  // the honest client's challenge
  RawEnetPeer to_guarded;
  RawEnetPeer to_open;
  ASSERT_TRUE(to_guarded.bound() && to_open.bound());
  std::uint64_t expected_unsealed = 0;  // everything else the validating server's hook sees
  std::uint64_t hellos = 0;
  std::size_t sent = 0;
  for (std::size_t size : sizes) {
    // Each length twice: all random, then with the header naming no peer.
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<std::uint8_t> d(size);
      for (auto& b : d) b = static_cast<std::uint8_t>(rng());
      if (pass == 1 && size >= 2) {
        d[0] |= 0x0F;
        d[1] = 0xFF;
      }
      const bool challenge_datagram = challenge::is_challenge_datagram(d);
      if (challenge_datagram) {
        const auto message = challenge::decode(d);
        if (message && std::holds_alternative<challenge::Hello>(*message)) ++hellos;
      }
      // The validating server's hook sees what ENet reads in full (ENet
      // stops at an empty datagram and drops truncated ones before it).
      if (!challenge_datagram && !sealed_datagram(d) && size >= 1 && size <= enet_wire::kReceiveBuffer) {
        ++expected_unsealed;
      }
      to_guarded.send_datagram(guarded.address(), d);
      to_open.send_datagram(open.address(), d);
      if (++sent % 16 == 0) {
        for (int i = 0; i < 8; ++i) {
          guarded.poll_all();
          open.poll_all();
        }
      }
    }
  }
  EXPECT_TRUE(pump_until({&guarded, &open}, [&] {
    return guarded.transport->validation_stats().unsealed_dropped - before.unsealed_dropped >= expected_unsealed;
  }));
  pump_for({&guarded, &open, &guarded_client, &open_client}, 100ms);
  to_guarded.service();
  to_open.service();

  const ValidationStats stats = guarded.transport->validation_stats();
  // No bare ENet datagram reaches ENet on a server that seals its sessions,
  // and no random bytes open as a session's.
  EXPECT_EQ(stats.unsealed_dropped - before.unsealed_dropped, expected_unsealed);
  EXPECT_EQ(stats.connects_dropped, before.connects_dropped);
  EXPECT_EQ(stats.admitted, before.admitted);
  if (hellos == 0) {
    EXPECT_EQ(to_guarded.bytes_received(), 0u) << "the validating server answered a datagram that was no HELLO";
    EXPECT_EQ(stats.unvalidated_bytes_out, before.unvalidated_bytes_out);
  }
  // Random bytes make no ENet CONNECT that ENet would accept.
  EXPECT_EQ(to_open.bytes_received(), 0u);
  EXPECT_EQ(guarded.of_type(Type::kConnected).size(), 1u);
  EXPECT_EQ(open.of_type(Type::kConnected).size(), 1u);
  EXPECT_TRUE(guarded.of_type(Type::kReceived).empty());
  EXPECT_TRUE(open.of_type(Type::kReceived).empty());
  EXPECT_TRUE(guarded.of_type(Type::kDisconnected).empty());
  EXPECT_TRUE(open.of_type(Type::kDisconnected).empty());

  // The connections made before carry on, and new ones are made.
  const std::vector<std::uint8_t> hello = bytes_of(700, 1);
  ASSERT_TRUE(
      guarded_client.transport->send(guarded_link.at_client, Delivery::kReliableOrdered, hello, wall_now()).ok());
  ASSERT_TRUE(open_client.transport->send(open_link.at_client, Delivery::kReliableOrdered, hello, wall_now()).ok());
  EXPECT_TRUE(pump_until({&guarded, &open, &guarded_client, &open_client}, [&] {
    return guarded.of_type(Type::kReceived).size() == 1 && open.of_type(Type::kReceived).size() == 1;
  }));
  Node late_guarded = make_node(client_config());
  Node late_open = make_node(without_validation(client_config()));
  EXPECT_NE(connect_pair(guarded, late_guarded).at_server, PeerId());
  EXPECT_NE(connect_pair(open, late_open).at_server, PeerId());
}

// How many calls of poll() a server needs to reach a client's message
// queued behind `junk` datagrams of `size` bytes. ENet ends a service call
// at an empty datagram (it reads as "nothing waiting") and fails one at a
// truncated datagram (over its 4096-byte buffer), so each such datagram
// ends one ENet receive pass early; EnetTransport::poll keeps servicing
// while the socket still holds data, up to 64 passes per call.
int polls_to_reach_a_message_behind(std::size_t junk, std::size_t size) {
  Node server = make_node(server_config());
  Node client = make_node(client_config());
  const Link link = connect_pair(server, client);
  if (link.at_server == PeerId()) return -1;
  RawEnetPeer attacker;
  const std::vector<std::uint8_t> datagram(size, 0);
  for (std::size_t i = 0; i < junk; ++i) attacker.send_datagram(server.address(), datagram);
  const std::vector<std::uint8_t> payload = bytes_of(20, 4);
  if (!client.transport->send(link.at_client, Delivery::kUnreliable, payload, wall_now()).ok()) return -1;
  client.transport->flush(wall_now());
  std::this_thread::sleep_for(50ms);  // everything is in the server's socket buffer
  for (int polls = 1; polls <= static_cast<int>(junk) + 50; ++polls) {
    if (auto event = server.transport->poll(wall_now())) server.events.push_back(std::move(*event));
    if (!server.of_type(Type::kReceived).empty()) return polls;
  }
  return -1;
}

// The most poll() calls a message behind `junk` such datagrams may take.
// Not 1: each datagram still costs one ENet pass, and the transport stops a
// poll after 64 passes so that a flood of them cannot hold the caller
// inside a single poll; so every call gets through at most 64 of them, and
// the message itself may be read only by the call after the one that got
// through the last (when `junk` is a multiple of 64).
int poll_bound(std::size_t junk) { return static_cast<int>((junk + 63) / 64) + 1; }

TEST(EnetRawDatagramLength, EmptyDatagramsDoNotStallTheReceivePath) {
  // 200 empty datagrams cost an attacker 200 bare UDP headers; with one
  // ENet pass per poll the server would need 201 polls to reach the message
  // behind them.
  constexpr std::size_t kJunk = 200;
  const int polls = polls_to_reach_a_message_behind(kJunk, 0);
  std::printf("reached the message in %d polls\n", polls);
  ASSERT_GT(polls, 0);
  EXPECT_LE(polls, poll_bound(kJunk));
}

TEST(EnetRawDatagramLength, OversizeDatagramsDoNotStallTheReceivePath) {
  // Likewise datagrams over 4096 bytes, which ENet's socket layer reports
  // as an error (MSG_TRUNC) that ends the service call.
  constexpr std::size_t kJunk = 50;
  const int polls = polls_to_reach_a_message_behind(kJunk, enet_wire::kReceiveBuffer + 1);
  std::printf("reached the message in %d polls\n", polls);
  ASSERT_GT(polls, 0);
  EXPECT_LE(polls, poll_bound(kJunk));
}

}  // namespace
}  // namespace tickwire::transport
