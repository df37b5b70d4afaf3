#pragma once
// EnetTransport's state, shared by its source files: enet_transport.cpp
// (the public calls and ENet's servicing), enet_transport_peers.cpp
// (connections and address validation) and enet_transport_stats.cpp (the
// figures). ENet's types are only named here, never defined, so this
// header does not include <enet/enet.h>.

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "address_validator.h"
#include "challenge_client.h"
#include "sealed_channel.h"
#include "tickwire/transport/enet_transport.h"

typedef struct _ENetAddress ENetAddress;  // NOLINT(modernize-use-using): ENet's own spelling
typedef struct _ENetHost ENetHost;        // NOLINT(modernize-use-using)
typedef struct _ENetPeer ENetPeer;        // NOLINT(modernize-use-using)
typedef struct _ENetPacket ENetPacket;    // NOLINT(modernize-use-using)
typedef struct _ENetEvent ENetEvent;      // NOLINT(modernize-use-using)

namespace tickwire::transport {

namespace enet_detail {

// Channel 0 carries reliable-ordered messages. Channel 1 carries unreliable
// ones flagged UNSEQUENCED rather than plain unreliable: ENet's unreliable
// sequencing silently drops packets older than the newest, which hides
// reordering from the layers above (they carry their own sequence numbers
// and ticks and want to see the truth), and after 65535 unreliable sends
// without a reliable one on the channel ENet would quietly send the next
// one reliably. Unsequenced packets never take that path.
inline constexpr std::uint8_t kReliableChannel = 0;
inline constexpr std::uint8_t kUnreliableChannel = 1;
inline constexpr std::size_t kChannelCount = 2;

std::uint32_t to_enet_millis(Duration d);
void* id_to_data(PeerId id);
PeerId data_to_id(const void* data);
// A remote disconnect with data 0 is how ENet reports a timeout, so a
// deliberate disconnect must never send 0 (kUnknown).
std::uint32_t wire_code(DisconnectReason reason);
TransportEvent make_event(TransportEvent::Type type, PeerId peer);
TransportEvent disconnected_event(PeerId peer, DisconnectReason reason);
Address from_enet_address(const ENetAddress& address);
Endpoint endpoint_of(const ENetAddress& address);
// ENet keeps its own clock; validation runs on the same kind of time.
Time monotonic_now();

// A session datagram opens with ENet's 16-bit peer header (flag, session,
// peer id); the payload follows (enet_session_datagrams.cpp).
inline constexpr std::size_t kSessionHeaderBytes = 2;
bool is_session_datagram(std::span<const std::uint8_t> datagram);

// The peer slot an ENet datagram is addressed to (its header's peer id).
std::size_t peer_slot_of(std::span<const std::uint8_t> datagram);
// True for an ENet datagram that names no peer: a CONNECT, or the goodbye
// of a peer whose connect never completed. Only these can make ENet
// allocate a peer or answer a source it does not know.
bool addressed_to_no_peer(std::span<const std::uint8_t> datagram);
// A datagram sent as ENet's own unix.c sends it (enet_sealing.cpp), from
// `count` ENetBuffers (laid out as iovecs).
int send_plain(int socket, const ENetAddress* address, const void* buffers, std::size_t count);

}  // namespace enet_detail

std::uint64_t next_serial();

// The transport whose ENet host this thread is driving. ENet's hooks (the
// intercept on every datagram read, and the socket send it calls for every
// datagram it writes) carry no user pointer; whatever calls into ENet opens
// a scope naming the transport, and scopes nest.
class ActiveTransport {
 public:
  explicit ActiveTransport(EnetTransport::Impl& impl);
  ~ActiveTransport();
  ActiveTransport(const ActiveTransport&) = delete;
  ActiveTransport& operator=(const ActiveTransport&) = delete;
  static EnetTransport::Impl* current();

