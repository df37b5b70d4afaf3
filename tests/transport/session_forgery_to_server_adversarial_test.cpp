// Off-path attacks on a connected player, toward the server: the attacker
// knows the victim's IP address and port (a NAT mapping can be learned) and
// sends from it with a raw socket, guessing everything else: every ENet
// peer slot and session of the unauthenticated framing, then sealed
// datagrams under random connection ids, within a budget (65536 datagrams;
// TICKWIRE_SPOOF_BUDGET=1000000 for the long run). Each attack once did
// harm (issue "Sessions no one can forge"); now none may: the victim stays
// connected, its payloads keep arriving both ways, nothing foreign is
// delivered, its per-peer counters count only its own payloads.

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "forged_datagrams.h"
#include "raw_enet_peer.h"
#include "session_forgery_support.h"

namespace tickwire::transport {
namespace {

using namespace enet_testing;  // NOLINT(google-build-using-namespace)

constexpr std::uint32_t kKickedCode = 9;  // DisconnectReason::kKicked on the wire

class SpoofedToServer : public testing::TestWithParam<SessionMode> {
 protected:
  void SetUp() override {
    sockets_.emplace(false);
    TICKWIRE_REQUIRE_RAW_SOCKETS(*sockets_);
    session_.emplace(GetParam());
    ASSERT_TRUE(session_->up) << "the victim's session did not come up";
  }

  // Sends `content` from the victim's address to the server's within the
  // budget, the victim and the server trading payloads meanwhile.
  SprayResult attack(const ForgedContent& content, std::uint64_t budget = spoof_budget()) {
    VictimSession& s = *session_;
    std::mt19937_64 rng = seeded_rng();
    const std::optional<std::uint64_t> drops_before = server_wide_drops(*s.server.transport);
    const std::uint64_t read_before = s.server.transport->wire_stats()->datagrams_received;
    std::size_t bursts = 0;
    const SprayResult result = spray(*sockets_->spoofer, s.victim_address, s.server_address, content, budget, rng, [&] {
      s.poll();
      if (++bursts % 16 == 0) s.exchange();
    });
    std::printf("sent %llu spoofed datagrams (%llu in ENet's framing, %llu sealed guesses, %llu refused locally)\n",
                static_cast<unsigned long long>(result.sent), static_cast<unsigned long long>(result.legacy),
                static_cast<unsigned long long>(result.sealed), static_cast<unsigned long long>(result.refused));
    s.pump(100ms);
    if (const auto drops_after = server_wide_drops(*s.server.transport); drops_after && drops_before) {
      // Every guess the server read was dropped and counted: all it read
      // but the honest traffic meanwhile (a few datagrams per exchange).
      // The kernel may drop some of a burst before the server reads it.
      const std::uint64_t read = s.server.transport->wire_stats()->datagrams_received - read_before;
      const std::uint64_t dropped = *drops_after - *drops_before;
      std::printf("the server read %llu datagrams and dropped %llu before any peer state\n",
                  static_cast<unsigned long long>(read), static_cast<unsigned long long>(dropped));
      EXPECT_LE(dropped, read);
      EXPECT_GE(dropped + 64 + 8 * (bursts / 16), read) << "datagrams the server read were neither dropped nor honest";
      EXPECT_GE(dropped, (result.sent - result.refused) / 2) << "most spoofed datagrams never reached the server";
    }
    return result;
  }

  VictimSession& session() { return *session_; }
  spoof::RawSender& spoofer() { return *sockets_->spoofer; }

