#include "session_forgery.h"

#include <algorithm>
#include <array>

namespace tickwire::spoof {
namespace {

constexpr std::array<const char*, kSessionAttackCount> kNames{
    "spoof-disconnect", "spoof-keepalive", "forge-input", "spoof-ping", "junk", "replay"};

// The old framing: ENet's 16-bit peer header (12-bit slot, 2-bit session).
constexpr std::uint64_t kSlots = 4096;
constexpr std::uint64_t kSessions = 4;
constexpr std::uint64_t kPingSlots = 8;  // who knows the join order needs only the first slots
constexpr std::uint16_t kSentTimeFlag = 0x8000;
constexpr std::uint16_t kSessionDatagramFlag = 0x4000;
constexpr std::uint32_t kKickedCode = 9;
constexpr std::size_t kSealedHeader = 6;
constexpr std::size_t kTag = 16;
constexpr std::size_t kMaxJunk = 1300;

using Bytes = std::vector<std::uint8_t>;

void put_u16(Bytes& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}

std::uint16_t peer_header(std::uint64_t slot, std::uint64_t session) {
  return static_cast<std::uint16_t>((slot & 0x0FFF) | ((session & 3) << 12));
}

Bytes enet(std::uint64_t slot, std::uint64_t session, const Bytes& command) {
  Bytes out;
  out.reserve(4 + command.size());
  put_u16(out, static_cast<std::uint16_t>(peer_header(slot, session) | kSentTimeFlag));
  put_u16(out, 0x1234);  // ENet's sent time: anything
  for (const std::uint8_t b : command) out.push_back(b);
  return out;
}

Bytes session_datagram(std::uint64_t slot, std::uint64_t session, const Bytes& payload) {
  Bytes out;
  out.reserve(2 + payload.size());
  put_u16(out, static_cast<std::uint16_t>(peer_header(slot, session) | kSessionDatagramFlag));
  for (const std::uint8_t b : payload) out.push_back(b);
  return out;
}

Bytes disconnect_command() {
  Bytes out{0x44, 0xFF, 0, 0};  // DISCONNECT, unsequenced: acted on at once
  put_u16(out, static_cast<std::uint16_t>(kKickedCode >> 16));
  put_u16(out, static_cast<std::uint16_t>(kKickedCode));
  return out;
}

Bytes ping_command(std::uint16_t sequence) {
  Bytes out{0x85, 0xFF};  // PING, to be acknowledged
  put_u16(out, sequence);
  return out;
}

Bytes unsequenced_command(std::uint16_t group, const Bytes& data) {
  Bytes out{0x49, 1, 0, 0};  // SEND_UNSEQUENCED on the unreliable channel
  put_u16(out, group);
  put_u16(out, static_cast<std::uint16_t>(data.size()));
  for (const std::uint8_t b : data) out.push_back(b);
  return out;
}

Bytes payload(std::size_t size, std::uint8_t salt) {
  Bytes out(size);
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<std::uint8_t>(salt + 37 * i);
  return out;
}

Bytes random_bytes(std::mt19937_64& rng, std::size_t size) {
  Bytes out(size);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

// The old framing's datagram for one slot and session guess.
// What a forged session payload carries: the caller's, or a pattern.
Bytes content(SessionAttack attack, std::span<const std::uint8_t> given) {
  if (!given.empty()) return Bytes(given.begin(), given.end());
  return attack == SessionAttack::kSpoofKeepAlive ? payload(5, 1) : payload(30, 2);
}

Bytes legacy(SessionAttack attack, std::uint64_t slot, std::uint64_t session, std::mt19937_64& rng,
             std::span<const std::uint8_t> given) {
  switch (attack) {
    case SessionAttack::kSpoofDisconnect: return enet(slot, session, disconnect_command());
    case SessionAttack::kSpoofKeepAlive: return session_datagram(slot, session, content(attack, given));
    case SessionAttack::kForgeInput:
      return (slot + session) % 2 == 0
                 ? session_datagram(slot, session, content(attack, given))
                 : enet(slot, session, unsequenced_command(static_cast<std::uint16_t>(slot), content(attack, given)));
    case SessionAttack::kSpoofPing:
      return enet(slot % kPingSlots, session, ping_command(static_cast<std::uint16_t>(slot)));
    case SessionAttack::kJunk:
    case SessionAttack::kReplay: break;
  }
  return session_datagram(slot, session, random_bytes(rng, 1 + rng() % kMaxJunk));
}

// A sealed guess: random connection id and early packet number, the body
// as a plaintext session would carry it, a tag the attacker cannot compute.
Bytes sealed_guess(SessionAttack attack, std::mt19937_64& rng, std::span<const std::uint8_t> given) {
  bool enet_inside = attack == SessionAttack::kSpoofDisconnect || attack == SessionAttack::kSpoofPing;
  Bytes body;
  switch (attack) {
    case SessionAttack::kSpoofDisconnect: body = enet(0, 0, disconnect_command()); break;
    case SessionAttack::kSpoofPing: body = enet(0, 0, ping_command(1)); break;
    case SessionAttack::kSpoofKeepAlive:
    case SessionAttack::kForgeInput: body = content(attack, given); break;
    case SessionAttack::kJunk:
    case SessionAttack::kReplay:
      body = random_bytes(rng, rng() % kMaxJunk);
      enet_inside = rng() % 2 == 0;
      break;
  }
  const std::uint64_t number = rng() % 8192;
  const auto id = static_cast<std::uint32_t>(rng());
  Bytes out;
  out.reserve(kSealedHeader + body.size() + kTag);
  out.push_back(static_cast<std::uint8_t>(0x40 | (enet_inside ? 0 : 0x20) | ((number >> 8) & 0x1F)));
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<std::uint8_t>(id >> shift));
  out.push_back(static_cast<std::uint8_t>(number));
  const Bytes tag = random_bytes(rng, kTag);
  out.insert(out.end(), body.begin(), body.end());
  out.insert(out.end(), tag.begin(), tag.end());
  return out;
}

bool looks_sealed(const Bytes& d) { return d.size() >= kSealedHeader + kTag && (d[0] & 0xC0) == 0x40; }

}  // namespace

const char* to_string(SessionAttack attack) { return kNames[static_cast<std::size_t>(attack)]; }

std::optional<SessionAttack> session_attack_from_string(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (name == kNames[i]) return static_cast<SessionAttack>(i);
  }
  return std::nullopt;
}

