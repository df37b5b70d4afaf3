#pragma once
// The Transport over real UDP, built on ENet 1.3. ENet stays an
// implementation detail: none of its types appear here, so users of this
// header need neither its include path nor its library.
//
// ENet keeps its own clock (it reads the monotonic clock inside every
// service call), so the `now` arguments are accepted for the interface's
// sake; timeouts and pings run on real time.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "tickwire/core/peer_id.h"
#include "tickwire/core/result.h"
#include "tickwire/core/time.h"
#include "tickwire/transport/address.h"
#include "tickwire/transport/connect_token.h"
#include "tickwire/transport/server_identity.h"
#include "tickwire/transport/transport.h"

struct epoll_event;  // <sys/epoll.h>, needed by the source file only

namespace tickwire::transport {

// Address validation (connect_challenge.h): both ends must agree, and it is
// on by default. The limits apply on the accepting side.
struct AddressValidationConfig {
  bool enabled = true;
  // Addresses that passed the challenge but have not completed ENet's
  // connect yet, in all and per IP address. A validated address that has
  // not connected within admission_lifetime is forgotten.
  std::size_t max_pending = 256;
  std::size_t max_pending_per_host = 4;
  Duration admission_lifetime = Duration::seconds(5);
  // HELLOs answered per second, in all: the cost of a flood of them is
  // bounded, and honest clients retry.
  std::uint32_t max_challenges_per_second = 20000;
  // The connecting side resends its HELLO or RESPONSE this often until
  // answered, giving up after EnetConfig::timeout.
  Duration retry_interval = Duration::millis(250);
  // Accepting side: when set, only clients presenting a connect token that
  // opens under this key, has not expired and names token_address are let
  // in. token_address is the address the backend lists for this server.
  std::optional<TokenKey> token_key;
  std::optional<Address> token_address;
  // Connecting side: the token from the game's backend, sent with every
  // connect this transport makes; empty for a server without tokens.
  std::vector<std::uint8_t> connect_token;
  // Connecting side: the session key the backend handed out with the token
  // (ConnectToken::session_key). Required with a token: the session's keys
  // are derived from it, so only the client the backend gave the token to
  // can use it, and only the server holding the token key can answer.
  std::optional<TokenKey> token_session_key;
  // Accepting side: the key the server signs every handshake with, so that
  // clients can pin its public half. None: a fresh one for each run, which
  // no client can pin.
  std::optional<ServerIdentity> server_identity;
  // Connecting side: the server's public identity key. When set, a server
  // that cannot sign with the matching secret key is refused
  // (kServerKeyMismatch): nobody in the middle can pose as it.
  std::optional<ServerPublicKey> server_key;
};

// What address validation saw, for operators and tests. "Unvalidated"
// counts datagrams from, and answers to, addresses that had not proven
// they receive at their address: the ratio of the two is the server's
// amplification factor and is never above 1.
struct ValidationStats {
  std::uint64_t unvalidated_datagrams_in = 0;
  std::uint64_t unvalidated_bytes_in = 0;
  std::uint64_t unvalidated_bytes_out = 0;
  std::uint64_t challenges_sent = 0;
  std::uint64_t challenges_over_budget = 0;  // HELLOs dropped unanswered
  std::uint64_t bad_cookies = 0;             // RESPONSEs with a wrong or stale cookie, dropped
  std::uint64_t malformed = 0;               // challenge datagrams that did not decode
  std::uint64_t connects_dropped = 0;        // ENet connects from unvalidated addresses
  std::uint64_t admitted = 0;
  std::uint64_t denied = 0;
  std::uint64_t pending_full = 0;  // RESPONSEs left unanswered while the pending limits were reached
  std::uint64_t pending = 0;       // admitted, not yet connected, now
  std::uint64_t pending_peak = 0;
  // Datagrams from connected peers dropped before ENet for fragments no
  // honest ENet sender makes; each also closes its peer (protocol error).
  std::uint64_t hostile_datagrams = 0;
  // Datagrams dropped before any peer's state was touched, by reason: a
  // datagram that fails here can neither end, slow nor speak for a session,
  // and is never held against the peer it claims to come from.
  std::uint64_t unsealed_dropped = 0;    // neither a handshake nor a sealed datagram
  std::uint64_t unknown_connection = 0;  // names no live connection id
  std::uint64_t wrong_source = 0;        // a live connection id, from another address
  std::uint64_t failed_to_verify = 0;    // malformed, altered or forged: the tag did not verify
  std::uint64_t replayed = 0;            // verified before, or older than the replay window
  std::uint64_t foreign_slot = 0;        // verified, but naming another peer's ENet slot
};

struct EnetConfig {
  // None: a client host on an ephemeral port of every local interface.
  std::optional<Address> bind;
  // Connections in any state, incoming and outgoing together.
  std::size_t max_peers = 64;
  // How many of those may share one IP address; 0 means no cap. Off by
  // default because players behind one NAT, and every bot on loopback,
  // share an address; a public server may want a small cap such as 4.
  std::size_t max_peers_per_ip = 0;
  TransportLimits limits;
  // A peer not heard from for this long is dropped with kTimeout; a connect
  // that gets no answer for this long fails with kConnectFailed. Silence
  // is noticed only once a ping goes unanswered, so detection takes up to
  // ping_interval + timeout. ENet checks only when a retransmission is due
  // and its first one waits about 500 ms, so a connect fails no sooner.
  // Resends of a reliable message come at least every 2 x (RTT + 4
  // deviations), or every 500 ms if that is more, rather than at ENet's
  // ever-doubling intervals; this timeout is what ends the tries.
  Duration timeout = Duration::seconds(5);
  Duration ping_interval = Duration::millis(250);
  // Unreliable payloads travel as session datagrams beside ENet's (2 bytes
  // of framing instead of ENet's 10; docs/wire-format.md). Off: they go as
  // ENet unsequenced packets, for a path where only ENet's own framing may
  // pass. A receiver accepts both, so the two ends need not agree.
  bool session_datagrams = true;
  // With session datagrams (docs/
  // wire-format.md), which ENet never sees; a peer heard from that way is
  // not pinged. One ping per peer per this interval keeps ENet's round trip
  // measured (stats().rtt) and a peer that stopped answering detected.
  Duration rtt_probe_interval = Duration::seconds(1);
  // Bytes per second; 0 lets ENet assume unlimited bandwidth.
  std::uint32_t incoming_bandwidth = 0;
  std::uint32_t outgoing_bandwidth = 0;
  AddressValidationConfig validation;
  // Every datagram after the handshake is authenticated and encrypted with
  // the session's keys (docs/security.md). For debugging only, a client may
  // ask for an unencrypted session by setting this; a server admits such a
  // session only when it sets this too (otherwise kPlaintextRefused), and
  // still encrypts the sessions of clients that did not ask. Encryption
  // needs address validation: with it off, sessions are unencrypted and
  // this must be set on both ends.
  bool plaintext = false;
};

class EnetTransport final : public Transport {
 public:
  // Fails with kIo when the socket cannot be bound (the message names the
  // address and the system's reason) and with kInvalidArgument for a
  // configuration ENet cannot honour.
  static Result<std::unique_ptr<EnetTransport>> create(const EnetConfig& config);

