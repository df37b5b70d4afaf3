// Off-path attacks on a connected player, toward the client: the attacker
// sends from the server's address (which every player knows) to the
// victim's, guessing everything else within a budget, as in
// session_forgery_to_server_adversarial_test.cpp. Spoofed DISCONNECTs once
// ended the client's session and spoofed keep-alives froze its view; now
// the client must verify the server's datagrams as the server verifies its.

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "forged_datagrams.h"
#include "session_forgery_support.h"

namespace tickwire::transport {
namespace {

using namespace enet_testing;  // NOLINT(google-build-using-namespace)

constexpr std::uint32_t kShuttingDownCode = 3;  // DisconnectReason::kServerShuttingDown on the wire

class SpoofedToClient : public testing::TestWithParam<SessionMode> {
 protected:
  void SetUp() override {
    sockets_.emplace(false);
    TICKWIRE_REQUIRE_RAW_SOCKETS(*sockets_);
    session_.emplace(GetParam());
    ASSERT_TRUE(session_->up) << "the victim's session did not come up";
  }

  void attack(const ForgedContent& content, std::uint64_t budget = spoof_budget()) {
    VictimSession& s = *session_;
    std::mt19937_64 rng = seeded_rng();
    std::size_t bursts = 0;
    const std::optional<std::uint64_t> drops_before = server_wide_drops(*s.victim.transport);
    // The client's socket listens on every interface; loopback reaches it.
    const Address victim{"127.0.0.1", s.victim_address.port};
    const SprayResult result = spray(*sockets_->spoofer, s.server_address, victim, content, budget, rng, [&] {
      s.poll();
      if (++bursts % 16 == 0) s.exchange();
    });
    std::printf("sent %llu datagrams spoofed from the server (%llu in ENet's framing, %llu sealed guesses)\n",
                static_cast<unsigned long long>(result.sent), static_cast<unsigned long long>(result.legacy),
                static_cast<unsigned long long>(result.sealed));
    s.pump(100ms);
    if (const auto drops_after = server_wide_drops(*s.victim.transport); drops_after && drops_before) {
      // The client counts what it drops as the server does.
      std::printf("the client dropped %llu before any session state\n",
                  static_cast<unsigned long long>(*drops_after - *drops_before));
      EXPECT_GE(*drops_after - *drops_before, (result.sent - result.refused) / 2);
    }
  }

  VictimSession& session() { return *session_; }

 private:
  std::optional<AttackSockets> sockets_;
  std::optional<VictimSession> session_;
};

TEST_P(SpoofedToClient, SpoofedDisconnectsFromTheServersAddressLeaveTheClientConnected) {
  ForgedContent content;
  content.legacy = [](std::uint16_t slot, std::uint8_t session) {
    return enet_datagram(slot, session, enet_disconnect_command(kShuttingDownCode));
  };
  content.sealed_body = enet_datagram(0, 0, enet_disconnect_command(kShuttingDownCode));
  content.sealed_session_payload = false;
  attack(content);
  session().expect_no_harm("DISCONNECTs spoofed from the server");
}

TEST_P(SpoofedToClient, SpoofedKeepAlivesFromTheServersAddressAreNeverDelivered) {
  // A keep-alive numbered far ahead froze the client's view (every later
  // snapshot looked old); to the transport it is a short payload.
  ForgedContent content;
  content.legacy = [](std::uint16_t slot, std::uint8_t s) {
    return legacy_session_datagram(slot, s, forged_payload(9, 6));
  };
  content.sealed_body = forged_payload(9, 6);
  attack(content);
  session().expect_no_harm("keep-alives spoofed from the server");
}

TEST_P(SpoofedToClient, JunkFromTheServersAddressIsNeverDelivered) {
  std::mt19937_64 junk_rng(11);
  ForgedContent content;
  content.legacy = [&](std::uint16_t slot, std::uint8_t s) {
    std::vector<std::uint8_t> bytes(1 + junk_rng() % 1300);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(junk_rng());
    return legacy_session_datagram(slot, s, bytes);
  };
  content.sealed_body = forged_payload(300, 7);
  attack(content, spoof_budget() / 2);
  session().expect_no_harm("junk spoofed from the server");
}

INSTANTIATE_TEST_SUITE_P(Modes, SpoofedToClient,
                         testing::Values(SessionMode::kDefaults, SessionMode::kTokens, SessionMode::kPinnedServerKey),
                         mode_name);

}  // namespace
}  // namespace tickwire::transport
