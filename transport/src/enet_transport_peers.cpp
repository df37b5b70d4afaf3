// EnetTransport's connections (adopting ENet's peers, closing them,
// turning ENet's events into ours) and the checks every datagram passes
// before ENet parses it: address validation and the fragment guard.

#include <enet/enet.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <variant>

#include "enet_guard.h"
#include "enet_transport_impl.h"

namespace tickwire::transport {

namespace enet_detail {

std::uint32_t to_enet_millis(Duration d) {
  constexpr std::int64_t kMaxEnetMillis = std::numeric_limits<std::uint32_t>::max();
  const std::int64_t ms = std::clamp<std::int64_t>(d.micros() / 1000, 1, kMaxEnetMillis);
  return static_cast<std::uint32_t>(ms);
}

void* id_to_data(PeerId id) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(id.value())); }

PeerId data_to_id(const void* data) {
  return PeerId(static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(data)));
}

std::uint32_t wire_code(DisconnectReason reason) {
  if (reason == DisconnectReason::kUnknown) reason = DisconnectReason::kRequested;
  return static_cast<std::uint32_t>(reason);
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

Endpoint endpoint_of(const ENetAddress& address) { return Endpoint{address.host, address.port}; }

std::size_t peer_slot_of(std::span<const std::uint8_t> datagram) {
  if (datagram.size() < 2) return ENET_PROTOCOL_MAXIMUM_PEER_ID;
  const auto header = static_cast<std::uint16_t>((datagram[0] << 8) | datagram[1]);
  constexpr unsigned kNotPeerBits = ENET_PROTOCOL_HEADER_FLAG_MASK | ENET_PROTOCOL_HEADER_SESSION_MASK;
  return header & ~kNotPeerBits & 0xFFFFu;
}

bool addressed_to_no_peer(std::span<const std::uint8_t> datagram) {
  return datagram.size() >= 2 && peer_slot_of(datagram) == ENET_PROTOCOL_MAXIMUM_PEER_ID;
}

Time monotonic_now() {
  const auto since = std::chrono::steady_clock::now().time_since_epoch();
  return Time::from_micros(std::chrono::duration_cast<std::chrono::microseconds>(since).count());
}

}  // namespace enet_detail

using namespace enet_detail;

namespace {

ENetAddress enet_address_of(Endpoint endpoint) {
  ENetAddress address{};
  address.host = endpoint.host;
  address.port = endpoint.port;
  return address;
}

std::int64_t unix_now() {
  const auto since = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::seconds>(since).count();
}

}  // namespace

EnetTransport::Impl::~Impl() {
  if (host == nullptr) return;
  flush_enet();
  send_session_datagrams();
  enet_host_destroy(host);
}

EnetTransport::Impl::PeerRecord* EnetTransport::Impl::find_open(PeerId id) {
  const auto it = peers.find(id);
  if (it == peers.end() || it->second.closing) return nullptr;
  return &it->second;
}

const EnetTransport::Impl::PeerRecord* EnetTransport::Impl::find_open(PeerId id) const {
  const auto it = peers.find(id);
  if (it == peers.end() || it->second.closing) return nullptr;
  return &it->second;
}

// ENet reuses ENetPeer slots, so a slot is tagged with our id and the tag
// cleared whenever the slot is given back; ids only ever grow. (Four
// billion connections would wrap it; no process lives that long.)
PeerId EnetTransport::Impl::adopt(ENetPeer* peer, bool connected, std::optional<PeerId> known) {
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

void EnetTransport::Impl::release(PeerId id) {
  const auto it = peers.find(id);
  if (it == peers.end()) return;
  it->second.peer->data = nullptr;
  forget_address(it->second.endpoint);
  close_session(it->second.connection_id);
  peers.erase(it);
}

void EnetTransport::Impl::forget_address(Endpoint endpoint) {
  if (const auto e = peers_at_endpoint.find(endpoint.key()); e != peers_at_endpoint.end() && --e->second == 0) {
    peers_at_endpoint.erase(e);
  }
  if (const auto h = peers_at_host.find(endpoint.host); h != peers_at_host.end() && --h->second == 0) {
    peers_at_host.erase(h);
  }
}

// Graceful disconnect. The record stays (marked closing) until ENet hands
// the slot back with a disconnect event, which is then swallowed.
void EnetTransport::Impl::close(PeerId id, DisconnectReason reason) {
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
    const ActiveTransport scope(*this);
    enet_peer_disconnect_now(peer, wire_code(reason));
    return;
  }
  record->closing = true;
  enet_peer_disconnect(record->peer, wire_code(reason));
  // A peer not yet connected is reset on the spot, with no event to come.
  if (record->peer->state == ENET_PEER_STATE_DISCONNECTED) release(id);
}

