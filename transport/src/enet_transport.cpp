#include "tickwire/transport/enet_transport.h"

#include <enet/enet.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <limits>
#include <string>
#include <system_error>
#include <unordered_map>
#include <utility>

#include "address_validator.h"
#include "challenge_client.h"
#include "enet_guard.h"
#include "enet_resend.h"

namespace tickwire::transport {
namespace {

// Channel 0 carries reliable-ordered messages. Channel 1 carries unreliable
// ones flagged UNSEQUENCED rather than plain unreliable: ENet's unreliable
// sequencing silently drops packets older than the newest, which hides
// reordering from the layers above (they carry their own sequence numbers
// and ticks and want to see the truth), and after 65535 unreliable sends
// without a reliable one on the channel ENet would quietly send the next
// one reliably. Unsequenced packets never take that path.
constexpr enet_uint8 kReliableChannel = 0;
constexpr enet_uint8 kUnreliableChannel = 1;
constexpr std::size_t kChannelCount = 2;

// maximumPacketSize bounds what ENet will reassemble from the wire. It sits
// a little above our own limit so that a peer breaking the limit by a small
// margin reaches us and is disconnected with kProtocolError; anything
// larger is discarded by ENet before it allocates for it.
constexpr std::size_t kPacketSizeSlack = 1024;
// maximumWaitingData bounds the bytes one peer may keep buffered in ENet
// (out-of-order reliable data and fragments in reassembly). ENet's default
// is 32 MiB per peer, which lets a handful of hostile peers pin a lot of
// server memory; 64 KiB is plenty for game traffic, raised only when the
// reliable limit itself needs more room to reassemble one message.
constexpr std::size_t kMinWaitingData = 64 * 1024;

// ENet's own default for duplicatePeers: no cap below the peer id space.
constexpr std::size_t kNoPeerCap = ENET_PROTOCOL_MAXIMUM_PEER_ID;

constexpr std::uint32_t kMaxEnetMillis = std::numeric_limits<std::uint32_t>::max();
// A longer wait for many transports is cut to an hour; the caller loops.
constexpr std::int64_t kMaxWaitAnyMicros = 3'600'000'000;

// Largest payload ENet sends as one command at this MTU. Anything larger
// ENet fragments, and unreliable fragments turn reliable unless flagged
// otherwise, so unreliable payloads must stay at or below this.
std::size_t single_command_payload(std::size_t mtu) {
  return mtu - sizeof(ENetProtocolHeader) - sizeof(ENetProtocolSendFragment);
}

enet_uint32 to_enet_millis(Duration d) {
  const std::int64_t ms = std::clamp<std::int64_t>(d.micros() / 1000, 1, kMaxEnetMillis);
  return static_cast<enet_uint32>(ms);
}

void* id_to_data(PeerId id) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(id.value())); }

PeerId data_to_id(const void* data) {
  return PeerId(static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(data)));
}

// A remote disconnect with data 0 is how ENet reports a timeout, so a
// deliberate disconnect must never send 0 (kUnknown).
enet_uint32 wire_code(DisconnectReason reason) {
  if (reason == DisconnectReason::kUnknown) reason = DisconnectReason::kRequested;
  return static_cast<enet_uint32>(reason);
}

TransportEvent make_event(TransportEvent::Type type, PeerId peer) {
  TransportEvent event;
  event.type = type;
  event.peer = peer;
  return event;
}

TransportEvent disconnected_event(PeerId peer, DisconnectReason reason) {
  TransportEvent event = make_event(TransportEvent::Type::kDisconnected, peer);
  event.reason = reason;
  return event;
}

Address from_enet_address(const ENetAddress& address) {
  char text[64] = {};
  if (enet_address_get_host_ip(&address, text, sizeof(text)) != 0) text[0] = '\0';
  return Address{text, address.port};
}

Result<ENetAddress> to_enet_address(const Address& address) {
  if (address.host.find(':') != std::string::npos) {
    return make_error(ErrorCode::kInvalidArgument,
                      "ENet transport speaks IPv4 only; cannot use " + address.to_string());
  }
  ENetAddress out{};
  out.port = address.port;
  if (enet_address_set_host(&out, address.host.c_str()) != 0) {
    return make_error(ErrorCode::kIo, "cannot resolve host '" + address.host + "' to an IPv4 address");
  }
  return out;
}

