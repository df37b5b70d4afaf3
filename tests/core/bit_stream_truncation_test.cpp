// Hostile input for the bit streams: cut-off messages, random bytes and
// bit flips must come back as errors, never as crashes or reads outside
// the input (the sanitizer build checks the latter).

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tickwire/core/bit_stream.h"
#include "tickwire/core/serialize.h"

namespace tickwire {
namespace {

using Bytes = std::vector<std::uint8_t>;

// Fixed by default so failures reproduce; TICKWIRE_TEST_SEED overrides it.
std::uint64_t test_seed() {
  if (const char* s = std::getenv("TICKWIRE_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  return 20240611;
}

struct Message {
  std::uint32_t kind = 0;
  bool flag = false;
  std::int32_t health = 0;
  std::uint64_t id = 0;
  std::int64_t delta = 0;
  float x = 0.0F;
  float y = 0.0F;
  std::string name;
  Bytes payload;
  std::array<std::uint8_t, 2> tag{};
  std::uint64_t count = 0;
  bool operator==(const Message&) const = default;
};

template <class Stream>
bool serialize(Stream& s, Message& m) {
  return s.bits(m.kind, 3) && s.boolean(m.flag) && s.integer(m.health, -100, 100) &&
         s.integer(m.id, std::uint64_t{0}, std::numeric_limits<std::uint64_t>::max()) && s.varint_signed(m.delta) &&
         s.bounded_float(m.x, -64.0F, 64.0F, 0.01F) && s.bounded_float(m.y, 0.0F, 1.0F, 0.1F) && s.string(m.name, 12) &&
         s.bytes(m.payload, 24) && s.fixed_bytes(m.tag) && s.varint(m.count);
}

Message sample_message() {
  Message m;
  m.kind = 5;
  m.flag = true;
  m.health = -17;
  m.id = 0xFEDC'BA98'7654'3210ULL;
  m.delta = -123456789;
  m.x = make_quantizer(-64.0F, 64.0F, 0.01F).snap(12.5F);
  m.y = make_quantizer(0.0F, 1.0F, 0.1F).snap(0.3F);
  m.name = "probe";
  m.payload = {1, 2, 3, 4, 5, 6, 7};
  m.tag = {0xAB, 0xCD};
  m.count = 300;
  return m;
}

// A decoded message must encode back to exactly the bytes it came from:
// the reader accepts one encoding per value, so nothing slips through
// that a well-behaved sender could not have produced.
void expect_canonical(std::span<const std::uint8_t> input, Message& decoded) {
  auto again = encode(decoded, 1024);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, Bytes(input.begin(), input.end()));
}

TEST(BitStreamTruncation, EveryPrefixFailsAndFullMessageDecodes) {
  const Bytes full = encode(sample_message(), 1024).value();
  ASSERT_GT(full.size(), 20U);
  for (std::size_t length = 0; length < full.size(); ++length) {
    SCOPED_TRACE(testing::Message() << "length=" << length);
    // A copy of exactly `length` bytes, so the sanitizer sees any read past it.
    const Bytes prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(length));
    Message m;
    const auto result = decode(prefix, m);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().code, ErrorCode::kTruncated) << result.error().detail;
  }
  Message m;
  ASSERT_TRUE(decode(full, m).ok());
  EXPECT_EQ(m, sample_message());
}

TEST(BitStreamTruncation, EveryPrefixFailsWithRawReaderCalls) {
  // The same cut-offs without serialize.h, checking the reader's position
  // never passes the end of the input.
  const Bytes full = encode(sample_message(), 1024).value();
  for (std::size_t length = 0; length < full.size(); ++length) {
    const Bytes prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(length));
    BitReader reader(prefix);
    Message m;
    EXPECT_FALSE(serialize(reader, m));
    EXPECT_LE(reader.bits_read(), length * 8);
    EXPECT_EQ(reader.bits_read() + reader.bits_remaining(), length * 8);
  }
}

TEST(BitStreamTruncation, RandomBytesNeverCrash) {
  const std::uint64_t seed = test_seed();
  std::cout << "seed=" << seed << std::endl;
  SCOPED_TRACE(testing::Message() << "seed=" << seed);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  int decoded_ok = 0;
  for (std::size_t length = 0; length <= 256; ++length) {
    for (int trial = 0; trial < 40; ++trial) {
      Bytes input(length);
      for (auto& b : input) b = static_cast<std::uint8_t>(byte(rng));
      Message m;
      const auto result = decode(input, m);
      if (result.ok()) {
        ++decoded_ok;
        expect_canonical(input, m);
      } else {
        EXPECT_FALSE(result.error().detail.empty());
      }
    }
  }
  std::cout << "random inputs that decoded: " << decoded_ok << std::endl;
}

TEST(BitStreamTruncation, BitFlipsNeverCrash) {
  const std::uint64_t seed = test_seed();
  std::cout << "seed=" << seed << std::endl;
  SCOPED_TRACE(testing::Message() << "seed=" << seed);
  std::mt19937_64 rng(seed);
  const Bytes full = encode(sample_message(), 1024).value();
  std::uniform_int_distribution<std::size_t> bit(0, full.size() * 8 - 1);
  std::uniform_int_distribution<int> flips(1, 4);
  int decoded_ok = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    Bytes input = full;
    for (int f = flips(rng); f > 0; --f) {
      const std::size_t b = bit(rng);
      input[b / 8] = static_cast<std::uint8_t>(input[b / 8] ^ (1U << (b % 8)));
    }
    Message m;
    if (decode(input, m).ok()) {
      ++decoded_ok;
      expect_canonical(input, m);
    }
  }
  std::cout << "flipped inputs that decoded: " << decoded_ok << std::endl;
}

TEST(BitStreamTruncation, RandomBytesThroughEveryReaderFunction) {
  const std::uint64_t seed = test_seed();
  std::cout << "seed=" << seed << std::endl;
  SCOPED_TRACE(testing::Message() << "seed=" << seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 3000; ++trial) {
    Bytes input(static_cast<std::size_t>(rng() % 24));
    for (auto& b : input) b = static_cast<std::uint8_t>(rng());
    BitReader r(input);
    // Random calls until the reader fails; each must stay inside the input.
    for (int step = 0; step < 64 && !r.error(); ++step) {
      std::uint32_t u32 = 0;
      std::uint64_t u64 = 0;
      std::int64_t i64 = 0;
      float f = 0.0F;
      bool flag = false;
      Bytes blob;
      std::string text;
      std::array<std::uint8_t, 3> fixed{};
      switch (rng() % 10) {
        case 0: (void)r.bits(u32, static_cast<int>(rng() % 32) + 1); break;
        case 1: (void)r.boolean(flag); break;
        case 2: (void)r.integer<std::int64_t>(i64, -1000, 1000); break;
        case 3: (void)r.varint(u64); break;
        case 4: (void)r.varint_signed(i64); break;
        case 5: (void)r.bounded_float(f, -1.0F, 1.0F, 0.001F); break;
        case 6: (void)r.bytes(blob, 8); break;
        case 7: (void)r.string(text, 8); break;
        case 8: (void)r.align(); break;
        default: (void)r.fixed_bytes(fixed); break;
      }
      ASSERT_LE(r.bits_read(), input.size() * 8);
      if (!r.error()) {
        ASSERT_TRUE(f >= -1.0F && f <= 1.0F) << f;
      }
    }
  }
}

}  // namespace
}  // namespace tickwire
