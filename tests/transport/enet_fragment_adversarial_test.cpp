// Hostile ENet traffic against EnetTransport over real UDP on loopback:
// fragments with impossible fields, random datagrams of every length, and
// peers that try to pin server memory with data ENet must buffer. The
// hostile side is RawEnetPeer, which writes ENet datagrams byte by byte.
//
// ENet 1.3.17 checks fragments loosely. It completes a reassembly once
// every fragment number has arrived, whatever bytes those fragments
// covered, in a buffer it does not clear (gaps, empty fragments and
// overlaps deliver stale heap bytes), and it sizes a reassembly's
// bookkeeping by the claimed fragment count (up to 1M) outside the
// waiting-data limit. EnetTransport therefore drops, before ENet parses
// it, every datagram from a connected peer that carries a fragment whose
// geometry an honest ENet sender never produces, closes that peer with
// kProtocolError and counts the datagram in
// ValidationStats::hostile_datagrams. Honest geometry, for the
// connection's MTU m: F = m - 4 - 24 bytes in every fragment but the last,
// which holds the rest; fragmentCount = ceil(totalLength / F);
// fragmentOffset = fragmentNumber * F. Messages of at most F bytes are
// never fragmented. The tests cut every message they mean to be legal that
// way (RawEnetPeer::fragment_length, honest_fragments). What an honest
// sender could have written but ENet still refuses (unknown channels, a
// total over maximumPacketSize, a fragment disagreeing with its
// reassembly, duplicates, replays) is left to ENet, which drops it without
// ending the connection.
//
// Servers here run with address validation off so that the raw peer can
// reach ENet's connect path directly. With validation on it would first
// have to answer the challenge (HELLO, CHALLENGE, RESPONSE), which
// enet_validation_net_test.cpp covers; what happens after the connect is
// the same either way.
//
// After every attack an honest EnetTransport client must still connect to
// the same server and exchange messages both ways.

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

// What EnetTransport sets ENet's maximumPacketSize to: the largest payload
// limit and 1024 bytes of slack.
std::size_t max_packet_size(const TransportLimits& limits) {
  return std::max(limits.max_reliable_payload, limits.max_unreliable_payload) + 1024;
}

std::vector<std::uint8_t> filled(std::size_t size, std::uint8_t value) {
  return std::vector<std::uint8_t>(size, value);
}

// The message the fragment tests agree on, for a connection whose honest
// fragment length is `fragment`: 2 * fragment + 100 bytes, so three honest
// fragments, each filled with its own byte (0x41, 0x42, then 100 of 0x43).
std::vector<std::uint8_t> three_fragments(std::uint32_t fragment) {
  std::vector<std::uint8_t> out(2 * std::size_t{fragment} + 100, 0x43);
  std::fill_n(out.begin(), fragment, std::uint8_t{0x41});
  std::fill_n(out.begin() + fragment, fragment, std::uint8_t{0x42});
  return out;
}

std::vector<TransportEvent> received_from(const Node& node, PeerId peer, Delivery delivery) {
  std::vector<TransportEvent> out;
  for (const TransportEvent& e : node.events) {
    if (e.type == Type::kReceived && e.peer == peer && e.delivery == delivery) out.push_back(e);
  }
  return out;
}

std::vector<TransportEvent> disconnects_of(const Node& node, PeerId peer) {
  std::vector<TransportEvent> out;
  for (const TransportEvent& e : node.events) {
    if (e.type == Type::kDisconnected && e.peer == peer) out.push_back(e);
  }
  return out;
}

// Heap bytes in use, as glibc counts them (0 where the allocator does not
// say, e.g. under a sanitizer, which only makes the bound trivially hold).
std::size_t heap_in_use() {
  const struct mallinfo2 info = ::mallinfo2();
  return info.uordblks + info.hblkhd;
}