Endpoint endpoint_of(const ENetAddress& address) { return Endpoint{address.host, address.port}; }

ENetAddress enet_address_of(Endpoint endpoint) {
  ENetAddress address{};
  address.host = endpoint.host;
  address.port = endpoint.port;
  return address;
}

// ENet keeps its own clock; validation runs on the same kind of time.
Time monotonic_now() {
  const auto since = std::chrono::steady_clock::now().time_since_epoch();
  return Time::from_micros(std::chrono::duration_cast<std::chrono::microseconds>(since).count());
}

std::int64_t unix_now() {
  const auto since = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::seconds>(since).count();
}

// True for an ENet datagram that names no peer: a CONNECT, or the goodbye
// of a peer whose connect never completed. Only these can make ENet
// allocate a peer or answer a source it does not know.
// The peer slot an ENet datagram is addressed to (its header's peer id).
std::size_t peer_id_of(std::span<const std::uint8_t> datagram) {
  if (datagram.size() < 2) return ENET_PROTOCOL_MAXIMUM_PEER_ID;
  const auto header = static_cast<std::uint16_t>((datagram[0] << 8) | datagram[1]);
  constexpr unsigned kNotPeerBits = ENET_PROTOCOL_HEADER_FLAG_MASK | ENET_PROTOCOL_HEADER_SESSION_MASK;
  return header & ~kNotPeerBits & 0xFFFFu;
}

bool addressed_to_no_peer(std::span<const std::uint8_t> datagram) {
  return datagram.size() >= 2 && peer_id_of(datagram) == ENET_PROTOCOL_MAXIMUM_PEER_ID;
}

// ENet allocates reassembly buffers without clearing them, so a message
// whose fragments did not cover it would carry stale heap bytes. The
// fragment guard refuses such fragments; zeroed memory is the second line.
void* ENET_CALLBACK zeroed_malloc(size_t size) { return std::calloc(1, size); }

Result<void> initialize_enet() {
  // A no-op on Unix and reference counted (WSAStartup) on Windows. It is
  // never undone: other transports may still be alive at any destructor.
  static const int result = [] {
    ENetCallbacks callbacks{};
    callbacks.malloc = zeroed_malloc;
    callbacks.free = std::free;
    return enet_initialize_with_callbacks(ENET_VERSION, &callbacks);
  }();
  if (result != 0) return make_error(ErrorCode::kIo, "enet_initialize failed");
  return {};
}

}  // namespace

struct EnetTransport::Impl {
  struct PeerRecord {
    ENetPeer* peer = nullptr;
    Address address;
    Endpoint endpoint;
    bool connected = false;  // the kConnected event was delivered
    bool closing = false;    // we disconnected it: its remaining events are ours to swallow
    PeerStats counters;
  };

  EnetConfig config;
  ENetHost* host = nullptr;
  std::uint32_t next_id = 1;  // 0 is the default PeerId, never handed out
  std::unordered_map<PeerId, PeerRecord> peers;
  // Address validation; both unset when it is off.
  std::optional<AddressValidator> validator;
  std::optional<ChallengeClient> challenger;
  std::unordered_map<std::uint64_t, std::size_t> peers_at_endpoint;  // by Endpoint::key
  std::unordered_map<std::uint32_t, std::size_t> peers_at_host;
  std::deque<TransportEvent> queued;  // events decided outside ENet's own
  ChallengeClient::Actions actions;   // scratch, reused
  std::vector<PeerId> hostile;        // peers the fragment guard caught, closed after servicing
  std::uint64_t hostile_datagrams = 0;
  Time next_expiry;
  enet_uint32 last_resend_sweep = 0;  // ENet's clock, milliseconds

  ~Impl() {
    if (host == nullptr) return;
    enet_host_flush(host);
    enet_host_destroy(host);
  }

  PeerRecord* find_open(PeerId id) {
    const auto it = peers.find(id);
    if (it == peers.end() || it->second.closing) return nullptr;
    return &it->second;
  }

