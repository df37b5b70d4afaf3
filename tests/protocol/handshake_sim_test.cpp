// The connection protocol over the simulated network: whole connection
// lifecycles in virtual time, deterministic per seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>

#include "sim_match.h"
#include "tickwire/core/handshake.h"

namespace tickwire {
namespace {

using testing::SimMatch;
using transport::DisconnectReason;
using EventType = server::ServerEvent::Type;

TEST(HandshakeSim, ClientsConnectExchangeTicksAndLeave) {
  SimMatch m(1);
  transport::LinkConditions link;
  link.latency = Duration::millis(25);
  m.net.set_default_link(link);
  for (int i = 0; i < 4; ++i) {
    client::ClientConfig cc;
    cc.name = "p" + std::to_string(i);
    m.add_client(cc);
  }
  for (auto& c : m.clients) ASSERT_TRUE(c->connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(2)));

  std::set<std::uint32_t> ids;
  for (auto& c : m.clients) {
    ASSERT_TRUE(c->client_id().has_value());
    ids.insert(*c->client_id());
    EXPECT_EQ(c->tick_rate(), 60u);
    EXPECT_EQ(c->send_rate(), 30u);
  }
  EXPECT_EQ(ids.size(), 4u);

  m.run_for(Duration::seconds(2));
  for (auto& c : m.clients) {
    // 30 snapshots a second carry the server's time; the client's estimate
    // stays within a couple of ticks of the truth (one-way delay is 1.5 ticks).
    EXPECT_GT(c->stats().server_ticks_heard, 50u);
    const auto estimate = c->time_system()->server_time();
    ASSERT_TRUE(estimate.has_value());
    EXPECT_LE(std::abs(estimate->tick() - m.server->tick()), 3);
    EXPECT_NEAR(c->stats().rtt.millis_f(), 50.0, 8.0);
  }
  const auto connected = m.drain_server_events();
  EXPECT_EQ(std::count_if(connected.begin(), connected.end(),
                          [](const auto& e) { return e.type == EventType::kClientConnected; }),
            4);

  m.clients[0]->disconnect(m.clock.now());
  ASSERT_TRUE(m.run_until([&] { return m.server->stats().clients == 3; }, Duration::seconds(1)));
  const auto left = m.drain_server_events();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].type, EventType::kClientDisconnected);
  EXPECT_EQ(left[0].reason, DisconnectReason::kRequested);
  EXPECT_EQ(left[0].name, "p0");
}

TEST(HandshakeSim, FingerprintMismatchIsDeniedWithReason) {
  SimMatch m(2);
  client::ClientConfig cc;
  cc.schema_hash = 0xBAD;
  auto& c = m.add_client(cc);
  ASSERT_TRUE(c.connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return c.state() == client::ClientState::kDisconnected; }, Duration::seconds(2)));
  const auto event = c.poll_event();
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->type, client::ClientEvent::Type::kDenied);
  EXPECT_EQ(event->reason, DisconnectReason::kFingerprintMismatch);
  EXPECT_EQ(client::to_string(*event), "denied: game schema mismatch");
  EXPECT_EQ(m.server->stats().denials, 1u);
}

// Events print with a reason only where there is one: a connect ends
// nothing, so it never reads "unknown reason".
TEST(HandshakeSim, EventsPrintAReasonOnlyWhenTheyEndSomething) {
  server::ServerConfig config;
  config.max_clients = 1;
  SimMatch m(6, config);
  client::ClientConfig named;
  named.name = "ann";
  auto& ann = m.add_client(named);
  auto& late = m.add_client();
  ASSERT_TRUE(ann.connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return m.all_connected() || ann.state() == client::ClientState::kConnected; },
                          Duration::seconds(2)));
  ASSERT_TRUE(late.connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return late.state() == client::ClientState::kDisconnected; }, Duration::seconds(2)));
  ann.disconnect(m.clock.now());
  ASSERT_TRUE(m.run_until([&] { return m.server->stats().clients == 0; }, Duration::seconds(2)));

  const auto connected = ann.poll_event();
  ASSERT_TRUE(connected.has_value());
  EXPECT_EQ(client::to_string(*connected), "connected");
  const auto denied = late.poll_event();
  ASSERT_TRUE(denied.has_value());
  EXPECT_EQ(client::to_string(*denied), "denied: server full");
  EXPECT_EQ(
      client::to_string(client::ClientEvent{client::ClientEvent::Type::kDisconnected, DisconnectReason::kTimeout}),
      "disconnected: timed out");
  client::ClientEvent spawned{client::ClientEvent::Type::kEntitySpawned};
  spawned.entity = snapshot::EntityId{12};
  EXPECT_EQ(client::to_string(spawned), "entity 12 spawned");

  const auto events = m.drain_server_events();
  ASSERT_EQ(events.size(), 3U);
  const std::string address = m.client_addresses[0].to_string();
  EXPECT_EQ(server::to_string(events[0]), "client 1 (ann) connected from " + address);
  EXPECT_EQ(server::to_string(events[1]), "denied " + m.client_addresses[1].to_string() + ": server full");
  EXPECT_EQ(server::to_string(events[2]), "client 1 (ann) disconnected: disconnect requested");
  for (const auto& e : events) EXPECT_EQ(server::to_string(e).find("unknown"), std::string::npos);
}

