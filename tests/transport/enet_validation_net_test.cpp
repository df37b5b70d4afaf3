// Address validation and connect tokens through EnetTransport over real UDP
// on loopback, including datagrams from plain sockets that play a spoofer:
// a real ENet CONNECT replayed from an address that never answered a
// challenge must take no peer slot and get no byte back.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <optional>

#include "enet_test_support.h"
#include "tickwire/transport/connect_challenge.h"

namespace tickwire::transport {
namespace {

using namespace enet_testing;  // NOLINT(google-build-using-namespace)

// A plain UDP socket on loopback, bound to `host` (any address in
// 127.0.0.0/8 is local on Linux), that counts what reaches it.
class RawSocket {
 public:
  explicit RawSocket(const char* host = "127.0.0.1") {
    fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    sockaddr_in local{};
    local.sin_family = AF_INET;
    ::inet_pton(AF_INET, host, &local.sin_addr);
    bound_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) == 0;
    socklen_t length = sizeof local;
    if (bound_) ::getsockname(fd_, reinterpret_cast<sockaddr*>(&local), &length);
    port_ = ntohs(local.sin_port);
  }
  ~RawSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;

  bool bound() const { return bound_; }
  Address address() const { return Address{"127.0.0.1", port_}; }

  void send_to(const Address& to, const std::vector<std::uint8_t>& bytes) const {
    sockaddr_in remote{};
    remote.sin_family = AF_INET;
    remote.sin_port = htons(to.port);
    ::inet_pton(AF_INET, to.host.c_str(), &remote.sin_addr);
    (void)::sendto(fd_, bytes.data(), bytes.size(), 0, reinterpret_cast<sockaddr*>(&remote), sizeof remote);
  }

  // Every datagram waiting now.
  std::vector<std::vector<std::uint8_t>> drain() {
    std::vector<std::vector<std::uint8_t>> out;
    std::vector<std::uint8_t> buffer(2048);
    while (true) {
      const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), 0);
      if (n <= 0) break;
      out.emplace_back(buffer.begin(), buffer.begin() + n);
      bytes_received += static_cast<std::size_t>(n);
    }
    return out;
  }

  std::size_t bytes_received = 0;

 private:
  int fd_ = -1;
  bool bound_ = false;
  std::uint16_t port_ = 0;
};

// The first datagram ENet sends to open a connection, as a real client
// without validation sends it.
std::vector<std::uint8_t> capture_enet_connect() {
  RawSocket listener;
  Node client = make_node(without_validation(client_config()));
  EXPECT_TRUE(client.transport->connect(listener.address(), wall_now()).ok());
  std::vector<std::vector<std::uint8_t>> seen;
  pump_until({&client}, [&] {
    seen = listener.drain();
    return !seen.empty();
  });
  return seen.empty() ? std::vector<std::uint8_t>{} : seen.front();
}

TEST(EnetValidation, ASpoofedEnetConnectTakesNoSlotAndGetsNoAnswer) {
  const std::vector<std::uint8_t> connect = capture_enet_connect();
  ASSERT_FALSE(connect.empty());
  Node server = make_node(server_config());
  RawSocket spoofer("127.0.0.77");
  ASSERT_TRUE(spoofer.bound());
  for (int i = 0; i < 20; ++i) spoofer.send_to(server.address(), connect);
  pump_for({&server}, 300ms);
  (void)spoofer.drain();
  EXPECT_EQ(spoofer.bytes_received, 0u);
  EXPECT_TRUE(server.of_type(Type::kConnected).empty());
  const ValidationStats stats = server.transport->validation_stats();
  EXPECT_EQ(stats.connects_dropped, 20u);
  EXPECT_EQ(stats.unvalidated_bytes_out, 0u);
  // The server still has every slot: an honest client connects.
  Node honest = make_node(client_config());
  EXPECT_NE(connect_pair(server, honest).at_server, PeerId());
}

TEST(EnetValidation, AChallengeIsSmallerThanTheHelloAndReplayingItElsewhereFails) {
  Node server = make_node(server_config());
  RawSocket alice("127.0.0.1");
  RawSocket mallory("127.0.0.88");
  alice.send_to(server.address(), challenge::encode(challenge::Hello{11}));
  std::vector<std::vector<std::uint8_t>> answers;
  ASSERT_TRUE(pump_until({&server}, [&] {
    answers = alice.drain();
    return !answers.empty();
  }));
  EXPECT_LT(answers.front().size(), challenge::kHelloSize);
  const auto decoded = challenge::decode(answers.front());
  ASSERT_TRUE(decoded && std::holds_alternative<challenge::ChallengeMsg>(*decoded));
  const challenge::Cookie cookie = std::get<challenge::ChallengeMsg>(*decoded).cookie;
  mallory.send_to(server.address(), challenge::encode(challenge::Response{11, cookie, {}}));
  pump_for({&server}, 200ms);
  (void)mallory.drain();
  EXPECT_EQ(mallory.bytes_received, 0u);
  EXPECT_EQ(server.transport->validation_stats().bad_cookies, 1u);
  EXPECT_EQ(server.transport->validation_stats().admitted, 0u);
}

