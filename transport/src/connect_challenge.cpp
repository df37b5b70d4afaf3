#include "tickwire/transport/connect_challenge.h"

#include <algorithm>

namespace tickwire::transport::challenge {
namespace {

// Fixed layouts, little-endian integers:
//   prefix    magic[3] version kind
//   HELLO     prefix nonce:u64 zero padding to kHelloSize
//   CHALLENGE prefix nonce:u64 cookie[16]
//   RESPONSE  prefix nonce:u64 cookie[16] token_length:u16 token[token_length]
//   ACCEPTED  prefix nonce:u64
//   DENIED    prefix nonce:u64 reason:u32
constexpr std::size_t kNonceEnd = kPrefixSize + kNonceSize;
constexpr std::size_t kChallengeSize = kNonceEnd + kCookieSize;
constexpr std::size_t kResponseFixedSize = kChallengeSize + 2;
constexpr std::size_t kAcceptedSize = kNonceEnd;
constexpr std::size_t kDeniedSize = kNonceEnd + 4;
static_assert(kChallengeSize < kHelloSize, "an unvalidated address must get back less than it sent");
static_assert(kDeniedSize < kResponseFixedSize && kAcceptedSize < kResponseFixedSize);

std::uint64_t read_le(std::span<const std::uint8_t> bytes, std::size_t offset, std::size_t width) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) value |= std::uint64_t{bytes[offset + i]} << (8 * i);
  return value;
}

void write_le(std::vector<std::uint8_t>& out, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

std::vector<std::uint8_t> start(Kind kind, std::uint64_t nonce, std::uint8_t version = kVersion) {
  std::vector<std::uint8_t> out(kMagic.begin(), kMagic.end());
  out.push_back(version);
  out.push_back(static_cast<std::uint8_t>(kind));
  write_le(out, nonce, kNonceSize);
  return out;
}

Cookie read_cookie(std::span<const std::uint8_t> bytes) {
  Cookie cookie{};
  std::copy_n(bytes.begin() + kNonceEnd, kCookieSize, cookie.begin());
  return cookie;
}

std::optional<Message> decode_hello(std::span<const std::uint8_t> d, std::uint64_t nonce, std::uint8_t version) {
  if (d.size() != kHelloSize) return std::nullopt;
  // Zero padding keeps room to grow the message without a new kind.
  if (!std::all_of(d.begin() + kNonceEnd, d.end(), [](std::uint8_t b) { return b == 0; })) return std::nullopt;
  if (version != kVersion) return ForeignHello{nonce, version};
  return Hello{nonce};
}

std::optional<Message> decode_response(std::span<const std::uint8_t> d, std::uint64_t nonce) {
  if (d.size() < kResponseFixedSize) return std::nullopt;
  const auto length = static_cast<std::size_t>(read_le(d, kChallengeSize, 2));
  if (length > kMaxTokenSize || d.size() != kResponseFixedSize + length) return std::nullopt;
  Response r{nonce, read_cookie(d), {}};
  r.token.assign(d.begin() + kResponseFixedSize, d.end());
  return r;
}

}  // namespace

bool is_challenge_datagram(std::span<const std::uint8_t> datagram) {
  return datagram.size() >= kMagic.size() && std::equal(kMagic.begin(), kMagic.end(), datagram.begin());
}

std::optional<Message> decode(std::span<const std::uint8_t> d) {
  if (!is_challenge_datagram(d) || d.size() < kNonceEnd) return std::nullopt;
  const std::uint8_t version = d[kMagic.size()];
  const std::uint8_t kind = d[kMagic.size() + 1];
  const std::uint64_t nonce = read_le(d, kPrefixSize, kNonceSize);
  // Only a HELLO is read across versions; the layout of its first bytes is
  // promised never to change.
  if (kind == static_cast<std::uint8_t>(Kind::kHello)) return decode_hello(d, nonce, version);
  if (version != kVersion) return std::nullopt;
  switch (static_cast<Kind>(kind)) {
    case Kind::kChallenge:
      if (d.size() != kChallengeSize) return std::nullopt;
      return ChallengeMsg{nonce, read_cookie(d)};
    case Kind::kResponse: return decode_response(d, nonce);
    case Kind::kAccepted:
      if (d.size() != kAcceptedSize) return std::nullopt;
      return Accepted{nonce};
    case Kind::kDenied:
      if (d.size() != kDeniedSize) return std::nullopt;
      return Denied{nonce, disconnect_reason_from_wire(static_cast<std::uint32_t>(read_le(d, kNonceEnd, 4)))};
    case Kind::kHello: break;
  }
  return std::nullopt;
}

std::vector<std::uint8_t> encode(const Message& message) {
  struct Encoder {
    std::vector<std::uint8_t> operator()(const Hello& m) const {
      auto out = start(Kind::kHello, m.nonce);
      out.resize(kHelloSize, 0);
      return out;
    }
    std::vector<std::uint8_t> operator()(const ForeignHello& m) const {
      auto out = start(Kind::kHello, m.nonce, m.version);
      out.resize(kHelloSize, 0);
      return out;
    }
    std::vector<std::uint8_t> operator()(const ChallengeMsg& m) const {
      auto out = start(Kind::kChallenge, m.nonce);
      out.insert(out.end(), m.cookie.begin(), m.cookie.end());
      return out;
    }
    std::vector<std::uint8_t> operator()(const Response& m) const {
      auto out = start(Kind::kResponse, m.nonce);
      out.insert(out.end(), m.cookie.begin(), m.cookie.end());
      // A longer token cannot be sent; the caller checks kMaxTokenSize.
      const std::size_t length = std::min(m.token.size(), kMaxTokenSize);
      write_le(out, length, 2);
      out.insert(out.end(), m.token.begin(), m.token.begin() + static_cast<std::ptrdiff_t>(length));
      return out;
    }
    std::vector<std::uint8_t> operator()(const Accepted& m) const { return start(Kind::kAccepted, m.nonce); }
    std::vector<std::uint8_t> operator()(const Denied& m) const {
      auto out = start(Kind::kDenied, m.nonce);
      write_le(out, static_cast<std::uint32_t>(m.reason), 4);
      return out;
    }
  };
  return std::visit(Encoder{}, message);
}

}  // namespace tickwire::transport::challenge