// A validation-off server with one raw ENet peer connected to it.
class RawPeerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server = make_node(without_validation(server_config()));
    ASSERT_TRUE(server.transport);
    raw_id = connect_raw(raw);
    ASSERT_NE(raw_id, PeerId());
    fragment = raw.fragment_length();
    ASSERT_EQ(fragment, enet_wire::kDefaultMtu - enet_wire::kHeaderSize - enet_wire::kSendFragmentSize);
  }

  // Connects a raw peer and returns its id at the server.
  PeerId connect_raw(RawEnetPeer& peer) {
    if (!peer.bound()) return PeerId();
    const std::size_t before = server.of_type(Type::kConnected).size();
    if (!peer.connect(server.address(), [&] { server.poll_all(); })) return PeerId();
    const bool up = pump_until({&server}, [&] {
      peer.service();
      return server.of_type(Type::kConnected).size() > before;
    });
    return up ? server.of_type(Type::kConnected).back().peer : PeerId();
  }

  // Another raw peer, connected asking for `mtu` (PeerId() in `id` when it
  // did not connect); pump() services it from now on. For a fresh start
  // once `raw` has been disconnected, or for another MTU.
  RawEnetPeer& another_raw(PeerId& id, std::uint32_t mtu = enet_wire::kDefaultMtu) {
    others_.push_back(std::make_unique<RawEnetPeer>());
    RawEnetPeer& peer = *others_.back();
    peer.request_mtu(mtu);
    id = connect_raw(peer);
    return peer;
  }

  // Polls the server, keeping the raw peers answered, until `done` or `limit`.
  bool pump(const std::function<bool()>& done, std::chrono::milliseconds limit = 3000ms) {
    return pump_until(
        {&server},
        [&] {
          raw.service();
          for (const auto& other : others_) other->service();
          return done();
        },
        limit);
  }

  // A legal unsequenced message on the unreliable channel, alone in its
  // datagram. ENet reads one peer's datagrams in order, so once it has
  // arrived every datagram `peer` sent before it has been handled.
  bool marker(RawEnetPeer& peer, PeerId id) {
    ++marker_group_;
    const std::vector<std::uint8_t> payload{0xEE, static_cast<std::uint8_t>(marker_group_ >> 8),
                                            static_cast<std::uint8_t>(marker_group_)};
    peer.send_command(unsequenced_command(1, marker_group_, payload));
    return pump([&] {
      const auto got = received_from(server, id, Delivery::kUnreliable);
      return std::any_of(got.begin(), got.end(), [&](const TransportEvent& e) { return e.data == payload; });
    });
  }
  bool marker() { return marker(raw, raw_id); }

  std::vector<TransportEvent> reliable_from_raw() const {
    return received_from(server, raw_id, Delivery::kReliableOrdered);
  }

  std::uint64_t hostile_datagrams() const { return server.transport->validation_stats().hostile_datagrams; }

  // `payload` as reliable fragments on `channel`, cut honestly at `peer`'s
  // fragment length and numbered from `start`.
  static std::vector<FragmentFields> reliable_fragments(const RawEnetPeer& peer, std::uint16_t start,
                                                        const std::vector<std::uint8_t>& payload,
                                                        std::uint8_t channel = 0) {
    std::vector<FragmentFields> out = honest_fragments(payload, peer.fragment_length());
    for (FragmentFields& f : out) {
      f.channel = channel;
      f.sequence = static_cast<std::uint16_t>(start + f.fragment_number);
      f.start_sequence = start;
    }
    return out;
  }

  // The fragments of three_fragments() as `raw` sends them first, from
  // sequence number 1.
  std::vector<FragmentFields> legal_fragments() const { return reliable_fragments(raw, 1, three_fragments(fragment)); }

  // Sends `payload` as an honest ENet sender would, one fragment per
  // datagram (see reliable_fragments). Returns the next free sequence
  // number on the channel.
  static std::uint16_t send_reassembly(RawEnetPeer& peer, std::uint16_t start, const std::vector<std::uint8_t>& payload,
                                       std::uint8_t channel = 0) {
    const std::vector<FragmentFields> fragments = reliable_fragments(peer, start, payload, channel);
    for (const FragmentFields& f : fragments) peer.send_command(fragment_command(f));
    return static_cast<std::uint16_t>(start + fragments.size());
  }

  // The server dropped `datagrams` hostile datagrams from `peer` (id `id`)
  // since the count stood at `hostile_before`, closed it with
  // kProtocolError, told it so, and delivered no message of it.
  void expect_closed_as_hostile(RawEnetPeer& peer, PeerId id, std::uint64_t hostile_before,
                                std::uint64_t datagrams = 1) {
    SCOPED_TRACE("closed as hostile");
    ASSERT_TRUE(pump([&] { return !disconnects_of(server, id).empty(); })) << "the hostile peer is still connected";
    EXPECT_EQ(disconnects_of(server, id).front().reason, DisconnectReason::kProtocolError);
    EXPECT_EQ(disconnects_of(server, id).size(), 1u);
    EXPECT_TRUE(pump([&] { return peer.disconnect_data().has_value(); })) << "no DISCONNECT reached the peer";
    EXPECT_EQ(peer.disconnect_data(), static_cast<std::uint32_t>(DisconnectReason::kProtocolError));
    EXPECT_EQ(hostile_datagrams() - hostile_before, datagrams);
    // Events for a peer the server closed are swallowed, so nothing of it
    // can surface after the disconnect either.
    EXPECT_TRUE(received_from(server, id, Delivery::kReliableOrdered).empty())
        << "a hostile fragment completed a message";
  }

  // Another client sends `message` to the server and leaves; the server's
  // buffers for it are freed.
  void pass_a_message_through_the_server(const std::vector<std::uint8_t>& message) {
    Node other = make_node(without_validation(client_config()));
    ASSERT_TRUE(other.transport);
    const Link link = connect_pair(server, other);
    ASSERT_NE(link.at_server, PeerId());
    ASSERT_TRUE(other.transport->send(link.at_client, Delivery::kReliableOrdered, message, wall_now()).ok());
    ASSERT_TRUE(pump_until({&server, &other},
                           [&] { return !received_from(server, link.at_server, Delivery::kReliableOrdered).empty(); }));
  }

  // An honest client connects to the server and both exchange a message.
  void expect_honest_exchange() {
    SCOPED_TRACE("honest client");
    Node client = make_node(without_validation(client_config()));
    ASSERT_TRUE(client.transport);
    const Link link = connect_pair(server, client);
    ASSERT_NE(link.at_server, PeerId());
    const std::uint64_t hostile_before = hostile_datagrams();
    const std::vector<std::uint8_t> request = bytes_of(5000, 3);  // ENet fragments it
    ASSERT_TRUE(client.transport->send(link.at_client, Delivery::kReliableOrdered, request, wall_now()).ok());
    EXPECT_TRUE(pump_until({&server, &client}, [&] {
      const auto got = received_from(server, link.at_server, Delivery::kReliableOrdered);
      return !got.empty() && got.front().data == request;
    }));
    const std::vector<std::uint8_t> reply = bytes_of(100, 9);
    ASSERT_TRUE(server.transport->send(link.at_server, Delivery::kUnreliable, reply, wall_now()).ok());
    EXPECT_TRUE(pump_until({&server, &client}, [&] {
      const auto got = received_from(client, link.at_client, Delivery::kUnreliable);
      return !got.empty() && got.front().data == reply;
    }));
    EXPECT_TRUE(disconnects_of(server, link.at_server).empty());
    // ENet's own fragments are honest by definition.
    EXPECT_EQ(hostile_datagrams(), hostile_before);
  }

  Node server;
  RawEnetPeer raw;
  PeerId raw_id;
  std::uint32_t fragment = 0;  // the honest fragment length on raw's connection
  std::uint16_t marker_group_ = 0;
  std::vector<std::unique_ptr<RawEnetPeer>> others_;
};

