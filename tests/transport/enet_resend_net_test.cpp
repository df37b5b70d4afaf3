// Resends of unacknowledged reliable commands over real UDP on loopback.
// ENet 1.3.17 doubles the wait before each resend without bound; the
// transport holds it at twice the peer's first wait, at least 500 ms
// (transport/src/enet_resend.h), and lets the timeout alone decide when
// to give up. The peer on the far side is RawEnetPeer, which here never
// acknowledges, so the server's VERIFY_CONNECT goes unanswered as over a
// dead link: a fresh peer's first wait is ENet's default of 500 ms.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "enet_test_support.h"
#include "raw_enet_peer.h"

namespace tickwire::transport {
namespace {

using namespace enet_testing;  // NOLINT(google-build-using-namespace)

// Polls the server and reads what reached the raw peer for `span`;
// returns how many VERIFY_CONNECTs it had read by then.
std::size_t verify_connects_after(Node& server, RawEnetPeer& raw, std::chrono::milliseconds span) {
  const auto end = Clock::now() + span;
  while (Clock::now() < end) {
    server.poll_all();
    raw.service();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return raw.verify_connects_received();
}

// A server with `timeout` and a raw peer whose CONNECT it has, which will
// acknowledge nothing.
struct UnansweredConnect {
  explicit UnansweredConnect(Duration timeout) {
    EnetConfig config = without_validation(server_config());
    config.timeout = timeout;
    server = make_node(config);
    if (!server.transport || !raw.bound()) return;
    raw.stop_acknowledging();
    raw.send_connect(server.address());
    started = true;
  }
  Node server;
  RawEnetPeer raw;
  bool started = false;
};

TEST(EnetResendNet, AnUnansweredCommandIsResentAtASteadyPace) {
  UnansweredConnect c(Duration::seconds(10));
  ASSERT_TRUE(c.started);
  // Doubling waits (0.5, 1, 2 s) would send at 0, 0.5, 1.5 and 3.5 s:
  // four in these 5 s. Held at 1 s: 0, 0.5, 1.5, 2.5, 3.5 and 4.5 s.
  const std::size_t sent = verify_connects_after(c.server, c.raw, std::chrono::milliseconds(5000));
  EXPECT_GE(sent, 6U);
  EXPECT_LE(sent, 7U);  // and never sooner than the floor allows
  EXPECT_TRUE(c.server.of_type(Type::kConnected).empty());
}

TEST(EnetResendNet, AHalfOpenConnectEndsAtTheTransportsTimeout) {
  // ENet's own default would keep resending for up to 30 s; the peer gets
  // the transport's timeout before it is ever reported.
  UnansweredConnect c(Duration::millis(1500));
  ASSERT_TRUE(c.started);
  const std::size_t early = verify_connects_after(c.server, c.raw, std::chrono::milliseconds(2500));
  const std::size_t late = verify_connects_after(c.server, c.raw, std::chrono::milliseconds(2000));
  EXPECT_GE(early, 2U);
  EXPECT_EQ(late, early) << "the server kept resending after its timeout";
  // A slot freed: an honest client connects at once.
  Node client = make_node(without_validation(client_config()));
  EXPECT_NE(connect_pair(c.server, client).at_server, PeerId());
}

}  // namespace
}  // namespace tickwire::transport
