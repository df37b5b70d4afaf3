// Receiver obligations for the packet header and handshake
// (docs/wire-format.md), one test each.
#include <gtest/gtest.h>

#include <random>

#include "tickwire/core/handshake.h"
#include "tickwire/core/packet_header.h"
#include "tickwire/core/serialize.h"

namespace tickwire {
namespace {

std::vector<std::uint8_t> encoded_header() {
  PacketHeader h;
  h.prefix.type = PacketType::kSnapshot;
  h.sequence = Sequence(7);
  h.echo = Echo{99u, 1000u};
  auto bytes = encode(h, 64);
  EXPECT_TRUE(bytes.ok());
  return bytes.value();
}

TEST(HeaderObligations, RejectsEveryTruncation) {
  const auto full = encoded_header();
  for (std::size_t len = 0; len < full.size(); ++len) {
    PacketHeader out;
    const std::span<const std::uint8_t> part(full.data(), len);
    EXPECT_FALSE(decode(part, out).ok()) << "length " << len;
  }
}

TEST(HeaderObligations, RejectsUnknownPacketType) {
  for (std::uint8_t type : {std::uint8_t{0}, std::uint8_t{kMaxPacketType + 1}, std::uint8_t{255}}) {
    auto bytes = encoded_header();
    bytes[3] = type;  // prefix: 16-bit protocol id, 8-bit version, 8-bit type
    PacketHeader out;
    const auto r = decode(bytes, out);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::kBadPacketType);
  }
}

TEST(HeaderObligations, RejectsEchoHeldTooLong) {
  PacketHeader h;
  h.echo = Echo{1u, static_cast<std::uint32_t>(kMaxEchoHoldMicros + 1)};
  auto bytes = encode(h, 64);
  ASSERT_TRUE(bytes.ok());
  PacketHeader out;
  EXPECT_EQ(decode(*bytes, out).error().code, ErrorCode::kOutOfRange);
}

TEST(HeaderObligations, RejectsTrailingBytes) {
  auto bytes = encoded_header();
  bytes.push_back(0xAB);
  PacketHeader out;
  EXPECT_FALSE(decode(bytes, out).ok());
}

TEST(HandshakeObligations, RejectsOverlongClientName) {
  // Our writer refuses such a name, so craft the bytes with a looser bound.
  BitWriter w(256);
  std::uint32_t lo = 1, hi = 0;
  std::string name(kMaxClientNameLength + 1, 'x');
  ASSERT_TRUE(w.bits(lo, 32) && w.bits(hi, 32) && w.string(name, 1000));
  Hello out;
  EXPECT_EQ(decode(w.take(), out).error().code, ErrorCode::kTooLong);
}

TEST(HandshakeObligations, RejectsWelcomeWithRatesThatDoNotDivide) {
  // 7 is a valid rate on its own but does not divide 60.
  BitWriter raw(64);
  std::uint32_t id = 1, tick = 0;
  std::uint16_t tick_rate = 60, send_rate = 7;
  ASSERT_TRUE(raw.bits(id, 32) && raw.integer(tick_rate, std::uint16_t{1}, kMaxWireTickRate) &&
              raw.integer(send_rate, std::uint16_t{1}, kMaxWireTickRate) && raw.bits(tick, 32));
  Welcome out;
  EXPECT_EQ(decode(raw.take(), out).error().code, ErrorCode::kOutOfRange);
}

TEST(HeaderObligations, RandomBytesNeverCrash) {
  const std::uint64_t seed = 20261122;
  std::cout << "seed=" << seed << "\n";
  std::mt19937_64 rng(seed);
  int decoded = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::uint8_t> bytes(rng() % 40);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    PacketHeader h;
    Hello hello;
    Welcome welcome;
    decoded += decode(bytes, h).ok() ? 1 : 0;
    decoded += decode(bytes, hello).ok() ? 1 : 0;
    decoded += decode(bytes, welcome).ok() ? 1 : 0;
  }
  SUCCEED() << decoded << " random inputs happened to decode";
}

}  // namespace
}  // namespace tickwire