 private:
  std::optional<AttackSockets> sockets_;
  std::optional<VictimSession> session_;
};

TEST_P(SpoofedToServer, ASpoofedEnetDisconnectLeavesTheVictimConnected) {
  ForgedContent content;
  content.legacy = [](std::uint16_t slot, std::uint8_t session) {
    return enet_datagram(slot, session, enet_disconnect_command(kKickedCode));
  };
  content.sealed_body = enet_datagram(0, 0, enet_disconnect_command(kKickedCode));
  content.sealed_session_payload = false;
  attack(content);
  session().expect_no_harm("spoofed ENet DISCONNECT");
}

TEST_P(SpoofedToServer, OversizeJunkAndFloodsFromTheVictimsAddressDoNotGetItKicked) {
  const std::uint64_t budget = spoof_budget();
  const std::size_t oversize = session().server.transport->limits().max_unreliable_payload + 1;
  ForgedContent big;
  big.legacy = [&](std::uint16_t slot, std::uint8_t s) {
    return legacy_session_datagram(slot, s, forged_payload(oversize, 1));
  };
  big.sealed_body = forged_payload(oversize, 1);
  attack(big, budget / 4);
  session().expect_no_harm("oversize datagrams");
  if (HasFailure()) return;  // the session is gone: the rest would prove nothing more

  std::mt19937_64 junk_rng(7);
  ForgedContent junk;
  junk.legacy = [&](std::uint16_t slot, std::uint8_t s) {
    std::vector<std::uint8_t> bytes(1 + junk_rng() % 300);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(junk_rng());
    return legacy_session_datagram(slot, s, bytes);
  };
  junk.sealed_body = forged_payload(33, 2);
  attack(junk, budget / 4);
  session().expect_no_harm("junk datagrams");
  if (HasFailure()) return;

  // A flood: as many small session datagrams as the budget allows, which
  // counted against the victim would exceed any per-client packet budget.
  ForgedContent flood;
  flood.legacy = [](std::uint16_t slot, std::uint8_t s) {
    return legacy_session_datagram(slot, s, forged_payload(12, 3));
  };
  flood.sealed_body = forged_payload(12, 3);
  flood.slots = 8;
  flood.legacy_sweeps = budget / 2 / (8 * kEnetSessions);
  attack(flood, budget / 2);
  session().expect_no_harm("a flood");
}

TEST_P(SpoofedToServer, SpoofedKeepAlivesAreNeverDelivered) {
  // A keep-alive of the game's protocol numbered far ahead moved the
  // victim's receive window: to the transport it is a 5-byte payload.
  ForgedContent content;
  content.legacy = [](std::uint16_t slot, std::uint8_t s) {
    return legacy_session_datagram(slot, s, forged_payload(5, 4));
  };
  content.sealed_body = forged_payload(5, 4);
  attack(content);
  session().expect_no_harm("spoofed keep-alives");
}

TEST_P(SpoofedToServer, ForgedInputsAreNeverDelivered) {
  // Inputs for an idle player, as session datagrams and as ENet's own
  // unsequenced packets on the unreliable channel.
  const std::vector<std::uint8_t> input = forged_payload(30, 5);
  ForgedContent content;
  content.legacy = [&](std::uint16_t slot, std::uint8_t s) {
    return (slot + s) % 2 == 0
               ? legacy_session_datagram(slot, s, input)
               : enet_datagram(slot, s, unsequenced_command(1, static_cast<std::uint16_t>(slot), input));
  };
  content.sealed_body = input;
  attack(content);
  session().expect_no_harm("forged inputs");
}

TEST_P(SpoofedToServer, SpoofedPingsAreNotAnsweredToTheVictim) {
  VictimSession& s = session();
  const std::uint64_t budget = spoof_budget() / 2;
  // What the server sends its one peer anyway (its own pings and probes)
  // over a quiet span, to compare the attack's span with.
  s.pump(100ms);
  const auto quiet_start = Clock::now();
  const std::uint64_t quiet_before = s.server.transport->wire_stats()->bytes_sent;
  s.pump(300ms);
  const std::uint64_t quiet_bytes = s.server.transport->wire_stats()->bytes_sent - quiet_before;
  const auto quiet_span = Clock::now() - quiet_start;

  // An attacker who knows the join order needs only the first slots.
  ForgedContent content;
  content.legacy = [](std::uint16_t slot, std::uint8_t session) {
    return enet_datagram(slot, session, enet_ping_command(static_cast<std::uint16_t>(slot * 4 + session)));
  };
  content.sealed_body = enet_datagram(0, 0, enet_ping_command(1));
  content.sealed_session_payload = false;
  content.slots = 8;
  content.legacy_sweeps = budget / 2 / (8 * kEnetSessions);
  std::mt19937_64 rng = seeded_rng();
  const auto start = Clock::now();
  const std::uint64_t before = s.server.transport->wire_stats()->bytes_sent;
  const SprayResult result =
      spray(spoofer(), s.victim_address, s.server_address, content, budget, rng, [&] { s.poll(); });
  s.pump(50ms);
  const std::uint64_t answered = s.server.transport->wire_stats()->bytes_sent - before;
  const double spans = std::chrono::duration<double>(Clock::now() - start) / std::chrono::duration<double>(quiet_span);
  std::printf("sent %llu spoofed pings; the server sent %llu bytes meanwhile (%llu in a quiet %.0f ms)\n",
              static_cast<unsigned long long>(result.sent), static_cast<unsigned long long>(answered),
              static_cast<unsigned long long>(quiet_bytes),
              std::chrono::duration<double, std::milli>(quiet_span).count());
  // Its own traffic, with room for jitter: not one acknowledgement per ping.
  EXPECT_LE(static_cast<double>(answered), 2.0 * static_cast<double>(quiet_bytes) * (spans + 1.0) + 512.0);
  s.expect_no_harm("spoofed pings");
}

INSTANTIATE_TEST_SUITE_P(Modes, SpoofedToServer,
                         testing::Values(SessionMode::kDefaults, SessionMode::kTokens, SessionMode::kPinnedServerKey),
                         mode_name);

}  // namespace
}  // namespace tickwire::transport
