#include "tickwire/transport/connect_challenge.h"

#include <algorithm>

namespace tickwire::transport::challenge {
namespace {

// Fixed layouts, little-endian integers (docs/wire-format.md):
//   prefix    magic[3] version kind
//   HELLO     prefix nonce:u64 flags:u8 client_key[32] zero padding to kHelloSize
//   CHALLENGE prefix nonce:u64 cookie[16] server_key[32]
//   RESPONSE  prefix nonce:u64 cookie[16] flags:u8 client_key[32] token_length:u16 token[token_length]
//             zero padding to kMinResponseSize
//   ACCEPTED  prefix nonce:u64 connection_id:u32 flags:u8 signature[64] confirmation[16]
//   DENIED    prefix nonce:u64 reason:u32
constexpr std::size_t kNonceEnd = kPrefixSize + kNonceSize;
constexpr std::size_t kHelloContentSize = kNonceEnd + 1 + kPublicKeySize;
constexpr std::size_t kChallengeSize = kNonceEnd + kCookieSize + kPublicKeySize;
constexpr std::size_t kAcceptedSize = kNonceEnd + 4 + 1 + kSignatureSize + kConfirmationSize;
constexpr std::size_t kDeniedSize = kNonceEnd + 4;
static_assert(kHelloContentSize <= kHelloSize);
static_assert(kChallengeSize < kHelloSize, "an unvalidated address must get back less than it sent");
static_assert(kResponseFixedSize <= kMinResponseSize);
static_assert(kDeniedSize < kMinResponseSize && kAcceptedSize < kMinResponseSize,
              "an unvalidated address must get back less than it sent");
static_assert(kDeniedSize < kHelloSize, "a HELLO of another version is answered with a DENIED");

// Reads fields front to back; the caller has checked the length first.
class Reader {
 public:
  Reader(std::span<const std::uint8_t> bytes, std::size_t offset) : bytes_(bytes), offset_(offset) {}

  std::uint64_t le(std::size_t width) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < width; ++i) value |= std::uint64_t{bytes_[offset_ + i]} << (8 * i);
    offset_ += width;
    return value;
  }
  template <std::size_t N>
  std::array<std::uint8_t, N> array() {
    std::array<std::uint8_t, N> out{};
    std::copy_n(bytes_.begin() + static_cast<std::ptrdiff_t>(offset_), N, out.begin());
    offset_ += N;
    return out;
  }
  std::uint8_t byte() { return bytes_[offset_++]; }
  std::size_t offset() const { return offset_; }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t offset_;
};

void write_le(std::vector<std::uint8_t>& out, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

template <std::size_t N>
void append(std::vector<std::uint8_t>& out, const std::array<std::uint8_t, N>& bytes) {
  out.insert(out.end(), bytes.begin(), bytes.end());
}

std::vector<std::uint8_t> start(Kind kind, std::uint64_t nonce, std::uint8_t version = kVersion) {
  std::vector<std::uint8_t> out(kMagic.begin(), kMagic.end());
  out.push_back(version);
  out.push_back(static_cast<std::uint8_t>(kind));
  write_le(out, nonce, kNonceSize);
  return out;
}

bool zeros_from(std::span<const std::uint8_t> d, std::size_t offset) {
  // Zero padding keeps room to grow a message without a new kind.
  return std::all_of(d.begin() + static_cast<std::ptrdiff_t>(offset), d.end(), [](std::uint8_t b) { return b == 0; });
}

bool flags_known(std::uint8_t flags) { return (flags & ~kKnownFlags) == 0; }

std::optional<Message> decode_hello(std::span<const std::uint8_t> d, std::uint64_t nonce, std::uint8_t version) {
  if (d.size() != kHelloSize) return std::nullopt;
  // Another version's HELLO may carry anything after its nonce.
  if (version != kVersion) return ForeignHello{nonce, version};
  Reader r(d, kNonceEnd);
  Hello hello{nonce, r.byte(), r.array<kPublicKeySize>()};
  if (!flags_known(hello.flags) || !zeros_from(d, r.offset())) return std::nullopt;
  return hello;
}

std::optional<Message> decode_response(std::span<const std::uint8_t> d, std::uint64_t nonce) {
  if (d.size() < kMinResponseSize) return std::nullopt;
  Reader r(d, kNonceEnd);
  Response response{nonce, r.array<kCookieSize>(), r.byte(), r.array<kPublicKeySize>(), {}};
  const auto length = static_cast<std::size_t>(r.le(2));
  if (!flags_known(response.flags) || length > kMaxTokenSize) return std::nullopt;
  const std::size_t token_end = kResponseFixedSize + length;
  if (d.size() != std::max(token_end, kMinResponseSize) || !zeros_from(d, token_end)) return std::nullopt;
  response.token.assign(d.begin() + static_cast<std::ptrdiff_t>(kResponseFixedSize),
                        d.begin() + static_cast<std::ptrdiff_t>(token_end));
  return response;
}

std::optional<Message> decode_accepted(std::span<const std::uint8_t> d, std::uint64_t nonce) {
  if (d.size() != kAcceptedSize) return std::nullopt;
  Reader r(d, kNonceEnd);
  Accepted accepted{nonce, static_cast<std::uint32_t>(r.le(4)), r.byte(), r.array<kSignatureSize>(),
                    r.array<kConfirmationSize>()};
  if (!flags_known(accepted.flags)) return std::nullopt;
  return accepted;
}

}  // namespace