TEST(HandshakeSim, ServerFullIsDeniedWithReason) {
  server::ServerConfig config;
  config.max_clients = 2;
  SimMatch m(3, config);
  for (int i = 0; i < 3; ++i) m.add_client();
  for (int i = 0; i < 2; ++i)
    ASSERT_TRUE(m.clients[static_cast<std::size_t>(i)]->connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return m.server->stats().clients == 2; }, Duration::seconds(2)));
  auto& third = *m.clients[2];
  ASSERT_TRUE(third.connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return third.state() == client::ClientState::kDisconnected; }, Duration::seconds(2)));
  const auto event = third.poll_event();
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->type, client::ClientEvent::Type::kDenied);
  EXPECT_EQ(third.disconnect_reason(), DisconnectReason::kServerFull);
  EXPECT_EQ(m.server->stats().clients, 2u);
}

TEST(HandshakeSim, SilentClientTimesOutOnBothSides) {
  SimMatch m(4);
  auto& c = m.add_client();
  ASSERT_TRUE(c.connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(2)));
  m.drain_server_events();
  m.net.sever(m.server_address, m.client_addresses[0]);
  ASSERT_TRUE(
      m.run_until([&] { return m.server->stats().clients == 0 && c.state() == client::ClientState::kDisconnected; },
                  Duration::seconds(8)));
  const auto events = m.drain_server_events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].reason, DisconnectReason::kTimeout);
  EXPECT_EQ(c.disconnect_reason(), DisconnectReason::kTimeout);
}

// The Welcome may need retries over a slow, lossy link: until the client
// is heard from after it, the server waits as long as for a handshake,
// not just the silence timeout.
TEST(HandshakeSim, ASlowWelcomeIsGivenTheHandshakeTimeout) {
  std::cout << "seed=" << 5 << "\n";
  server::ServerConfig config;
  config.client_timeout = Duration::seconds(1);
  config.handshake_timeout = Duration::seconds(10);
  SimMatch m(5, config);
  transport::LinkConditions link;
  link.latency = Duration::millis(50);
  m.net.set_default_link(link);
  auto& c = m.add_client();
  ASSERT_TRUE(c.connect(m.server_address, m.clock.now()).ok());
  // Cut the link as soon as the server has welcomed the client, for 3 s:
  // the Welcome already in flight arrives, the client's answers do not.
  ASSERT_TRUE(m.run_until([&] { return m.server->stats().clients == 1; }, Duration::seconds(2)));
  m.net.sever(m.server_address, m.client_addresses[0]);
  m.run_for(Duration::seconds(3));
  EXPECT_EQ(m.server->stats().clients, 1u) << "dropped after the 1 s silence timeout";
  m.net.restore(m.server_address, m.client_addresses[0]);
  m.run_for(Duration::millis(500));
  ASSERT_TRUE(m.all_connected());
  ASSERT_EQ(m.server->stats().clients, 1u);
  // Once heard from, the client is held to the silence timeout again.
  m.drain_server_events();
  m.net.sever(m.server_address, m.client_addresses[0]);
  m.run_for(Duration::millis(1500));
  EXPECT_EQ(m.server->stats().clients, 0u);
}

