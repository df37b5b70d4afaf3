// SimNetwork endpoints as Transports: handshake, both delivery modes,
// reliability over a hostile link, limits, disconnects, timeouts and
// determinism of the whole run from its seed.

#include "tickwire/transport/sim_network.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tickwire::transport {
namespace {

using Type = TransportEvent::Type;

std::uint64_t announce_seed(std::uint64_t seed) {
  std::cout << "[   SEED   ] " << seed << std::endl;
  return seed;
}

std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

// Message i of a stream: its number, then a pattern derived from it, with
// a size that varies and sometimes needs several fragments.
std::vector<std::uint8_t> message(std::uint32_t i) {
  const std::size_t size = i % 97 == 0 ? 5000 : 4 + (i * 37) % 300;
  std::vector<std::uint8_t> bytes(size);
  for (std::size_t k = 0; k < size; ++k) bytes[k] = static_cast<std::uint8_t>(i * 7 + k);
  for (std::size_t k = 0; k < 4; ++k) bytes[k] = static_cast<std::uint8_t>(i >> (8 * k));
  return bytes;
}

struct Logged {
  Time at;
  TransportEvent event;
};

// A seeded network, its endpoints by address, and every event each one
// raised, with the time it was polled.
class World {
 public:
  explicit World(std::uint64_t seed) : net(announce_seed(seed)) {}

  Transport& add(const Address& address, SimEndpointConfig config = {}) {
    auto& slot = endpoints[address];
    slot = net.create_endpoint(address, config);
    return *slot;
  }

  void step(Duration d = Duration::millis(1)) {
    now += d;
    for (auto& [address, endpoint] : endpoints) {
      if (!endpoint) continue;
      while (auto e = endpoint->poll(now)) log[address].push_back({now, std::move(*e)});
    }
  }

  void run_for(Duration total, Duration d = Duration::millis(1)) {
    for (const Time end = now + total; now < end;) step(d);
  }

  std::size_t count(const Address& address, Type type) {
    std::size_t n = 0;
    for (auto& l : log[address]) n += l.event.type == type ? 1 : 0;
    return n;
  }

  std::vector<Logged> of_type(const Address& address, Type type) {
    std::vector<Logged> out;
    for (auto& l : log[address]) {
      if (l.event.type == type) out.push_back(l);
    }
    return out;
  }

  // Connects `client` to `server` and returns the ids each uses for the other.
  std::pair<PeerId, PeerId> connect(const Address& client, const Address& server) {
    const auto id = endpoints.at(client)->connect(server, now);
    EXPECT_TRUE(id.ok());
    for (int i = 0; i < 5000; ++i) {
      step();
      const auto c = find_connected(client, server);
      const auto s = find_connected(server, client);
      if (c && s) {
        EXPECT_EQ(*c, id.value());
        return {*c, *s};
      }
    }
    ADD_FAILURE() << "no connection";
    return {};
  }

  std::optional<PeerId> find_connected(const Address& at, const Address& remote) {
    for (auto& l : log[at]) {
      if (l.event.type == Type::kConnected && l.event.address == remote) return l.event.peer;
    }
    return std::nullopt;
  }

