// The connection protocol over real UDP on loopback: the Server and Client
// runtimes on ENet, as the binaries use them.
#include <gtest/gtest.h>

#include "tickwire/arena/arena.h"
#include "tickwire/client/client.h"
#include "tickwire/core/handshake.h"
#include "tickwire/core/serialize.h"
#include "tickwire/server/server.h"
#include "tickwire/transport/enet_transport.h"
#include "wall_clock.h"

namespace tickwire {
namespace {

using transport::DisconnectReason;

struct NetMatch {
  explicit NetMatch(server::ServerConfig config = {}) {
    transport::EnetConfig ec;
    ec.bind = transport::Address{"127.0.0.1", 0};
    ec.max_peers = config.max_clients + 8;
    ec.timeout = Duration::millis(1500);
    auto t = transport::EnetTransport::create(ec);
    EXPECT_TRUE(t.ok());
    config.client_timeout = Duration::millis(1500);
    server = std::make_unique<server::Server>(std::move(t).value(), server_game, config, clock.now());
    address = *server->local_address();
  }

  client::Client& add_client(client::ClientConfig config = {}) {
    transport::EnetConfig ec;
    ec.max_peers = 1;
    ec.timeout = Duration::millis(1500);
    games.push_back(std::make_unique<arena::Game>());
    clients.push_back(std::make_unique<client::Client>(transport::EnetTransport::create(ec).value(), *games.back(),
                                                       idle_input, config));
    return *clients.back();
  }

  bool pump_until(const std::function<bool()>& done, Duration limit) {
    return clock.pump_until(done, limit, [this](Time now) {
      server->update(now);
      for (auto& c : clients) c->update(now);
    });
  }

  static void idle_input(Tick /*tick*/, snapshot::Record& input) { input = arena::to_record({}); }

  testing::WallClock clock;
  arena::Game server_game;
  std::vector<std::unique_ptr<arena::Game>> games;
  std::unique_ptr<server::Server> server;
  transport::Address address;
  std::vector<std::unique_ptr<client::Client>> clients;
};

TEST(HandshakeNet, ConnectExchangeAndLeaveWithReason) {
  NetMatch m;
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(m.add_client().connect(m.address, m.clock.now()).ok());
  ASSERT_TRUE(m.pump_until(
      [&] {
        for (auto& c : m.clients) {
          if (c->stats().server_ticks_heard < 10) return false;
        }
        return true;
      },
      Duration::seconds(5)));
  EXPECT_EQ(m.server->stats().clients, 3u);
  for (auto& c : m.clients) EXPECT_LT(c->stats().rtt, Duration::millis(50));
  m.clients[1]->disconnect(m.clock.now());
  ASSERT_TRUE(m.pump_until([&] { return m.server->stats().clients == 2; }, Duration::seconds(3)));
  server::ServerEvent last;
  while (auto e = m.server->poll_event()) last = *e;
  EXPECT_EQ(last.type, server::ServerEvent::Type::kClientDisconnected);
  EXPECT_EQ(last.reason, DisconnectReason::kRequested);
}

TEST(HandshakeNet, FingerprintMismatchDenied) {
  NetMatch m;
  client::ClientConfig cc;
  cc.schema_hash = 42;
  auto& c = m.add_client(cc);
  ASSERT_TRUE(c.connect(m.address, m.clock.now()).ok());
  ASSERT_TRUE(m.pump_until([&] { return c.state() == client::ClientState::kDisconnected; }, Duration::seconds(5)));
  EXPECT_EQ(c.poll_event()->type, client::ClientEvent::Type::kDenied);
  EXPECT_EQ(c.disconnect_reason(), DisconnectReason::kFingerprintMismatch);
}

// An older or newer build speaks first with its own version: it must hear
// "version mismatch", not a timeout or garbage.
TEST(HandshakeNet, VersionMismatchDeniedWithReason) {
  NetMatch m;
  transport::EnetConfig ec;
  ec.max_peers = 1;
  auto raw = transport::EnetTransport::create(ec).value();
  const PeerId peer = raw->connect(m.address, m.clock.now()).value();
  std::optional<DisconnectReason> reason;
  bool connected = false;
  auto pump_raw = [&] {
    while (auto e = raw->poll(m.clock.now())) {
      if (e->type == transport::TransportEvent::Type::kConnected) connected = true;
      if (e->type == transport::TransportEvent::Type::kDisconnected) reason = e->reason;
    }
  };
  ASSERT_TRUE(m.pump_until(
      [&] {
        pump_raw();
        return connected;
      },
      Duration::seconds(5)));
  BitWriter w(128);
  PacketPrefix prefix{kProtocolId, static_cast<std::uint8_t>(kProtocolVersion + 1), PacketType::kHello};
  Hello hello{{}, "future"};
  ASSERT_TRUE(serialize(w, prefix) && serialize(w, hello));
  ASSERT_TRUE(raw->send(peer, transport::Delivery::kReliableOrdered, w.take(), m.clock.now()).ok());
  ASSERT_TRUE(m.pump_until(
      [&] {
        pump_raw();
        return reason.has_value();
      },
      Duration::seconds(5)));
  EXPECT_EQ(reason, DisconnectReason::kVersionMismatch);
  EXPECT_EQ(m.server->stats().denials, 1u);
}

TEST(HandshakeNet, ServerFullDenied) {
  server::ServerConfig config;
  config.max_clients = 1;
  NetMatch m(config);
  auto& first = m.add_client();
  ASSERT_TRUE(first.connect(m.address, m.clock.now()).ok());
  ASSERT_TRUE(m.pump_until([&] { return first.state() == client::ClientState::kConnected; }, Duration::seconds(5)));
  auto& second = m.add_client();
  ASSERT_TRUE(second.connect(m.address, m.clock.now()).ok());
  ASSERT_TRUE(m.pump_until([&] { return second.state() == client::ClientState::kDisconnected; }, Duration::seconds(5)));
  EXPECT_EQ(second.disconnect_reason(), DisconnectReason::kServerFull);
  EXPECT_EQ(first.state(), client::ClientState::kConnected);
}

TEST(HandshakeNet, ShutdownReachesClients) {
  NetMatch m;
  auto& c = m.add_client();
  ASSERT_TRUE(c.connect(m.address, m.clock.now()).ok());
  ASSERT_TRUE(m.pump_until([&] { return c.state() == client::ClientState::kConnected; }, Duration::seconds(5)));
  m.server->shutdown(m.clock.now());
  ASSERT_TRUE(m.pump_until([&] { return c.state() == client::ClientState::kDisconnected; }, Duration::seconds(3)));
  EXPECT_EQ(c.disconnect_reason(), DisconnectReason::kServerShuttingDown);
}

TEST(HandshakeNet, VanishedClientTimesOut) {
  NetMatch m;
  auto& c = m.add_client();
  ASSERT_TRUE(c.connect(m.address, m.clock.now()).ok());
  ASSERT_TRUE(m.pump_until([&] { return c.state() == client::ClientState::kConnected; }, Duration::seconds(5)));
  while (m.server->poll_event()) {
  }
  // Stop running the client at all, as if its process froze.
  auto frozen = std::move(m.clients.back());
  m.clients.pop_back();
  ASSERT_TRUE(m.pump_until([&] { return m.server->stats().clients == 0; }, Duration::seconds(6)));
  const auto e = m.server->poll_event();
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->reason, DisconnectReason::kTimeout);
}

}  // namespace
}  // namespace tickwire
