#include "datagrams.h"

#include <algorithm>

#include "tickwire/transport/connect_challenge.h"

namespace tickwire::spoof {
namespace {

namespace challenge = transport::challenge;

// ENet 1.3 protocol constants the CONNECT needs.
constexpr std::uint16_t kEnetSentTimeFlag = 0x8000;
constexpr std::uint8_t kEnetCommandConnect = 2;
constexpr std::uint8_t kEnetFlagAcknowledge = 0x80;
constexpr std::uint8_t kEnetNoChannel = 0xFF;
constexpr std::uint8_t kEnetNoSession = 0xFF;
constexpr std::uint32_t kEnetMtu = 1392;
constexpr std::uint32_t kEnetMaxWindowSize = 65536;
constexpr std::uint32_t kChannelCount = 2;
constexpr std::uint32_t kEnetThrottleInterval = 5000;
constexpr std::uint32_t kEnetThrottleAcceleration = 2;
constexpr std::uint32_t kEnetThrottleDeceleration = 2;

void put_u8(std::vector<std::uint8_t>& out, std::uint8_t v) { out.push_back(v); }
void put_u16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}
void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  put_u16(out, static_cast<std::uint16_t>(v >> 16));
  put_u16(out, static_cast<std::uint16_t>(v));
}

template <class T>
T uniform(Rng& rng, T low, T high) {
  return std::uniform_int_distribution<T>(low, high)(rng);
}

std::uint8_t random_byte(Rng& rng) { return static_cast<std::uint8_t>(rng()); }

void fill_random(Rng& rng, std::uint8_t* begin, std::uint8_t* end) {
  std::generate(begin, end, [&rng] { return random_byte(rng); });
}

}  // namespace

const char* to_string(Kind kind) {
  switch (kind) {
    case Kind::kConnect: return "connect";
    case Kind::kHello: return "hello";
    case Kind::kResponse: return "response";
    case Kind::kGarbage: return "garbage";
  }
  return "?";
}

std::optional<Kind> kind_from_string(std::string_view name) {
  for (Kind kind : kAllKinds) {
    if (name == to_string(kind)) return kind;
  }
  return std::nullopt;
}

std::vector<std::uint8_t> enet_connect(const EnetConnectFields& fields) {
  std::vector<std::uint8_t> out;
  out.reserve(kEnetConnectSize);
  // Protocol header.
  put_u16(out, kEnetNoPeerId | kEnetSentTimeFlag);
  put_u16(out, fields.sent_time);
  // Command header: CONNECT is sent reliably, so it asks for an acknowledgement.
  put_u8(out, kEnetCommandConnect | kEnetFlagAcknowledge);
  put_u8(out, kEnetNoChannel);
  put_u16(out, 1);  // reliable sequence number: the peer's first command
  // Connect body.
  put_u16(out, fields.outgoing_peer_id);
  put_u8(out, kEnetNoSession);
  put_u8(out, kEnetNoSession);
  put_u32(out, kEnetMtu);
  put_u32(out, kEnetMaxWindowSize);
  put_u32(out, kChannelCount);
  put_u32(out, 0);  // incoming bandwidth: unlimited
  put_u32(out, 0);  // outgoing bandwidth: unlimited
  put_u32(out, kEnetThrottleInterval);
  put_u32(out, kEnetThrottleAcceleration);
  put_u32(out, kEnetThrottleDeceleration);
  put_u32(out, fields.connect_id);
  put_u32(out, 0);  // user data
  return out;
}

std::vector<std::uint8_t> random_connect(Rng& rng, std::uint16_t sent_time) {
  EnetConnectFields fields;
  fields.sent_time = sent_time;
  fields.outgoing_peer_id = uniform<std::uint16_t>(rng, 0, kEnetMaxOutgoingPeerId);
  fields.connect_id = static_cast<std::uint32_t>(rng());
  return enet_connect(fields);
}

std::vector<std::uint8_t> random_hello(Rng& rng) { return challenge::encode(challenge::Hello{rng()}); }

std::vector<std::uint8_t> random_response(Rng& rng) {
  challenge::Response response;
  response.nonce = rng();
  fill_random(rng, response.cookie.data(), response.cookie.data() + response.cookie.size());
  if (uniform<int>(rng, 0, 1) == 1) {
    response.token.resize(uniform<std::size_t>(rng, 1, challenge::kMaxTokenSize));
    fill_random(rng, response.token.data(), response.token.data() + response.token.size());
  }
  return challenge::encode(response);
}

std::vector<std::uint8_t> random_garbage(Rng& rng) {
  std::vector<std::uint8_t> out(uniform<std::size_t>(rng, 1, kMaxGarbageSize));
  fill_random(rng, out.data(), out.data() + out.size());
  if (uniform<int>(rng, 0, 3) == 0) {
    const std::size_t n = std::min(out.size(), challenge::kMagic.size());
    std::copy_n(challenge::kMagic.begin(), n, out.begin());
  }
  return out;
}

std::vector<std::uint8_t> make_datagram(Kind kind, Rng& rng, std::uint16_t sent_time) {
  switch (kind) {
    case Kind::kConnect: return random_connect(rng, sent_time);
    case Kind::kHello: return random_hello(rng);
    case Kind::kResponse: return random_response(rng);
    case Kind::kGarbage: return random_garbage(rng);
  }
  return {};
}

}  // namespace tickwire::spoof