  SimNetwork net;
  Time now;
  std::map<Address, std::unique_ptr<Transport>> endpoints;
  std::map<Address, std::vector<Logged>> log;
};

Address server_addr() { return {"server", 7777}; }
Address client_addr() { return {"client", 5000}; }

LinkConditions hostile() {
  LinkConditions c;
  c.latency = Duration::millis(20);
  c.jitter = Duration::millis(10);
  c.loss = 0.25;
  c.duplicate = 0.25;
  c.reorder = 0.1;
  c.reorder_delay = Duration::millis(30);
  return c;
}

TEST(SimNetwork, ConnectRaisesConnectedOnBothSides) {
  World w(1);
  w.add(server_addr());
  Transport& client = w.add(client_addr());
  const auto [c, s] = w.connect(client_addr(), server_addr());
  EXPECT_EQ(w.of_type(client_addr(), Type::kConnected).size(), 1U);
  EXPECT_EQ(w.of_type(server_addr(), Type::kConnected).size(), 1U);
  EXPECT_EQ(client.local_address(), client_addr());
  EXPECT_TRUE(client.stats(c).has_value());
  EXPECT_TRUE(w.endpoints.at(server_addr())->stats(s).has_value());
  EXPECT_FALSE(client.connect(server_addr(), w.now).ok());  // already connected
}

TEST(SimNetwork, SendsBothWaysInBothModes) {
  World w(2);
  Transport& server = w.add(server_addr());
  Transport& client = w.add(client_addr());
  const auto [c, s] = w.connect(client_addr(), server_addr());
  ASSERT_TRUE(client.send(c, Delivery::kUnreliable, bytes_of("ping"), w.now).ok());
  ASSERT_TRUE(client.send(c, Delivery::kReliableOrdered, bytes_of("hello"), w.now).ok());
  ASSERT_TRUE(server.send(s, Delivery::kUnreliable, bytes_of("pong"), w.now).ok());
  ASSERT_TRUE(server.send(s, Delivery::kReliableOrdered, bytes_of("welcome"), w.now).ok());
  w.run_for(Duration::millis(50));
  const auto at_server = w.of_type(server_addr(), Type::kReceived);
  const auto at_client = w.of_type(client_addr(), Type::kReceived);
  ASSERT_EQ(at_server.size(), 2U);
  ASSERT_EQ(at_client.size(), 2U);
  EXPECT_EQ(at_server[0].event.data, bytes_of("ping"));
  EXPECT_EQ(at_server[0].event.delivery, Delivery::kUnreliable);
  EXPECT_EQ(at_server[1].event.data, bytes_of("hello"));
  EXPECT_EQ(at_server[1].event.delivery, Delivery::kReliableOrdered);
  EXPECT_EQ(at_server[1].event.peer, s);
  EXPECT_EQ(at_client[0].event.data, bytes_of("pong"));
  EXPECT_EQ(at_client[1].event.data, bytes_of("welcome"));
  EXPECT_EQ(at_client[1].event.peer, c);
}

std::vector<TraceEntry> scripted_run(std::uint64_t seed) {
  World w(seed);
  std::vector<TraceEntry> trace;
  w.net.set_trace(&trace);
  w.net.set_default_link(hostile());
  Transport& server = w.add(server_addr());
  Transport& client = w.add(client_addr());
  const auto [c, s] = w.connect(client_addr(), server_addr());
  for (std::uint32_t i = 0; i < 200; ++i) {
    EXPECT_TRUE(client.send(c, Delivery::kReliableOrdered, message(i), w.now).ok());
    EXPECT_TRUE(server.send(s, Delivery::kUnreliable, bytes_of(std::to_string(i)), w.now).ok());
    w.step(Duration::millis(3));
  }
  w.run_for(Duration::seconds(2));
  w.net.set_trace(nullptr);
  return trace;
}

TEST(SimNetwork, SameSeedGivesTheSameTrace) {
  const auto first = scripted_run(42);
  const auto again = scripted_run(42);
  const auto other = scripted_run(43);
  ASSERT_GT(first.size(), 500U);
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
}

TEST(SimNetwork, ReliableOrderedSurvivesLossDuplicationAndReordering) {
  World w(3);
  w.net.set_default_link(hostile());
  Transport& server = w.add(server_addr());
  Transport& client = w.add(client_addr());
  const auto [c, s] = w.connect(client_addr(), server_addr());
  constexpr std::uint32_t kUp = 2000;
  constexpr std::uint32_t kDown = 500;
  std::uint32_t sent_up = 0;
  std::uint32_t sent_down = 0;
  int steps = 0;
  for (; steps < 20000 &&
         (w.count(server_addr(), Type::kReceived) < kUp || w.count(client_addr(), Type::kReceived) < kDown);
       ++steps) {
    for (int k = 0; k < 8 && sent_up < kUp; ++k) {
      if (!client.send(c, Delivery::kReliableOrdered, message(sent_up), w.now).ok()) break;
      ++sent_up;
    }
    if (sent_down < kDown && server.send(s, Delivery::kReliableOrdered, message(sent_down), w.now).ok()) {
      ++sent_down;
    }
    w.step(Duration::millis(5));
  }
  std::cout << "delivered after " << steps * 5 << " ms of simulated time" << std::endl;
  w.run_for(Duration::seconds(1));  // late duplicates must not show up
  const auto up = w.of_type(server_addr(), Type::kReceived);
  const auto down = w.of_type(client_addr(), Type::kReceived);
  ASSERT_EQ(up.size(), kUp);
  ASSERT_EQ(down.size(), kDown);
  for (std::uint32_t i = 0; i < kUp; ++i) ASSERT_EQ(up[i].event.data, message(i)) << "message " << i;
  for (std::uint32_t i = 0; i < kDown; ++i) ASSERT_EQ(down[i].event.data, message(i)) << "message " << i;
  EXPECT_TRUE(w.of_type(server_addr(), Type::kDisconnected).empty());
  const SimLinkStats link = w.net.stats(client_addr(), server_addr());
  EXPECT_GT(link.dropped_loss, 0U);
  EXPECT_GT(link.duplicated, 0U);
  EXPECT_GT(link.reordered, 0U);
}

TEST(SimNetwork, LargeReliableMessagesTravelAsFragmentsUnderTheMtu) {
  World w(4);
  LinkConditions c = hostile();
  c.mtu = 1300;
  w.net.set_default_link(c);
  Transport& client = w.add(client_addr());
  w.add(server_addr());
  const auto [cid, sid] = w.connect(client_addr(), server_addr());
  std::vector<std::uint8_t> big(16 * 1024);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint8_t>(i * 13);
  ASSERT_TRUE(client.send(cid, Delivery::kReliableOrdered, big, w.now).ok());
  w.run_for(Duration::seconds(3));
  const auto got = w.of_type(server_addr(), Type::kReceived);
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].event.data, big);
  EXPECT_EQ(w.net.stats(client_addr(), server_addr()).dropped_mtu, 0U);
}

