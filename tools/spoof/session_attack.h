#pragma once
// Attacks on a session already connected (--attack): the attacker knows the
// victim's address and the server's, sends from one of them with a raw
// socket (IP_HDRINCL, so root or CAP_NET_RAW), and guesses everything
// else: every ENet peer slot and session of the old unauthenticated
// framing, then sealed datagrams (docs/wire-format.md) under random
// connection ids and packet numbers, with a tag it cannot compute. The
// replay attack instead captures one of the session's own datagrams and
// sends it again, as it was and rewritten (fresh packet numbers, flipped
// payload bytes), as an attacker on the path would.
//
// Harm is judged from the wire, as the tool can see it: the session's
// datagrams must keep flowing both ways after the attack, and the server
// must not answer the victim's spoofed address with more than its own
// traffic.

#include <atomic>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "attack.h"
#include "options.h"
#include "session_forgery.h"
#include "tickwire/core/result.h"

namespace tickwire::spoof {

struct SessionAttackConfig {
  SessionAttack attack = SessionAttack::kSpoofDisconnect;
  Ipv4Endpoint server;
  Ipv4Endpoint victim;
  bool toward_client = false;  // spoof the server's address toward the victim
  std::uint64_t budget = 65536;
  double rate = 100000.0;  // datagrams per second
  double watch_s = 1.0;    // the session is watched this long before and after
  std::uint64_t seed = 1;
  const std::atomic<int>* stop = nullptr;
};

struct SessionAttackResult {
  std::uint64_t sent = 0;
  std::uint64_t refused = 0;        // by the local kernel
  std::uint64_t captured_size = 0;  // kReplay: the datagram replayed
  // Seen on loopback: the session's datagrams in the watch before the
  // attack, during it, and in the watch after.
  Counter before_to_victim, before_from_victim;
  Counter during_to_victim;
  Counter after_to_victim, after_from_victim;
  double attack_seconds = 0.0;
  bool harm = false;
  std::string harm_detail;  // what was seen, when harm
};

// Fails (kIo) without raw sockets, and when the session is not seen
// alive in the watch before the attack (nothing to attack).
Result<SessionAttackResult> run_session_attack(const SessionAttackConfig& config);

std::string session_attack_text(const SessionAttackConfig& config, const SessionAttackResult& result);
std::string session_attack_json(const SessionAttackConfig& config, const SessionAttackResult& result);

}  // namespace tickwire::spoof