// ---------------------------------------------------------------------------
// 1. Fragments with hostile fields. Those an honest sender never writes end
// the connection before ENet sees them; those with honest geometry that
// ENet's own checks refuse are dropped by ENet and the connection carries on.

// Who refuses a spoiled fragment.
enum class RefusedBy {
  kGuard,  // geometry no honest sender makes: dropped, the peer closed with kProtocolError
  kEnet,   // honest geometry, refused by ENet's own checks: dropped, the peer stays
};

// What a spoiler may need to know about the connection.
struct Shape {
  std::uint32_t fragment;  // the honest fragment length F
  std::uint32_t max_packet;
};

struct HostileFragment {
  const char* name;
  RefusedBy refused_by;
  // Spoils the first legal fragment of three_fragments().
  std::function<void(FragmentFields&, const Shape&)> spoil;
};

constexpr std::uint32_t total_of(const Shape& s) { return 2 * s.fragment + 100; }

const HostileFragment kHostileFragments[] = {
    {"FragmentCountZero", RefusedBy::kGuard, [](FragmentFields& f, const Shape&) { f.fragment_count = 0; }},
    // ENet would take either: with two F-byte fragments 100 bytes of the
    // message stay unwritten; with four, one must be empty or overlap.
    {"FragmentCountTooFewForTheTotal", RefusedBy::kGuard,
     [](FragmentFields& f, const Shape&) { f.fragment_count = 2; }},
    {"FragmentCountTooManyForTheTotal", RefusedBy::kGuard,
     [](FragmentFields& f, const Shape&) { f.fragment_count = 4; }},
    {"FragmentCountAboveEnetMaximum", RefusedBy::kGuard,
     [](FragmentFields& f, const Shape&) { f.fragment_count = enet_wire::kMaxFragmentCount + 1; }},
    {"FragmentCountAboveEnetMaximumWithRoomForIt", RefusedBy::kGuard,
     [](FragmentFields& f, const Shape&) {
       f.fragment_count = enet_wire::kMaxFragmentCount + 1;
       f.total_length = 0xFFFFFFFF;
     }},
    {"FragmentCountMaxUint", RefusedBy::kGuard, [](FragmentFields& f, const Shape&) { f.fragment_count = 0xFFFFFFFF; }},
    {"TotalLengthAboveMaximumPacketSize", RefusedBy::kGuard,
     [](FragmentFields& f, const Shape& s) { f.total_length = s.max_packet + 1; }},
    {"TotalLengthMaxUint", RefusedBy::kGuard, [](FragmentFields& f, const Shape&) { f.total_length = 0xFFFFFFFF; }},
    {"TotalLengthZero", RefusedBy::kGuard, [](FragmentFields& f, const Shape&) { f.total_length = 0; }},
    {"TotalLengthBelowTheFragment", RefusedBy::kGuard,
     [](FragmentFields& f, const Shape& s) { f.total_length = s.fragment - 1; }},
    {"OffsetAtTotalLength", RefusedBy::kGuard,
     [](FragmentFields& f, const Shape& s) { f.fragment_offset = total_of(s); }},
    {"OffsetBeyondTotalLength", RefusedBy::kGuard,
     [](FragmentFields& f, const Shape& s) { f.fragment_offset = total_of(s) + 3000; }},
    {"OffsetThatWrapsWithTheLength", RefusedBy::kGuard,
     [](FragmentFields& f, const Shape&) { f.fragment_offset = 0xFFFFFF00; }},
    {"OffsetOffTheFragmentGrid", RefusedBy::kGuard, [](FragmentFields& f, const Shape&) { f.fragment_offset = 1; }},
    {"EndBeyondTotalLength", RefusedBy::kGuard,
     [](FragmentFields& f, const Shape& s) {
       // The last fragment, one byte longer than what is left of the message.
       f.fragment_number = 2;
       f.fragment_offset = 2 * s.fragment;
       f.data = filled(101, 0x43);
     }},
    {"FragmentShorterThanTheFragmentLength", RefusedBy::kGuard,
     [](FragmentFields& f, const Shape&) { f.data.pop_back(); }},
    {"FragmentLongerThanTheFragmentLength", RefusedBy::kGuard,
     [](FragmentFields& f, const Shape&) { f.data.push_back(0x41); }},
    {"FragmentNumberAtCount", RefusedBy::kGuard, [](FragmentFields& f, const Shape&) { f.fragment_number = 3; }},
    {"FragmentNumberMaxUint", RefusedBy::kGuard,
     [](FragmentFields& f, const Shape&) { f.fragment_number = 0xFFFFFFFF; }},
    {"DataLengthZero", RefusedBy::kGuard, [](FragmentFields& f, const Shape&) { f.data.clear(); }},
    {"DataLengthBeyondTheDatagram", RefusedBy::kGuard,
     [](FragmentFields& f, const Shape& s) { f.declared_length = static_cast<std::uint16_t>(s.fragment + 1); }},
    {"DataLengthMaxUint16", RefusedBy::kGuard, [](FragmentFields& f, const Shape&) { f.declared_length = 0xFFFF; }},
    // Honest geometry, so the guard passes them; ENet's checks refuse them.
    {"FragmentCountAboveEnetMaximumWithAMatchingTotal", RefusedBy::kEnet,
     [](FragmentFields& f, const Shape& s) {
       f.fragment_count = enet_wire::kMaxFragmentCount + 1;
       f.total_length = enet_wire::kMaxFragmentCount * s.fragment + 1;
     }},
    {"TotalLengthAboveMaximumPacketSizeWithAMatchingCount", RefusedBy::kEnet,
     [](FragmentFields& f, const Shape& s) {
       f.total_length = s.max_packet + 1;
       f.fragment_count = (f.total_length + s.fragment - 1) / s.fragment;
     }},
    {"HonestDataLengthBeyondTheDatagram", RefusedBy::kEnet,
     [](FragmentFields& f, const Shape& s) {
       f.data.pop_back();
       f.declared_length = static_cast<std::uint16_t>(s.fragment);
     }},
    {"ChannelBeyondTheChannelCount", RefusedBy::kEnet, [](FragmentFields& f, const Shape&) { f.channel = 2; }},
    {"ConnectionLevelChannel", RefusedBy::kEnet,
     [](FragmentFields& f, const Shape&) { f.channel = enet_wire::kNoChannel; }},
};