TEST(SimNetwork, OversizeAndUnknownPeerSendsAreRefused) {
  World w(5);
  w.add(server_addr());
  Transport& client = w.add(client_addr());
  const auto [c, s] = w.connect(client_addr(), server_addr());
  const TransportLimits& limits = client.limits();
  const std::vector<std::uint8_t> fits(limits.max_unreliable_payload);
  const std::vector<std::uint8_t> over(limits.max_unreliable_payload + 1);
  const std::vector<std::uint8_t> reliable_over(limits.max_reliable_payload + 1);
  EXPECT_TRUE(client.send(c, Delivery::kUnreliable, fits, w.now).ok());
  const auto refused = client.send(c, Delivery::kUnreliable, over, w.now);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kTooLarge);
  const auto refused_reliable = client.send(c, Delivery::kReliableOrdered, reliable_over, w.now);
  ASSERT_FALSE(refused_reliable.ok());
  EXPECT_EQ(refused_reliable.error().code, ErrorCode::kTooLarge);
  const auto unknown = client.send(PeerId(999), Delivery::kUnreliable, fits, w.now);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotConnected);
}

TEST(SimNetwork, ReliableBacklogIsBounded) {
  World w(6);
  w.add(server_addr());
  SimEndpointConfig config;
  config.max_reliable_backlog_messages = 16;
  Transport& client = w.add(client_addr(), config);
  const auto [c, s] = w.connect(client_addr(), server_addr());
  w.net.sever(client_addr(), server_addr());
  for (int i = 0; i < 16; ++i) EXPECT_TRUE(client.send(c, Delivery::kReliableOrdered, message(1), w.now).ok());
  const auto full = client.send(c, Delivery::kReliableOrdered, message(1), w.now);
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().code, ErrorCode::kTooLarge);
}

