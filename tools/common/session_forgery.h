#pragma once
// What an attacker who cannot read a session's traffic sends to harm it
// (tickwire-spoof --attack, the evil bots' session attacks): datagrams in
// the old unauthenticated framing (ENet's 16-bit peer header: every one of
// the 4096 peer slots and 4 sessions is a guess), then sealed datagrams
// (docs/wire-format.md, "Sealed datagram") under random connection ids and
// packet numbers with a tag it cannot compute; and, for an attacker on the
// path, a captured datagram rewritten. Bytes only, no sockets.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tickwire::spoof {

enum class SessionAttack : std::uint8_t {
  kSpoofDisconnect,  // ENet DISCONNECTs
  kSpoofKeepAlive,   // short session payloads (a keep-alive numbered far ahead)
  kForgeInput,       // input-sized session payloads and ENet unsequenced packets
  kSpoofPing,        // ENet PINGs, which a server once acknowledged to the victim
  kJunk,             // random bytes, oversize ones among them
  kReplay,           // a captured datagram, replayed and rewritten
};

inline constexpr std::size_t kSessionAttackCount = 6;
const char* to_string(SessionAttack attack);
std::optional<SessionAttack> session_attack_from_string(std::string_view name);
// "spoof-disconnect, spoof-keepalive, ...", for help and errors.
std::string session_attack_names();

// The n-th datagram of an attack (n from 0): the old framing's slots and
// sessions first, then sealed guesses. Not for kReplay, which needs a capture.
// `payload`, when not empty, is what the forged session payloads carry
// (kSpoofKeepAlive, kForgeInput: a game's keep-alive numbered far ahead, its
// inputs for far-future ticks) instead of a pattern of bytes.
std::vector<std::uint8_t> forged_session_datagram(SessionAttack attack, std::uint64_t n, std::mt19937_64& rng,
                                                  std::span<const std::uint8_t> payload = {});

// A captured datagram as an attacker on the path rewrites it: on a sealed
// datagram the packet number advanced by `step`, and in any datagram the
// last payload bytes before the tag flipped.
std::vector<std::uint8_t> rewritten(std::vector<std::uint8_t> captured, std::uint64_t step);

// Datagrams in the old framing at the start of every attack: each peer slot
// and session once.
inline constexpr std::uint64_t kLegacyGuesses = 4096 * 4;

}  // namespace tickwire::spoof
