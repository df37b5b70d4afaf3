// Session datagrams (docs/wire-format.md, "Session datagrams"): unreliable
// payloads beside ENet's own datagrams, accepted on ENet's terms. A raw
// ENet peer (raw_enet_peer.h) completes ENet's handshake and then sends
// session datagrams with whatever header a test chooses; one obligation per
// test, each named in the docs.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "enet_test_support.h"
#include "raw_enet_peer.h"

namespace tickwire::transport {
namespace {

using namespace enet_testing;  // NOLINT(google-build-using-namespace)

constexpr std::uint16_t kSessionFlag = enet_wire::kHeaderCompressed;

std::vector<std::uint8_t> session_datagram(std::uint16_t slot, std::uint8_t session,
                                           const std::vector<std::uint8_t>& payload) {
  const auto header = static_cast<std::uint16_t>(kSessionFlag | (session << enet_wire::kSessionShift) | slot);
  std::vector<std::uint8_t> out(payload.size() + 2);
  out[0] = static_cast<std::uint8_t>(header >> 8);
  out[1] = static_cast<std::uint8_t>(header & 0xFF);
  std::copy(payload.begin(), payload.end(), out.begin() + 2);
  return out;
}

struct Connected {
  Node server = make_node(without_validation(server_config()));
  RawEnetPeer raw;
  bool up = false;
  Connected() {
    up = server.transport && raw.bound() && raw.connect(server.address(), [this] { server.poll_all(); }) &&
         pump_until({&server}, [this] { return !server.of_type(Type::kConnected).empty(); });
  }
  PeerId peer() const { return server.of_type(Type::kConnected).front().peer; }
  std::vector<std::uint8_t> honest(const std::vector<std::uint8_t>& payload) const {
    return session_datagram(raw.verify()->server_peer_id, raw.verify()->outgoing_session, payload);
  }
  std::size_t received() const { return server.of_type(Type::kReceived).size(); }
};

TEST(SessionDatagrams, AConnectedPeersDatagramIsItsUnreliablePayload) {
  Connected c;
  ASSERT_TRUE(c.up);
  const auto payload = bytes_of(40, 3);
  c.raw.send_datagram(c.server.address(), c.honest(payload));
  ASSERT_TRUE(pump_until({&c.server}, [&] { return c.received() == 1; }));
  const TransportEvent e = c.server.of_type(Type::kReceived).front();
  EXPECT_EQ(e.peer, c.peer());
  EXPECT_EQ(e.delivery, Delivery::kUnreliable);
  EXPECT_EQ(e.data, payload);
  EXPECT_EQ(c.server.transport->stats(c.peer())->bytes_received, payload.size());
}

TEST(SessionDatagrams, DropsDatagramsFromAnotherAddress) {
  Connected c;
  ASSERT_TRUE(c.up);
  // The right slot and session from another port: a spoofer that guessed
  // both still does not speak for the peer.
  RawEnetPeer other;
  ASSERT_TRUE(other.bound());
  other.send_datagram(c.server.address(), c.honest(bytes_of(40, 4)));
  // Then the peer itself, so the wait ends on something that must arrive.
  c.raw.send_datagram(c.server.address(), c.honest(bytes_of(8, 5)));
  ASSERT_TRUE(pump_until({&c.server}, [&] { return c.received() >= 1; }));
  pump_for({&c.server}, 20ms);
  ASSERT_EQ(c.received(), 1U);
  EXPECT_EQ(c.server.of_type(Type::kReceived).front().data, bytes_of(8, 5));
}

TEST(SessionDatagrams, DropsDatagramsOfAnotherSessionOrSlot) {
  Connected c;
  ASSERT_TRUE(c.up);
  const std::uint16_t slot = c.raw.verify()->server_peer_id;
  const std::uint8_t session = c.raw.verify()->outgoing_session;
  c.raw.send_datagram(c.server.address(),
                      session_datagram(slot, static_cast<std::uint8_t>((session + 1) & 3), bytes_of(10, 1)));
  c.raw.send_datagram(c.server.address(), session_datagram(static_cast<std::uint16_t>(slot + 1), session,
                                                           bytes_of(10, 2)));                  // a slot no one holds
  c.raw.send_datagram(c.server.address(), session_datagram(0xFFF, session, bytes_of(10, 3)));  // beyond every slot
  c.raw.send_datagram(c.server.address(), std::vector<std::uint8_t>{0x40});  // shorter than the header
  c.raw.send_datagram(c.server.address(), c.honest(bytes_of(8, 5)));
  ASSERT_TRUE(pump_until({&c.server}, [&] { return c.received() >= 1; }));
  pump_for({&c.server}, 20ms);
  ASSERT_EQ(c.received(), 1U);
  EXPECT_EQ(c.server.of_type(Type::kReceived).front().data, bytes_of(8, 5));
  EXPECT_TRUE(c.server.of_type(Type::kDisconnected).empty());
}

TEST(SessionDatagrams, AnOversizePayloadClosesThePeer) {
  Connected c;
  ASSERT_TRUE(c.up);
  const std::size_t limit = c.server.transport->limits().max_unreliable_payload;
  c.raw.send_datagram(c.server.address(), c.honest(bytes_of(limit + 1, 6)));
  ASSERT_TRUE(pump_until({&c.server}, [&] { return !c.server.of_type(Type::kDisconnected).empty(); }));
  EXPECT_EQ(c.server.of_type(Type::kDisconnected).front().reason, DisconnectReason::kProtocolError);
  EXPECT_EQ(c.received(), 0U);
}

TEST(SessionDatagrams, AnUnreliablePayloadCostsTwoBytesOnTheWire) {
  // ENet's own pings would share the count: ping only after a long silence.
  EnetConfig quiet = without_validation(server_config());
  quiet.ping_interval = Duration::seconds(30);
  quiet.rtt_probe_interval = Duration::seconds(30);
  Node server = make_node(quiet);
  EnetConfig quiet_client = without_validation(client_config());
  quiet_client.ping_interval = Duration::seconds(30);
  quiet_client.rtt_probe_interval = Duration::seconds(30);
  Node client = make_node(quiet_client);
  const Link link = connect_pair(server, client);
  ASSERT_NE(link.at_server, PeerId());
  pump_for({&server, &client}, 100ms);  // the handshake's acknowledgements and first probes settle

  const WireStats before = *client.transport->wire_stats();
  const auto payload = bytes_of(50, 7);
  ASSERT_TRUE(client.transport->send(link.at_client, Delivery::kUnreliable, payload, wall_now()).ok());
  client.transport->flush(wall_now());
  const WireStats after = *client.transport->wire_stats();
  EXPECT_EQ(after.datagrams_sent - before.datagrams_sent, 1U);
  EXPECT_EQ(after.bytes_sent - before.bytes_sent, payload.size() + 2);
  ASSERT_TRUE(pump_until({&server}, [&] { return server.has(Type::kReceived, link.at_server); }));
  EXPECT_EQ(server.of_type(Type::kReceived).front().data, payload);
}

}  // namespace
}  // namespace tickwire::transport
