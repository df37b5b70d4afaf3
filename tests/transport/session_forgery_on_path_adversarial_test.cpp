// An attacker on the path (shared Wi-Fi, a LAN event, a compromised router)
// sees every datagram of a session. It captures one carrying a payload,
// gives it fresh packet numbers and flips the payload's bytes into its own
// (a stream cipher without a tag lets it do exactly that), and sends it on
// from the real sender's address; it also replays the datagram as it was.
// Once a rewritten datagram moved a player; now every copy must be dropped,
// in both directions, and the session must go on as if nothing was sent.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "forged_datagrams.h"
#include "session_forgery_support.h"

namespace tickwire::transport {
namespace {

using namespace enet_testing;  // NOLINT(google-build-using-namespace)

constexpr std::size_t kPayloadSize = 40;  // an honest payload's size (session_forgery_support.cpp)
constexpr std::size_t kRewrites = 256;
constexpr std::size_t kReplays = 64;

bool carries_honest_plaintext(const std::vector<std::uint8_t>& d) {
  return d.size() >= 2 + sizeof kHonestMark &&
         std::equal(std::begin(kHonestMark), std::end(kHonestMark), d.begin() + 2);
}

// The captured datagram that carries an unreliable payload: in the old
// framing, one whose payload reads in the clear; sealed, the largest
// holding a session payload (K = 1).
std::optional<std::vector<std::uint8_t>> pick_payload_datagram(const std::vector<spoof::SeenDatagram>& seen,
                                                               const Address& from, const Address& to) {
  std::optional<std::vector<std::uint8_t>> best;
  for (const spoof::SeenDatagram& d : seen) {
    if (d.from.port != from.port || d.to.port != to.port) continue;
    if (carries_honest_plaintext(d.payload)) return d.payload;
    if (looks_sealed(d.payload) && (d.payload[0] & 0x20) != 0 && (!best || d.payload.size() > best->size())) {
      best = d.payload;
    }
  }
  return best;
}

// The attacker's edit: the payload's first bytes turned from the honest
// mark into "EVIL" by XOR, and, on a sealed datagram, packet number
// `packet_number` written over the captured one.
std::vector<std::uint8_t> rewrite(std::vector<std::uint8_t> d, std::uint64_t packet_number) {
  const bool sealed = looks_sealed(d) && !carries_honest_plaintext(d);
  const std::size_t payload_end = sealed ? d.size() - kSealedTagSize : d.size();
  const std::size_t payload_at = payload_end >= kPayloadSize ? payload_end - kPayloadSize : 0;
  const char evil[] = "EVIL";
  for (std::size_t i = 0; i < 4 && payload_at + i < d.size(); ++i) {
    d[payload_at + i] ^= static_cast<std::uint8_t>(kHonestMark[i] ^ static_cast<std::uint8_t>(evil[i]));
  }
  if (sealed) {
    d[0] = static_cast<std::uint8_t>((d[0] & 0xE0) | ((packet_number >> 8) & 0x1F));
    d[5] = static_cast<std::uint8_t>(packet_number);
  }
  return d;
}

std::uint64_t packet_number_of(const std::vector<std::uint8_t>& d) {
  return looks_sealed(d) ? (std::uint64_t{d[0] & 0x1Fu} << 8) | d[5] : 0;
}

class OnPath : public testing::TestWithParam<SessionMode> {
 protected:
  void SetUp() override {
    sockets_.emplace(true);
    TICKWIRE_REQUIRE_RAW_SOCKETS(*sockets_);
    session_.emplace(GetParam());
    ASSERT_TRUE(session_->up) << "the victim's session did not come up";
  }

  // Captures what `from` sends `to` during one honest exchange, then sends
  // the rewritten copies and the replays from `from`.
  void capture_rewrite_replay(const Address& from, const Address& to, const char* direction) {
    VictimSession& s = *session_;
    const EnetTransport& receiver = to.port == s.server_address.port ? *s.server.transport : *s.victim.transport;
    (void)sockets_->sniffer->drain();
    s.exchange();
    s.pump(100ms);
    const auto captured = pick_payload_datagram(sockets_->sniffer->drain(), from, to);
    ASSERT_TRUE(captured.has_value()) << "no datagram carrying a payload was seen " << direction;
    const std::uint64_t number = packet_number_of(*captured);
    const std::optional<std::uint64_t> drops_before = server_wide_drops(receiver);
    const spoof::Ipv4Endpoint raw_from = raw_endpoint(from);
    const spoof::Ipv4Endpoint raw_to = raw_endpoint(to);
    std::size_t sent = 0;
    for (std::size_t k = 1; k <= kRewrites; ++k) {
      sent += sockets_->spoofer->send(raw_from, raw_to, rewrite(*captured, number + k)) ? 1U : 0U;
      if (k % 32 == 0) s.poll();
    }
    for (std::size_t k = 0; k < kReplays; ++k) {
      sent += sockets_->spoofer->send(raw_from, raw_to, *captured) ? 1U : 0U;
      if (k % 32 == 0) s.poll();
    }
    std::printf("captured a %zu-byte datagram %s; sent %zu rewritten copies and exact replays\n", captured->size(),
                direction, sent);
    s.pump(100ms);
    if (const auto drops_after = server_wide_drops(receiver); drops_after && drops_before) {
      // Each copy was dropped, and counted (as forged or as replayed).
      EXPECT_GE(*drops_after - *drops_before, sent) << "copies that were not counted as dropped";
    }
  }

  VictimSession& session() { return *session_; }

 private:
  std::optional<AttackSockets> sockets_;
  std::optional<VictimSession> session_;
};

TEST_P(OnPath, ARewrittenOrReplayedDatagramFromTheClientIsDropped) {
  VictimSession& s = session();
  capture_rewrite_replay(s.victim_address, s.server_address, "from the client");
  s.expect_no_harm("a captured client datagram rewritten and replayed");
}

TEST_P(OnPath, ARewrittenOrReplayedDatagramFromTheServerIsDropped) {
  VictimSession& s = session();
  capture_rewrite_replay(s.server_address, Address{"127.0.0.1", s.victim_address.port}, "from the server");
  s.expect_no_harm("a captured server datagram rewritten and replayed");
}

INSTANTIATE_TEST_SUITE_P(Modes, OnPath,
                         testing::Values(SessionMode::kDefaults, SessionMode::kTokens, SessionMode::kPinnedServerKey),
                         mode_name);

}  // namespace
}  // namespace tickwire::transport