// The transport gives up on a handshake after its own connect timeout;
// the client starts a fresh one while its longer connect timeout allows,
// and not once that has passed.
TEST(HandshakeSim, ALostHandshakeIsTriedAgainWithinTheConnectTimeout) {
  std::cout << "seed=" << 6 << "\n";
  SimMatch m(6);
  client::ClientConfig patient;
  patient.connect_timeout = Duration::seconds(10);
  client::ClientConfig hasty;
  hasty.connect_timeout = Duration::millis(1500);
  transport::SimEndpointConfig ec;
  ec.connect_timeout = Duration::seconds(1);
  auto& c = m.add_client(patient, ec);
  auto& d = m.add_client(hasty, ec);
  m.net.sever(m.server_address, m.client_addresses[0]);
  m.net.sever(m.server_address, m.client_addresses[1]);
  ASSERT_TRUE(c.connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(d.connect(m.server_address, m.clock.now()).ok());
  m.run_for(Duration::millis(2500));
  m.net.restore(m.server_address, m.client_addresses[0]);
  m.net.restore(m.server_address, m.client_addresses[1]);
  ASSERT_TRUE(m.run_until([&] { return c.state() == client::ClientState::kConnected; }, Duration::seconds(5)));
  EXPECT_GE(c.stats().connect_retries, 2u);
  EXPECT_EQ(d.state(), client::ClientState::kDisconnected);
  EXPECT_EQ(d.disconnect_reason(), DisconnectReason::kConnectFailed);
}

TEST(HandshakeSim, ShutdownTellsEveryClientWhy) {
  SimMatch m(5);
  for (int i = 0; i < 3; ++i) m.add_client();
  for (auto& c : m.clients) ASSERT_TRUE(c->connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(2)));
  m.server->shutdown(m.clock.now());
  ASSERT_TRUE(m.run_until(
      [&] {
        for (auto& c : m.clients) {
          if (c->state() != client::ClientState::kDisconnected) return false;
        }
        return true;
      },
      Duration::seconds(1)));
  for (auto& c : m.clients) EXPECT_EQ(c->disconnect_reason(), DisconnectReason::kServerShuttingDown);
}

// Connections survive a hostile link (yojimbo's soak conditions, shorter).
TEST(HandshakeSim, StaysConnectedUnderHeavyLossAndDuplication) {
  const std::uint64_t seed = 6;
  std::cout << "seed=" << seed << "\n";
  SimMatch m(seed);
  transport::LinkConditions link;
  link.latency = Duration::millis(150);
  link.jitter = Duration::millis(30);
  link.loss = 0.25;
  link.duplicate = 0.25;
  m.net.set_default_link(link);
  for (int i = 0; i < 8; ++i) m.add_client();
  for (auto& c : m.clients) ASSERT_TRUE(c->connect(m.server_address, m.clock.now()).ok());
  ASSERT_TRUE(m.run_until([&] { return m.all_connected(); }, Duration::seconds(5)));
  m.run_for(Duration::seconds(60));
  EXPECT_TRUE(m.all_connected());
  EXPECT_EQ(m.server->stats().clients, 8u);
  EXPECT_EQ(m.server->stats().disconnects, 0u);
  for (auto& c : m.clients) EXPECT_GT(c->stats().server_ticks_heard, 60u * 30u / 2u);
}

TEST(HandshakeSim, SameSeedSameRun) {
  auto run = [](std::uint64_t seed) {
    SimMatch m(seed);
    transport::LinkConditions link;
    link.latency = Duration::millis(40);
    link.jitter = Duration::millis(10);
    link.loss = 0.1;
    m.net.set_default_link(link);
    for (int i = 0; i < 3; ++i) m.add_client();
    for (auto& c : m.clients) (void)c->connect(m.server_address, m.clock.now());
    m.run_for(Duration::seconds(5));
    std::vector<std::int64_t> out;
    for (auto& c : m.clients) {
      out.push_back(c->stats().rtt.micros());
      out.push_back(static_cast<std::int64_t>(c->stats().packets_in));
    }
    out.push_back(static_cast<std::int64_t>(m.server->stats().packets_in));
    return out;
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7), run(8));
}

}  // namespace
}  // namespace tickwire
