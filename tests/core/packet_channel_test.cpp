#include "tickwire/core/packet_channel.h"

#include <gtest/gtest.h>

namespace tickwire {
namespace {

Time at_ms(std::int64_t ms) { return Time::from_micros(ms * 1000); }

TEST(PacketChannel, NumbersPacketsAndAcknowledges) {
  PacketChannel a;
  PacketChannel b;
  for (int i = 0; i < 5; ++i) {
    const auto h = a.next_header(PacketType::kKeepAlive, at_ms(i));
    EXPECT_EQ(h.sequence, Sequence(static_cast<std::uint16_t>(i)));
    if (i != 2) {
      EXPECT_EQ(b.receive(h, at_ms(i + 10)), PacketChannel::Verdict::kAccept);  // packet 2 is lost
    }
  }
  const auto reply = b.next_header(PacketType::kKeepAlive, at_ms(20));
  EXPECT_EQ(reply.ack, Sequence(4));
  EXPECT_EQ(reply.ack_bits & 0b111u, 0b101u);  // 3 and 1 received, 2 missing
  a.receive(reply, at_ms(30));
  const auto acked = a.take_acked();
  EXPECT_EQ(acked.size(), 4u);
  EXPECT_TRUE(a.take_acked().empty());
}

// Taking the acks into a list the owner keeps gives the same sequences,
// and the next take starts from an empty list again.
TEST(PacketChannel, TakingAcksIntoAKeptListGivesTheSameSequences) {
  PacketChannel a;
  PacketChannel b;
  std::vector<Sequence> kept{Sequence(99)};  // cleared by the take
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 3; ++i) {
      const auto h = a.next_header(PacketType::kKeepAlive, at_ms(10 * round + i));
      EXPECT_EQ(b.receive(h, at_ms(10 * round + i + 1)), PacketChannel::Verdict::kAccept);
    }
    a.receive(b.next_header(PacketType::kKeepAlive, at_ms(10 * round + 5)), at_ms(10 * round + 6));
    a.take_acked(kept);
    ASSERT_EQ(kept.size(), 3u) << "round " << round;
    for (const Sequence s : kept) EXPECT_EQ(s.value() / 3, static_cast<std::uint16_t>(round));
    a.take_acked(kept);
    EXPECT_TRUE(kept.empty());
  }
}

// An owner that never takes the acks (the server) must not grow a list
// for the life of the connection: ignored, there is none; reported and
// never taken, only the newest kWindow stay.
TEST(PacketChannel, AcksNeverTakenDoNotAccumulate) {
  PacketChannel reported;
  PacketChannel ignored(PacketChannel::Acks::kIgnored);
  PacketChannel peer;
  const int packets = 3 * static_cast<int>(PacketChannel::kWindow);
  for (int i = 0; i < packets; ++i) {
    peer.receive(reported.next_header(PacketType::kKeepAlive, at_ms(i)), at_ms(i));
    const auto echo = peer.next_header(PacketType::kKeepAlive, at_ms(i));
    EXPECT_EQ(reported.receive(echo, at_ms(i + 1)), PacketChannel::Verdict::kAccept);
    ignored.next_header(PacketType::kKeepAlive, at_ms(i));
    EXPECT_EQ(ignored.receive(echo, at_ms(i + 1)), PacketChannel::Verdict::kAccept);
  }
  const auto kept = reported.take_acked();
  ASSERT_EQ(kept.size(), PacketChannel::kWindow);
  EXPECT_EQ(kept.back(), Sequence(static_cast<std::uint16_t>(packets - 1)));  // the newest kept, in order
  EXPECT_EQ(kept.front(), Sequence(static_cast<std::uint16_t>(packets - PacketChannel::kWindow)));
  EXPECT_EQ(reported.stats().acked, static_cast<std::uint64_t>(packets));
  EXPECT_TRUE(ignored.take_acked().empty());
  EXPECT_EQ(ignored.stats().acked, static_cast<std::uint64_t>(packets));  // still counted
}