class HostileFragmentTest : public RawPeerTest, public ::testing::WithParamInterface<HostileFragment> {};

TEST_P(HostileFragmentTest, IsRefusedAndTheServerCarriesOn) {
  const std::uint64_t hostile_before = hostile_datagrams();
  const std::vector<FragmentFields> legal = legal_fragments();
  ASSERT_EQ(legal.size(), 3u);
  FragmentFields spoiled = legal.front();
  GetParam().spoil(spoiled, Shape{fragment, static_cast<std::uint32_t>(max_packet_size(server.transport->limits()))});
  raw.send_command(fragment_command(spoiled));
  // The rest of the message, legal, as if the first fragment had been fine:
  // without it they must not complete anything.
  for (std::size_t i = 1; i < legal.size(); ++i) raw.send_command(fragment_command(legal[i]));
  const std::vector<std::uint8_t> message = three_fragments(fragment);

  if (GetParam().refused_by == RefusedBy::kGuard) {
    expect_closed_as_hostile(raw, raw_id, hostile_before);
    // Another peer sending the same message honestly gets it through whole,
    // exactly once.
    PeerId fresh_id;
    RawEnetPeer& fresh = another_raw(fresh_id);
    ASSERT_NE(fresh_id, PeerId());
    send_reassembly(fresh, 1, message);
    ASSERT_TRUE(marker(fresh, fresh_id));
    const auto got = received_from(server, fresh_id, Delivery::kReliableOrdered);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got.front().data, message);
    EXPECT_TRUE(disconnects_of(server, fresh_id).empty());
  } else {
    ASSERT_TRUE(marker());
    EXPECT_TRUE(reliable_from_raw().empty()) << "a refused fragment completed a message";
    // The raw peer's channel is unharmed: a legal message starting at the
    // same sequence number arrives whole, exactly once. (The legal rest
    // above may already sit in reassembly; a fresh reassembly agreeing
    // with it completes it with the same bytes.)
    send_reassembly(raw, 1, message);
    ASSERT_TRUE(marker());
    const auto got = reliable_from_raw();
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got.front().data, message);
    EXPECT_TRUE(disconnects_of(server, raw_id).empty());
    EXPECT_EQ(hostile_datagrams(), hostile_before);
  }
  expect_honest_exchange();
}

INSTANTIATE_TEST_SUITE_P(EnetFragmentAdversarial, HostileFragmentTest, ::testing::ValuesIn(kHostileFragments),
                         [](const ::testing::TestParamInfo<HostileFragment>& param_info) {
                           return param_info.param.name;
                         });

// ---------------------------------------------------------------------------
// 1b. Fragments that disagree with each other.

using EnetFragmentAdversarial = RawPeerTest;

TEST_F(EnetFragmentAdversarial, OverlappingFragmentsEndTheConnectionAndDeliverNothing) {
  // ENet copies each fragment where it says it goes and counts only
  // fragment numbers, so a middle fragment written over the end of the
  // first would complete a message mixing the two, with the bytes no
  // fragment reached left as the heap had them. An honest sender puts
  // fragment n at n * F, so the overlapping one ends the connection.
  const std::uint64_t hostile_before = hostile_datagrams();
  std::vector<FragmentFields> pieces = legal_fragments();
  pieces[1].fragment_offset = fragment - 200;
  pieces[1].data = filled(fragment, 0xB0);
  for (const FragmentFields& f : pieces) raw.send_command(fragment_command(f));
  expect_closed_as_hostile(raw, raw_id, hostile_before);
  expect_honest_exchange();
}

