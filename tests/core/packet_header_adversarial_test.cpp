// Receiver obligations for the packet header and handshake
// (docs/wire-format.md), one test each.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>
#include <span>
#include <vector>

#include "tickwire/core/handshake.h"
#include "tickwire/core/packet_header.h"
#include "tickwire/core/serialize.h"

namespace tickwire {
namespace {

std::vector<std::uint8_t> encoded_header() {
  PacketHeader h;
  h.prefix.type = PacketType::kSnapshot;
  h.sequence = Sequence(7);
  h.ack_bits = 0x0000FFFFu;  // not all acked: the 32 bits are spelled out
  h.hold = Hold{1000u};
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
  for (std::uint8_t type : {std::uint8_t{0}, std::uint8_t{kMaxPacketType + 1}}) {
    auto bytes = encoded_header();
    // The type is the header's first kUnreliableTypeBits bits.
    bytes[0] = static_cast<std::uint8_t>((bytes[0] & ~0x7U) | type);
    PacketHeader out;
    const auto r = decode(bytes, out);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, ErrorCode::kBadPacketType);
  }
}

TEST(HeaderObligations, RejectsHoldsOverTheirBound) {
  // The writer refuses such a hold, so the bits are laid down by hand: the
  // header's fields, then a hold of width 24 just above 10 s, then one of
  // width 25, which no hold may have.
  for (const std::uint32_t width : {24U, 25U}) {
    BitWriter w(64);
    std::uint32_t type = 4, seq = 1, ack = 0, low = width == 24 ? 0x7FFFFFU : 0U;
    bool all = true, has_hold = true;
    ASSERT_TRUE(w.bits(type, kUnreliableTypeBits) && w.bits(seq, 16) && w.bits(ack, 16) && w.boolean(all) &&
                w.boolean(has_hold));
    std::uint32_t width_code = width;
    ASSERT_TRUE(w.bits(width_code, kHoldWidthBits));
    if (width == 24) {
      ASSERT_TRUE(w.bits(low, 23));
    }
    PacketHeader out;
    EXPECT_EQ(decode(w.take(), out).error().code, ErrorCode::kOutOfRange) << "width " << width;
  }
  // And the largest hold allowed is read back as it was.
  PacketHeader h;
  h.hold = Hold{static_cast<std::uint32_t>(kMaxHoldMicros)};
  PacketHeader out;
  ASSERT_TRUE(decode(encode(h, 64).value(), out).ok());
  EXPECT_EQ(out.hold->hold_us, kMaxHoldMicros);
}

TEST(HeaderObligations, RejectsFullAcksSpelledOut) {
  // All 32 ack bits set have a one-bit code; the long form would give one
  // header two codings.
  BitWriter w(64);
  std::uint32_t type = 4, seq = 1, ack = 0, bits = kAllAcked;
  bool all = false, has_hold = false;
  ASSERT_TRUE(w.bits(type, kUnreliableTypeBits) && w.bits(seq, 16) && w.bits(ack, 16) && w.boolean(all) &&
              w.bits(bits, 32) && w.boolean(has_hold));
  PacketHeader out;
  EXPECT_EQ(decode(w.take(), out).error().code, ErrorCode::kMalformed);
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
  ASSERT_TRUE(w.bits(lo, 32) && w.bits(hi, 32) && w.bits(lo, 32) && w.bits(hi, 32) && w.string(name, 1000));
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

// Whatever decodes must be what its bytes say: encoding the decoded value
// again gives back exactly the bytes (every coding is canonical: minimal
// varints, zero padding, no trailing bytes), so nothing was read past the
// end, defaulted or invented.
template <class T>
void expect_reencodes(std::span<const std::uint8_t> bytes, const T& decoded, int& count) {
  T copy = decoded;
  const auto again = encode(copy, 64);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value(), std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
  ++count;
}

TEST(HeaderObligations, RandomBytesNeverCrash) {
  const std::uint64_t seed = 20261122;
  std::cout << "seed=" << seed << "\n";
  std::mt19937_64 rng(seed);
  int headers = 0;
  int others = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::uint8_t> bytes(rng() % 40);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    // Half of them carry a known type in the header's first bits, so the
    // fields behind it are reached, not only the type check.
    if (i % 2 == 0 && !bytes.empty()) {
      bytes[0] = static_cast<std::uint8_t>((bytes[0] & ~0x7U) | (1 + rng() % kMaxPacketType));
    }
    PacketHeader h;
    Hello hello;
    Welcome welcome;
    if (decode(bytes, h).ok()) {
      if (h.hold) {
        EXPECT_LE(h.hold->hold_us, kMaxHoldMicros);
      }
      expect_reencodes(bytes, h, headers);
    }
    if (decode(bytes, hello).ok()) {
      EXPECT_LE(hello.client_name.size(), kMaxClientNameLength);
      expect_reencodes(bytes, hello, others);
    }
    if (decode(bytes, welcome).ok()) expect_reencodes(bytes, welcome, others);
  }
  std::cout << headers << " headers and " << others << " handshake messages decoded and re-encoded exactly\n";
  // The check above ran: random tails behind a good prefix do decode.
  EXPECT_GT(headers, 20);
}

}  // namespace
}  // namespace tickwire
