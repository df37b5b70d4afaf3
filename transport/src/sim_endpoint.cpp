#include "sim_internal.h"

namespace tickwire::transport {

// ---------------------------------------------------------------------------
// SimEndpoint: construction and the Transport interface

SimEndpoint::SimEndpoint(SimNetwork& network, Address address, SimEndpointConfig config)
    : network_(&network), address_(std::move(address)), config_(std::move(config)) {
  if (config_.timeout <= Duration::zero() || config_.ping_interval <= Duration::zero() ||
      config_.connect_timeout <= Duration::zero()) {
    throw std::invalid_argument("SimEndpointConfig: timeout, ping_interval and connect_timeout must be positive");
  }
  reliable_limits_.fragment_size = std::max<std::size_t>(config_.limits.max_unreliable_payload, 1);
  reliable_limits_.max_message = config_.limits.max_reliable_payload;
  reliable_limits_.max_backlog_messages = config_.max_reliable_backlog_messages;
  reliable_limits_.max_backlog_bytes = config_.max_reliable_backlog_bytes;
  if (ReliableChannel(reliable_limits_).max_fragments() > kMaxFragmentsPerMessage) {
    throw std::invalid_argument("SimEndpointConfig: max_reliable_payload needs over 65535 fragments");
  }
}

SimEndpoint::~SimEndpoint() {
  if (network_ != nullptr) network_->unregister_endpoint(address_);
}

Result<PeerId> SimEndpoint::connect(const Address& remote, Time now) {
  if (network_ == nullptr) return make_error(ErrorCode::kIo, "the SimNetwork is gone");
  network_->advance(now);
  if (remote == address_) return make_error(ErrorCode::kInvalidArgument, "cannot connect to itself");
  if (by_address_.contains(remote)) {
    return make_error(ErrorCode::kInvalidArgument, "already connected or connecting to " + remote.to_string());
  }
  if (peers_.size() >= config_.max_peers) return make_error(ErrorCode::kInvalidArgument, "max_peers reached");
  Peer& peer = add_peer(remote, network_->next_session(), PeerState::kConnecting, now);
  send_request(peer, now);
  return peer.id;
}

Result<void> SimEndpoint::send(PeerId id, Delivery delivery, std::span<const std::uint8_t> bytes, Time now) {
  if (network_ != nullptr) network_->advance(now);
  if (delivery == Delivery::kUnreliable && bytes.size() > config_.limits.max_unreliable_payload) {
    return make_error(ErrorCode::kTooLarge, "unreliable payload over max_unreliable_payload");
  }
  if (delivery == Delivery::kReliableOrdered && bytes.size() > config_.limits.max_reliable_payload) {
    return make_error(ErrorCode::kTooLarge, "reliable payload over max_reliable_payload");
  }
  const auto it = peers_.find(id);
  if (it == peers_.end() || it->second.state != PeerState::kConnected) {
    return make_error(ErrorCode::kNotConnected, "no connected peer " + std::to_string(id.value()));
  }
  Peer& peer = it->second;
  if (delivery == Delivery::kUnreliable) {
    Writer w(PacketType::kUnreliable, peer.session);
    w.bytes(bytes);
    transmit(peer, w.take(), now);
    return {};
  }
  if (auto queued = peer.reliable.queue(bytes); !queued) return queued;
  pump(peer, now);
  return {};
}

std::optional<TransportEvent> SimEndpoint::poll(Time now) {
  process(now);
  last_now_ = now;
  if (events_.empty()) return std::nullopt;
  TransportEvent event = std::move(events_.front());
  events_.pop_front();
  return event;
}

void SimEndpoint::flush(Time now) {
  if (network_ == nullptr) return;
  network_->advance(now);
  for (auto& [id, peer] : peers_) {
    if (peer.state != PeerState::kConnected) continue;
    pump(peer, now);
    if (peer.ack_pending) send_ack(peer, now);
  }
}

void SimEndpoint::disconnect(PeerId id, DisconnectReason reason, Time now) {
  if (network_ != nullptr) network_->advance(now);
  const auto it = peers_.find(id);
  if (it == peers_.end()) return;
  send_disconnect(it->second, reason, now);
  drop_peer(it, std::nullopt);
}

std::optional<PeerStats> SimEndpoint::stats(PeerId id) const {
  const auto it = peers_.find(id);
  if (it == peers_.end()) return std::nullopt;
  const Peer& peer = it->second;
  PeerStats stats = peer.counters;
  stats.rtt = peer.rtt.srtt();
  stats.rtt_variance = peer.rtt.variance();
  stats.packet_loss = loss_estimate(peer);
  return stats;
}

// ---------------------------------------------------------------------------
// SimEndpoint: peers and incoming datagrams

SimEndpoint::Peer& SimEndpoint::add_peer(const Address& remote, std::uint32_t session, PeerState state, Time now) {
  const PeerId id(next_peer_id_++);
  Peer& peer = peers_.try_emplace(id, id, remote, session, reliable_limits_).first->second;
  by_address_[remote] = id;
  peer.state = state;
  peer.started = now;
  peer.last_received = now;
  peer.next_ping = now + config_.ping_interval;
  return peer;
}

SimEndpoint::PeerMap::iterator SimEndpoint::drop_peer(PeerMap::iterator it,
                                                      std::optional<DisconnectReason> event_reason) {
  if (event_reason) {
    TransportEvent event;
    event.type = TransportEvent::Type::kDisconnected;
    event.peer = it->first;
    event.address = it->second.address;
    event.reason = *event_reason;
    events_.push_back(std::move(event));
  }
  by_address_.erase(it->second.address);
  return peers_.erase(it);
}

void SimEndpoint::on_connected(Peer& peer, Time now) {
  // The RTT of the handshake is only unambiguous if one request was sent.
  if (peer.state == PeerState::kConnecting && peer.requests_sent == 1) peer.rtt.sample(now - peer.started);
  peer.state = PeerState::kConnected;
  peer.next_ping = now + config_.ping_interval;
  TransportEvent event;
  event.type = TransportEvent::Type::kConnected;
  event.peer = peer.id;
  event.address = peer.address;
  events_.push_back(std::move(event));
}

void SimEndpoint::process(Time now) {
  if (network_ == nullptr) return;
  network_->advance(now);
  bool handled = false;
  while (auto datagram = network_->take_due(address_, now)) {
    handle(*datagram, now);
    handled = true;
  }
  // Callers poll until nothing is left, often many times at one instant;
  // timers only have news when time moved or datagrams came in.
  if (handled || timers_ran_at_ != now) run_timers(now);
  timers_ran_at_ = now;
}

void SimEndpoint::handle(const SimNetwork::Datagram& datagram, Time now) {
  Reader reader(datagram.bytes);
  std::uint8_t raw_type = 0;
  std::uint32_t session = 0;
  if (!reader.read(raw_type) || !reader.read(session)) return;
  const auto type = static_cast<PacketType>(raw_type);
  if (type == PacketType::kConnectRequest) {
    handle_request(datagram.from, session, now);
    return;
  }
  const auto known = by_address_.find(datagram.from);
  if (known == by_address_.end()) return;
  const auto it = peers_.find(known->second);
  Peer& peer = it->second;
  if (peer.session != session) return;
  peer.counters.packets_received += 1;
  peer.counters.bytes_received += datagram.bytes.size();
  peer.last_received = now;

  if (type == PacketType::kConnectRefuse || type == PacketType::kDisconnect) {
    std::uint32_t code = 0;
    if (!reader.read(code)) return;
    if (type == PacketType::kConnectRefuse && peer.state != PeerState::kConnecting) return;
    drop_peer(it, disconnect_reason_from_wire(code));
    return;
  }
  // Anything else from the accepting side proves it accepted, even if the
  // accept itself was lost or overtaken.
  if (peer.state == PeerState::kConnecting) on_connected(peer, now);

  std::uint32_t ping_seq = 0;
  switch (type) {
    case PacketType::kPing:
      if (reader.read(ping_seq)) {
        Writer w(PacketType::kPong, peer.session);
        w.write(ping_seq);
        transmit(peer, w.take(), now);
      }
      return;
    case PacketType::kPong:
      if (reader.read(ping_seq)) {
        PingRecord& record = peer.pings[ping_seq % kPingHistory];
        if (record.used && record.seq == ping_seq && !record.answered) {
          record.answered = true;
          peer.rtt.sample(now - record.sent);
        }
      }
      return;
    case PacketType::kUnreliable:
      // Our own limit binds what we accept, whatever the sender's is.
      if (reader.rest().size() <= config_.limits.max_unreliable_payload) {
        push_received(peer.id, Delivery::kUnreliable, {reader.rest().begin(), reader.rest().end()});
      }
      return;
    case PacketType::kAck: apply_ack(peer, reader, now); return;
    case PacketType::kReliable: handle_reliable(it, reader, now); return;
    default: return;  // accepts, and types from a newer peer
  }
}

void SimEndpoint::handle_request(const Address& from, std::uint32_t session, Time now) {
  if (const auto known = by_address_.find(from); known != by_address_.end()) {
    const auto it = peers_.find(known->second);
    Peer& peer = it->second;
    if (peer.session == session) {
      // A retry: our accept was lost or is still on its way.
      if (peer.state == PeerState::kConnected) {
        peer.last_received = now;
        transmit(peer, Writer(PacketType::kConnectAccept, session).take(), now);
      }
      return;
    }
    // Sessions grow, so a smaller one is a stale retry; while our own
    // attempt to that address runs, theirs is ignored.
    if (peer.state == PeerState::kConnecting || session < peer.session) return;
    // A newer session from the same address: that side started over and
    // the old connection is gone.
    drop_peer(it, DisconnectReason::kUnknown);
  }
  if (peers_.size() >= config_.max_peers) {
    Writer w(PacketType::kConnectRefuse, session);
    w.write(static_cast<std::uint32_t>(DisconnectReason::kServerFull));
    transmit_raw(from, w.take(), now);
    return;
  }
  Peer& peer = add_peer(from, session, PeerState::kConnecting, now);
  on_connected(peer, now);
  transmit(peer, Writer(PacketType::kConnectAccept, session).take(), now);
}

void SimEndpoint::handle_reliable(PeerMap::iterator it, Reader& reader, Time now) {
  Peer& peer = it->second;
  apply_ack(peer, reader, now);
  ReliableChannel::Fragment fragment;
  if (!reader.read(fragment.seq) || !reader.read(fragment.index) || !reader.read(fragment.count)) return;
  fragment.bytes = reader.rest();
  // Acknowledge even duplicates: the ack that would have stopped them was lost.
  peer.ack_pending = true;
  std::vector<std::vector<std::uint8_t>> completed;
  const auto verdict = peer.reliable.on_fragment(fragment, completed);
  for (auto& message : completed) push_received(peer.id, Delivery::kReliableOrdered, std::move(message));
  if (verdict == ReliableChannel::Receive::kProtocolError) {
    send_disconnect(peer, DisconnectReason::kProtocolError, now);
    drop_peer(it, DisconnectReason::kProtocolError);
  }
}

void SimEndpoint::run_timers(Time now) {
  for (auto it = peers_.begin(); it != peers_.end();) {
    Peer& peer = it->second;
    if (peer.state == PeerState::kConnecting) {
      if (now - peer.started >= config_.connect_timeout) {
        it = drop_peer(it, DisconnectReason::kConnectFailed);
        continue;
      }
      if (now >= peer.next_request) send_request(peer, now);
    } else {
      if (now - peer.last_received >= config_.timeout) {
        it = drop_peer(it, DisconnectReason::kTimeout);
        continue;
      }
      if (now >= peer.next_ping) send_ping(peer, now);
      pump(peer, now);
      if (peer.ack_pending) send_ack(peer, now);
    }
    ++it;
  }
}

// ---------------------------------------------------------------------------
// SimEndpoint: outgoing datagrams

void SimEndpoint::transmit_raw(const Address& to, std::vector<std::uint8_t> bytes, Time now) {
  if (network_ != nullptr) network_->transmit(address_, to, std::move(bytes), now);
}

void SimEndpoint::transmit(Peer& peer, std::vector<std::uint8_t> bytes, Time now) {
  peer.counters.packets_sent += 1;
  peer.counters.bytes_sent += bytes.size();
  transmit_raw(peer.address, std::move(bytes), now);
}

void SimEndpoint::send_request(Peer& peer, Time now) {
  transmit(peer, Writer(PacketType::kConnectRequest, peer.session).take(), now);
  peer.requests_sent += 1;
  peer.next_request = now + kConnectRetry;
}

void SimEndpoint::send_ping(Peer& peer, Time now) {
  // Pings go out on a fixed interval, busy or idle, so the RTT and loss
  // estimates stay fresh under unreliable-only traffic.
  const std::uint32_t seq = peer.next_ping_seq++;
  peer.pings[seq % kPingHistory] = PingRecord{seq, now, true, false};
  Writer w(PacketType::kPing, peer.session);
  w.write(seq);
  transmit(peer, w.take(), now);
  peer.next_ping = now + config_.ping_interval;
}

void SimEndpoint::send_ack(Peer& peer, Time now) {
  Writer w(PacketType::kAck, peer.session);
  w.write(peer.reliable.ack_next());
  w.write(peer.reliable.ack_bits());
  transmit(peer, w.take(), now);
  peer.ack_pending = false;
}

void SimEndpoint::send_disconnect(Peer& peer, DisconnectReason reason, Time now) {
  for (int i = 0; i < kDisconnectCopies; ++i) {
    Writer w(PacketType::kDisconnect, peer.session);
    w.write(static_cast<std::uint32_t>(reason));
    transmit(peer, w.take(), now);
  }
}

void SimEndpoint::apply_ack(Peer& peer, Reader& reader, Time now) {
  std::uint32_t ack_next = 0;
  std::uint64_t ack_bits = 0;
  if (!reader.read(ack_next) || !reader.read(ack_bits)) return;
  if (const auto sample = peer.reliable.on_ack(ack_next, ack_bits, now)) peer.rtt.sample(*sample);
}

void SimEndpoint::pump(Peer& peer, Time now) {
  peer.reliable.pump(now, peer.rtt.rto(), due_);
  for (const ReliableChannel::Fragment& fragment : due_) {
    Writer w(PacketType::kReliable, peer.session);
    w.write(peer.reliable.ack_next());
    w.write(peer.reliable.ack_bits());
    w.write(fragment.seq);
    w.write(fragment.index);
    w.write(fragment.count);
    w.bytes(fragment.bytes);
    peer.ack_pending = false;  // piggybacked
    transmit(peer, w.take(), now);
  }
  due_.clear();
}

void SimEndpoint::push_received(PeerId peer, Delivery delivery, std::vector<std::uint8_t> data) {
  TransportEvent event;
  event.type = TransportEvent::Type::kReceived;
  event.peer = peer;
  event.delivery = delivery;
  event.data = std::move(data);
  events_.push_back(std::move(event));
}

double SimEndpoint::loss_estimate(const Peer& peer) const {
  // Round-trip loss of the recent pings; one still unanswered after an RTO
  // counts as lost.
  int decided = 0;
  int lost = 0;
  for (const PingRecord& record : peer.pings) {
    if (!record.used) continue;
    if (record.answered) {
      ++decided;
    } else if (last_now_ - record.sent > peer.rtt.rto()) {
      ++decided;
      ++lost;
    }
  }
  return decided == 0 ? 0.0 : static_cast<double>(lost) / static_cast<double>(decided);
}

}  // namespace tickwire::transport
