// The server's peers: connection events, the handshake, what clients send
// (inputs and keep-alives) and departures. Bad packets, timeouts and the
// other limits are in server_limits.cpp.

#include <algorithm>

#include "slot.h"
#include "tickwire/core/handshake.h"
#include "tickwire/core/keep_alive.h"
#include "tickwire/core/logging.h"
#include "tickwire/core/serialize.h"
#include "tickwire/prediction/input_packet.h"
#include "tickwire/server/server.h"

namespace tickwire::server {

using transport::Delivery;
using transport::DisconnectReason;
using transport::TransportEvent;

namespace {
constexpr std::size_t kMaxReliableMessage = 1024;

// A template because Slot is private to Server.
template <class SlotType>
ServerEvent client_event(ServerEvent::Type type, const SlotType& slot, DisconnectReason reason) {
  ServerEvent e{type, slot.id, slot.name, slot.address, reason, std::nullopt};
  if (slot.identity) e.token_client_id = slot.identity->client_id;
  return e;
}

std::string hex(std::uint64_t value) {
  std::string out(16, '0');
  for (std::size_t i = 0; i < 16; ++i) out[15 - i] = "0123456789abcdef"[(value >> (4 * i)) & 0xFU];
  return out;
}

// For the server's log: which end codes without a codebook, else both hashes.
std::string codebook_difference(const ProtocolFingerprint& client, const ProtocolFingerprint& server) {
  if (client.codebook_hash == 0) return "the client has no snapshot codebook, the server codes with one";
  if (server.codebook_hash == 0) return "the client has a snapshot codebook, the server adapts its models";
  return "codebook hash " + hex(client.codebook_hash) + ", the server's " + hex(server.codebook_hash);
}

}  // namespace

const char* to_string(ServerEvent::Type type) {
  switch (type) {
    case ServerEvent::Type::kClientConnected: return "connected";
    case ServerEvent::Type::kClientDenied: return "denied";
    case ServerEvent::Type::kClientDisconnected: return "disconnected";
  }
  return "unknown event";
}

std::string to_string(const ServerEvent& e) {
  const std::string client = "client " + std::to_string(e.client) + " (" + e.name + ")";
  switch (e.type) {
    case ServerEvent::Type::kClientConnected: return client + " connected from " + e.address;
    case ServerEvent::Type::kClientDenied: return "denied " + e.address + ": " + to_string(e.reason);
    case ServerEvent::Type::kClientDisconnected: return client + " disconnected: " + to_string(e.reason);
  }
  return to_string(e.type);
}

void Server::handle_event(TransportEvent& event, Time now) {
  switch (event.type) {
    case TransportEvent::Type::kConnected: {
      if (shutting_down_) {
        transport_->disconnect(event.peer, DisconnectReason::kServerShuttingDown, now);
        return;
      }
      auto slot = std::make_unique<Slot>();
      slot->peer = event.peer;
      slot->address = event.address.to_string();
      slot->identity = std::move(event.identity);
      slot->connected_at = now;
      slot->last_heard = now;
      slot->bad_window_start = now;
      log_->debug("peer {} connected from {}", event.peer.value(), slot->address);
      slots_[event.peer] = std::move(slot);
      return;
    }
    case TransportEvent::Type::kReceived: {
      auto it = slots_.find(event.peer);
      if (it == slots_.end()) return;
      Slot& slot = *it->second;
      slot.last_heard = now;
      if (slot.welcomed()) slot.heard_since_welcome = true;
      ++stats_.packets_in;
      stats_.bytes_in += event.data.size();
      ++slot.stats.packets_in;
      slot.stats.bytes_in += event.data.size();
      if (slot.welcomed() && !within_packet_budget(slot, now)) return;
      if (event.delivery == Delivery::kReliableOrdered) {
        handle_reliable(slot, event.data, now);
      } else {
        handle_unreliable(slot, event.data, now);
      }
      return;
    }
    case TransportEvent::Type::kDisconnected: {
      auto it = slots_.find(event.peer);
      if (it == slots_.end()) return;
      Slot& slot = *it->second;
      if (slot.welcomed()) {
        log_->info("client {} ({}) disconnected: {}", slot.id, json_escape(slot.name), to_string(event.reason));
        events_.push_back(client_event(ServerEvent::Type::kClientDisconnected, slot, event.reason));
        ++stats_.disconnects;
        forget(slot);
      }
      slots_.erase(it);
      return;
    }
  }
}

void Server::handle_reliable(Slot& slot, const std::vector<std::uint8_t>& bytes, Time now) {
  if (bytes.size() > kMaxReliableMessage) {
    bad_packet(slot, make_error(ErrorCode::kTooLong, "reliable message too long"), now);
    return;
  }
  if (slot.welcomed()) {
    // After the handshake everything from a client travels unreliably.
    bad_packet(slot, make_error(ErrorCode::kBadPacketType, "unexpected reliable message"), now);
    return;
  }
  handle_hello(slot, bytes, now);
}

void Server::handle_hello(Slot& slot, std::span<const std::uint8_t> bytes, Time now) {
  BitReader r(bytes);
  PacketPrefix prefix;
  if (!serialize(r, prefix)) {
    deny(slot, DisconnectReason::kProtocolError, "undecodable hello", now);
    return;
  }
  if (auto ok = check_prefix(prefix); !ok) {
    const bool version = ok.error().code == ErrorCode::kBadVersion;
    deny(slot, version ? DisconnectReason::kVersionMismatch : DisconnectReason::kProtocolError, ok.error().detail, now);
    return;
  }
  Hello hello;
  if (prefix.type != PacketType::kHello || !serialize(r, hello) || !r.finish()) {
    deny(slot, DisconnectReason::kProtocolError, "expected a hello", now);
    return;
  }
  // The schema first: with another schema, the codebook is moot.
  if (hello.fingerprint.schema_hash != fingerprint_.schema_hash) {
    deny(slot, DisconnectReason::kFingerprintMismatch,
         "schema hash " + hex(hello.fingerprint.schema_hash) + ", the server's " + hex(fingerprint_.schema_hash), now);
    return;
  }
  if (hello.fingerprint.codebook_hash != fingerprint_.codebook_hash) {
    deny(slot, DisconnectReason::kCodebookMismatch, codebook_difference(hello.fingerprint, fingerprint_), now);
    return;
  }
  if (shutting_down_) {
    deny(slot, DisconnectReason::kServerShuttingDown, "server shutting down", now);
    return;
  }
  if (connected_clients() >= config_.max_clients) {
    deny(slot, DisconnectReason::kServerFull, "server full", now);
    return;
  }
  slot.name = hello.client_name;
  welcome(slot, now);
}

void Server::welcome(Slot& slot, Time now) {
  slot.id = next_client_id_++;
  slot.player = prediction::PlayerId{slot.id};
  slot.stats.id = slot.id;
  slot.stats.name = slot.name;
  slot.stats.address = slot.address;
  snapshot::SenderConfig sender;
  sender.tick_rate = config_.tick_rate;
  sender.max_payload = config_.max_snapshot_bytes;
  sender.bytes_per_second = config_.snapshot_bytes_per_second;
  sender.history_ticks = config_.snapshot_history_ticks;
  sender.max_models_in_flight = config_.snapshot_models_in_flight;
  sender.max_views_in_flight = config_.snapshot_views_in_flight;
  sender.codebook = config_.snapshot_codebook;
  slot.sender = std::make_unique<snapshot::SnapshotSender>(game_.schema(), sender);
  slot.sender->set_shared_probe(reference_probe_.get());
  prediction::InputQueueConfig queue;
  queue.max_ticks_ahead = config_.max_input_ticks_ahead;
  slot.queue = std::make_unique<prediction::InputQueue>(game_.schema(), game_.input_type(), queue);
  slot.tracker =
      std::make_unique<timesync::InputArrivalTracker>(timesync::InputArrivalTrackerConfig{config_.tick_rate});
  slot.view_judge = std::make_unique<ViewJudge>(lagcomp::RewindPolicyConfig{config_.view_tolerance},
                                                config_.max_input_ticks_ahead + 2);
  slot.neutral = std::make_unique<snapshot::Record>(game_.schema(), game_.input_type());

  PacketPrefix prefix;
  prefix.type = PacketType::kWelcome;
  Welcome body{slot.id, static_cast<std::uint16_t>(config_.tick_rate), static_cast<std::uint16_t>(config_.send_rate),
               tick_};
  BitWriter w(kMaxReliableMessage);
  serialize(w, prefix);
  serialize(w, body);
  (void)transport_->send(slot.peer, Delivery::kReliableOrdered, w.data(), now);
  game_.player_joined(world_, slot.player);
  world_.quantize();
  ++stats_.connects;
  log_->info("client {} ({}) joined from {}", slot.id, json_escape(slot.name), slot.address);
  events_.push_back(client_event(ServerEvent::Type::kClientConnected, slot, DisconnectReason::kUnknown));
}

std::optional<transport::PeerIdentity> Server::identity_of(ClientId client) const {
  for (const auto& [peer, slot] : slots_) {
    if (slot->welcomed() && slot->id == client) return slot->identity;
  }
  return std::nullopt;
}

void Server::handle_unreliable(Slot& slot, const std::vector<std::uint8_t>& bytes, Time now) {
  if (!slot.welcomed()) {
    bad_packet(slot, make_error(ErrorCode::kBadPacketType, "unreliable packet before the handshake"), now);
    return;
  }
  BitReader r(bytes);
  PacketHeader header;
  if (!serialize(r, header)) {
    bad_packet(slot, r.error().value_or(make_error(ErrorCode::kMalformed)), now);
    return;
  }
  if (auto ok = check_prefix(header.prefix); !ok) {
    bad_packet(slot, ok.error(), now);
    return;
  }
  if (header.prefix.type == PacketType::kInput) {
    // Read into the server's one packet object, whose records stay: no
    // allocation per input.
    prediction::InputPacket& packet = input_scratch_;
    if (!prediction::serialize_input_packet(r, packet, game_.schema(), game_.input_type()) || !r.finish()) {
      // Out-of-range codes land here: nothing outside the schema is ever queued.
      bad_packet(slot, r.error().value_or(make_error(ErrorCode::kMalformed)), now);
      return;
    }
    if (!accept_header(slot, header, now)) return;
    const NetworkTime arrival = server_time_at(now);
    const Tick next = tick_ + 1;
    for (std::size_t i = 0; i < packet.inputs.size(); ++i) {
      slot.tracker->on_input(packet.first_tick + static_cast<std::int64_t>(i), arrival);
      slot.view_judge->on_input(packet.first_tick + static_cast<std::int64_t>(i), arrival, next);
    }
    if (slot.queue->receive(packet, next) > 0 && !slot.first_input_tick) {
      slot.first_input_tick = std::max(packet.first_tick, next);
    }
    if (!charge_rejected_inputs(slot, now)) return;
    if (packet.snapshot_ack) slot.sender->acknowledge(*packet.snapshot_ack);
    count_inputs(slot);
    return;
  }
  if (header.prefix.type == PacketType::kReport) {
    ClientReport report;
    if (!serialize(r, report) || !r.finish()) {
      bad_packet(slot, r.error().value_or(make_error(ErrorCode::kMalformed)), now);
      return;
    }
    if (!accept_header(slot, header, now)) return;
    // Totals only grow; a report that says otherwise is a lie or a replay.
    const auto& last = slot.stats.reported;
    if (last && (report.mispredictions < last->mispredictions || report.rollbacks < last->rollbacks ||
                 report.hard_resets < last->hard_resets)) {
      return;
    }
    slot.stats.reported = report;
    return;
  }
  if (header.prefix.type != PacketType::kKeepAlive) {
    bad_packet(slot, make_error(ErrorCode::kBadPacketType, to_string(header.prefix.type)), now);
    return;
  }
  KeepAlive body;
  if (!serialize(r, body) || !r.finish()) {
    bad_packet(slot, r.error().value_or(make_error(ErrorCode::kMalformed)), now);
    return;
  }
  (void)accept_header(slot, header, now);
}

bool Server::accept_header(Slot& slot, const PacketHeader& header, Time now) {
  if (slot.channel.receive(header, now) != PacketChannel::Verdict::kAccept) {
    ++slot.stats.duplicate_packets;
    return false;
  }
  if (auto sample = slot.channel.take_rtt_sample()) {
    // For the operator's stats; the client steers time with its own
    // estimators.
    slot.rtt = slot.has_rtt ? (slot.rtt * 7 + sample->rtt) / 8 : sample->rtt;
    slot.has_rtt = true;
    slot.stats.rtt = slot.rtt;
  }
  return true;
}

void Server::deny(Slot& slot, DisconnectReason reason, const std::string& detail, Time now) {
  ++stats_.denials;
  log_->info("denied {}: {} ({})", slot.address, to_string(reason), json_escape(detail));
  events_.push_back({ServerEvent::Type::kClientDenied, 0, {}, slot.address, reason, std::nullopt});
  drop(slot.peer, reason, now);
}

void Server::drop(PeerId peer, DisconnectReason reason, Time now) {
  auto it = slots_.find(peer);
  if (it == slots_.end()) return;
  Slot& slot = *it->second;
  if (slot.welcomed()) {
    log_->info("client {} ({}) dropped: {}", slot.id, json_escape(slot.name), to_string(reason));
    events_.push_back(client_event(ServerEvent::Type::kClientDisconnected, slot, reason));
    ++stats_.disconnects;
    forget(slot);
  }
  transport_->disconnect(peer, reason, now);
  slots_.erase(it);
}

void Server::forget(Slot& slot) {
  // The player leaves the game; its counts stay in the server's totals.
  if (!shutting_down_) game_.player_left(world_, slot.player);
  count_inputs(slot);
  stats_.missing_inputs += slot.stats.missing_inputs;
  stats_.late_inputs += slot.stats.late_inputs;
  stats_.rejected_inputs += slot.stats.rejected_inputs;
  add_rewind_stats(stats_.rewind, slot.stats.rewind);
  if (slot.stats.reported) stats_.reported_mispredictions += slot.stats.reported->mispredictions;
}

void Server::disconnect(ClientId client, DisconnectReason reason, Time now) {
  for (const auto& [peer, slot] : slots_) {
    if (slot->id == client) {
      drop(peer, reason, now);
      return;
    }
  }
}

void Server::shutdown(Time now) {
  shutting_down_ = true;
  std::vector<PeerId> peers;
  for (const auto& [peer, slot] : slots_) peers.push_back(peer);
  for (PeerId peer : peers) drop(peer, DisconnectReason::kServerShuttingDown, now);
  transport_->flush(now);
}

}  // namespace tickwire::server