TEST_F(EnetFragmentAdversarial, ADuplicatedFragmentNumberKeepsTheFirstCopyAndAReplayDeliversNothing) {
  // A second copy of a fragment, with other bytes, is cut honestly, so it
  // reaches ENet, which keeps the first copy of each fragment number.
  const std::uint64_t hostile_before = hostile_datagrams();
  const std::vector<FragmentFields> legal = legal_fragments();
  raw.send_command(fragment_command(legal[0]));
  FragmentFields impostor = legal[0];  // same number, other bytes
  impostor.data = filled(fragment, 0x66);
  raw.send_command(fragment_command(impostor));
  for (std::size_t i = 1; i < legal.size(); ++i) raw.send_command(fragment_command(legal[i]));
  ASSERT_TRUE(marker());
  const std::vector<std::uint8_t> expected = three_fragments(fragment);
  auto got = reliable_from_raw();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got.front().data, expected);

  // Every fragment again, after delivery: behind the channel's window, so
  // ENet ignores them rather than starting a second copy.
  for (const FragmentFields& f : legal) raw.send_command(fragment_command(f));
  ASSERT_TRUE(marker());
  EXPECT_EQ(reliable_from_raw().size(), 1u);
  EXPECT_TRUE(disconnects_of(server, raw_id).empty());
  EXPECT_EQ(hostile_datagrams(), hostile_before);
  expect_honest_exchange();
}

TEST_F(EnetFragmentAdversarial, AFragmentThatDisagreesOnTheTotalLengthIsRefused) {
  // Each liar below is cut honestly for a message of its own length, so
  // the guard passes it; ENet refuses a fragment whose total length or
  // fragment count differs from the reassembly it names, and carries on.
  const std::uint64_t hostile_before = hostile_datagrams();
  const std::vector<FragmentFields> legal = legal_fragments();  // 2F + 100 bytes in 3
  raw.send_command(fragment_command(legal[0]));
  FragmentFields longer = legal[1];
  longer.total_length = 3 * fragment + 100;  // the reassembly holds 2F + 100
  longer.fragment_count = 4;
  longer.data = filled(fragment, 0x66);
  raw.send_command(fragment_command(longer));
  FragmentFields shorter = legal[1];  // the last of 2: the 100 bytes after F
  shorter.total_length = fragment + 100;
  shorter.fragment_count = 2;  // the reassembly expects 3
  shorter.data = filled(100, 0x66);
  raw.send_command(fragment_command(shorter));
  ASSERT_TRUE(marker());
  EXPECT_TRUE(reliable_from_raw().empty());

  for (std::size_t i = 1; i < legal.size(); ++i) raw.send_command(fragment_command(legal[i]));
  ASSERT_TRUE(marker());
  const std::vector<std::uint8_t> expected = three_fragments(fragment);
  const auto got = reliable_from_raw();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got.front().data, expected);
  EXPECT_TRUE(disconnects_of(server, raw_id).empty());
  EXPECT_EQ(hostile_datagrams(), hostile_before);
  expect_honest_exchange();
}

TEST_F(EnetFragmentAdversarial, AReassemblyAtTheReliableLimitArrivesAndOneByteMoreIsAProtocolError) {
  const std::uint64_t hostile_before = hostile_datagrams();
  const std::size_t limit = server.transport->limits().max_reliable_payload;
  const std::vector<std::uint8_t> at_limit = bytes_of(limit, 17);
  const std::uint16_t next = send_reassembly(raw, 1, at_limit);
  ASSERT_TRUE(pump([&] { return !reliable_from_raw().empty(); }));
  EXPECT_EQ(reliable_from_raw().front().data, at_limit);

  // Within ENet's maximumPacketSize (the limit plus slack) and cut
  // honestly, so ENet reassembles it and tickwire refuses it.
  send_reassembly(raw, next, bytes_of(limit + 1, 18));
  ASSERT_TRUE(pump([&] { return !disconnects_of(server, raw_id).empty(); }));
  EXPECT_EQ(disconnects_of(server, raw_id).front().reason, DisconnectReason::kProtocolError);
  EXPECT_EQ(reliable_from_raw().size(), 1u);
  // The raw peer is told why.
  EXPECT_TRUE(pump([&] { return raw.disconnect_data().has_value(); }));
  EXPECT_EQ(raw.disconnect_data(), static_cast<std::uint32_t>(DisconnectReason::kProtocolError));
  EXPECT_EQ(hostile_datagrams(), hostile_before) << "the limit, not the fragment guard, ends this connection";
  expect_honest_exchange();
}

TEST_F(EnetFragmentAdversarial, AReliableReassemblyOnTheUnreliableChannelIsAProtocolError) {
  const std::uint64_t hostile_before = hostile_datagrams();
  send_reassembly(raw, 1, three_fragments(fragment), /*channel=*/1);
  ASSERT_TRUE(pump([&] { return !disconnects_of(server, raw_id).empty(); }));
  EXPECT_EQ(disconnects_of(server, raw_id).front().reason, DisconnectReason::kProtocolError);
  EXPECT_TRUE(reliable_from_raw().empty());
  EXPECT_EQ(hostile_datagrams(), hostile_before) << "the channel check, not the fragment guard, ends this connection";
  expect_honest_exchange();
}

