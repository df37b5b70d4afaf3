#include "tickwire/core/packet_header.h"

#include <gtest/gtest.h>

#include <vector>

#include "tickwire/core/handshake.h"
#include "tickwire/core/serialize.h"

namespace tickwire {
namespace {

PacketHeader sample_header() {
  PacketHeader h;
  h.prefix.type = PacketType::kInput;
  h.sequence = Sequence(65535);
  h.ack = Sequence(12);
  h.ack_bits = 0xDEADBEEF;
  h.hold = Hold{4321u};
  return h;
}

TEST(PacketHeader, RoundTripsWithHold) {
  PacketHeader h = sample_header();
  auto bytes = encode(h, 64);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->size(), measure_bytes(h));
  PacketHeader out;
  ASSERT_TRUE(decode(*bytes, out).ok());
  EXPECT_EQ(out.prefix.type, PacketType::kInput);
  EXPECT_EQ(out.sequence, Sequence(65535));
  EXPECT_EQ(out.ack, Sequence(12));
  EXPECT_EQ(out.ack_bits, 0xDEADBEEFu);
  ASSERT_TRUE(out.hold.has_value());
  EXPECT_EQ(out.hold->hold_us, 4321u);
  EXPECT_TRUE(check_prefix(out.prefix).ok());
}

TEST(PacketHeader, HoldsOfEveryWidthRoundTrip) {
  for (std::uint32_t hold : {0U, 1U, 2U, 3U, 1000U, 16'667U, 65'535U, 65'536U, 10'000'000U}) {
    PacketHeader h = sample_header();
    h.hold = Hold{hold};
    PacketHeader out;
    ASSERT_TRUE(decode(encode(h, 64).value(), out).ok()) << hold;
    EXPECT_EQ(out.hold->hold_us, hold);
  }
}

TEST(PacketHeader, AFullAckHistoryAndNoHoldCostFiveBytes) {
  // The steady state of a clean link: every one of the last 33 packets
  // arrived, and this packet answers none newly.
  PacketHeader h = sample_header();
  h.ack_bits = kAllAcked;
  h.hold.reset();
  auto bytes = encode(h, 64);
  ASSERT_TRUE(bytes.ok());
  PacketHeader out;
  ASSERT_TRUE(decode(*bytes, out).ok());
  EXPECT_EQ(out.ack_bits, kAllAcked);
  EXPECT_FALSE(out.hold.has_value());
  // 3 + 16 + 16 + 1 + 1 bits.
  EXPECT_EQ(bytes->size(), 5u);
  h.hold = Hold{16'667u};  // a tick at 60 Hz: 5 + 14 bits more
  EXPECT_EQ(measure_bytes(h), 7u);
}

TEST(PacketHeader, CheckPrefixNamesTheMismatch) {
  PacketPrefix p;
  p.protocol_id = 0x1234;
  EXPECT_EQ(check_prefix(p).error().code, ErrorCode::kBadProtocolId);
  p.protocol_id = kProtocolId;
  p.version = kProtocolVersion + 1;
  const auto r = check_prefix(p);
  EXPECT_EQ(r.error().code, ErrorCode::kBadVersion);
  EXPECT_NE(r.error().detail.find("expected"), std::string::npos);
}

TEST(Handshake, HelloAndWelcomeRoundTrip) {
  Hello hello{{0xABCDEF0123456789ULL, 0x0123456789ABCDEFULL}, "player-1"};
  auto bytes = encode(hello, 128);
  ASSERT_TRUE(bytes.ok());
  Hello hello_out;
  ASSERT_TRUE(decode(*bytes, hello_out).ok());
  EXPECT_EQ(hello_out.fingerprint, hello.fingerprint);
  EXPECT_EQ(hello_out.client_name, "player-1");

  Welcome welcome{42, 60, 30, Tick(123456)};
  auto wbytes = encode(welcome, 64);
  ASSERT_TRUE(wbytes.ok());
  Welcome welcome_out;
  ASSERT_TRUE(decode(*wbytes, welcome_out).ok());
  EXPECT_EQ(welcome_out.client_id, 42u);
  EXPECT_EQ(welcome_out.tick_rate, 60);
  EXPECT_EQ(welcome_out.send_rate, 30);
  EXPECT_EQ(welcome_out.server_tick, Tick(123456));
}

// The Hello's fingerprint is its two hashes, low half first, then the name:
// 8 + 8 bytes, each part where a receiver can tell it.
TEST(Handshake, HelloCarriesTheSchemaAndCodebookHashesApart) {
  Hello hello{{0x1122334455667788ULL, 0x99AABBCCDDEEFF00ULL}, ""};
  auto bytes = encode(hello, 64);
  ASSERT_TRUE(bytes.ok());
  const std::vector<std::uint8_t> expected_hashes = {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
                                                     0x00, 0xFF, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA, 0x99};
  ASSERT_GE(bytes->size(), expected_hashes.size());
  EXPECT_EQ(std::vector<std::uint8_t>(bytes->begin(), bytes->begin() + 16), expected_hashes);
  Hello out;
  ASSERT_TRUE(decode(*bytes, out).ok());
  EXPECT_EQ(out.fingerprint.schema_hash, 0x1122334455667788ULL);
  EXPECT_EQ(out.fingerprint.codebook_hash, 0x99AABBCCDDEEFF00ULL);
}

}  // namespace
}  // namespace tickwire
