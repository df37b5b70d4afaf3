// The challenge messages' decoder against every shape of bytes: each
// message round-trips, every truncation and extension of a valid one is
// refused, and random mutations never crash it (run under ASan in CI). The
// sizes that keep the server from amplifying are checked here too.

#include <gtest/gtest.h>

#include <random>

#include "test_seed.h"
#include "tickwire/transport/connect_challenge.h"

namespace tickwire::transport {
namespace {

namespace ch = challenge;
using Bytes = std::vector<std::uint8_t>;

template <std::size_t N>
std::array<std::uint8_t, N> filled(std::uint8_t first) {
  std::array<std::uint8_t, N> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = static_cast<std::uint8_t>(first + i);
  return out;
}

std::vector<ch::Message> samples() {
  return {
      ch::Hello{0x0102030405060708, 0, filled<32>(1)},
      ch::Hello{7, ch::kFlagPlaintext, filled<32>(9)},
      ch::ChallengeMsg{7, filled<16>(3), filled<32>(40)},
      ch::Response{7, filled<16>(3), 0, filled<32>(1), {}},
      ch::Response{7, filled<16>(3), ch::kFlagPlaintext, filled<32>(1), Bytes(47, 0xAB)},
      ch::Response{7, filled<16>(3), 0, filled<32>(1), Bytes(48, 0xAB)},
      ch::Response{7, filled<16>(3), 0, filled<32>(1), Bytes(ch::kMaxTokenSize, 0xCD)},
      ch::Accepted{7, 0xDEADBEEF, 0, filled<64>(5), filled<16>(77)},
      ch::Accepted{7, 1, ch::kFlagPlaintext, filled<64>(5), {}},
      ch::Denied{7, DisconnectReason::kPlaintextRefused},
      ch::ForeignHello{7, 1},
  };
}

TEST(ChallengeDecode, EveryMessageRoundTrips) {
  for (const ch::Message& m : samples()) {
    const Bytes bytes = ch::encode(m);
    const auto decoded = ch::decode(bytes);
    ASSERT_TRUE(decoded.has_value()) << "kind index " << m.index();
    EXPECT_EQ(ch::encode(*decoded), bytes);
    EXPECT_EQ(decoded->index(), m.index());
  }
}

TEST(ChallengeDecode, AnswersAreSmallerThanWhatTheyAnswer) {
  const Bytes hello = ch::encode(ch::Hello{});
  const Bytes smallest_response = ch::encode(ch::Response{});
  EXPECT_EQ(hello.size(), ch::kHelloSize);
  EXPECT_EQ(smallest_response.size(), ch::kMinResponseSize);
  EXPECT_LT(ch::encode(ch::ChallengeMsg{}).size(), hello.size());
  EXPECT_LT(ch::encode(ch::Denied{}).size(), hello.size());  // to another version's HELLO
  EXPECT_LT(ch::encode(ch::Accepted{}).size(), smallest_response.size());
  EXPECT_LT(ch::encode(ch::Denied{}).size(), smallest_response.size());
}

TEST(ChallengeDecode, TruncatedOrExtendedMessagesAreRefused) {
  for (const ch::Message& m : samples()) {
    const Bytes bytes = ch::encode(m);
    for (std::size_t length = 0; length < bytes.size(); ++length) {
      const Bytes cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(length));
      EXPECT_FALSE(ch::decode(cut).has_value()) << "kind index " << m.index() << " cut to " << length;
    }
    for (const std::uint8_t extra : {std::uint8_t{0}, std::uint8_t{1}}) {
      Bytes longer = bytes;
      longer.push_back(extra);
      EXPECT_FALSE(ch::decode(longer).has_value()) << "kind index " << m.index() << " extended";
    }
  }
}

TEST(ChallengeDecode, PaddingAndFlagsMustBeClean) {
  Bytes hello = ch::encode(ch::Hello{1, 0, filled<32>(1)});
  hello.back() = 1;
  EXPECT_FALSE(ch::decode(hello).has_value());
  Bytes response = ch::encode(ch::Response{1, {}, 0, {}, Bytes(3, 7)});
  response.back() = 1;
  EXPECT_FALSE(ch::decode(response).has_value());
  for (const std::uint8_t flags : {std::uint8_t{0x04}, std::uint8_t{0x80}}) {
    EXPECT_FALSE(ch::decode(ch::encode(ch::Hello{1, flags, {}})).has_value());
    EXPECT_FALSE(ch::decode(ch::encode(ch::Response{1, {}, flags, {}, {}})).has_value());
    EXPECT_FALSE(ch::decode(ch::encode(ch::Accepted{1, 1, flags, {}, {}})).has_value());
  }
  // A token length that disagrees with the datagram's.
  Bytes lying = ch::encode(ch::Response{1, {}, 0, {}, Bytes(60, 7)});
  lying[ch::kResponseFixedSize - 2] = 59;
  EXPECT_FALSE(ch::decode(lying).has_value());
  lying[ch::kResponseFixedSize - 2] = 0xFF;
  lying[ch::kResponseFixedSize - 1] = 0xFF;
  EXPECT_FALSE(ch::decode(lying).has_value());
}

TEST(ChallengeDecode, AnotherVersionsHelloIsReadWhateverItCarries) {
  Bytes hello = ch::encode(ch::ForeignHello{9, 3});
  hello.back() = 0xFF;
  const auto decoded = ch::decode(hello);
  ASSERT_TRUE(decoded && std::holds_alternative<ch::ForeignHello>(*decoded));
  EXPECT_EQ(std::get<ch::ForeignHello>(*decoded).version, 3u);
  // Other kinds of another version are not read at all.
  Bytes challenge = ch::encode(ch::ChallengeMsg{});
  challenge[3] = 1;
  EXPECT_FALSE(ch::decode(challenge).has_value());
}

TEST(ChallengeDecode, RandomMutationsNeverCrashAndDecodedMessagesReencode) {
  std::mt19937_64 rng(testing::test_seed("RandomMutationsNeverCrashAndDecodedMessagesReencode"));
  const auto messages = samples();
  for (int i = 0; i < 20000; ++i) {
    Bytes d = ch::encode(messages[rng() % messages.size()]);
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      switch (rng() % 4) {
        case 0: d[rng() % d.size()] ^= static_cast<std::uint8_t>(1U << (rng() % 8)); break;
        case 1: d[rng() % d.size()] = static_cast<std::uint8_t>(rng()); break;
        case 2: d.resize(rng() % (d.size() + 1)); break;
        default: d.push_back(static_cast<std::uint8_t>(rng())); break;
      }
      if (d.empty()) d.push_back(ch::kMagic[0]);
    }
    const auto decoded = ch::decode(d);
    // Whatever decodes is canonical: the same bytes encode back, except a
    // foreign HELLO, whose content is not read, and a DENIED, whose unknown
    // reasons read as kUnknown.
    if (decoded && !std::holds_alternative<ch::ForeignHello>(*decoded) &&
        !std::holds_alternative<ch::Denied>(*decoded)) {
      EXPECT_EQ(ch::encode(*decoded), d);
    }
  }
}

}  // namespace
}  // namespace tickwire::transport