TEST_F(EnetFragmentAdversarial, UnreliableFragmentsAreHeldToTheUnreliableLimit) {
  // SEND_UNRELIABLE_FRAGMENT, which tickwire itself never sends: ENet
  // reassembles it like any other, and tickwire applies the unreliable
  // limit to the result. At ENet's default MTU an honest sender fragments
  // only messages longer than F = 1364 bytes, which is over the unreliable
  // limit, so this peer connects asking for ENet's minimum MTU (576, F =
  // 548): a message at the limit then takes three honest fragments, and
  // the guard must judge them by this connection's MTU, not the host's.
  const std::size_t limit = server.transport->limits().max_unreliable_payload;
  PeerId small_id;
  RawEnetPeer& small = another_raw(small_id, enet_wire::kMinimumMtu);
  ASSERT_NE(small_id, PeerId());
  ASSERT_EQ(small.verify()->mtu, enet_wire::kMinimumMtu);
  ASSERT_LT(small.fragment_length(), limit);
  const std::uint64_t hostile_before = hostile_datagrams();
  auto send_unreliable = [&](std::uint16_t unreliable_sequence, const std::vector<std::uint8_t>& payload) {
    for (FragmentFields f : honest_fragments(payload, small.fragment_length())) {
      f.unreliable = true;
      f.channel = 1;
      f.sequence = 0;  // the channel's reliable sequence number: none yet
      f.start_sequence = unreliable_sequence;
      small.send_command(fragment_command(f));
    }
  };
  const std::vector<std::uint8_t> at_limit = bytes_of(limit, 7);
  send_unreliable(1, at_limit);
  ASSERT_TRUE(pump([&] {
    const auto got = received_from(server, small_id, Delivery::kUnreliable);
    return std::any_of(got.begin(), got.end(), [&](const TransportEvent& e) { return e.data == at_limit; });
  }));
  send_unreliable(2, bytes_of(limit + 1, 8));
  ASSERT_TRUE(pump([&] { return !disconnects_of(server, small_id).empty(); }));
  EXPECT_EQ(disconnects_of(server, small_id).front().reason, DisconnectReason::kProtocolError);
  for (const TransportEvent& e : received_from(server, small_id, Delivery::kUnreliable)) {
    EXPECT_LE(e.data.size(), limit);
  }
  EXPECT_EQ(hostile_datagrams(), hostile_before) << "the limit, not the fragment guard, ends this connection";
  EXPECT_TRUE(disconnects_of(server, raw_id).empty());
  expect_honest_exchange();
}

TEST_F(EnetFragmentAdversarial, HostileUnsequencedAndReliableCommandsAreRefusedOrEndTheConnection) {
  const std::uint64_t hostile_before = hostile_datagrams();
  // A payload length past the datagram's end, on either command: dropped.
  raw.send_command(unsequenced_command(1, 100, filled(50, 1), /*declared_length=*/51));
  raw.send_command(reliable_command(0, 1, filled(50, 1), /*declared_length=*/0xFFFF));
  // Channels that do not exist.
  raw.send_command(unsequenced_command(7, 101, filled(50, 2)));
  raw.send_command(reliable_command(enet_wire::kNoChannel, 1, filled(50, 2)));
  ASSERT_TRUE(marker());
  EXPECT_TRUE(reliable_from_raw().empty());
  for (const TransportEvent& e : received_from(server, raw_id, Delivery::kUnreliable)) {
    EXPECT_EQ(e.data.front(), 0xEE) << "only markers arrive";
  }
  EXPECT_TRUE(disconnects_of(server, raw_id).empty());
  // Not fragments: ENet's to refuse, not the fragment guard's.
  EXPECT_EQ(hostile_datagrams(), hostile_before);

  // A legal reliable message at sequence 1 still arrives.
  raw.send_command(reliable_command(0, 1, filled(50, 3)));
  ASSERT_TRUE(pump([&] { return !reliable_from_raw().empty(); }));
  EXPECT_EQ(reliable_from_raw().front().data, filled(50, 3));

  // An unsequenced payload over the unreliable limit (ENet accepts up to
  // its maximumPacketSize) is tickwire's to refuse.
  raw.send_command(unsequenced_command(1, 200, filled(server.transport->limits().max_unreliable_payload + 1, 4)));
  ASSERT_TRUE(pump([&] { return !disconnects_of(server, raw_id).empty(); }));
  EXPECT_EQ(disconnects_of(server, raw_id).front().reason, DisconnectReason::kProtocolError);
  expect_honest_exchange();
}

TEST_F(EnetFragmentAdversarial, UnsequencedDataOnTheReliableChannelIsAProtocolError) {
  raw.send_command(unsequenced_command(0, 1, filled(10, 1)));
  ASSERT_TRUE(pump([&] { return !disconnects_of(server, raw_id).empty(); }));
  EXPECT_EQ(disconnects_of(server, raw_id).front().reason, DisconnectReason::kProtocolError);
  EXPECT_TRUE(received_from(server, raw_id, Delivery::kUnreliable).empty());
  expect_honest_exchange();
}

