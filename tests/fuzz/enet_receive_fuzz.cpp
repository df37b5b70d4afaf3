// libFuzzer target: ENet's receive path as EnetTransport runs it, over real
// UDP on loopback. Each datagram passes the transport's intercept hook
// (address validation) and, when let through, ENet's protocol parser; what
// comes out is the transport's events. Only enet_transport.cpp may include
// ENet (tests/rules/check_includes.sh), so the datagrams are sent with
// plain POSIX sockets.
//
// Per input, afresh: two EnetTransport servers on 127.0.0.1, `guarded`
// with address validation on (the default) and `open` with it off, so that
// datagrams reach all of ENet's parser, CONNECT included; and one UDP
// socket they are sent from. Fresh hosts make an input replay the same way
// every time (ENet's first free peer slot and session ids are then known,
// which is what lets a seed complete ENet's handshake by itself), and keep
// state from growing across inputs.
//
// The input is records (transport_records.h):
//   target  1 byte   bit 0: 0 guarded, 1 open; the other bits are ignored
//   length  2 bytes  little endian, clamped to what is left
//   bytes   length bytes: one datagram
// After each datagram both transports are polled until they have no event
// (at most kMaxPolls each), and the socket is drained. Nothing blocks:
// the socket is nonblocking and a poll never waits.
//
// Invariants: `guarded` raises no event at all (the socket never sees its
// cookie, so it can neither connect nor send) and, over the whole input,
// sends the socket no more bytes than the socket sent it; its validation
// stats never show more bytes out than in, or an admission. `open`
// reports kConnected once per new peer, from the socket's address, never
// more peers than max_peers at once, data only from connected peers and
// within TransportLimits for its delivery, and kDisconnected only for a
// connected peer.
//
// Limit: the system's libenet is not instrumented, so libFuzzer gets no
// coverage feedback from inside ENet (it steers by the hook and the
// transport's event handling only) and ASan sees only memory that crosses
// into our code. A crash inside ENet still ends the run.

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <span>

#include "fuzz_check.h"
#include "tickwire/transport/enet_transport.h"
#include "transport_records.h"

namespace {

using namespace tickwire;
using namespace tickwire::transport;

constexpr int kMaxPolls = 64;
constexpr int kMaxDrain = 256;
constexpr std::size_t kMaxPeers = 4;
constexpr Time kNow{};  // EnetTransport runs on ENet's own clock

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  const std::array<std::uint8_t, 2> port_bytes{static_cast<std::uint8_t>(port >> 8), static_cast<std::uint8_t>(port)};
  const std::array<std::uint8_t, 4> ip{127, 0, 0, 1};
  std::memcpy(&a.sin_port, port_bytes.data(), port_bytes.size());
  std::memcpy(&a.sin_addr, ip.data(), ip.size());
  return a;
}

std::uint16_t port_of(const sockaddr_in& a) {
  std::array<std::uint8_t, 2> bytes{};
  std::memcpy(bytes.data(), &a.sin_port, bytes.size());
  return static_cast<std::uint16_t>((bytes[0] << 8) | bytes[1]);
}

// A nonblocking UDP socket on 127.0.0.1, an ephemeral port.
class UdpSocket {
 public:
  UdpSocket() : fd_(::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) {
    sockaddr_in a = loopback(0);
    socklen_t length = sizeof a;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &length) != 0) {
      return;
    }
    port_ = port_of(a);
  }
  ~UdpSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  UdpSocket(const UdpSocket&) = delete;
  UdpSocket& operator=(const UdpSocket&) = delete;

  std::uint16_t port() const { return port_; }

  void send_to(std::uint16_t port, std::span<const std::uint8_t> bytes) const {
    const sockaddr_in to = loopback(port);
    // Loopback drops nothing short of a full buffer; a lost datagram is
    // one the servers did not see, which breaks no invariant.
    (void)::sendto(fd_, bytes.data(), bytes.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
  }

  // Reads what has arrived, returning the bytes that came from `port`.
  std::size_t drain_from(std::uint16_t port) const {
    std::array<std::uint8_t, 4096> buffer{};
    std::size_t total = 0;
    for (int i = 0; i < kMaxDrain; ++i) {
      sockaddr_in from{};
      socklen_t length = sizeof from;
      const ssize_t n = ::recvfrom(fd_, buffer.data(), buffer.size(), 0, reinterpret_cast<sockaddr*>(&from), &length);
      if (n < 0) break;
      if (port_of(from) == port) total += static_cast<std::size_t>(n);
    }
    return total;
  }

 private:
  int fd_;
  std::uint16_t port_ = 0;
};

