#include "tickwire/core/bit_stream.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tickwire/core/serialize.h"

namespace tickwire {
namespace {

using Bytes = std::vector<std::uint8_t>;

// Fixed by default so failures reproduce; TICKWIRE_TEST_SEED overrides it.
std::uint64_t test_seed() {
  if (const char* s = std::getenv("TICKWIRE_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  return 20240611;
}

template <class Stream>
std::optional<ErrorCode> code(const Stream& s) {
  return s.error() ? std::optional<ErrorCode>(s.error()->code) : std::nullopt;
}

// Runs `read` on a reader over `input`; the error it left, if any.
template <class F>
std::optional<ErrorCode> read_error(const Bytes& input, F read) {
  BitReader r(input);
  (void)read(r);
  return code(r);
}

template <class F>
std::optional<ErrorCode> write_error(std::size_t max_bytes, F write) {
  BitWriter w(max_bytes);
  (void)write(w);
  return code(w);
}

template <std::integral T>
void expect_integer_round_trip(T value, T min, T max, std::size_t expected_bits) {
  SCOPED_TRACE(testing::Message() << "value=" << +value << " min=" << +min << " max=" << +max);
  BitWriter w(64);
  T in = value;
  ASSERT_TRUE(w.integer(in, min, max));
  EXPECT_EQ(w.bits_written(), expected_bits);
  BitReader r(w.data());
  T out = value == min ? max : min;  // differs from value unless min == max
  ASSERT_TRUE(r.integer(out, min, max));
  EXPECT_EQ(out, value);
  EXPECT_TRUE(r.finish());
}

TEST(BitStream, BitsRoundTripAtFieldWidthEdges) {
  struct Field {
    std::uint32_t value;
    int count;
  };
  const Field fields[] = {{0, 1}, {1, 1}, {0xFFFF'FFFFU, 32}, {0x8000'0000U, 32}, {0x7A5A'5A5AU, 31}, {0, 32}, {5, 3}};
  BitWriter w(64);
  for (Field f : fields) ASSERT_TRUE(w.bits(f.value, f.count)) << f.value;
  EXPECT_EQ(w.bits_written(), 1U + 1 + 32 + 32 + 31 + 32 + 3);
  BitReader r(w.data());
  for (const Field& f : fields) {
    std::uint32_t v = 99;
    ASSERT_TRUE(r.bits(v, f.count));
    EXPECT_EQ(v, f.value);
  }
  EXPECT_TRUE(r.finish());
}

TEST(BitStream, BitsAreLsbFirstAndLastByteIsZeroPadded) {
  BitWriter w(8);
  std::uint32_t a = 0b101, b = 0b11;
  ASSERT_TRUE(w.bits(a, 3));
  EXPECT_EQ(Bytes(w.data().begin(), w.data().end()), Bytes{0x05});
  ASSERT_TRUE(w.bits(b, 7));
  EXPECT_EQ(w.bits_written(), 10U);
  EXPECT_EQ(w.bytes_written(), 2U);
  EXPECT_EQ(w.take(), (Bytes{0x1D, 0x00}));
  EXPECT_EQ(w.bytes_written(), 0U);
}

TEST(BitStream, BitsRejectsBadCountAndOversizedValue) {
  std::uint32_t v = 4;
  EXPECT_EQ(write_error(8, [&](BitWriter& w) { return w.bits(v, 2); }), ErrorCode::kOutOfRange);
  const Bytes input(8, 0xFF);
  for (int count : {0, -1, 33}) {
    EXPECT_EQ(write_error(8, [&](BitWriter& w) { return w.bits(v, count); }), ErrorCode::kInvalidArgument);
    EXPECT_EQ(read_error(input, [&](BitReader& r) { return r.bits(v, count); }), ErrorCode::kInvalidArgument);
    BitMeasurer m;
    EXPECT_FALSE(m.bits(v, count));
    EXPECT_EQ(code(m), ErrorCode::kInvalidArgument);
  }
}

TEST(BitStream, BooleanRoundTrip) {
  BitWriter w(1);
  bool t = true, f = false;
  ASSERT_TRUE(w.boolean(t) && w.boolean(f) && w.boolean(t));
  BitReader r(w.data());
  bool a = false, b = true, c = false;
  ASSERT_TRUE(r.boolean(a) && r.boolean(b) && r.boolean(c) && r.finish());
  EXPECT_TRUE(a && !b && c);
}

TEST(BitStream, IntegerRoundTripAtRangeEdges) {
  constexpr auto kI32Min = std::numeric_limits<std::int32_t>::min();
  constexpr auto kI32Max = std::numeric_limits<std::int32_t>::max();
  expect_integer_round_trip<std::uint8_t>(0, 0, 255, 8);
  expect_integer_round_trip<std::uint8_t>(255, 0, 255, 8);
  expect_integer_round_trip<std::int8_t>(-128, -128, 127, 8);
  expect_integer_round_trip<std::int8_t>(127, -128, 127, 8);
  expect_integer_round_trip<int>(-1000, -1000, -10, 10);
  expect_integer_round_trip<int>(-10, -1000, -10, 10);
  expect_integer_round_trip<std::uint32_t>(0xFFFF'FFFFU, 0, 0xFFFF'FFFFU, 32);
  expect_integer_round_trip<std::int32_t>(kI32Min, kI32Min, kI32Max, 32);
  expect_integer_round_trip<std::int32_t>(kI32Max, kI32Min, kI32Max, 32);
  expect_integer_round_trip<std::uint16_t>(1001, 1000, 1001, 1);
  expect_integer_round_trip<bool>(true, false, true, 1);
  // min == max: nothing on the wire, the value is implied.
  expect_integer_round_trip<int>(-3, -3, -3, 0);
  expect_integer_round_trip<std::uint64_t>(7, 7, 7, 0);
}

TEST(BitStream, IntegerRoundTripFull64BitRanges) {
  constexpr auto kU64Max = std::numeric_limits<std::uint64_t>::max();
  constexpr auto kI64Min = std::numeric_limits<std::int64_t>::min();
  constexpr auto kI64Max = std::numeric_limits<std::int64_t>::max();
  for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1} << 63, kU64Max - 1, kU64Max}) {
    expect_integer_round_trip<std::uint64_t>(v, 0, kU64Max, 64);
  }
  for (std::int64_t v : {kI64Min, kI64Min + 1, std::int64_t{-1}, std::int64_t{0}, kI64Max}) {
    expect_integer_round_trip<std::int64_t>(v, kI64Min, kI64Max, 64);
  }
  // Ranges of 33..63 bits cross the 32-bit chunk boundary.
  constexpr std::int64_t kBig = std::int64_t{1} << 40;
  expect_integer_round_trip<std::int64_t>(-kBig, -kBig, kBig, 42);
  expect_integer_round_trip<std::int64_t>(kBig - 3, -kBig, kBig, 42);
  expect_integer_round_trip<std::uint64_t>(kU64Max, kU64Max - (std::uint64_t{1} << 33), kU64Max, 34);
}

TEST(BitStream, IntegerRangeViolations) {
  int v = 11;
  EXPECT_EQ(write_error(8, [&](BitWriter& w) { return w.integer(v, 0, 10); }), ErrorCode::kOutOfRange);
  v = -1;
  EXPECT_EQ(write_error(8, [&](BitWriter& w) { return w.integer(v, 0, 10); }), ErrorCode::kOutOfRange);
  EXPECT_EQ(write_error(8, [&](BitWriter& w) { return w.integer(v, 5, 4); }), ErrorCode::kInvalidArgument);
  // 0..5 takes 3 bits; a hostile 7 in those bits is rejected.
  EXPECT_EQ(read_error({0x07}, [&](BitReader& r) { return r.integer(v, 0, 5); }), ErrorCode::kOutOfRange);
  EXPECT_EQ(read_error({0x07}, [&](BitReader& r) { return r.integer(v, 5, 0); }), ErrorCode::kInvalidArgument);
}

TEST(BitStream, VarintEdgeValues) {
  constexpr auto kU64Max = std::numeric_limits<std::uint64_t>::max();
  const std::pair<std::uint64_t, std::size_t> cases[] = {
      {0, 1}, {1, 1}, {127, 1}, {128, 2}, {16383, 2}, {16384, 3}, {std::uint64_t{1} << 63, 10}, {kU64Max, 10}};
  for (auto [value, groups] : cases) {
    SCOPED_TRACE(value);
    BitWriter w(16);
    BitMeasurer m;
    std::uint64_t in = value, out = 0;
    ASSERT_TRUE(w.varint(in) && m.varint(in));
    EXPECT_EQ(w.bits_written(), groups * 8);
    EXPECT_EQ(m.bits(), w.bits_written());
    BitReader r(w.data());
    ASSERT_TRUE(r.varint(out) && r.finish());
    EXPECT_EQ(out, value);
  }
}

TEST(BitStream, VarintRejectsOverlongAndOverflowingEncodings) {
  const Bytes cases[] = {
      {0x80, 0x00},                                                        // 0 with a padding group
      {0xFF, 0x80, 0x00},                                                  // 127 padded twice
      {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02},        // bit 64 set
      {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x81, 0x00},  // an eleventh group
  };
  std::uint64_t out = 0;
  for (const auto& input : cases) {
    EXPECT_EQ(read_error(input, [&](BitReader& r) { return r.varint(out); }), ErrorCode::kMalformed);
  }
  EXPECT_EQ(read_error({0x80, 0x80}, [&](BitReader& r) { return r.varint(out); }), ErrorCode::kTruncated);
}

TEST(BitStream, VarintSignedRoundTrip) {
  for (std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{1}, std::int64_t{-64}, std::int64_t{64},
                         std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
    SCOPED_TRACE(v);
    BitWriter w(16);
    std::int64_t in = v, out = 0;
    ASSERT_TRUE(w.varint_signed(in));
    if (v >= -64 && v < 64) {
      EXPECT_EQ(w.bits_written(), 8U);  // zigzag keeps small negatives short
    }
    BitReader r(w.data());
    ASSERT_TRUE(r.varint_signed(out));
    EXPECT_EQ(out, v);
  }
}

TEST(BitStream, BoundedFloatRoundTripWithinPrecision) {
  const auto q = make_quantizer(-50.0F, 50.0F, 0.01F);
  for (float v : {-50.0F, 50.0F, 0.0F, 12.345F, -49.999F, 0.005F}) {
    SCOPED_TRACE(v);
    BitWriter w(8);
    float in = v, out = 1e9F;
    ASSERT_TRUE(w.bounded_float(in, q.min, q.max, q.precision));
    EXPECT_EQ(w.bits_written(), static_cast<std::size_t>(q.bits()));
    BitReader r(w.data());
    ASSERT_TRUE(r.bounded_float(out, q.min, q.max, q.precision));
    EXPECT_NEAR(out, v, q.precision / 2 + 1e-5F);
    EXPECT_EQ(out, q.snap(v));
  }
}

TEST(BitStream, BoundedFloatClampsProgramValues) {
  for (float v : {-1000.0F, 1000.0F, std::numeric_limits<float>::infinity(), std::nanf("")}) {
    BitWriter w(8);
    float in = v, out = 0.0F;
    ASSERT_TRUE(w.bounded_float(in, -1.0F, 1.0F, 0.1F));
    BitReader r(w.data());
    ASSERT_TRUE(r.bounded_float(out, -1.0F, 1.0F, 0.1F));
    EXPECT_EQ(out, v > 0 ? 1.0F : -1.0F) << v;
  }
}

TEST(BitStream, BoundedFloatRejectsInvalidArgumentsAndHostileSteps) {
  float v = 0.0F;
  EXPECT_EQ(write_error(8, [&](BitWriter& w) { return w.bounded_float(v, 1.0F, 0.0F, 0.1F); }),
            ErrorCode::kInvalidArgument);
  BitMeasurer m;
  EXPECT_FALSE(m.bounded_float(v, 0.0F, 1.0F, 0.0F));
  EXPECT_EQ(code(m), ErrorCode::kInvalidArgument);
  EXPECT_EQ(read_error({0xFF}, [&](BitReader& r) { return r.bounded_float(v, 0.0F, std::nanf(""), 0.1F); }),
            ErrorCode::kInvalidArgument);
  // 0..1 by 0.1 has 10 steps in 4 bits; 15 is not a step.
  EXPECT_EQ(read_error({0xFF}, [&](BitReader& r) { return r.bounded_float(v, 0.0F, 1.0F, 0.1F); }),
            ErrorCode::kOutOfRange);
}

TEST(BitStream, BytesAndStringRoundTrip) {
  BitWriter w(256);
  Bytes empty, blob{0, 1, 2, 0xFF, 0x80};
  std::string text = "hello, world", none;
  bool flag = true;
  // The leading bit puts the length prefix on an unaligned start.
  ASSERT_TRUE(w.boolean(flag) && w.bytes(empty, 0) && w.bytes(blob, blob.size()) && w.string(text, text.size()) &&
              w.string(none, 10));
  BitReader r(w.data());
  Bytes e2{9}, b2;
  std::string t2, n2 = "x";
  ASSERT_TRUE(r.boolean(flag) && r.bytes(e2, 0) && r.bytes(b2, 5) && r.string(t2, 100) && r.string(n2, 10));
  EXPECT_TRUE(r.finish());
  EXPECT_TRUE(e2.empty());
  EXPECT_EQ(b2, blob);
  EXPECT_EQ(t2, text);
  EXPECT_TRUE(n2.empty());
}

TEST(BitStream, BytesLengthBoundEnforcedBeforeAllocation) {
  std::string text = "too long";
  EXPECT_EQ(write_error(64, [&](BitWriter& w) { return w.string(text, 7); }), ErrorCode::kTooLong);

  // A declared length of 2^40 with nothing behind it.
  BitWriter hostile(16);
  std::uint64_t length = std::uint64_t{1} << 40;
  ASSERT_TRUE(hostile.varint(length));
  const Bytes input = hostile.take();
  Bytes blob;
  EXPECT_EQ(read_error(input, [&](BitReader& r) { return r.bytes(blob, 1024); }), ErrorCode::kTooLong);
  EXPECT_EQ(blob.capacity(), 0U);
  // Within the bound but past the end of the input: still no allocation.
  EXPECT_EQ(read_error(input, [&](BitReader& r) { return r.bytes(blob, std::numeric_limits<std::size_t>::max()); }),
            ErrorCode::kTruncated);
  EXPECT_EQ(blob.capacity(), 0U);
}

TEST(BitStream, AlignPadsWithZerosAndRejectsOtherPadding) {
  BitWriter w(4);
  std::uint32_t v = 1;
  ASSERT_TRUE(w.bits(v, 1) && w.align());
  EXPECT_EQ(w.bits_written(), 8U);
  ASSERT_TRUE(w.align());
  EXPECT_EQ(w.bits_written(), 8U);
  EXPECT_EQ(read_error({0x03}, [&](BitReader& r) { return r.bits(v, 1) && r.align(); }), ErrorCode::kMalformed);
}

TEST(BitStream, FixedBytesRoundTripAndTruncation) {
  BitWriter w(16);
  std::array<std::uint8_t, 4> raw = {0xDE, 0xAD, 0xBE, 0xEF}, out{};
  bool flag = true;
  ASSERT_TRUE(w.boolean(flag) && w.fixed_bytes(raw));
  EXPECT_EQ(w.bytes_written(), 5U);
  BitReader r(w.data());
  ASSERT_TRUE(r.boolean(flag) && r.fixed_bytes(out) && r.finish());
  EXPECT_EQ(out, raw);
  const Bytes cut(w.data().begin(), w.data().begin() + 4);
  EXPECT_EQ(read_error(cut, [&](BitReader& br) { return br.boolean(flag) && br.fixed_bytes(out); }),
            ErrorCode::kTruncated);
}

TEST(BitStream, FinishRejectsTrailingBytesAndDirtyPadding) {
  std::uint32_t v = 0;
  auto one_bit_then_finish = [&](BitReader& r) { return r.bits(v, 1) && r.finish(); };
  EXPECT_EQ(read_error({0x01}, one_bit_then_finish), std::nullopt);
  EXPECT_EQ(read_error({0x01, 0x00}, one_bit_then_finish), ErrorCode::kMalformed);
  EXPECT_EQ(read_error({0x81}, one_bit_then_finish), ErrorCode::kMalformed);
  EXPECT_EQ(read_error({}, [](BitReader& r) { return r.finish(); }), std::nullopt);
}

TEST(BitStream, WriterStopsAtMaxBytes) {
  BitWriter w(2);
  std::uint32_t v = 0xFFFF, one = 1;
  ASSERT_TRUE(w.bits(v, 16));
  EXPECT_FALSE(w.overflowed());
  EXPECT_FALSE(w.bits(one, 1));
  EXPECT_TRUE(w.overflowed());
  EXPECT_EQ(code(w), ErrorCode::kTooLarge);
  EXPECT_EQ(w.bytes_written(), 2U);

  Bytes blob(4, 7);  // 1 length byte + 4 data bytes
  EXPECT_EQ(write_error(4, [&](BitWriter& bw) { return bw.bytes(blob, 16); }), ErrorCode::kTooLarge);
}

TEST(BitStream, ErrorsAreSticky) {
  const Bytes input{0xFF, 0xFF};
  BitReader r(input);
  int out = 0;
  std::uint32_t v = 0;
  EXPECT_FALSE(r.integer(out, 0, 5));
  EXPECT_FALSE(r.bits(v, 1) || r.align() || r.finish());
  EXPECT_FALSE(r.fail(ErrorCode::kIo));
  EXPECT_EQ(code(r), ErrorCode::kOutOfRange);
  EXPECT_EQ(r.bits_read(), 3U);
}

// A message touching every stream function, laid out so fields straddle
// byte boundaries.
struct Mixed {
  std::uint32_t flags = 0;
  bool alive = false;
  std::int32_t health = 0;
  std::uint64_t id = 0;
  std::int64_t delta = 0;
  std::uint64_t count = 0;
  float x = 0.0F;
  std::string name;
  Bytes payload;
  std::array<std::uint8_t, 3> tag{};
  std::int16_t team = 0;
  bool operator==(const Mixed&) const = default;
};

template <class Stream>
bool serialize(Stream& s, Mixed& m) {
  return s.bits(m.flags, 5) && s.boolean(m.alive) && s.integer(m.health, -100, 100) &&
         s.integer(m.id, std::uint64_t{0}, std::numeric_limits<std::uint64_t>::max()) && s.varint_signed(m.delta) &&
         s.varint(m.count) && s.bounded_float(m.x, -100.0F, 100.0F, 0.01F) && s.string(m.name, 16) &&
         s.bytes(m.payload, 32) && s.fixed_bytes(m.tag) && s.integer(m.team, std::int16_t{-3}, std::int16_t{3});
}

Mixed sample_mixed() {
  return Mixed{21,
               true,
               -42,
               0x0123'4567'89AB'CDEFULL,
               -300,
               1'000'000,
               make_quantizer(-100.0F, 100.0F, 0.01F).snap(3.14F),
               "tickwire",
               Bytes{1, 2, 3},
               {9, 8, 7},
               -2};
}

TEST(Serialize, MeasureMatchesWrittenBitsAndRoundTrips) {
  Mixed m = sample_mixed();
  BitWriter w(256);
  BitMeasurer measurer;
  ASSERT_TRUE(serialize(w, m) && serialize(measurer, m));
  EXPECT_EQ(measurer.bits(), w.bits_written());
  EXPECT_EQ(measurer.bytes(), w.bytes_written());

  const Mixed original = sample_mixed();
  auto encoded = encode(original, 256);  // the const overload serializes a copy
  ASSERT_TRUE(encoded.ok()) << encoded.error().detail;
  EXPECT_EQ(encoded->size(), measure_bytes(original));
  EXPECT_EQ(*encoded, Bytes(w.data().begin(), w.data().end()));
  Mixed decoded;
  ASSERT_TRUE(decode(*encoded, decoded).ok());
  EXPECT_EQ(decoded, original);
}

TEST(Serialize, ReportsStreamErrors) {
  Mixed m = sample_mixed();
  auto too_small = encode(m, 4);
  ASSERT_FALSE(too_small.ok());
  EXPECT_EQ(too_small.error().code, ErrorCode::kTooLarge);

  m.health = 101;
  auto out_of_range = encode(m, 256);
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_EQ(out_of_range.error().code, ErrorCode::kOutOfRange);

  Bytes bytes = encode(sample_mixed(), 256).value();
  bytes.push_back(0);
  Mixed decoded;
  const auto trailing = decode(bytes, decoded);
  ASSERT_FALSE(trailing.ok());
  EXPECT_EQ(trailing.error().code, ErrorCode::kMalformed);
}

Mixed random_mixed(std::mt19937_64& rng) {
  auto pick = [&rng](std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  };
  // Varints get values of every width, not just huge ones.
  auto any_width = [&] { return rng() >> pick(0, 63); };
  Mixed m;
  m.flags = static_cast<std::uint32_t>(pick(0, 31));
  m.alive = pick(0, 1) == 1;
  m.health = static_cast<std::int32_t>(pick(0, 200)) - 100;
  m.id = rng();
  m.delta = static_cast<std::int64_t>(any_width()) * (pick(0, 1) == 1 ? -1 : 1);
  m.count = any_width();
  m.x = make_quantizer(-100.0F, 100.0F, 0.01F).snap(std::uniform_real_distribution<float>(-120.0F, 120.0F)(rng));
  m.name.resize(pick(0, 16));
  for (auto& c : m.name) c = static_cast<char>(pick(0, 255));
  m.payload.resize(pick(0, 32));
  for (auto& b : m.payload) b = static_cast<std::uint8_t>(pick(0, 255));
  for (auto& b : m.tag) b = static_cast<std::uint8_t>(pick(0, 255));
  m.team = static_cast<std::int16_t>(static_cast<int>(pick(0, 6)) - 3);
  return m;
}

TEST(BitStream, RandomizedMixedRoundTrip) {
  const std::uint64_t seed = test_seed();
  std::cout << "seed=" << seed << std::endl;
  SCOPED_TRACE(testing::Message() << "seed=" << seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 2000; ++i) {
    Mixed m = random_mixed(rng);
    auto encoded = encode(m, 256);
    ASSERT_TRUE(encoded.ok()) << "iteration " << i << ": " << encoded.error().detail;
    ASSERT_EQ(encoded->size(), measure_bytes(m)) << "iteration " << i;
    Mixed decoded;
    ASSERT_TRUE(decode(*encoded, decoded).ok()) << "iteration " << i;
    ASSERT_EQ(decoded, m) << "iteration " << i;
  }
}

// A type whose serialize rejects values on its own terms.
struct Kind {
  std::uint32_t value = 1;
};

template <class Stream>
bool serialize(Stream& s, Kind& k) {
  if (!s.bits(k.value, 3)) return false;
  if constexpr (Stream::kReading) {
    if (k.value == 0) return s.fail(ErrorCode::kBadPacketType);
  }
  return true;
}

TEST(Serialize, SerializeFunctionsReportTheirOwnErrors) {
  Kind k{0};
  const Bytes bytes = encode(k, 1).value();
  const auto result = decode(bytes, k);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kBadPacketType);
  EXPECT_EQ(result.error().detail, "bad_packet_type");
}

TEST(ErrorCodeNames, AreSnakeCase) {
  EXPECT_STREQ(to_string(ErrorCode::kTruncated), "truncated");
  EXPECT_STREQ(to_string(ErrorCode::kOutOfRange), "out_of_range");
  EXPECT_STREQ(to_string(ErrorCode::kTooLong), "too_long");
  EXPECT_STREQ(to_string(ErrorCode::kBadProtocolId), "bad_protocol_id");
  EXPECT_STREQ(to_string(ErrorCode::kBadVersion), "bad_version");
  EXPECT_STREQ(to_string(ErrorCode::kBadPacketType), "bad_packet_type");
  EXPECT_STREQ(to_string(ErrorCode::kMalformed), "malformed");
  EXPECT_STREQ(to_string(ErrorCode::kTooLarge), "too_large");
  EXPECT_STREQ(to_string(ErrorCode::kNotConnected), "not_connected");
  EXPECT_STREQ(to_string(ErrorCode::kInvalidArgument), "invalid_argument");
  EXPECT_STREQ(to_string(ErrorCode::kIo), "io");
}

}  // namespace
}  // namespace tickwire