// If the delivered message `data` holds bytes in [from, to) that no
// fragment wrote, says so, and how many of them are another client's
// (`foreign_fill`) or otherwise non-zero.
void report_unwritten_bytes(const std::vector<std::uint8_t>& data, std::size_t from, std::size_t to,
                            std::uint8_t foreign_fill) {
  to = std::min(to, data.size());
  from = std::min(from, to);
  const auto first = data.begin() + static_cast<std::ptrdiff_t>(from);
  const auto last = data.begin() + static_cast<std::ptrdiff_t>(to);
  const auto non_zero = std::count_if(first, last, [](std::uint8_t b) { return b != 0; });
  const auto leaked = std::count(first, last, foreign_fill);
  ADD_FAILURE() << "a " << data.size() << "-byte message was delivered with " << (to - from)
                << " bytes no fragment wrote; " << non_zero << " of them non-zero, " << leaked
                << " equal to another client's earlier message";
}

// ENet 1.3.17 counts a reassembly complete when every fragment number has
// arrived, whatever ranges they covered, and allocates the message
// uninitialized: a middle fragment that claims offset 0 would complete a
// message whose middle is whatever the heap held, here likely another
// client's message. The fragment off the honest grid ends the connection
// before ENet sees it (and the transport's zeroing allocator is the second
// line, should anything get through).
TEST_F(EnetFragmentAdversarial, FragmentsThatLeaveAGapDeliverNoBytesTheSenderDidNotSend) {
  const std::vector<std::uint8_t> message = three_fragments(fragment);
  // Another client's message of the same size passes through the server
  // first, so that its freed buffer is what the next allocation of that
  // size is likely to get.
  pass_a_message_through_the_server(filled(message.size(), 0x5A));
  const std::uint64_t hostile_before = hostile_datagrams();
  std::vector<FragmentFields> pieces = legal_fragments();
  pieces[1].fragment_offset = 0;  // over the first: F..2F-1 never written
  for (const FragmentFields& f : pieces) raw.send_command(fragment_command(f));
  expect_closed_as_hostile(raw, raw_id, hostile_before);
  const auto got = reliable_from_raw();
  if (!got.empty()) report_unwritten_bytes(got.front().data, fragment, 2 * std::size_t{fragment}, 0x5A);
  expect_honest_exchange();
}

// ENet 1.3.17 takes a fragment with no data (dataLength 0) as present, so
// it and the real rest would complete a message whose first F bytes are
// uninitialized heap memory, heap pointers included. No honest fragment is
// empty: the connection ends instead.
TEST_F(EnetFragmentAdversarial, AFragmentWithNoDataCompletesNothing) {
  const std::vector<std::uint8_t> message = three_fragments(fragment);
  pass_a_message_through_the_server(filled(message.size(), 0x5A));
  const std::uint64_t hostile_before = hostile_datagrams();
  std::vector<FragmentFields> pieces = legal_fragments();
  pieces[0].data.clear();
  for (const FragmentFields& f : pieces) raw.send_command(fragment_command(f));
  expect_closed_as_hostile(raw, raw_id, hostile_before);
  const auto got = reliable_from_raw();
  if (!got.empty()) report_unwritten_bytes(got.front().data, 0, fragment, 0x5A);
  expect_honest_exchange();
}

// ---------------------------------------------------------------------------
// 3. Data ENet must buffer for a peer: out-of-order reliable commands and
// reassemblies that never complete. ENet refuses more once a peer's
// buffered bytes reach maximumWaitingData (64 KiB here), and refused
// commands go unacknowledged, so the acknowledgements tell exactly what
// was kept.

constexpr std::size_t kWaitingLimit = 64 * 1024;
constexpr std::size_t kHeapBound = 1024 * 1024;

using EnetWaitingData = RawPeerTest;

TEST_F(EnetWaitingData, OutOfOrderReliableDataIsKeptOnlyUpToTheWaitingLimit) {
  const std::size_t heap_before = heap_in_use();
  // Sequence 1 never comes, so nothing can be delivered and everything
  // from 2 on must wait: 4000 commands of 1000 bytes, 4 MB in all.
  constexpr std::size_t kPayload = 1000;
  constexpr std::uint16_t kCommands = 4000;
  const std::vector<std::uint8_t> payload = filled(kPayload, 0x77);
  std::vector<std::vector<std::uint8_t>> batch;
  for (std::uint16_t seq = 2; seq < 2 + kCommands; ++seq) {
    batch.push_back(reliable_command(0, seq, payload));
    if (batch.size() == 3) {  // 3 commands stay under ENet's 4096-byte buffer
      raw.send_commands(batch);
      batch.clear();
    }
    if (seq % 60 == 0) {
      pump_for({&server}, 1ms);
      raw.service();
    }
  }
  if (!batch.empty()) raw.send_commands(batch);
  pump([] { return false; }, 300ms);

  std::size_t kept = 0;
  for (const auto& [channel, seq] : raw.acknowledged()) kept += channel == 0 && seq >= 2 ? 1 : 0;
  std::printf("kept %zu of %u out-of-order commands\n", kept, static_cast<unsigned>(kCommands));
  EXPECT_GE(kept, 1u);
  EXPECT_LE(kept * kPayload, kWaitingLimit + kPayload);
  const std::size_t heap_after = heap_in_use();
  EXPECT_LT(heap_after - std::min(heap_after, heap_before), kHeapBound);
  EXPECT_TRUE(reliable_from_raw().empty());
  expect_honest_exchange();
}