TEST(EnetValidation, AClientWithoutValidationCannotConnect) {
  Node server = make_node(server_config());
  EnetConfig config = without_validation(client_config());
  config.timeout = Duration::millis(300);
  Node client = make_node(config);
  auto peer = client.transport->connect(server.address(), wall_now());
  ASSERT_TRUE(peer.ok());
  ASSERT_TRUE(pump_until({&server, &client}, [&] { return client.has(Type::kDisconnected, *peer); }));
  EXPECT_EQ(client.of_type(Type::kDisconnected).front().reason, DisconnectReason::kConnectFailed);
  EXPECT_TRUE(server.of_type(Type::kConnected).empty());
  EXPECT_GE(server.transport->validation_stats().connects_dropped, 1u);
}

TEST(EnetValidation, ConnectingWhenNoServerAnswersFailsAfterTheTimeout) {
  RawSocket silent;
  EnetConfig config = client_config();
  config.timeout = Duration::millis(300);
  Node client = make_node(config);
  auto peer = client.transport->connect(silent.address(), wall_now());
  ASSERT_TRUE(peer.ok());
  ASSERT_TRUE(pump_until({&client}, [&] { return client.has(Type::kDisconnected, *peer); }));
  EXPECT_EQ(client.of_type(Type::kDisconnected).front().reason, DisconnectReason::kConnectFailed);
  // It kept asking in the meantime (the retry interval is 250 ms).
  EXPECT_GE(silent.drain().size(), 2u);
}

struct TokenServer {
  TokenKey key = TokenKey::generate();
  Node server;

  TokenServer() {
    EnetConfig config = server_config();
    config.validation.token_key = key;
    // The port is known only after binding, so the listed address is set
    // in a second transport bound to the first one's port.
    Node probe = make_node(server_config());
    const Address bound = probe.address();
    probe.transport.reset();
    config.bind = bound;
    config.validation.token_address = bound;
    server = make_node(config);
  }

  std::vector<std::uint8_t> token_for(std::uint64_t client_id, std::int64_t expires_in) const {
    const std::int64_t now =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    ConnectToken t;
    t.created_unix_seconds = now - 60;
    t.expires_unix_seconds = now + expires_in;
    t.servers = {server.address()};
    t.client_id = client_id;
    t.user_data = {7, 7};
    t.session_key = TokenKey::generate();
    auto minted = mint_connect_token(t, key);
    EXPECT_TRUE(minted.ok());
    return minted.ok() ? minted.value() : std::vector<std::uint8_t>{};
  }

  std::optional<DisconnectReason> try_connect(const std::vector<std::uint8_t>& token, Node& client) {
    EnetConfig config = client_config();
    config.validation.connect_token = token;
    // The backend hands out the session key with the token; a forged token
    // has none that the server would read.
    auto opened = open_connect_token(token, key);
    config.validation.token_session_key = opened.ok() ? opened.value().session_key : TokenKey{};
    client = make_node(config);
    auto peer = client.transport->connect(server.address(), wall_now());
    EXPECT_TRUE(peer.ok());
    pump_until({&server, &client},
               [&] { return client.has(Type::kConnected, *peer) || client.has(Type::kDisconnected, *peer); });
    if (client.has(Type::kConnected, *peer)) return std::nullopt;
    const auto ends = client.of_type(Type::kDisconnected);
    return ends.empty() ? DisconnectReason::kUnknown : ends.front().reason;
  }
};

TEST(EnetTokens, TheServerLearnsWhoConnectedFromTheToken) {
  TokenServer s;
  ASSERT_TRUE(s.server.transport);
  Node client;
  EXPECT_EQ(s.try_connect(s.token_for(31, 30), client), std::nullopt);
  ASSERT_TRUE(pump_until({&s.server, &client}, [&] { return !s.server.of_type(Type::kConnected).empty(); }));
  const TransportEvent joined = s.server.of_type(Type::kConnected).front();
  ASSERT_TRUE(joined.identity.has_value());
  EXPECT_EQ(joined.identity->client_id, 31u);
  EXPECT_EQ(joined.identity->user_data, (std::vector<std::uint8_t>{7, 7}));
}

TEST(EnetTokens, BadTokensAreDeniedWithTheirReason) {
  TokenServer s;
  ASSERT_TRUE(s.server.transport);
  Node client;
  EXPECT_EQ(s.try_connect({}, client), DisconnectReason::kTokenRequired);
  EXPECT_EQ(s.try_connect(s.token_for(1, -5), client), DisconnectReason::kTokenExpired);
  auto forged = s.token_for(1, 30);
  forged[forged.size() / 2] ^= 0x40;
  EXPECT_EQ(s.try_connect(forged, client), DisconnectReason::kTokenInvalid);
  // One token, two clients on two ports: the second is refused.
  const auto token = s.token_for(2, 30);
  Node first;
  EXPECT_EQ(s.try_connect(token, first), std::nullopt);
  Node second;
  EXPECT_EQ(s.try_connect(token, second), DisconnectReason::kTokenReused);
}

}  // namespace
}  // namespace tickwire::transport
