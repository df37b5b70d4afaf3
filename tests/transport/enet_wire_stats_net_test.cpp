// EnetTransport::wire_stats() against a count taken at the socket: a plain
// UDP relay on loopback stands between client and server, forwarding every
// datagram and counting it, and the transports' own figures must match its
// counts datagram for datagram and byte for byte: handshake, address
// validation, payloads, ENet's acknowledgements and pings included.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <random>
#include <vector>

#include "enet_test_support.h"
#include "tickwire/transport/enet_transport.h"

namespace tickwire::transport {
namespace {

using namespace enet_testing;  // NOLINT(google-build-using-namespace)

// What passed the relay one way.
struct Count {
  std::uint64_t datagrams = 0;
  std::uint64_t bytes = 0;
};

// Forwards between one client and one server. The client talks to
// `front`; the server sees the relay's `back` socket as its client.
class CountingRelay {
 public:
  explicit CountingRelay(const Address& server) {
    front_ = open_socket();
    back_ = open_socket();
    server_.sin_family = AF_INET;
    server_.sin_port = htons(server.port);
    EXPECT_EQ(::inet_pton(AF_INET, server.host.c_str(), &server_.sin_addr), 1) << server.host;
  }
  ~CountingRelay() {
    if (front_ >= 0) ::close(front_);
    if (back_ >= 0) ::close(back_);
  }
  CountingRelay(const CountingRelay&) = delete;
  CountingRelay& operator=(const CountingRelay&) = delete;

  Address front_address() const {
    sockaddr_in local{};
    socklen_t length = sizeof(local);
    EXPECT_EQ(::getsockname(front_, reinterpret_cast<sockaddr*>(&local), &length), 0);
    return Address{"127.0.0.1", ntohs(local.sin_port)};
  }

  // Forwards everything waiting on either socket. Loopback delivers a
  // datagram to the receiving socket within sendto, so once this returns
  // everything either side sent before the call has been counted and
  // handed on.
  void drain() {
    bool moved = true;
    while (moved) {
      moved = forward(front_, back_, up_, /*from_client=*/true);
      moved = forward(back_, front_, down_, /*from_client=*/false) || moved;
    }
  }

  const Count& up() const { return up_; }      // client to server
  const Count& down() const { return down_; }  // server to client
  std::uint64_t send_failures() const { return send_failures_; }

 private:
  static int open_socket() {
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    EXPECT_GE(fd, 0) << "socket: " << errno;
    sockaddr_in local{};
    local.sin_family = AF_INET;
    local.sin_port = 0;
    local.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)), 0) << "bind: " << errno;
    return fd;
  }

  // One datagram from `in` to `out`, if any was waiting.
  bool forward(int in, int out, Count& count, bool from_client) {
    sockaddr_in from{};
    socklen_t length = sizeof(from);
    const ssize_t n = ::recvfrom(in, buffer_.data(), buffer_.size(), 0, reinterpret_cast<sockaddr*>(&from), &length);
    if (n < 0) return false;
    count.datagrams += 1;
    count.bytes += static_cast<std::uint64_t>(n);
    if (from_client) {
      client_ = from;
      have_client_ = true;
    }
    const sockaddr_in& to = from_client ? server_ : client_;
    if (!from_client && !have_client_) return true;
    if (::sendto(out, buffer_.data(), static_cast<std::size_t>(n), 0, reinterpret_cast<const sockaddr*>(&to),
                 sizeof(to)) != n) {
      ++send_failures_;
    }
    return true;
  }

  int front_ = -1;
  int back_ = -1;
  sockaddr_in server_{};
  sockaddr_in client_{};
  bool have_client_ = false;
  Count up_;
  Count down_;
  std::uint64_t send_failures_ = 0;
  std::array<std::uint8_t, 65536> buffer_{};
};

WireStats wire_of(const Node& node) { return node.transport->wire_stats().value_or(WireStats{}); }

TEST(EnetWireStatsNet, CountsMatchWhatCrossedTheSocket) {
  const std::uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  Node server = make_node(server_config());  // address validation on, as by default
  Node client = make_node(client_config());
  ASSERT_TRUE(server.transport && client.transport);
  CountingRelay relay(server.address());

  auto connecting = client.transport->connect(relay.front_address(), wall_now());
  ASSERT_TRUE(connecting.ok()) << connecting.error().detail;
  const PeerId at_client = connecting.value();
  PeerId at_server;
  const bool up = pump_until({&server, &client}, [&] {
    relay.drain();
    const auto connects = server.of_type(Type::kConnected);
    if (!connects.empty()) at_server = connects.front().peer;
    return client.has(Type::kConnected, at_client) && at_server != PeerId();
  });
  ASSERT_TRUE(up) << "no connection through the relay";

  // Unreliable datagrams of every size each way, and reliable messages
  // large enough for ENet to fragment, which ENet acknowledges.
  std::uint64_t payload_sent = 0;
  for (int round = 0; round < 120; ++round) {
    const auto size = static_cast<std::size_t>(1 + rng() % 1000);
    ASSERT_TRUE(client.transport->send(at_client, Delivery::kUnreliable, bytes_of(size, 1), wall_now()).ok());
    ASSERT_TRUE(server.transport->send(at_server, Delivery::kUnreliable, bytes_of(size / 2 + 1, 2), wall_now()).ok());
    payload_sent += size + size / 2 + 1;
    if (round % 20 == 0) {
      ASSERT_TRUE(server.transport->send(at_server, Delivery::kReliableOrdered, bytes_of(3000, 3), wall_now()).ok());
      payload_sent += 3000;
    }
    for (int i = 0; i < 3; ++i) {
      server.poll_all();
      client.poll_all();
      relay.drain();
    }
  }
  // Long enough for ENet's pings (every 250 ms) to be in the count.
  pump_until(
      {&server, &client},
      [&] {
        relay.drain();
        return false;
      },
      600ms);

  // What the relay forwarded before the last poll is all the transports can
  // have read; what they sent by the time their figures are taken is all
  // the relay can count after.
  relay.drain();
  const Count forwarded_up = relay.up();
  const Count forwarded_down = relay.down();
  server.poll_all();
  client.poll_all();
  const WireStats client_wire = wire_of(client);
  const WireStats server_wire = wire_of(server);
  relay.drain();

  ASSERT_EQ(relay.send_failures(), 0U);
  EXPECT_EQ(client_wire.datagrams_sent, relay.up().datagrams);
  EXPECT_EQ(client_wire.bytes_sent, relay.up().bytes);
  EXPECT_EQ(server_wire.datagrams_sent, relay.down().datagrams);
  EXPECT_EQ(server_wire.bytes_sent, relay.down().bytes);
  EXPECT_EQ(client_wire.datagrams_received, forwarded_down.datagrams);
  EXPECT_EQ(client_wire.bytes_received, forwarded_down.bytes);
  EXPECT_EQ(server_wire.datagrams_received, forwarded_up.datagrams);
  EXPECT_EQ(server_wire.bytes_received, forwarded_up.bytes);
  // ENet's own bytes are in the figure, beyond what the game sent.
  EXPECT_GT(client_wire.bytes_sent + server_wire.bytes_sent, payload_sent);
}

}  // namespace
}  // namespace tickwire::transport
