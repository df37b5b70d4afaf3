#pragma once
// Helpers for tests of EnetTransport over real UDP on loopback. Every
// socket binds port 0 and reads its port back, so suites running in
// parallel never collide; every wait is bounded by a deadline.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "tickwire/transport/enet_transport.h"

namespace tickwire::transport::enet_testing {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Type = TransportEvent::Type;

inline Time wall_now() {
  const auto since_epoch = Clock::now().time_since_epoch();
  return Time::from_micros(std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count());
}

inline std::vector<std::uint8_t> bytes_of(std::size_t size, std::uint8_t seed) {
  std::vector<std::uint8_t> out(size);
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<std::uint8_t>(seed + i);
  return out;
}

// One transport and everything it has reported so far.
struct Node {
  std::unique_ptr<EnetTransport> transport;
  std::vector<TransportEvent> events;

  void poll_all() {
    if (!transport) return;
    while (auto event = transport->poll(wall_now())) events.push_back(std::move(*event));
  }
  std::vector<TransportEvent> of_type(Type type) const {
    std::vector<TransportEvent> out;
    std::copy_if(events.begin(), events.end(), std::back_inserter(out),
                 [type](const TransportEvent& e) { return e.type == type; });
    return out;
  }
  bool has(Type type, PeerId peer) const {
    return std::any_of(events.begin(), events.end(),
                       [&](const TransportEvent& e) { return e.type == type && e.peer == peer; });
  }
  Address address() const {
    // Servers bind 127.0.0.1, so the local address is directly dialable.
    return *transport->local_address();
  }
};

// Polls every node until `done` holds or `limit` passes, sleeping briefly
// between rounds so loopback traffic has time to move.
inline bool pump_until(std::initializer_list<Node*> nodes, const std::function<bool()>& done,
                       std::chrono::milliseconds limit = 3000ms) {
  const auto deadline = Clock::now() + limit;
  while (true) {
    for (Node* node : nodes) node->poll_all();
    if (done()) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
}

inline void pump_for(std::initializer_list<Node*> nodes, std::chrono::milliseconds span) {
  pump_until(
      nodes, [] { return false; }, span);
}

inline EnetConfig server_config() {
  EnetConfig config;
  config.bind = Address{"127.0.0.1", 0};
  config.max_peers = 8;
  return config;
}

inline EnetConfig client_config() {
  EnetConfig config;
  config.max_peers = 1;
  return config;
}

inline Node make_node(const EnetConfig& config) {
  auto created = EnetTransport::create(config);
  EXPECT_TRUE(created.ok()) << (created.ok() ? "" : created.error().detail);
  Node node;
  if (created.ok()) node.transport = std::move(created).value();
  return node;
}

struct Link {
  PeerId at_client;  // the server, as the client knows it
  PeerId at_server;  // the client, as the server knows it
};

inline Link connect_pair(Node& server, Node& client) {
  auto peer = client.transport->connect(server.address(), wall_now());
  EXPECT_TRUE(peer.ok()) << (peer.ok() ? "" : peer.error().detail);
  if (!peer.ok()) return {};
  const std::size_t server_connects = server.of_type(Type::kConnected).size();
  const bool up = pump_until({&server, &client}, [&] {
    return client.has(Type::kConnected, *peer) && server.of_type(Type::kConnected).size() > server_connects;
  });
  EXPECT_TRUE(up) << "connection did not complete";
  if (!up) return {};
  return Link{*peer, server.of_type(Type::kConnected).back().peer};
}

// The legacy unauthenticated mode: no address validation, so no keys and
// no seal; both ends must say so.
inline EnetConfig without_validation(EnetConfig config) {
  config.validation.enabled = false;
  config.plaintext = true;
  return config;
}

// A randomized test's seed: TICKWIRE_TEST_SEED when set, otherwise fresh;
// printed either way so a failure can be replayed.
inline std::uint64_t test_seed() {
  std::uint64_t seed = std::random_device{}();
  if (const char* text = std::getenv("TICKWIRE_TEST_SEED")) seed = std::strtoull(text, nullptr, 10);
  std::printf("random seed %llu (set TICKWIRE_TEST_SEED to replay)\n", static_cast<unsigned long long>(seed));
  return seed;
}

}  // namespace tickwire::transport::enet_testing