TEST(PacketChannel, DropsDuplicatesAndStalePackets) {
  PacketChannel a;
  PacketChannel b;
  std::vector<PacketHeader> sent;
  for (int i = 0; i < 600; ++i) sent.push_back(a.next_header(PacketType::kInput, at_ms(i)));
  EXPECT_EQ(b.receive(sent[0], at_ms(1)), PacketChannel::Verdict::kAccept);
  EXPECT_EQ(b.receive(sent[0], at_ms(2)), PacketChannel::Verdict::kDuplicate);
  EXPECT_EQ(b.receive(sent[599], at_ms(3)), PacketChannel::Verdict::kAccept);
  EXPECT_EQ(b.receive(sent[10], at_ms(4)), PacketChannel::Verdict::kStale);
  EXPECT_EQ(b.stats().duplicates, 1u);
  EXPECT_EQ(b.stats().stale, 1u);
}

TEST(PacketChannel, MeasuresRoundTripMinusHold) {
  PacketChannel client;
  PacketChannel server;
  const auto ping = client.next_header(PacketType::kKeepAlive, at_ms(1000));
  server.receive(ping, at_ms(1000) + Duration::millis(40));                                          // 40 ms up
  const auto pong = server.next_header(PacketType::kKeepAlive, at_ms(1000) + Duration::millis(45));  // held 5 ms
  ASSERT_TRUE(pong.hold.has_value());
  EXPECT_EQ(pong.ack, ping.sequence);
  EXPECT_EQ(pong.hold->hold_us, 5000u);
  client.receive(pong, at_ms(1000) + Duration::millis(85));  // 40 ms down
  const auto sample = client.take_rtt_sample();
  ASSERT_TRUE(sample.has_value());
  EXPECT_EQ(sample->rtt, Duration::millis(80));
}

TEST(PacketChannel, HoldsEachReceivedPacketOnce) {
  // A client sends two inputs per snapshot: the first after a snapshot
  // answers it, the second has nothing new to answer.
  PacketChannel client;
  PacketChannel server;
  server.next_header(PacketType::kSnapshot, at_ms(0));
  client.receive(server.next_header(PacketType::kSnapshot, at_ms(1)), at_ms(20));
  EXPECT_TRUE(client.next_header(PacketType::kInput, at_ms(25)).hold.has_value());
  EXPECT_FALSE(client.next_header(PacketType::kInput, at_ms(41)).hold.has_value());
  // An older packet arriving late is not answered: it would overstate the trip.
  PacketChannel late;
  PacketChannel peer;
  const auto first = peer.next_header(PacketType::kSnapshot, at_ms(0));
  const auto second = peer.next_header(PacketType::kSnapshot, at_ms(1));
  late.receive(second, at_ms(10));
  EXPECT_TRUE(late.next_header(PacketType::kInput, at_ms(11)).hold.has_value());
  late.receive(first, at_ms(12));
  EXPECT_FALSE(late.next_header(PacketType::kInput, at_ms(13)).hold.has_value());
}

TEST(PacketChannel, IgnoresForgedEchoes) {
  PacketChannel client;
  client.next_header(PacketType::kKeepAlive, at_ms(1000));
  PacketHeader forged;
  forged.ack = Sequence(7);  // a packet never sent
  forged.hold = Hold{0};
  client.receive(forged, at_ms(1100));
  EXPECT_FALSE(client.take_rtt_sample().has_value());
  forged.sequence = Sequence(1);
  forged.ack = Sequence(0);
  forged.hold = Hold{500'000};  // held longer than the trip
  client.receive(forged, at_ms(1100));
  EXPECT_FALSE(client.take_rtt_sample().has_value());
  forged.sequence = Sequence(2);
  forged.hold = Hold{100'000};  // exactly the trip: a zero round trip, the honest limit
  client.receive(forged, at_ms(1100));
  ASSERT_TRUE(client.take_rtt_sample().has_value());
}

TEST(PacketChannel, AcksForUnsentSequencesAreIgnored) {
  PacketChannel a;
  a.next_header(PacketType::kKeepAlive, at_ms(0));
  PacketHeader h;
  h.ack = Sequence(500);
  h.ack_bits = 0xFFFFFFFFu;
  a.receive(h, at_ms(1));
  EXPECT_TRUE(a.take_acked().empty());
}

}  // namespace
}  // namespace tickwire