bool is_challenge_datagram(std::span<const std::uint8_t> datagram) {
  return datagram.size() >= kMagic.size() && std::equal(kMagic.begin(), kMagic.end(), datagram.begin());
}

std::optional<Message> decode(std::span<const std::uint8_t> d) {
  if (!is_challenge_datagram(d) || d.size() < kNonceEnd) return std::nullopt;
  const std::uint8_t version = d[kMagic.size()];
  const std::uint8_t kind = d[kMagic.size() + 1];
  const std::uint64_t nonce = Reader(d, kPrefixSize).le(kNonceSize);
  // Only a HELLO is read across versions; the layout of its first bytes is
  // promised never to change.
  if (kind == static_cast<std::uint8_t>(Kind::kHello)) return decode_hello(d, nonce, version);
  if (version != kVersion) return std::nullopt;
  switch (static_cast<Kind>(kind)) {
    case Kind::kChallenge: {
      if (d.size() != kChallengeSize) return std::nullopt;
      Reader r(d, kNonceEnd);
      return ChallengeMsg{nonce, r.array<kCookieSize>(), r.array<kPublicKeySize>()};
    }
    case Kind::kResponse: return decode_response(d, nonce);
    case Kind::kAccepted: return decode_accepted(d, nonce);
    case Kind::kDenied:
      if (d.size() != kDeniedSize) return std::nullopt;
      return Denied{nonce, disconnect_reason_from_wire(static_cast<std::uint32_t>(Reader(d, kNonceEnd).le(4)))};
    case Kind::kHello: break;
  }
  return std::nullopt;
}

std::vector<std::uint8_t> encode(const Message& message) {
  struct Encoder {
    std::vector<std::uint8_t> operator()(const Hello& m) const {
      auto out = start(Kind::kHello, m.nonce);
      out.push_back(m.flags);
      append(out, m.client_key);
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
      append(out, m.cookie);
      append(out, m.server_key);
      return out;
    }
    std::vector<std::uint8_t> operator()(const Response& m) const {
      auto out = start(Kind::kResponse, m.nonce);
      append(out, m.cookie);
      out.push_back(m.flags);
      append(out, m.client_key);
      // A longer token cannot be sent; the caller checks kMaxTokenSize.
      const std::size_t length = std::min(m.token.size(), kMaxTokenSize);
      write_le(out, length, 2);
      out.insert(out.end(), m.token.begin(), m.token.begin() + static_cast<std::ptrdiff_t>(length));
      if (out.size() < kMinResponseSize) out.resize(kMinResponseSize, 0);
      return out;
    }
    std::vector<std::uint8_t> operator()(const Accepted& m) const {
      auto out = start(Kind::kAccepted, m.nonce);
      write_le(out, m.connection_id, 4);
      out.push_back(m.flags);
      append(out, m.signature);
      append(out, m.confirmation);
      return out;
    }
    std::vector<std::uint8_t> operator()(const Denied& m) const {
      auto out = start(Kind::kDenied, m.nonce);
      write_le(out, static_cast<std::uint32_t>(m.reason), 4);
      return out;
    }
  };
  return std::visit(Encoder{}, message);
}

}  // namespace tickwire::transport::challenge