  // ENet reuses ENetPeer slots, so a slot is tagged with our id and the tag
  // cleared whenever the slot is given back; ids only ever grow. (Four
  // billion connections would wrap it; no process lives that long.)
  PeerId adopt(ENetPeer* peer, bool connected, std::optional<PeerId> known = std::nullopt) {
    const PeerId id = known.value_or(PeerId(next_id++));
    peer->data = id_to_data(id);
    const Endpoint endpoint = endpoint_of(peer->address);
    ++peers_at_endpoint[endpoint.key()];
    ++peers_at_host[endpoint.host];
    enet_peer_timeout(peer, ENET_PEER_TIMEOUT_LIMIT, to_enet_millis(config.timeout), to_enet_millis(config.timeout));
    enet_peer_ping_interval(peer, to_enet_millis(config.ping_interval));
    PeerRecord record;
    record.peer = peer;
    record.address = from_enet_address(peer->address);
    record.endpoint = endpoint;
    record.connected = connected;
    peers.emplace(id, std::move(record));
    return id;
  }

  void release(PeerId id) {
    const auto it = peers.find(id);
    if (it == peers.end()) return;
    it->second.peer->data = nullptr;
    forget_address(it->second.endpoint);
    peers.erase(it);
  }

  void forget_address(Endpoint endpoint) {
    if (const auto e = peers_at_endpoint.find(endpoint.key()); e != peers_at_endpoint.end() && --e->second == 0) {
      peers_at_endpoint.erase(e);
    }
    if (const auto h = peers_at_host.find(endpoint.host); h != peers_at_host.end() && --h->second == 0) {
      peers_at_host.erase(h);
    }
  }

  // Graceful disconnect. The record stays (marked closing) until ENet hands
  // the slot back with a disconnect event, which is then swallowed.
  void close(PeerId id, DisconnectReason reason) {
    if (challenger && challenger->pending(id)) {
      challenger->cancel(id);  // nothing was allocated on the server yet
      return;
    }
    PeerRecord* record = find_open(id);
    if (record == nullptr) return;
    // A peer dropped for its silence is not listening: say why once and
    // free its slot now, instead of holding it for as long as ENet would
    // wait for an acknowledgement that is not coming.
    if (reason == DisconnectReason::kTimeout) {
      ENetPeer* peer = record->peer;
      release(id);
      enet_peer_disconnect_now(peer, wire_code(reason));
      return;
    }
    record->closing = true;
    enet_peer_disconnect(record->peer, wire_code(reason));
    // A peer not yet connected is reset on the spot, with no event to come.
    if (record->peer->state == ENET_PEER_STATE_DISCONNECTED) release(id);
  }

  std::optional<TransportEvent> on_connect(ENetPeer* peer) {
    const PeerId known = data_to_id(peer->data);
    if (known != PeerId()) {
      PeerRecord* record = find_open(known);
      if (record == nullptr) return std::nullopt;
      record->connected = true;
      record->address = from_enet_address(peer->address);
      TransportEvent event = make_event(TransportEvent::Type::kConnected, known);
      event.address = record->address;
      return event;
    }
    // Incoming. ENet grants min(requested, our limit) channels; a peer that
    // asked for fewer than ours could not receive on channel 1.
    if (peer->channelCount < kChannelCount) {
      enet_peer_disconnect(peer, wire_code(DisconnectReason::kProtocolError));
      return std::nullopt;
    }
    const PeerId id = adopt(peer, true);
    TransportEvent event = make_event(TransportEvent::Type::kConnected, id);
    event.address = peers.at(id).address;
    if (validator) event.identity = validator->take(endpoint_of(peer->address));
    return event;
  }

