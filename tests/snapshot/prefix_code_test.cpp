// The prefix codes and bit strings a codebook body's entity changes are
// written with (snapshot/src/prefix_code.h, private to the library): codes
// are complete and within their length limit, every symbol reads back,
// bit strings append at any alignment, and reading never goes past the
// input.

#include "prefix_code.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "test_seed.h"

namespace tickwire::snapshot::detail {
namespace {

// Sum of 2^-length over the code, in units of 2^-kMaxLength: exactly one
// for a complete code (every bit string starts with a code word).
std::uint64_t kraft_sum(const PrefixCode& code) {
  std::uint64_t sum = 0;
  for (std::uint32_t s = 0; s < code.size(); ++s) sum += std::uint64_t{1} << (PrefixCode::kMaxLength - code.length(s));
  return sum;
}

void expect_round_trip(const PrefixCode& code, std::mt19937_64& rng) {
  std::vector<std::uint32_t> symbols;
  for (std::uint32_t s = 0; s < code.size(); ++s) symbols.push_back(s);
  std::shuffle(symbols.begin(), symbols.end(), rng);
  BitSink sink;
  for (const std::uint32_t s : symbols) code.put(sink, s);
  std::vector<std::uint8_t> bytes;
  sink.append_bytes_to(bytes);
  BitSource source(bytes);
  for (const std::uint32_t s : symbols) {
    std::uint32_t got = 0;
    ASSERT_TRUE(code.read(source, got));
    ASSERT_EQ(got, s);
  }
  EXPECT_TRUE(source.at_clean_end());
}

TEST(PrefixCode, IsCompleteWithinItsLengthLimitAndEverySymbolReadsBack) {
  std::mt19937_64 rng(testing::test_seed("PrefixCode.IsComplete"));
  for (const std::size_t n : {2U, 3U, 17U, 300U, 4096U}) {
    std::vector<std::uint64_t> weights(n);
    // Weights over many orders of magnitude, some zero.
    for (auto& w : weights) w = (rng() % 7 == 0) ? 0 : (std::uint64_t{1} << (rng() % 46)) + rng() % 1000;
    PrefixCode code;
    code.build(weights);
    ASSERT_EQ(code.size(), n);
    for (std::uint32_t s = 0; s < n; ++s) {
      EXPECT_GE(code.length(s), 1);
      EXPECT_LE(code.length(s), PrefixCode::kMaxLength);
    }
    EXPECT_EQ(kraft_sum(code), std::uint64_t{1} << PrefixCode::kMaxLength) << n << " symbols";
    expect_round_trip(code, rng);
  }
}

TEST(PrefixCode, LikelierSymbolsGetCodesNoLongerThanRarerOnes) {
  const std::vector<std::uint64_t> weights = {1000, 10, 500, 1, 250, 125, 60, 30};
  PrefixCode code;
  code.build(weights);
  for (std::uint32_t a = 0; a < weights.size(); ++a) {
    for (std::uint32_t b = 0; b < weights.size(); ++b) {
      if (weights[a] > weights[b]) {
        EXPECT_LE(code.length(a), code.length(b)) << a << " vs " << b;
      }
    }
  }
  EXPECT_EQ(code.length(0), 1);  // more than half the weight
}

TEST(PrefixCode, AFarTooSkewedAlphabetIsHeldToTheLengthLimit) {
  // Fibonacci weights give a Huffman tree as deep as the alphabet is long.
  std::vector<std::uint64_t> weights = {1, 1};
  while (weights.size() < 60) weights.push_back(weights[weights.size() - 1] + weights[weights.size() - 2]);
  PrefixCode code;
  code.build(weights);
  int longest = 0;
  for (std::uint32_t s = 0; s < code.size(); ++s) longest = std::max(longest, code.length(s));
  EXPECT_LE(longest, PrefixCode::kMaxLength);
  EXPECT_EQ(kraft_sum(code), std::uint64_t{1} << PrefixCode::kMaxLength);
  std::mt19937_64 rng(7);
  expect_round_trip(code, rng);
}

TEST(PrefixCode, ASingleSymbolCostsNothingAndBadSizesAreRefused) {
  PrefixCode code;
  code.build(std::vector<std::uint64_t>{5});
  EXPECT_EQ(code.length(0), 0);
  BitSource empty(std::span<const std::uint8_t>{});
  std::uint32_t s = 9;
  EXPECT_TRUE(code.read(empty, s));
  EXPECT_EQ(s, 0U);
  EXPECT_FALSE(empty.overran());
  EXPECT_THROW(code.build(std::vector<std::uint64_t>{}), std::invalid_argument);
}

TEST(PrefixCode, ReadingStopsWhenTheInputEnds) {
  PrefixCode code;
  code.build(std::vector<std::uint64_t>(1000, 1));  // about 10 bits a symbol
  const std::vector<std::uint8_t> one_byte = {0xFF};
  BitSource source(one_byte);
  std::uint32_t s = 0;
  EXPECT_FALSE(code.read(source, s));
  EXPECT_TRUE(source.overran());
  EXPECT_FALSE(source.at_clean_end());
}

TEST(BitSink, AppendsBitStringsAtAnyAlignment) {
  std::mt19937_64 rng(testing::test_seed("BitSink.AppendsBitStringsAtAnyAlignment"));
  BitSink whole;
  std::vector<bool> expected;
  for (int piece = 0; piece < 200; ++piece) {
    BitSink part;
    const auto length = static_cast<int>(rng() % 140);
    for (int done = 0; done < length;) {
      const int n = std::min(length - done, 1 + static_cast<int>(rng() % 64));
      const std::uint64_t v = n == 64 ? rng() : rng() & ((std::uint64_t{1} << n) - 1);
      part.put(v, n);
      for (int i = 0; i < n; ++i) expected.push_back(((v >> i) & 1U) != 0);
      done += n;
    }
    ASSERT_EQ(part.size(), static_cast<std::size_t>(length));
    whole.append(part);
  }
  ASSERT_EQ(whole.size(), expected.size());
  std::vector<std::uint8_t> bytes;
  whole.append_bytes_to(bytes);
  ASSERT_EQ(bytes.size(), (expected.size() + 7) / 8);
  BitSource source(bytes);
  for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(source.bit(), expected[i]) << "bit " << i;
  EXPECT_TRUE(source.at_clean_end());
}

TEST(BitSource, SaysWhenBytesOrNonzeroPaddingAreLeft) {
  const std::vector<std::uint8_t> bytes = {0x05, 0x00};
  BitSource source(bytes);
  EXPECT_EQ(source.bits(3), 5U);
  EXPECT_FALSE(source.at_clean_end());  // a whole byte left
  EXPECT_EQ(source.bits(8), 0U);
  EXPECT_TRUE(source.at_clean_end());
  const std::vector<std::uint8_t> dirty = {0x85};
  BitSource padded(dirty);
  EXPECT_EQ(padded.bits(3), 5U);
  EXPECT_FALSE(padded.at_clean_end());  // a one in the padding
  EXPECT_EQ(padded.bits(8), 0x10U);     // 5 bits of input, then zeros
  EXPECT_TRUE(padded.overran());
}

// The decoder reads a code and the raw bits after it from one wide window
// away from the end, and bit by bit near it: both must see the same bits,
// and the wide window must never be offered within eight bytes of the end.
TEST(BitSource, AWideWindowHoldsTheNextBitsAndIsRefusedNearTheEnd) {
  std::mt19937_64 rng(testing::test_seed("BitSource.AWideWindowHoldsTheNextBitsAndIsRefusedNearTheEnd"));
  std::vector<std::uint8_t> bytes(40);
  for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(rng());
  const auto bit_at = [&](std::size_t pos) { return ((std::uint32_t{bytes[pos / 8]} >> (pos % 8)) & 1U) != 0; };
  for (std::size_t start = 0; start < bytes.size() * 8; ++start) {
    BitSource source(bytes);
    for (std::size_t skipped = start; skipped > 0;) {
      const int n = static_cast<int>(std::min<std::size_t>(skipped, 24));
      source.bits(n);
      skipped -= static_cast<std::size_t>(n);
    }
    std::uint64_t window = 0;
    const bool wide = source.peek_wide(window);
    ASSERT_EQ(wide, start / 8 + 8 <= bytes.size()) << "at bit " << start;
    if (!wide) continue;
    for (std::size_t i = 0; i < 57; ++i) ASSERT_EQ(((window >> i) & 1U) != 0, bit_at(start + i)) << start << "+" << i;
    const int taken = static_cast<int>(rng() % 58);
    source.take_peeked(taken);
    if (start + static_cast<std::size_t>(taken) < bytes.size() * 8) {
      EXPECT_EQ(source.bit(), bit_at(start + static_cast<std::size_t>(taken)));
    }
    EXPECT_FALSE(source.overran());
  }
}

TEST(PrefixCode, AShortCodeReadFromAWindowIsTheCodeReadAlone) {
  std::mt19937_64 rng(testing::test_seed("PrefixCode.AShortCodeReadFromAWindowIsTheCodeReadAlone"));
  std::vector<std::uint64_t> weights(300);
  for (std::uint64_t& w : weights) w = 1 + rng() % 5000;  // lengths from a few bits to past the short ones
  PrefixCode code;
  code.build(weights);
  int short_ones = 0;
  for (std::uint32_t s = 0; s < code.size(); ++s) {
    BitSink sink;
    code.put(sink, s);
    sink.put(rng() & 0xFFFF, 16);  // what follows the code in a body
    std::vector<std::uint8_t> bytes;
    sink.append_bytes_to(bytes);
    bytes.resize(16, 0);
    std::uint64_t window = 0;
    BitSource source(bytes);
    ASSERT_TRUE(source.peek_wide(window));
    const std::uint32_t hit = code.read_short(window);
    if (code.length(s) <= 8) {
      ++short_ones;
      ASSERT_NE(hit, 0U) << "symbol " << s;
      EXPECT_EQ(hit >> 5, s);
      EXPECT_EQ(static_cast<int>(hit & 31U), code.length(s));
    } else {
      EXPECT_EQ(hit, 0U) << "symbol " << s << " is " << code.length(s) << " bits";
    }
    std::uint32_t read = 0;
    ASSERT_TRUE(code.read(source, read));
    EXPECT_EQ(read, s);
  }
  EXPECT_GT(short_ones, 0);
  EXPECT_LT(short_ones, static_cast<int>(code.size()));  // both kinds were tried
}

}  // namespace
}  // namespace tickwire::snapshot::detail