TEST(SimNetwork, MaxPeersRefusesExtraConnections) {
  World w(7);
  SimEndpointConfig config;
  config.max_peers = 2;
  w.add(server_addr(), config);
  const Address clients[] = {{"c1", 1}, {"c2", 2}, {"c3", 3}};
  for (const auto& a : clients) w.add(a);
  w.connect(clients[0], server_addr());
  w.connect(clients[1], server_addr());
  ASSERT_TRUE(w.endpoints.at(clients[2])->connect(server_addr(), w.now).ok());
  w.run_for(Duration::millis(100));
  EXPECT_EQ(w.of_type(server_addr(), Type::kConnected).size(), 2U);
  const auto refused = w.of_type(clients[2], Type::kDisconnected);
  ASSERT_EQ(refused.size(), 1U);
  EXPECT_EQ(refused[0].event.reason, DisconnectReason::kServerFull);
  EXPECT_TRUE(w.of_type(clients[2], Type::kConnected).empty());
}

TEST(SimNetwork, DisconnectReasonReachesTheOtherSideOnly) {
  World w(8);
  Transport& server = w.add(server_addr());
  Transport& client = w.add(client_addr());
  const auto [c, s] = w.connect(client_addr(), server_addr());
  server.disconnect(s, DisconnectReason::kKicked, w.now);
  w.run_for(Duration::millis(50));
  const auto at_client = w.of_type(client_addr(), Type::kDisconnected);
  ASSERT_EQ(at_client.size(), 1U);
  EXPECT_EQ(at_client[0].event.peer, c);
  EXPECT_EQ(at_client[0].event.reason, DisconnectReason::kKicked);
  EXPECT_TRUE(w.of_type(server_addr(), Type::kDisconnected).empty());
  EXPECT_EQ(server.send(s, Delivery::kUnreliable, bytes_of("x"), w.now).error().code, ErrorCode::kNotConnected);
  EXPECT_EQ(client.send(c, Delivery::kUnreliable, bytes_of("x"), w.now).error().code, ErrorCode::kNotConnected);
  EXPECT_FALSE(client.stats(c).has_value());
}

TEST(SimNetwork, SeveredLinkTimesOutBothSidesThenRecovers) {
  World w(9);
  w.add(server_addr());
  Transport& client = w.add(client_addr());
  w.connect(client_addr(), server_addr());
  const Time cut = w.now + Duration::seconds(1);
  w.net.schedule(cut, [](SimNetwork& net) { net.sever(client_addr(), server_addr()); });
  w.run_for(Duration::seconds(7), Duration::millis(10));
  for (const Address& side : {client_addr(), server_addr()}) {
    const auto ended = w.of_type(side, Type::kDisconnected);
    ASSERT_EQ(ended.size(), 1U);
    EXPECT_EQ(ended[0].event.reason, DisconnectReason::kTimeout);
    const Duration after_cut = ended[0].at - cut;
    EXPECT_GE(after_cut, Duration::seconds(5) - Duration::millis(260));
    EXPECT_LE(after_cut, Duration::seconds(5) + Duration::millis(20));
  }
  EXPECT_GT(w.net.stats(client_addr(), server_addr()).dropped_severed, 0U);

  w.net.restore(client_addr(), server_addr());
  w.log.clear();
  ASSERT_TRUE(client.connect(server_addr(), w.now).ok());
  w.run_for(Duration::millis(100));
  EXPECT_EQ(w.of_type(client_addr(), Type::kConnected).size(), 1U);
  EXPECT_EQ(w.of_type(server_addr(), Type::kConnected).size(), 1U);
}

TEST(SimNetwork, ConnectToNoEndpointFailsAfterConnectTimeout) {
  World w(10);
  SimEndpointConfig config;
  config.connect_timeout = Duration::seconds(2);
  Transport& client = w.add(client_addr(), config);
  const Time start = w.now;
  const auto id = client.connect({"nobody", 9}, w.now);
  ASSERT_TRUE(id.ok());
  w.run_for(Duration::seconds(3), Duration::millis(10));
  const auto failed = w.of_type(client_addr(), Type::kDisconnected);
  ASSERT_EQ(failed.size(), 1U);
  EXPECT_EQ(failed[0].event.peer, id.value());
  EXPECT_EQ(failed[0].event.reason, DisconnectReason::kConnectFailed);
  EXPECT_GE(failed[0].at - start, Duration::seconds(2));
  EXPECT_LE(failed[0].at - start, Duration::seconds(2) + Duration::millis(10));
  EXPECT_GT(w.net.stats(client_addr(), {"nobody", 9}).dropped_unreachable, 1U);  // retried
}

