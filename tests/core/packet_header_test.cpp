#include "tickwire/core/packet_header.h"

#include <gtest/gtest.h>

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
  h.send_time_us = 0xFFFFFFF0u;
  h.echo = Echo{123456789u, 4321u};
  return h;
}

TEST(PacketHeader, RoundTripsWithEcho) {
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
  EXPECT_EQ(out.send_time_us, 0xFFFFFFF0u);
  ASSERT_TRUE(out.echo.has_value());
  EXPECT_EQ(out.echo->time_us, 123456789u);
  EXPECT_EQ(out.echo->hold_us, 4321u);
  EXPECT_TRUE(check_prefix(out.prefix).ok());
}

TEST(PacketHeader, RoundTripsWithoutEcho) {
  PacketHeader h = sample_header();
  h.echo.reset();
  auto bytes = encode(h, 64);
  ASSERT_TRUE(bytes.ok());
  PacketHeader out;
  ASSERT_TRUE(decode(*bytes, out).ok());
  EXPECT_FALSE(out.echo.has_value());
  EXPECT_LE(bytes->size(), 18u);  // the fixed cost every unreliable packet pays
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

TEST(PacketHeader, WrappingElapsedCrossesTheWrap) {
  EXPECT_EQ(wrapping_elapsed(5u, 0xFFFFFFFBu), 10u);
  EXPECT_EQ(wrapping_elapsed(wire_time(Time::from_micros((std::int64_t{1} << 32) + 7)), 3u), 4u);
}

TEST(Handshake, HelloAndWelcomeRoundTrip) {
  Hello hello{protocol_fingerprint(kProtocolVersion, 0xABCDEF0123456789ULL), "player-1"};
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

TEST(Handshake, FingerprintDependsOnVersionAndSchema) {
  const auto a = protocol_fingerprint(1, 0);
  EXPECT_EQ(a, protocol_fingerprint(1, 0));
  EXPECT_NE(a, protocol_fingerprint(2, 0));
  EXPECT_NE(a, protocol_fingerprint(1, 1));
}

}  // namespace
}  // namespace tickwire
