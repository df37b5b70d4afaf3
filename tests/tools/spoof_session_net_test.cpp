// tickwire-spoof's attacks on a connected session (--attack), run against
// a real server transport and a victim client transport on loopback with
// the shipped defaults. The tool must send its whole budget and see no
// harm; the test also checks what the tool cannot see from the wire: no
// payload delivered that the victim or the server never sent, and no
// disconnect. Needs raw sockets (root); skipped, saying so, without them.

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "enet_test_support.h"
#include "session_attack.h"

namespace tickwire::spoof {
namespace {

using namespace transport::enet_testing;  // NOLINT(google-build-using-namespace)
using transport::Address;

Ipv4Endpoint endpoint_of(const Address& address) {
  in_addr parsed{};
  EXPECT_EQ(::inet_pton(AF_INET, address.host.c_str(), &parsed), 1) << address.host;
  return Ipv4Endpoint{ntohl(parsed.s_addr), address.port};
}

std::vector<std::uint8_t> honest_payload(std::uint32_t number) {
  std::vector<std::uint8_t> out{'H', 'N', 'S', 'T', 0, 0, 0, 0};
  for (std::size_t i = 0; i < 4; ++i) out[4 + i] = static_cast<std::uint8_t>(number >> (8 * i));
  out.resize(40, 0x5A);
  return out;
}

// Payloads received that are no honest one, or repeat one.
std::size_t foreign(const Node& node) {
  std::set<std::uint32_t> seen;
  std::size_t count = 0;
  for (const transport::TransportEvent& e : node.of_type(Type::kReceived)) {
    const std::vector<std::uint8_t>& d = e.data;
    const bool honest = d.size() == 40 && d[0] == 'H' && d[1] == 'N' && d[2] == 'S' && d[3] == 'T';
    std::uint32_t number = 0;
    for (std::size_t i = 0; honest && i < 4; ++i) number |= std::uint32_t{d[4 + i]} << (8 * i);
    if (!honest || !seen.insert(number).second) ++count;
  }
  return count;
}

struct Param {
  SessionAttack attack;
  bool toward_client;
};

std::string name_of(const testing::TestParamInfo<Param>& info) {
  std::string name = to_string(info.param.attack);
  std::erase(name, '-');
  return name + (info.param.toward_client ? "TowardTheClient" : "TowardTheServer");
}

class SpoofSessionAttack : public testing::TestWithParam<Param> {};

TEST_P(SpoofSessionAttack, SendsItsBudgetAndDoesNoHarm) {
  Node server = make_node(server_config());
  Node victim = make_node(client_config());
  const Link link = connect_pair(server, victim);
  ASSERT_NE(link.at_server, PeerId());
  SessionAttackConfig config;
  config.attack = GetParam().attack;
  config.toward_client = GetParam().toward_client;
  config.server = endpoint_of(server.address());
  config.victim = endpoint_of(server.of_type(Type::kConnected).back().address);
  config.budget = 20000;
  config.rate = 200000.0;
  config.watch_s = 0.6;
  config.seed = test_seed();

  std::atomic<bool> done{false};
  std::optional<Result<SessionAttackResult>> result;
  std::thread attacker([&] {
    result.emplace(run_session_attack(config));
    done = true;
  });
  // Both ends keep servicing and trade a numbered payload every 10 ms, so
  // the tool sees the session alive and has payloads to capture.
  std::uint32_t number = 0;
  auto next_send = Clock::now();
  pump_until(
      {&server, &victim},
      [&] {
        if (Clock::now() >= next_send) {
          next_send += 10ms;
          const std::vector<std::uint8_t> honest = honest_payload(number++);
          (void)victim.transport->send(link.at_client, transport::Delivery::kUnreliable, honest, wall_now());
          (void)server.transport->send(link.at_server, transport::Delivery::kUnreliable, honest, wall_now());
        }
        return done.load();
      },
      15000ms);
  attacker.join();
  ASSERT_TRUE(result.has_value());
  if (!result->ok() && result->error().detail.find("raw") != std::string::npos) {
    GTEST_SKIP() << "needs raw sockets: " << result->error().detail;
  }
  ASSERT_TRUE(result->ok()) << result->error().detail;
  const SessionAttackResult& r = result->value();
  std::printf("%s", session_attack_text(config, r).c_str());
  EXPECT_EQ(r.sent, config.budget);
  EXPECT_FALSE(r.harm) << r.harm_detail;
  EXPECT_TRUE(server.of_type(Type::kDisconnected).empty()) << "the server lost the victim";
  EXPECT_TRUE(victim.of_type(Type::kDisconnected).empty()) << "the victim lost its session";
  EXPECT_EQ(foreign(server), 0U) << "the server was handed payloads the victim never sent";
  EXPECT_EQ(foreign(victim), 0U) << "the victim was handed payloads the server never sent";
  EXPECT_GT(server.of_type(Type::kReceived).size(), 0U) << "the victim's payloads stopped arriving";
}

INSTANTIATE_TEST_SUITE_P(
    Attacks, SpoofSessionAttack,
    testing::Values(Param{SessionAttack::kSpoofDisconnect, false}, Param{SessionAttack::kSpoofDisconnect, true},
                    Param{SessionAttack::kSpoofKeepAlive, false}, Param{SessionAttack::kSpoofKeepAlive, true},
                    Param{SessionAttack::kForgeInput, false}, Param{SessionAttack::kSpoofPing, false},
                    Param{SessionAttack::kJunk, false}, Param{SessionAttack::kJunk, true},
                    Param{SessionAttack::kReplay, false}, Param{SessionAttack::kReplay, true}),
    name_of);

}  // namespace
}  // namespace tickwire::spoof