  std::optional<TransportEvent> on_receive(ENetPeer* peer, enet_uint8 channel, ENetPacket* packet) {
    const PeerId id = data_to_id(peer->data);
    PeerRecord* record = find_open(id);
    if (record == nullptr || !record->connected) {
      enet_packet_destroy(packet);
      return std::nullopt;
    }
    const bool reliable = (packet->flags & ENET_PACKET_FLAG_RELIABLE) != 0;
    bool valid = false;
    Delivery delivery = Delivery::kUnreliable;
    if (channel == kReliableChannel && reliable) {
      delivery = Delivery::kReliableOrdered;
      valid = packet->dataLength <= config.limits.max_reliable_payload;
    } else if (channel == kUnreliableChannel && !reliable) {
      valid = packet->dataLength <= config.limits.max_unreliable_payload;
    }
    if (!valid) {
      // The wrong channel, the wrong mode or over the limit: not one of ours.
      enet_packet_destroy(packet);
      close(id, DisconnectReason::kProtocolError);
      return disconnected_event(id, DisconnectReason::kProtocolError);
    }
    TransportEvent event = make_event(TransportEvent::Type::kReceived, id);
    event.delivery = delivery;
    event.data.assign(packet->data, packet->data + packet->dataLength);
    enet_packet_destroy(packet);
    record->counters.bytes_received += event.data.size();
    record->counters.packets_received += 1;
    return event;
  }

  std::optional<TransportEvent> on_disconnect(ENetPeer* peer, enet_uint32 data) {
    const PeerId id = data_to_id(peer->data);
    const auto it = peers.find(id);
    if (it == peers.end()) return std::nullopt;
    const PeerRecord record = it->second;
    release(id);
    if (record.closing) return std::nullopt;
    // ENet reports a timeout as a disconnect carrying 0, and our own
    // disconnects never send 0, so 0 means silence: a timeout once
    // connected, a failed connect before.
    DisconnectReason reason = disconnect_reason_from_wire(data);
    if (data == 0) reason = record.connected ? DisconnectReason::kTimeout : DisconnectReason::kConnectFailed;
    return disconnected_event(id, reason);
  }

  void send_raw(Endpoint to, std::span<const std::uint8_t> bytes) {
    const ENetAddress address = enet_address_of(to);
    ENetBuffer buffer;
    buffer.data = const_cast<std::uint8_t*>(bytes.data());  // NOLINT: ENet's buffer is not const-correct
    buffer.dataLength = bytes.size();
    (void)enet_socket_send(host->socket, &address, &buffer, 1);  // a lost datagram is retried by the client
  }

  // Whether a datagram that names no ENet peer may reach ENet: only from an
  // address that passed the challenge, or one that holds a peer already.
  bool may_reach_connect_path(Endpoint from, Time now) const {
    return peers_at_endpoint.contains(from.key()) || validator->admitted(from, now);
  }

  // ENet's intercept hook, called for every datagram ENet reads. Returns 1
  // when the datagram was handled here and ENet must not see it.
  int intercept(std::span<const std::uint8_t> datagram, Endpoint from) {
    if (challenge::is_challenge_datagram(datagram)) {
      on_challenge_datagram(datagram, from);
      return 1;
    }
    if (addressed_to_no_peer(datagram)) {
      if (validator && !may_reach_connect_path(from, monotonic_now())) {
        validator->count_dropped_connect(datagram.size());
        return 1;
      }
      return 0;
    }
    return guard_fragments(datagram, from);
  }

  // Drops a datagram from a connected peer that carries fragments no
  // honest ENet sender makes (enet_guard.h), and closes the peer.
  int guard_fragments(std::span<const std::uint8_t> datagram, Endpoint from) {
    const std::size_t slot = peer_id_of(datagram);
    if (slot >= host->peerCount) return 0;  // ENet drops it
    ENetPeer* peer = &host->peers[slot];
    // Only the peer's own address may get it closed; ENet ignores the rest.
    if (!(endpoint_of(peer->address) == from)) return 0;
    if (fragments_are_honest(datagram, peer->mtu)) return 0;
    ++hostile_datagrams;
    const PeerId id = data_to_id(peer->data);
    if (find_open(id) != nullptr) hostile.push_back(id);
    return 1;
  }

  void close_hostile() {
    for (const PeerId id : hostile) {
      if (find_open(id) == nullptr) continue;
      close(id, DisconnectReason::kProtocolError);
      queued.push_back(disconnected_event(id, DisconnectReason::kProtocolError));
    }
    hostile.clear();
  }