 private:
  EnetTransport::Impl* outer_;
};

// First in, first out, keeping its storage: events come and go every tick,
// and a std::deque gives a block back (and takes a new one) each time its
// ends pass one.
class EventQueue {
 public:
  bool empty() const { return head_ == events_.size(); }
  void push_back(TransportEvent event) { events_.push_back(std::move(event)); }
  TransportEvent pop_front() {
    TransportEvent out = std::move(events_[head_++]);
    if (head_ == events_.size()) {
      events_.clear();
      head_ = 0;
    } else if (head_ >= kCompactAt && 2 * head_ >= events_.size()) {
      // Never quite empty: drop the taken front now and then.
      events_.erase(events_.begin(), events_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    return out;
  }

 private:
  static constexpr std::size_t kCompactAt = 256;
  std::vector<TransportEvent> events_;
  std::size_t head_ = 0;
};

struct EnetTransport::Impl {
  struct PeerRecord {
    ENetPeer* peer = nullptr;
    Address address;
    Endpoint endpoint;
    bool connected = false;  // the kConnected event was delivered
    bool closing = false;    // we disconnected it: its remaining events are ours to swallow
    PeerStats counters;
    bool probed = false;           // a round-trip probe went out
    std::uint32_t last_probe = 0;  // ENet's clock, milliseconds
    std::uint32_t connection_id = 0;  // its sealed session's; 0 without address validation
  };
  // A sealed session (enet_sealing.cpp): from the handshake that agreed its
  // keys until ENet gives its peer back.
  struct Session {
    SealedChannel channel;
    Endpoint endpoint;
    PeerId peer;  // unset on a server until ENet's connect completes
  };
  // Datagrams dropped before any peer's state was touched, by reason.
  struct SealDrops {
    std::uint64_t unsealed = 0;            // neither a challenge nor a sealed datagram
    std::uint64_t unknown_connection = 0;  // names no live connection id
    std::uint64_t wrong_source = 0;        // a live id, from another address
    std::uint64_t failed_to_verify = 0;    // malformed, altered, forged
    std::uint64_t replayed = 0;            // a packet number seen before or behind the window
    std::uint64_t foreign_slot = 0;        // a verified ENet datagram naming another peer's slot
    std::uint64_t unsent = 0;              // ENet sent to an address with no session
  };
  struct SessionOut {
    PeerId peer;
    std::vector<std::uint8_t> bytes;
  };
  struct SessionStats {
    std::uint64_t received = 0;
    std::uint64_t dropped = 0;  // no such connected peer, another address or session, over the limit
  };

  EnetConfig config;
  ENetHost* host = nullptr;
  // Unique over the process's life, never 0: tells a transport from a
  // later one that reuses its address or its socket's number.
  std::uint64_t serial = next_serial();
  std::uint32_t next_id = 1;  // 0 is the default PeerId, never handed out
  std::unordered_map<PeerId, PeerRecord> peers;
  // Address validation; both unset when it is off.
  std::optional<AddressValidator> validator;
  std::optional<ChallengeClient> challenger;
  std::unordered_map<std::uint64_t, std::size_t> peers_at_endpoint;  // by Endpoint::key
  std::unordered_map<std::uint32_t, std::size_t> peers_at_host;
  EventQueue queued;  // events decided outside ENet's own
  // Data buffers given back (EnetTransport::recycle), for the datagrams
  // received next; each kept empty, with its capacity.
  std::vector<std::vector<std::uint8_t>> spare_buffers;
  // A received payload's copy, in a spare buffer when there is one.
  std::vector<std::uint8_t> copy_of(std::span<const std::uint8_t> bytes) {
    std::vector<std::uint8_t> out;
    if (!spare_buffers.empty()) {
      out = std::move(spare_buffers.back());
      spare_buffers.pop_back();
    }
    out.assign(bytes.begin(), bytes.end());
    return out;
  }
  ChallengeClient::Actions actions;  // scratch, reused
  std::vector<PeerId> hostile;       // peers the fragment guard caught, closed after servicing
  std::uint64_t hostile_datagrams = 0;
  Time next_expiry;
  std::uint32_t last_resend_sweep = 0;  // ENet's clock, milliseconds
  // Everything that crossed the socket: ENet's own totals, folded in by
  // fold_wire_counters(), plus the challenge datagrams sent beside ENet.
  WireStats wire;
  // Unreliable payloads waiting for the next flush: the first session_queued
  // entries. Entries are kept and refilled, so a server sending every client
  // a snapshot each tick stops allocating here once warm.
  std::vector<SessionOut> session_out;
  std::size_t session_queued = 0;
  // One sendmmsg's worth of them, built in place (kept between flushes).
  struct SessionBatch {
    std::vector<mmsghdr> messages;
    std::vector<iovec> pieces;  // two per message: session header, payload
    std::vector<sockaddr_in> to;
    std::vector<std::uint8_t> heads;  // kSessionHeaderBytes per message
    std::vector<std::vector<std::uint8_t>> sealed;  // one sealed datagram per message, kept
  } session_batch;
  SessionStats session_stats;
  // Sealed sessions, by connection id, and the newest one at each address
  // (ENet names only the address when it sends).
  std::unordered_map<std::uint32_t, Session> sessions;
  std::unordered_map<std::uint64_t, std::uint32_t> session_at;  // by Endpoint::key
  SealDrops seal_drops;
  std::uint64_t enet_sends_sealed = 0;  // ENet's datagrams that went through the seal
  std::vector<std::uint8_t> opened;     // the ENet datagram last opened, for ENet to parse
  std::vector<std::uint8_t> gathered;   // scratch: ENet's pieces of one datagram
  std::vector<std::uint8_t> sealed;     // scratch: one sealed datagram

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl();

  // enet_transport_peers.cpp: connections.
  PeerRecord* find_open(PeerId id);
  const PeerRecord* find_open(PeerId id) const;
  PeerId adopt(ENetPeer* peer, bool connected, std::optional<PeerId> known = std::nullopt);
  void release(PeerId id);
  void forget_address(Endpoint endpoint);
  void close(PeerId id, DisconnectReason reason);
  std::optional<TransportEvent> on_connect(ENetPeer* peer);
  std::optional<TransportEvent> on_receive(ENetPeer* peer, std::uint8_t channel, ENetPacket* packet);
  std::optional<TransportEvent> on_disconnect(ENetPeer* peer, std::uint32_t data);
  std::optional<TransportEvent> translate(const ENetEvent& event);

  // enet_transport_peers.cpp: address validation and the datagram guard.
  void send_raw(Endpoint to, std::span<const std::uint8_t> bytes);
  bool may_reach_connect_path(Endpoint from, Time now) const;
  // ENet's intercept hook, called for every datagram ENet reads. Returns 1
  // when the datagram was handled here and ENet must not see it.
  int intercept(std::span<const std::uint8_t> datagram, Endpoint from);
  int guard_fragments(std::span<const std::uint8_t> datagram, Endpoint from);
  void close_hostile();
  void on_challenge_datagram(std::span<const std::uint8_t> datagram, Endpoint from);
  void run_challenge_actions();
  void drive_validation();

  // enet_session_datagrams.cpp: unreliable payloads beside ENet.
  void queue_session_datagram(PeerId id, std::span<const std::uint8_t> bytes);
  void send_session_datagrams();
  void send_batch(std::size_t n);  // the first n of session_batch
  std::size_t seal_for(const PeerRecord& record, std::span<const std::uint8_t> payload,
                       std::vector<std::uint8_t>& storage, iovec* piece);
  int on_session_datagram(std::span<const std::uint8_t> datagram, Endpoint from);
  void probe_round_trips();

  // enet_sealing.cpp: sealed sessions.
  bool sealing() const { return validator.has_value(); }
  void open_session(const SessionParams& params, Endpoint endpoint, PeerId peer);
  void close_session(std::uint32_t connection_id);
  void drop_stale_sessions();
  Session* session_to(Endpoint endpoint);
  int on_sealed_datagram(std::span<const std::uint8_t> datagram, Endpoint from);
  int accept_opened_enet(Session& session, Endpoint from);
  void deliver_session_payload(PeerId id, std::span<const std::uint8_t> payload);
  // ENet's own datagrams, sealed on their way out (the socket send ENet calls).
  int send_enet_sealed(Endpoint to, std::span<const std::uint8_t> datagram);
  void flush_enet();

  // enet_transport_stats.cpp: moves ENet's 32-bit totals into `wire` and
  // zeroes them, as ENet asks its users to before they overflow.
  void fold_wire_counters();
};

}  // namespace tickwire::transport