  // Flushes queued packets and closes the socket without saying goodbye:
  // remote peers see a timeout unless disconnect() was called first.
  ~EnetTransport() override;

  // Resolves `remote` (a blocking lookup for host names) and starts the
  // handshake. ENet 1.3 speaks IPv4 only, so IPv6 hosts are refused.
  Result<PeerId> connect(const Address& remote, Time now) override;
  Result<void> send(PeerId peer, Delivery delivery, std::span<const std::uint8_t> bytes, Time now) override;
  std::optional<TransportEvent> poll(Time now) override;
  // Keeps up to a few hundred buffers (of at most a datagram's size) for
  // the datagrams received next.
  void recycle(std::vector<std::uint8_t>&& buffer) override;
  void flush(Time now) override;
  void disconnect(PeerId peer, DisconnectReason reason, Time now) override;
  std::optional<PeerStats> stats(PeerId peer) const override;
  // Counted at the socket: ENet's own totals (everything its service and
  // flush calls sent and read, acknowledgements and pings included) plus
  // the address-validation datagrams this transport sends beside ENet.
  // Never empty. A datagram of zero bytes, which ENet reads as "nothing
  // more", is not counted as received.
  std::optional<WireStats> wire_stats() const override;
  std::optional<Address> local_address() const override;
  const TransportLimits& limits() const override;

  // Blocks for at most `max_wait` until a datagram arrives, so a server
  // loop can sleep between ticks instead of spinning. Returns at once when
  // an event is already waiting. Not part of Transport: the simulated
  // network has nothing to wait for.
  void wait_for_traffic(Duration max_wait);

  // The same for many transports at once (a process running many clients):
  // blocks for at most `max_wait` until any of them has traffic, to the
  // microsecond, and fills `ready` with the indices of those that have.
  // Null entries are skipped. An error or signal only ends the wait early.
  static void wait_for_any(std::span<EnetTransport* const> transports, Duration max_wait,
                           std::vector<std::size_t>& ready);

  ValidationStats validation_stats() const;

  // The token, and the session key that came with it, sent with later
  // connects (a client refreshing its token before reconnecting).
  // Fails with kInvalidArgument over challenge::kMaxTokenSize.
  Result<void> set_connect_token(std::vector<std::uint8_t> token, const TokenKey& session_key);

  // Defined in the source file only; public so that ENet's callbacks there
  // can name it.
  struct Impl;

 private:
  friend class EnetWaitSet;
  explicit EnetTransport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// wait_for_any for a process that waits on many transports many times a
// frame (a bot fleet): the sockets stay in one epoll set between waits, so
// a wait costs the kernel what is ready, not every socket watched, as
// ppoll does. The set follows `transports` from call to call: an index
// whose transport was replaced, or became null, is re-registered. Falls
// back to wait_for_any where epoll is unavailable.
class EnetWaitSet {
 public:
  EnetWaitSet();
  ~EnetWaitSet();
  EnetWaitSet(const EnetWaitSet&) = delete;
  EnetWaitSet& operator=(const EnetWaitSet&) = delete;

  // As wait_for_any: blocks for at most `max_wait` (to the microsecond)
  // until any transport has traffic, and fills `ready` with their indices,
  // in increasing order. An error or signal only ends the wait early.
  void wait(std::span<EnetTransport* const> transports, Duration max_wait, std::vector<std::size_t>& ready);

  // Sockets in the set (for tests).
  std::size_t watched() const;

 private:
  struct Slot {
    std::uint64_t serial = 0;  // the transport registered here; 0: none
    int fd = -1;
  };
  void follow(std::span<EnetTransport* const> transports);

  int epoll_ = -1;
  std::vector<Slot> slots_;
  std::vector<std::size_t> owner_;     // by fd: the slot that registered it, or npos
  std::vector<::epoll_event> events_;  // kept between waits
};

}  // namespace tickwire::transport
