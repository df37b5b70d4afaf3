#pragma once
// The network as an interface. Two implementations keep the same promises:
// EnetTransport over real UDP, and SimNetwork's endpoints in memory with
// stepped time for deterministic tests of every layer above.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tickwire/core/peer_id.h"
#include "tickwire/core/result.h"
#include "tickwire/core/time.h"
#include "tickwire/transport/address.h"

namespace tickwire::transport {

// Control messages (handshake, disconnect) travel reliable and ordered;
// inputs and snapshots travel unreliable, since a late one is worthless.
enum class Delivery : std::uint8_t { kReliableOrdered, kUnreliable };

// Why a connection ended. Carried on the wire as a 32-bit code, so a peer
// may send any value: unknown codes decode as kUnknown.
enum class DisconnectReason : std::uint32_t {
  kUnknown = 0,
  kRequested = 1,  // the peer asked to leave
  kTimeout = 2,    // nothing heard for too long
  kServerShuttingDown = 3,
  kVersionMismatch = 4,
  kFingerprintMismatch = 5,  // same version, different game schema ("game schema mismatch")
  kServerFull = 6,
  kProtocolError = 7,     // the peer sent bytes we could not accept
  kHandshakeTimeout = 8,  // connected at transport level, never said hello
  kKicked = 9,
  kConnectFailed = 10,  // could not reach the remote host
  kFlooding = 11,       // sent far more packets than any honest client
  kTokenInvalid = 12,   // the connect token did not open with the server's key or names another server
  kTokenExpired = 13,
  kTokenReused = 14,         // the token was already used from another address
  kTooManyConnections = 15,  // too many connections or pending connects from one address, or in all
  kTokenRequired = 16,       // the server admits only clients with a connect token
  kCodebookMismatch = 17,    // same version and schema, another snapshot codebook (or one end without)
  kServerKeyMismatch = 18,   // the server could not prove it holds the identity key the client pinned
  kPlaintextRefused = 19,    // the client asked for an unencrypted session; the server allows none
};

// The highest enumerator: every value from kUnknown to it is a reason.
inline constexpr DisconnectReason kLastDisconnectReason = DisconnectReason::kPlaintextRefused;

// A phrase for logs and players ("server full"); kUnknown, and a value no
// enumerator has, read "unknown reason".
const char* to_string(DisconnectReason reason);
DisconnectReason disconnect_reason_from_wire(std::uint32_t code);

// Who a connect token says the peer is (see connect_token.h).
struct PeerIdentity {
  std::uint64_t client_id = 0;
  std::vector<std::uint8_t> user_data;
};

struct TransportEvent {
  enum class Type : std::uint8_t { kConnected, kReceived, kDisconnected };
  Type type = Type::kReceived;
  PeerId peer;
  Address address;                                       // kConnected
  std::optional<PeerIdentity> identity;                  // kConnected, when the peer presented a token
  Delivery delivery = Delivery::kUnreliable;             // kReceived
  std::vector<std::uint8_t> data;                        // kReceived
  DisconnectReason reason = DisconnectReason::kUnknown;  // kDisconnected
};

struct PeerStats {
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t packets_sent = 0;
  std::uint64_t packets_received = 0;
  Duration rtt;  // the transport's own estimate
  Duration rtt_variance;
  double packet_loss = 0.0;  // fraction in [0, 1], the transport's estimate
};

// What crossed the transport's socket, counted where a packet capture would
// see it: every UDP datagram sent and received and its UDP payload, so the
// transport's own headers, acknowledgements, pings and handshake are in it
// beside the game's bytes. IP and UDP headers are not: a capture of IPv4
// sees kIpv4UdpHeaderBytes more per datagram (and its link layer's framing).
struct WireStats {
  std::uint64_t datagrams_sent = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t datagrams_received = 0;
  std::uint64_t bytes_received = 0;
};

inline constexpr std::uint64_t kIpv4UdpHeaderBytes = 28;  // 20 for IPv4 without options, 8 for UDP

struct TransportLimits {
  // Largest unreliable payload; larger sends are refused with kTooLarge,
  // never silently turned reliable or fragmented.
  std::size_t max_unreliable_payload = 1200;
  // Largest reliable message either way; larger ones are refused on send
  // and a peer that sends one is disconnected.
  std::size_t max_reliable_payload = 16 * 1024;
};

class Transport {
 public:
  virtual ~Transport() = default;
  Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // Starts connecting; a kConnected (or kDisconnected with kConnectFailed)
  // event follows from poll().
  virtual Result<PeerId> connect(const Address& remote, Time now) = 0;

  // Queues bytes for a peer. Fails with kTooLarge over the limits and with
  // kNotConnected for an unknown peer; never blocks.
  virtual Result<void> send(PeerId peer, Delivery delivery, std::span<const std::uint8_t> bytes, Time now) = 0;

  // Moves time forward to `now`, sends what is queued and returns the next
  // event, if any. Call until it returns nothing, once per frame or tick.
  virtual std::optional<TransportEvent> poll(Time now) = 0;

  // Gives back the data of an event poll() returned, once read, for a
  // later event to take instead of allocating its own: a server receiving
  // a datagram from each of hundreds of clients a tick then allocates
  // nothing per datagram. Optional: a buffer not given back is freed with
  // its event, which is all the default does.
  virtual void recycle(std::vector<std::uint8_t>&& /*buffer*/) {}

  // Sends what is queued without waiting (for shutdown).
  virtual void flush(Time now) = 0;

  // Ends a connection; the peer sees kDisconnected with this reason. This
  // side sees no event for it.
  virtual void disconnect(PeerId peer, DisconnectReason reason, Time now) = 0;

  virtual std::optional<PeerStats> stats(PeerId peer) const = 0;
  // Totals since creation, over every peer; nothing from a transport with
  // no socket of its own (SimNetwork models its wire in SimNetwork::stats).
  virtual std::optional<WireStats> wire_stats() const { return std::nullopt; }
  virtual std::optional<Address> local_address() const = 0;
  virtual const TransportLimits& limits() const = 0;
};

}  // namespace tickwire::transport