TEST(SimNetwork, StatsEstimateRttAndLoss) {
  World w(11);
  w.add(server_addr());
  Transport& client = w.add(client_addr());
  const auto [c, s] = w.connect(client_addr(), server_addr());
  LinkConditions c40;
  c40.latency = Duration::millis(40);
  c40.loss = 0.1;
  w.net.set_default_link(c40);
  w.run_for(Duration::seconds(20), Duration::millis(2));
  const auto stats = client.stats(c);
  ASSERT_TRUE(stats.has_value());
  EXPECT_NEAR(stats->rtt.millis_f(), 80.0, 5.0);
  EXPECT_NEAR(stats->packet_loss, 1.0 - 0.9 * 0.9, 0.15);
  EXPECT_GT(stats->packets_sent, 60U);
  EXPECT_GT(stats->bytes_received, 0U);
}

TEST(SimNetwork, NewSessionFromTheSameAddressReplacesTheOldOne) {
  World w(12);
  w.add(server_addr());
  w.add(client_addr());
  w.connect(client_addr(), server_addr());
  w.endpoints.at(client_addr()).reset();  // vanishes without a word
  w.step();
  w.add(client_addr());
  w.log.clear();
  w.connect(client_addr(), server_addr());
  const auto ended = w.of_type(server_addr(), Type::kDisconnected);
  ASSERT_EQ(ended.size(), 1U);
  EXPECT_EQ(ended[0].event.reason, DisconnectReason::kUnknown);
  EXPECT_EQ(w.of_type(server_addr(), Type::kConnected).size(), 1U);
}

TEST(SimNetwork, PeerOverOurReliableLimitIsDisconnectedForProtocolError) {
  World w(13);
  SimEndpointConfig generous;
  generous.limits.max_reliable_payload = 32 * 1024;
  Transport& client = w.add(client_addr(), generous);
  w.add(server_addr());
  const auto [c, s] = w.connect(client_addr(), server_addr());
  ASSERT_TRUE(client.send(c, Delivery::kReliableOrdered, std::vector<std::uint8_t>(20000), w.now).ok());
  w.run_for(Duration::millis(100));
  const auto at_server = w.of_type(server_addr(), Type::kDisconnected);
  ASSERT_EQ(at_server.size(), 1U);
  EXPECT_EQ(at_server[0].event.reason, DisconnectReason::kProtocolError);
  EXPECT_TRUE(w.of_type(server_addr(), Type::kReceived).empty());
  const auto at_client = w.of_type(client_addr(), Type::kDisconnected);
  ASSERT_EQ(at_client.size(), 1U);
  EXPECT_EQ(at_client[0].event.reason, DisconnectReason::kProtocolError);
}

TEST(SimNetwork, AddressesAreUniqueAndConfigIsChecked) {
  SimNetwork net(announce_seed(14));
  auto first = net.create_endpoint(server_addr());
  EXPECT_THROW(net.create_endpoint(server_addr()), std::invalid_argument);
  SimEndpointConfig bad;
  bad.ping_interval = Duration::zero();
  EXPECT_THROW(net.create_endpoint(client_addr(), bad), std::invalid_argument);
  first.reset();
  EXPECT_NO_THROW(net.create_endpoint(server_addr()));  // freed on destruction
}

TEST(SimNetwork, EndpointOutlivingItsNetworkIsDetachedNotDangling) {
  auto net = std::make_unique<SimNetwork>(announce_seed(15));
  auto endpoint = net->create_endpoint(client_addr());
  net.reset();
  Time now = Time::from_micros(1000);
  EXPECT_FALSE(endpoint->poll(now).has_value());
  EXPECT_FALSE(endpoint->connect(server_addr(), now).ok());
}

}  // namespace
}  // namespace tickwire::transport