std::optional<TransportEvent> EnetTransport::Impl::on_connect(ENetPeer* peer) {
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
  PeerRecord& record = peers.at(id);
  event.address = record.address;
  if (validator) {
    // The admission is used up; its session now belongs to this peer.
    const auto admitted = validator->take(record.endpoint);
    if (!admitted) {
      close(id, DisconnectReason::kProtocolError);
      return std::nullopt;
    }
    event.identity = admitted->identity;
    record.connection_id = admitted->session.connection_id;
    const auto session = sessions.find(record.connection_id);
    if (session == sessions.end()) {
      open_session(admitted->session, record.endpoint, id);
    } else {
      session->second.peer = id;
    }
  }
  return event;
}

std::optional<TransportEvent> EnetTransport::Impl::on_receive(ENetPeer* peer, std::uint8_t channel,
                                                              ENetPacket* packet) {
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
  event.data = copy_of(std::span<const std::uint8_t>(packet->data, packet->dataLength));
  enet_packet_destroy(packet);
  record->counters.bytes_received += event.data.size();
  record->counters.packets_received += 1;
  return event;
}

std::optional<TransportEvent> EnetTransport::Impl::on_disconnect(ENetPeer* peer, std::uint32_t data) {
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

void EnetTransport::Impl::send_raw(Endpoint to, std::span<const std::uint8_t> bytes) {
  const ENetAddress address = enet_address_of(to);
  ENetBuffer buffer;
  buffer.data = const_cast<std::uint8_t*>(bytes.data());  // NOLINT: ENet's buffer is not const-correct
  buffer.dataLength = bytes.size();
  // A lost datagram is retried by the client. These go beside ENet, and
  // in the clear (they agree the keys), so they are counted here: ENet's
  // totals hold only its own.
  const int sent = send_plain(host->socket, &address, &buffer, 1);
  if (sent > 0) {
    wire.datagrams_sent += 1;
    wire.bytes_sent += static_cast<std::uint64_t>(sent);
  }
}

// Whether a datagram that names no ENet peer may reach ENet: only from an
// address that passed the challenge, or one that holds a peer already.
bool EnetTransport::Impl::may_reach_connect_path(Endpoint from, Time now) const {
  return peers_at_endpoint.contains(from.key()) || validator->admitted(from, now);
}

int EnetTransport::Impl::intercept(std::span<const std::uint8_t> datagram, Endpoint from) {
  if (challenge::is_challenge_datagram(datagram)) {
    on_challenge_datagram(datagram, from);
    return 1;
  }
  if (sealing()) {
    // With sessions sealed, nothing else is ours: a bare ENet datagram
    // could only be forged.
    if (is_sealed_datagram(datagram)) return on_sealed_datagram(datagram, from);
    ++seal_drops.unsealed;
    return 1;
  }
  if (is_session_datagram(datagram)) return on_session_datagram(datagram, from);
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
int EnetTransport::Impl::guard_fragments(std::span<const std::uint8_t> datagram, Endpoint from) {
  const std::size_t slot = peer_slot_of(datagram);
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

void EnetTransport::Impl::close_hostile() {
  for (const PeerId id : hostile) {
    if (find_open(id) == nullptr) continue;
    close(id, DisconnectReason::kProtocolError);
    queued.push_back(disconnected_event(id, DisconnectReason::kProtocolError));
  }
  hostile.clear();
}

void EnetTransport::Impl::on_challenge_datagram(std::span<const std::uint8_t> datagram, Endpoint from) {
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
void EnetTransport::Impl::run_challenge_actions() {
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
    // The session first: ENet's CONNECT leaves sealed with its keys.
    open_session(done.session, done.server, done.id);
    adopt(peer, false, done.id);
    peers.at(done.id).connection_id = done.session.connection_id;
  }
  actions.done.clear();
}

void EnetTransport::Impl::drive_validation() {
  if (!validator) return;
  const Time now = monotonic_now();
  challenger->tick(now, actions);
  run_challenge_actions();
  if (now >= next_expiry) {
    validator->expire(now, unix_now());
    drop_stale_sessions();
    next_expiry = now + Duration::seconds(1);
  }
}

std::optional<TransportEvent> EnetTransport::Impl::translate(const ENetEvent& event) {
  switch (event.type) {
    case ENET_EVENT_TYPE_CONNECT: return on_connect(event.peer);
    case ENET_EVENT_TYPE_RECEIVE: return on_receive(event.peer, event.channelID, event.packet);
    case ENET_EVENT_TYPE_DISCONNECT: return on_disconnect(event.peer, event.data);
    case ENET_EVENT_TYPE_NONE: break;
  }
  return std::nullopt;
}

}  // namespace tickwire::transport