std::string session_attack_names() {
  std::string out;
  for (const char* name : kNames) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

std::vector<std::uint8_t> forged_session_datagram(SessionAttack attack, std::uint64_t n, std::mt19937_64& rng,
                                                  std::span<const std::uint8_t> payload) {
  if (n < kLegacyGuesses) return legacy(attack, n / kSessions, n % kSessions, rng, payload);
  return sealed_guess(attack, rng, payload);
}

std::vector<std::uint8_t> rewritten(std::vector<std::uint8_t> d, std::uint64_t step) {
  const bool sealed = looks_sealed(d);
  if (sealed) {
    const std::uint64_t number = ((std::uint64_t{d[0] & 0x1Fu} << 8) | d[5]) + step;
    d[0] = static_cast<std::uint8_t>((d[0] & 0xE0) | ((number >> 8) & 0x1F));
    d[5] = static_cast<std::uint8_t>(number);
  }
  // The payload's last bytes (before the tag), flipped as a known-plaintext
  // attacker flips a stream cipher's bits.
  const std::size_t end = sealed ? d.size() - kTag : d.size();
  const std::size_t start = sealed ? kSealedHeader : std::min<std::size_t>(d.size(), 2);
  for (std::size_t i = end; i > start && end - i < 4; --i) d[i - 1] ^= static_cast<std::uint8_t>(0x5A + step);
  return d;
}

}  // namespace tickwire::spoof