TEST_F(EnetWaitingData, ReassembliesThatNeverCompleteAreKeptOnlyUpToTheWaitingLimit) {
  const std::size_t heap_before = heap_in_use();
  const std::uint64_t hostile_before = hostile_datagrams();
  // 200 reassemblies of 17000 bytes (below maximumPacketSize, 17408), each
  // cut honestly (13 fragments at the default MTU) and given only its first
  // two fragments: 3.4 MB if ENet kept them all.
  constexpr std::uint32_t kTotal = 17000;
  constexpr int kReassemblies = 200;
  constexpr std::uint16_t kSpacing = 20;  // sequence numbers per reassembly
  const std::vector<FragmentFields> cut = honest_fragments(filled(kTotal, 0x55), fragment);
  ASSERT_GT(cut.size(), 2u);
  ASSERT_LE(cut.size(), kSpacing);
  for (int i = 0; i < kReassemblies; ++i) {
    const auto start = static_cast<std::uint16_t>(1 + i * kSpacing);
    std::vector<std::vector<std::uint8_t>> both;  // two MTU-sized fragments stay under ENet's 4096-byte buffer
    for (std::uint32_t number = 0; number < 2; ++number) {
      FragmentFields f = cut[number];
      f.sequence = static_cast<std::uint16_t>(start + number);
      f.start_sequence = start;
      both.push_back(fragment_command(f));
    }
    raw.send_commands(both);
    if (i % 20 == 0) {
      pump_for({&server}, 1ms);
      raw.service();
    }
  }
  pump([] { return false; }, 300ms);

  std::size_t kept = 0;  // reassemblies whose first fragment was acknowledged
  for (const auto& [channel, seq] : raw.acknowledged()) kept += channel == 0 && (seq - 1u) % kSpacing == 0 ? 1 : 0;
  std::printf("kept %zu of %d reassemblies\n", kept, kReassemblies);
  EXPECT_GE(kept, 1u);
  EXPECT_LE(kept * kTotal, kWaitingLimit + kTotal);
  const std::size_t heap_after = heap_in_use();
  EXPECT_LT(heap_after - std::min(heap_after, heap_before), kHeapBound);
  EXPECT_TRUE(reliable_from_raw().empty());
  // Incomplete but honest: ENet's waiting limit, not the guard, refuses them.
  EXPECT_TRUE(disconnects_of(server, raw_id).empty());
  EXPECT_EQ(hostile_datagrams(), hostile_before);
  expect_honest_exchange();
}

// ENet 1.3.17 checks fragmentCount only against its own maximum (1024 *
// 1024), not against totalLength, and sizes each reassembly's fragment
// bitmap by it (128 KiB at the maximum) without counting the bitmap as
// waiting data: a 1-byte message announced in 1M fragments would cost the
// server 128 KiB for 29 bytes on the wire, and a peer could open one per
// reliable sequence number in ENet's window (about 28000). An honest
// sender's count follows from the total (ceil(total / F)), and ENet bounds
// the total by maximumPacketSize, so honest geometry announces no more than
// 13 fragments here; a count that disagrees with the total ends the
// connection before ENet allocates anything for it.
TEST_F(EnetWaitingData, HugeFragmentCountsPinNoMemoryBeyondTheWaitingLimit) {
  const std::size_t heap_before = heap_in_use();
  const std::uint64_t hostile_before = hostile_datagrams();
  constexpr int kReassemblies = 64;  // 8 MiB of bitmaps if ENet kept them all

  // 1M fragments with the total that honest geometry ties to them: a total
  // over maximumPacketSize, which ENet refuses before allocating.
  for (int i = 0; i < kReassemblies; ++i) {
    FragmentFields f;
    f.sequence = static_cast<std::uint16_t>(1 + i);
    f.start_sequence = f.sequence;
    f.fragment_count = enet_wire::kMaxFragmentCount;
    f.fragment_number = 0;
    f.total_length = (enet_wire::kMaxFragmentCount - 1) * fragment + 1;
    f.fragment_offset = 0;
    f.data = filled(fragment, 0x01);
    raw.send_command(fragment_command(f));  // a full MTU: one per datagram
  }
  ASSERT_TRUE(marker());
  EXPECT_TRUE(disconnects_of(server, raw_id).empty());
  EXPECT_EQ(hostile_datagrams(), hostile_before);

  // 1M fragments for a 1-byte message: 64 commands of 25 bytes in one
  // datagram, dropped whole.
  std::vector<std::vector<std::uint8_t>> batch;
  for (int i = 0; i < kReassemblies; ++i) {
    FragmentFields f;
    f.sequence = static_cast<std::uint16_t>(1 + i);
    f.start_sequence = f.sequence;
    f.fragment_count = enet_wire::kMaxFragmentCount;
    f.fragment_number = 0;
    f.total_length = 1;
    f.fragment_offset = 0;
    f.data = {0x01};
    batch.push_back(fragment_command(f));
  }
  raw.send_commands(batch);
  expect_closed_as_hostile(raw, raw_id, hostile_before);

  std::size_t kept = 0;
  for (const auto& [channel, seq] : raw.acknowledged()) kept += channel == 0 ? 1 : 0;
  const std::size_t heap_after = heap_in_use();
  const std::size_t grown = heap_after - std::min(heap_after, heap_before);
  std::printf("kept %zu reassemblies; heap grew by %zu bytes\n", kept, grown);
  EXPECT_EQ(kept, 0u);
  EXPECT_LT(grown, kHeapBound);
  expect_honest_exchange();
}

}  // namespace
}  // namespace tickwire::transport
