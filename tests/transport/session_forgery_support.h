#pragma once
// A victim's session for attack tests: a server transport and a client
// transport connected over real loopback UDP with the shipped defaults
// (address validation and encryption on), in each of the three ways a
// deployment can run (docs/security.md): connect tokens required, no
// tokens, no tokens with the server's key pinned by the client. Both ends
// trade honest payloads, numbered, so that a test can tell whether the
// attack did any harm: a disconnect on either side, a payload that the
// other end never sent (or sent once and got twice), honest payloads that
// stopped arriving, or per-peer counters that count more than the honest
// payloads.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "enet_test_support.h"
#include "raw_ip.h"

namespace tickwire::transport::enet_testing {

enum class SessionMode : std::uint8_t { kDefaults, kTokens, kPinnedServerKey };

std::string mode_name(const testing::TestParamInfo<SessionMode>& info);

// The one place connect tokens are set up: the server requires tokens under
// a fresh key and names itself by `server_address`; the client presents a
// token minted for it, with the session key the backend would hand it.
void require_tokens(EnetConfig& server, EnetConfig& client, const Address& server_address);

// Every honest payload starts with this, then its direction, delivery and
// number; anything else delivered is foreign.
inline constexpr std::uint8_t kHonestMark[4] = {'H', 'N', 'S', 'T'};
// What the attackers put in their payloads (an input, a keep-alive far
// ahead: the transport cannot tell, and must deliver neither).
std::vector<std::uint8_t> forged_payload(std::size_t size, std::uint8_t salt);

struct VictimSession {
  explicit VictimSession(SessionMode mode);

  Node server;
  Node victim;
  Link link;
  bool up = false;
  Address server_address;
  Address victim_address;  // the victim's source address, as the server sees it

  // One honest payload each way of each delivery, then a flush.
  void exchange();
  void pump(std::chrono::milliseconds span) { pump_for({&server, &victim}, span); }
  // Reads what both ends have waiting (between bursts of an attack).
  void poll() {
    server.poll_all();
    victim.poll_all();
  }

  // After an attack: honest payloads still arrive both ways within a few
  // seconds, and nothing the attack did is visible. Records failures with
  // `attack` in their message.
  void expect_no_harm(const std::string& attack);

  // Payloads delivered that no honest end sent, or sent once and delivered twice.
  std::size_t foreign_at_server() const;
  std::size_t foreign_at_victim() const;

 private:
  std::vector<std::uint8_t> honest(std::uint8_t direction, Delivery delivery);
  std::uint32_t next_number_ = 0;
};

// Datagrams a transport dropped without touching any peer (not sealed,
// naming no live connection or from the wrong address, failing to verify,
// replayed, naming another peer's slot), counted transport-wide over every
// reason. Optional so that a transport without the counts needs one change here.
std::optional<std::uint64_t> server_wide_drops(const EnetTransport& transport);  // a client's too

// The raw sockets an attack needs, or the reason they are unavailable.
struct AttackSockets {
  std::optional<spoof::RawSender> spoofer;
  std::optional<spoof::RawSniffer> sniffer;
  std::string unavailable;
  AttackSockets(bool with_sniffer);
};

// Skips the test, naming the reason, when raw sockets are unavailable.
#define TICKWIRE_REQUIRE_RAW_SOCKETS(sockets)                                                                    \
  do {                                                                                                           \
    if (!(sockets).unavailable.empty()) GTEST_SKIP() << "spoofing needs raw sockets: " << (sockets).unavailable; \
  } while (false)

std::mt19937_64 seeded_rng();

}  // namespace tickwire::transport::enet_testing
