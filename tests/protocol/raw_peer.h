#pragma once
// A raw peer on a SimMatch's network: connects at transport level and
// sends whatever a test wants, with helpers for the packets of a joined
// client so tests can break one rule at a time.

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim_match.h"
#include "tickwire/core/handshake.h"
#include "tickwire/core/packet_channel.h"
#include "tickwire/core/serialize.h"
#include "tickwire/prediction/input_packet.h"

namespace tickwire::testing {

struct RawPeer {
  RawPeer(SimMatch& m, const std::string& name) : match(m) {
    transport::SimEndpointConfig ec;
    ec.max_peers = 1;
    endpoint = m.net.create_endpoint({name, 1}, ec);
    peer = endpoint->connect(m.server_address, m.clock.now()).value();
    EXPECT_TRUE(m.run_until(
        [&] {
          pump();
          return connected;
        },
        Duration::seconds(2)));
  }

  void pump() {
    while (auto e = endpoint->poll(match.clock.now())) {
      if (e->type == transport::TransportEvent::Type::kConnected) connected = true;
      if (e->type == transport::TransportEvent::Type::kDisconnected) reason = e->reason;
      if (e->type == transport::TransportEvent::Type::kReceived) welcomed = true;
    }
  }

  void send(transport::Delivery d, const std::vector<std::uint8_t>& bytes) {
    ASSERT_TRUE(endpoint->send(peer, d, bytes, match.clock.now()).ok());
  }

  // Completes the handshake as a well-behaved client would.
  bool join() {
    BitWriter w(256);
    PacketPrefix prefix{kProtocolId, kProtocolVersion, PacketType::kHello};
    Hello hello{arena::Game::protocol_fingerprint(), "raw"};
    EXPECT_TRUE(serialize(w, prefix) && serialize(w, hello));
    send(transport::Delivery::kReliableOrdered, w.take());
    return match.run_until(
        [&] {
          pump();
          return welcomed;
        },
        Duration::seconds(2));
  }

  bool wait_for_disconnect(Duration limit) {
    return match.run_until(
        [&] {
          pump();
          return reason.has_value();
        },
        limit);
  }

  // An input packet of `count` neutral inputs from `first_tick`.
  std::vector<std::uint8_t> inputs(Tick first_tick, std::size_t count = 1) {
    const arena::Schema& s = arena::schema();
    prediction::InputPacket packet;
    packet.first_tick = first_tick;
    packet.inputs.assign(count, arena::to_record(arena::Input{}));
    PacketHeader header = channel.next_header(PacketType::kInput, match.clock.now());
    BitWriter w(1200);
    EXPECT_TRUE(serialize(w, header) && prediction::serialize_input_packet(w, packet, s.schema, s.input_type));
    return w.take();
  }

  SimMatch& match;
  std::unique_ptr<transport::Transport> endpoint;
  PeerId peer;
  PacketChannel channel;
  bool connected = false;
  bool welcomed = false;  // heard anything from the server
  std::optional<transport::DisconnectReason> reason;
};

}  // namespace tickwire::testing