struct Server {
  std::unique_ptr<EnetTransport> transport;
  std::uint16_t port = 0;
  std::set<PeerId> connected;
};

Server make_server(bool validation) {
  EnetConfig config;
  config.bind = Address{"127.0.0.1", 0};
  config.max_peers = kMaxPeers;
  config.timeout = Duration::millis(500);
  config.ping_interval = Duration::millis(100);
  config.validation.enabled = validation;
  config.plaintext = !validation;  // without validation there are no keys
  auto created = EnetTransport::create(config);
  // Only a system out of sockets fails here; say so rather than fuzz nothing.
  TICKWIRE_FUZZ_CHECK(created.ok());
  Server server;
  server.transport = std::move(created.value());
  const auto address = server.transport->local_address();
  TICKWIRE_FUZZ_CHECK(address.has_value() && address->port != 0);
  server.port = address->port;
  return server;
}

void check_guarded(const Server& guarded) {
  // One poll reads everything waiting; with no event to return it comes
  // back empty.
  TICKWIRE_FUZZ_CHECK(!guarded.transport->poll(kNow).has_value());
  const ValidationStats stats = guarded.transport->validation_stats();
  TICKWIRE_FUZZ_CHECK(stats.unvalidated_bytes_out <= stats.unvalidated_bytes_in);
  TICKWIRE_FUZZ_CHECK(stats.admitted == 0 && stats.pending == 0);
}

void check_open(Server& open, std::uint16_t client_port) {
  const TransportLimits& limits = open.transport->limits();
  for (int i = 0; i < kMaxPolls; ++i) {
    const auto event = open.transport->poll(kNow);
    if (!event) break;
    switch (event->type) {
      case TransportEvent::Type::kConnected:
        TICKWIRE_FUZZ_CHECK(open.connected.insert(event->peer).second);
        TICKWIRE_FUZZ_CHECK(open.connected.size() <= kMaxPeers);
        TICKWIRE_FUZZ_CHECK(event->address.host == "127.0.0.1" && event->address.port == client_port);
        TICKWIRE_FUZZ_CHECK(!event->identity.has_value());
        break;
      case TransportEvent::Type::kReceived:
        TICKWIRE_FUZZ_CHECK(open.connected.contains(event->peer));
        TICKWIRE_FUZZ_CHECK(event->data.size() <= (event->delivery == Delivery::kReliableOrdered
                                                       ? limits.max_reliable_payload
                                                       : limits.max_unreliable_payload));
        break;
      case TransportEvent::Type::kDisconnected: TICKWIRE_FUZZ_CHECK(open.connected.erase(event->peer) == 1); break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Declared first so it closes last, after the servers' final flush:
  // nothing sent to it can outlive the input.
  const UdpSocket socket;
  TICKWIRE_FUZZ_CHECK(socket.port() != 0);
  Server guarded = make_server(true);
  Server open = make_server(false);

  std::size_t to_guarded = 0;
  std::size_t from_guarded = 0;
  fuzz::EnetRecordReader reader(std::span<const std::uint8_t>(data, size));
  while (const auto record = reader.next()) {
    const Server& target = record->open ? open : guarded;
    socket.send_to(target.port, record->bytes);
    if (!record->open) to_guarded += record->bytes.size();
    check_guarded(guarded);
    check_open(open, socket.port());
    from_guarded += socket.drain_from(guarded.port);
    TICKWIRE_FUZZ_CHECK(from_guarded <= to_guarded);
  }
  return 0;
}
