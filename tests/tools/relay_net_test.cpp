// tickwire-netsim's relay over real loopback sockets: more datagrams than a
// link holds in flight at once (transport::SimLink::kMaxInFlight) pass a
// perfect link, so a long session through the relay is not cut off once
// its link has carried that many.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>

#include "relay.h"
#include "tickwire/transport/link_model.h"

namespace tickwire::netsim {
namespace {

int bound_socket(sockaddr_in& address) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof address;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &len) != 0) {
    return -1;
  }
  return fd;
}

std::size_t drain(int fd) {
  std::size_t n = 0;
  std::uint8_t buf[64];
  while (::recv(fd, buf, sizeof buf, 0) > 0) ++n;
  return n;
}

TEST(RelayNet, ALinkCarriesMoreDatagramsThanItHoldsInFlight) {
  sockaddr_in server_at{};
  sockaddr_in client_at{};
  const int server = bound_socket(server_at);
  const int client = bound_socket(client_at);
  ASSERT_GE(server, 0);
  ASSERT_GE(client, 0);

  RelayConfig config;
  config.listen = transport::Address{"127.0.0.1", 0};
  config.forward = transport::Address{"127.0.0.1", ntohs(server_at.sin_port)};
  auto relay = Relay::create(config);
  ASSERT_TRUE(relay) << relay.error().detail;
  sockaddr_in relay_at{};
  relay_at.sin_family = AF_INET;
  relay_at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  relay_at.sin_port = htons(relay.value()->listen_port());

  const auto epoch = std::chrono::steady_clock::now();
  const auto clock = [epoch] {
    return Time::from_micros(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - epoch).count());
  };
  constexpr std::size_t kBatch = 50;  // well inside the sockets' buffers
  constexpr std::size_t kDatagrams = (transport::SimLink::kMaxInFlight / kBatch + 80) * kBatch;
  std::size_t arrived = 0;
  const std::uint8_t byte = 7;
  for (std::size_t sent = 0; sent < kDatagrams; sent += kBatch) {
    for (std::size_t i = 0; i < kBatch; ++i) {
      ASSERT_EQ(::sendto(client, &byte, 1, 0, reinterpret_cast<const sockaddr*>(&relay_at), sizeof relay_at), 1);
    }
    for (int spin = 0; spin < 4; ++spin) relay.value()->run_once(clock, Duration::millis(1));
    arrived += drain(server);
  }
  for (int spin = 0; spin < 50 && arrived < kDatagrams; ++spin) {
    relay.value()->run_once(clock, Duration::millis(2));
    arrived += drain(server);
  }
  EXPECT_EQ(relay.value()->up_counters().dropped, 0U);
  EXPECT_EQ(arrived, kDatagrams);
  ::close(server);
  ::close(client);
}

}  // namespace
}  // namespace tickwire::netsim