  void on_challenge_datagram(std::span<const std::uint8_t> datagram, Endpoint from) {
    if (!validator) return;  // validation off: nothing of this exchange is ours
    const Time now = monotonic_now();
    const auto message = challenge::decode(datagram);
    const bool answer = message && (std::holds_alternative<challenge::ChallengeMsg>(*message) ||
                                    std::holds_alternative<challenge::Accepted>(*message) ||
                                    std::holds_alternative<challenge::Denied>(*message));
    if (answer) {
      challenger->receive(*message, from, now, actions);
      return;
    }
    AddressValidator::HostLoad load;
    const auto at_host = peers_at_host.find(from.host);
    load.peers_from_host = at_host == peers_at_host.end() ? 0 : at_host->second;
    load.max_peers_per_host = config.max_peers_per_ip;
    load.free_slots = host->peerCount - std::min(host->peerCount, peers.size());
    const auto reply = validator->handle(datagram, from, {now, unix_now()}, load);
    if (reply && !reply->empty()) send_raw(from, *reply);
  }

  // Sends what the challenge exchanges want sent, starts ENet's connect for
  // accepted ones and turns refusals into events.
  void run_challenge_actions() {
    for (const auto& out : actions.send) send_raw(out.to, out.bytes);
    actions.send.clear();
    for (const auto& done : actions.done) {
      if (done.failure) {
        queued.push_back(disconnected_event(done.id, *done.failure));
        continue;
      }
      const ENetAddress address = enet_address_of(done.server);
      ENetPeer* peer = enet_host_connect(host, &address, kChannelCount, 0);
      if (peer == nullptr) {
        queued.push_back(disconnected_event(done.id, DisconnectReason::kConnectFailed));
        continue;
      }
      adopt(peer, false, done.id);
    }
    actions.done.clear();
  }

  void drive_validation() {
    if (!validator) return;
    const Time now = monotonic_now();
    challenger->tick(now, actions);
    run_challenge_actions();
    if (now >= next_expiry) {
      validator->expire(now, unix_now());
      next_expiry = now + Duration::seconds(1);
    }
  }

  std::optional<TransportEvent> translate(const ENetEvent& event) {
    switch (event.type) {
      case ENET_EVENT_TYPE_CONNECT: return on_connect(event.peer);
      case ENET_EVENT_TYPE_RECEIVE: return on_receive(event.peer, event.channelID, event.packet);
      case ENET_EVENT_TYPE_DISCONNECT: return on_disconnect(event.peer, event.data);
      case ENET_EVENT_TYPE_NONE: break;
    }
    return std::nullopt;
  }
};

namespace {

// ENet's intercept hook has no user pointer, and ENet reads datagrams only
// inside enet_host_service, which this file calls from poll() alone; the
// transport being serviced is recorded here for the hook to find.
thread_local EnetTransport::Impl* g_servicing = nullptr;

int ENET_CALLBACK intercept_hook(ENetHost* host, ENetEvent* /*event*/) {
  if (g_servicing == nullptr || g_servicing->host != host) return 0;
  return g_servicing->intercept(std::span<const std::uint8_t>(host->receivedData, host->receivedDataLength),
                                endpoint_of(host->receivedAddress));
}

int service(EnetTransport::Impl& impl, ENetEvent* event) {
  EnetTransport::Impl* const outer = g_servicing;
  g_servicing = &impl;
  const int result = enet_host_service(impl.host, event, 0);
  g_servicing = outer;
  return result;
}

// One ENet event, if any. ENet ends a receive pass at an empty datagram (it
// reads length 0 as "nothing more") or at one over its buffer (an error),
// so a peer sending those could make every poll stop after one datagram;
// keep servicing while the socket still holds data, within a bound so that
// a flood cannot hold the caller here.
bool service_until_quiet(EnetTransport::Impl& impl, ENetEvent* event) {
  constexpr int kMaxPasses = 64;
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    if (service(impl, event) > 0) return true;
    enet_uint32 condition = ENET_SOCKET_WAIT_RECEIVE;
    if (enet_socket_wait(impl.host->socket, &condition, 0) != 0 || (condition & ENET_SOCKET_WAIT_RECEIVE) == 0) {
      return false;
    }
  }
  return false;
}

Result<void> check_validation_config(const AddressValidationConfig& v) {
  if (!v.enabled) return {};
  if (v.max_pending == 0 || v.max_pending_per_host == 0 || v.max_challenges_per_second == 0) {
    return make_error(ErrorCode::kInvalidArgument,
                      "address validation limits (max_pending, max_pending_per_host, max_challenges_per_second) "
                      "must be positive");
  }
  if (v.admission_lifetime <= Duration::zero() || v.retry_interval <= Duration::zero()) {
    return make_error(ErrorCode::kInvalidArgument, "admission_lifetime and retry_interval must be positive");
  }
  if (v.token_key && !v.token_address) {
    return make_error(ErrorCode::kInvalidArgument,
                      "a server that requires connect tokens needs token_address, the address tokens name it by");
  }
  if (v.connect_token.size() > challenge::kMaxTokenSize) {
    return make_error(ErrorCode::kInvalidArgument, "connect token of " + std::to_string(v.connect_token.size()) +
                                                       " bytes is over the limit of " +
                                                       std::to_string(challenge::kMaxTokenSize));
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<EnetTransport>> EnetTransport::create(const EnetConfig& config) {
  if (config.max_peers == 0 || config.max_peers > ENET_PROTOCOL_MAXIMUM_PEER_ID) {
    return make_error(ErrorCode::kInvalidArgument,
                      "max_peers must be between 1 and " + std::to_string(ENET_PROTOCOL_MAXIMUM_PEER_ID));
  }
  const std::size_t unreliable_cap = single_command_payload(ENET_HOST_DEFAULT_MTU);
  if (config.limits.max_unreliable_payload > unreliable_cap) {
    return make_error(ErrorCode::kInvalidArgument, "max_unreliable_payload must not exceed " +
                                                       std::to_string(unreliable_cap) +
                                                       " bytes, or ENet would fragment unreliable packets");
  }
  if (config.limits.max_reliable_payload > ENET_HOST_DEFAULT_MAXIMUM_PACKET_SIZE) {
    return make_error(ErrorCode::kInvalidArgument, "max_reliable_payload is larger than ENet supports");
  }
  if (config.timeout <= Duration::zero() || config.ping_interval <= Duration::zero()) {
    return make_error(ErrorCode::kInvalidArgument, "timeout and ping_interval must be positive");
  }
  if (auto valid = check_validation_config(config.validation); !valid) return valid.error();
  if (auto init = initialize_enet(); !init) return init.error();

  ENetAddress bind_address{};
  bind_address.host = ENET_HOST_ANY;
  bind_address.port = 0;
  const std::string bind_text = config.bind ? config.bind->to_string() : std::string("0.0.0.0:0");
  if (config.bind) {
    auto resolved = to_enet_address(*config.bind);
    if (!resolved) return resolved.error();
    bind_address = resolved.value();
  }

  // ENet does not report why the socket failed; bind() leaves the reason
  // in errno, which ENet's cleanup (close, free) does not disturb.
  errno = 0;
  ENetHost* host = enet_host_create(&bind_address, config.max_peers, kChannelCount, config.incoming_bandwidth,
                                    config.outgoing_bandwidth);
  if (host == nullptr) {
    const int error = errno;
    const std::string why = error != 0 ? std::system_category().message(error) : std::string("unknown error");
    return make_error(ErrorCode::kIo, "cannot bind UDP socket to " + bind_text + ": " + why);
  }

  auto impl = std::make_unique<Impl>();
  impl->config = config;
  impl->host = host;
  const std::size_t largest = std::max(config.limits.max_reliable_payload, config.limits.max_unreliable_payload);
  host->maximumPacketSize = largest + kPacketSizeSlack;
  host->maximumWaitingData = std::max(kMinWaitingData, 2 * host->maximumPacketSize);
  host->duplicatePeers = config.max_peers_per_ip != 0 ? config.max_peers_per_ip : kNoPeerCap;
  // Every datagram passes the hook, so challenge traffic never reaches
  // ENet's parser whether validation is on or not.
  host->intercept = intercept_hook;
  if (config.validation.enabled) {
    impl->validator.emplace(config.validation);
    impl->challenger.emplace(config.validation.retry_interval, config.timeout);
  }
  return std::unique_ptr<EnetTransport>(new EnetTransport(std::move(impl)));
}

EnetTransport::EnetTransport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

EnetTransport::~EnetTransport() = default;

Result<PeerId> EnetTransport::connect(const Address& remote, Time /*now*/) {
  if (remote.port == 0) return make_error(ErrorCode::kInvalidArgument, "cannot connect to port 0");
  auto resolved = to_enet_address(remote);
  if (!resolved) return resolved.error();
  if (impl_->challenger) {
    // ENet's connect starts once the server has checked our address.
    const PeerId id(impl_->next_id++);
    impl_->challenger->start(id, endpoint_of(resolved.value()), impl_->config.validation.connect_token, monotonic_now(),
                             impl_->actions);
    impl_->run_challenge_actions();
    return id;
  }
  ENetPeer* peer = enet_host_connect(impl_->host, &resolved.value(), kChannelCount, 0);
  if (peer == nullptr) {
    return make_error(ErrorCode::kIo, "no free connection slot for " + remote.to_string() + " (max_peers " +
                                          std::to_string(impl_->config.max_peers) + ")");
  }
  return impl_->adopt(peer, false);
}

Result<void> EnetTransport::send(PeerId peer, Delivery delivery, std::span<const std::uint8_t> bytes, Time /*now*/) {
  Impl::PeerRecord* record = impl_->find_open(peer);
  if (record == nullptr || !record->connected || record->peer->state != ENET_PEER_STATE_CONNECTED) {
    return make_error(ErrorCode::kNotConnected, "no connected peer " + std::to_string(peer.value()));
  }
  const bool reliable = delivery == Delivery::kReliableOrdered;
  const std::size_t limit = reliable ? impl_->config.limits.max_reliable_payload
                                     : std::min(impl_->config.limits.max_unreliable_payload,
                                                // The MTU is negotiated per peer and may be below ours.
                                                single_command_payload(record->peer->mtu));
  if (bytes.size() > limit) {
    return make_error(ErrorCode::kTooLarge, std::string(reliable ? "reliable" : "unreliable") + " payload of " +
                                                std::to_string(bytes.size()) + " bytes exceeds the limit of " +
                                                std::to_string(limit));
  }
  const enet_uint32 flags = reliable ? ENET_PACKET_FLAG_RELIABLE : ENET_PACKET_FLAG_UNSEQUENCED;
  ENetPacket* packet = enet_packet_create(bytes.data(), bytes.size(), flags);
  if (packet == nullptr) return make_error(ErrorCode::kIo, "out of memory for a packet");
  if (enet_peer_send(record->peer, reliable ? kReliableChannel : kUnreliableChannel, packet) != 0) {
    enet_packet_destroy(packet);  // ENet takes ownership only on success
    return make_error(ErrorCode::kIo, "ENet refused to queue a packet for peer " + std::to_string(peer.value()));
  }
  record->counters.bytes_sent += bytes.size();
  record->counters.packets_sent += 1;
  return {};
}

std::optional<TransportEvent> EnetTransport::poll(Time /*now*/) {
  impl_->drive_validation();
  ENetEvent event;
  // Each service call yields at most one ENet event; events for peers we
  // closed ourselves are swallowed, so keep going until one survives or
  // ENet has nothing more. Timeout 0: never blocks.
  while (impl_->queued.empty() && service_until_quiet(*impl_, &event)) {
    if (auto out = impl_->translate(event)) return out;
  }
  impl_->close_hostile();
  // ENet doubles its resend waits only while servicing, so a sweep after
  // the servicing, every few milliseconds, holds them (enet_resend.h).
  constexpr enet_uint32 kResendSweepMs = 10;
  if (impl_->host->serviceTime - impl_->last_resend_sweep >= kResendSweepMs) {  // wraps like ENet's clock
    impl_->last_resend_sweep = impl_->host->serviceTime;
    steady_resends(impl_->host, to_enet_millis(impl_->config.timeout));
  }
  // Answers read during the service calls may have accepted or refused a
  // connect; start the accepted ones now rather than a poll later.
  if (!impl_->actions.send.empty() || !impl_->actions.done.empty()) {
    impl_->run_challenge_actions();
    enet_host_flush(impl_->host);
  }
  if (impl_->queued.empty()) return std::nullopt;
  TransportEvent out = std::move(impl_->queued.front());
  impl_->queued.pop_front();
  return out;
}

void EnetTransport::flush(Time /*now*/) { enet_host_flush(impl_->host); }

void EnetTransport::disconnect(PeerId peer, DisconnectReason reason, Time /*now*/) { impl_->close(peer, reason); }

std::optional<PeerStats> EnetTransport::stats(PeerId peer) const {
  const Impl::PeerRecord* record = impl_->find_open(peer);
  if (record == nullptr) return std::nullopt;
  PeerStats out = record->counters;
  const ENetPeer* enet_peer = record->peer;
  out.rtt = Duration::millis(enet_peer->roundTripTime);
  out.rtt_variance = Duration::millis(enet_peer->roundTripTimeVariance);
  out.packet_loss = static_cast<double>(enet_peer->packetLoss) / static_cast<double>(ENET_PEER_PACKET_LOSS_SCALE);
  return out;
}

std::optional<Address> EnetTransport::local_address() const {
  ENetAddress address{};
  if (enet_socket_get_address(impl_->host->socket, &address) != 0) return std::nullopt;
  return from_enet_address(address);
}

const TransportLimits& EnetTransport::limits() const { return impl_->config.limits; }

ValidationStats EnetTransport::validation_stats() const {
  ValidationStats stats = impl_->validator ? impl_->validator->stats() : ValidationStats{};
  stats.hostile_datagrams = impl_->hostile_datagrams;
  return stats;
}

Result<void> EnetTransport::set_connect_token(std::vector<std::uint8_t> token) {
  AddressValidationConfig checked = impl_->config.validation;
  checked.connect_token = std::move(token);
  if (auto valid = check_validation_config(checked); !valid) return valid.error();
  impl_->config.validation = std::move(checked);
  return {};
}

void EnetTransport::wait_for_traffic(Duration max_wait) {
  // Events already decoded would not wake the socket; return so they are
  // polled now.
  if (!enet_list_empty(&impl_->host->dispatchQueue)) return;
  // ENet waits in whole milliseconds; rounding down keeps a caller that
  // sleeps until its next tick from oversleeping it.
  const std::int64_t ms = max_wait.micros() / 1000;
  if (ms <= 0) return;
  enet_uint32 condition = ENET_SOCKET_WAIT_RECEIVE;
  // An error or signal only ends the wait early, which is harmless.
  (void)enet_socket_wait(impl_->host->socket, &condition,
                         static_cast<enet_uint32>(std::min<std::int64_t>(ms, kMaxEnetMillis)));
}

void EnetTransport::wait_for_any(std::span<EnetTransport* const> transports, Duration max_wait,
                                 std::vector<std::size_t>& ready) {
  ready.clear();
  // Kept between calls: a bot fleet calls this between every two frames.
  thread_local std::vector<pollfd> fds;
  thread_local std::vector<std::size_t> index;
  fds.clear();
  index.clear();
  for (std::size_t i = 0; i < transports.size(); ++i) {
    const EnetTransport* t = transports[i];
    if (t == nullptr) continue;
    // Decoded events would not wake the socket.
    if (!enet_list_empty(&t->impl_->host->dispatchQueue)) ready.push_back(i);
    fds.push_back(pollfd{t->impl_->host->socket, POLLIN, 0});
    index.push_back(i);
  }
  // Decoded events are ready now; the caller comes back for the rest.
  if (!ready.empty() || fds.empty()) return;
  const std::int64_t us = std::clamp<std::int64_t>(max_wait.micros(), 0, kMaxWaitAnyMicros);
  const timespec timeout{static_cast<time_t>(us / 1'000'000), static_cast<long>(us % 1'000'000) * 1000};
  if (ppoll(fds.data(), fds.size(), &timeout, nullptr) <= 0) return;
  for (std::size_t k = 0; k < fds.size(); ++k) {
    if (fds[k].revents != 0) ready.push_back(index[k]);
  }
}

}  // namespace tickwire::transport
