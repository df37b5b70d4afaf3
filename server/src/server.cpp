#include "tickwire/server/server.h"

#include <algorithm>

#include "tickwire/core/handshake.h"
#include "tickwire/core/keep_alive.h"
#include "tickwire/core/logging.h"
#include "tickwire/core/packet_channel.h"
#include "tickwire/core/serialize.h"

namespace tickwire::server {

using transport::Delivery;
using transport::DisconnectReason;
using transport::TransportEvent;

namespace {
constexpr std::size_t kMaxReliableMessage = 1024;
constexpr std::size_t kMaxUnreliablePacket = 1200;
}  // namespace

struct Server::Slot {
  PeerId peer;
  std::string address;
  ClientId id = 0;  // 0 until the handshake completes
  std::string name;
  Time connected_at;
  Time last_heard;
  PacketChannel channel;
  Duration rtt;
  bool has_rtt = false;
  int bad_in_window = 0;
  Time bad_window_start;
  ClientStats stats;
  bool welcomed() const { return id != 0; }
};

std::uint64_t ServerStats::bad_packets() const {
  std::uint64_t total = 0;
  for (auto n : bad_packets_by_reason) total += n;
  return total;
}

Server::Server(std::unique_ptr<transport::Transport> transport, ServerConfig config, Time now)
    : transport_(std::move(transport)), config_(std::move(config)), start_(now), next_tick_(60) {
  config_.validate();
  if (!transport_) throw std::invalid_argument("server: transport is null");
  log_ = config_.logger ? config_.logger : Logging::null_logger("server");
  next_tick_ = NetworkTime::from_tick(config_.tick_rate, Tick(1));
  send_divisor_ = config_.tick_rate / config_.send_rate;
}

Server::~Server() = default;

Time Server::next_tick_time() const { return start_ + next_tick_.since_zero(); }

void Server::update(Time now) {
  while (auto event = transport_->poll(now)) handle_event(*event, now);
  int ran = 0;
  while (next_tick_time() <= now) {
    if (ran == config_.max_catch_up_ticks) {
      // Too far behind: skip to the present rather than run a burst of
      // ticks that would only make the next frame later still.
      const NetworkTime present = NetworkTime::from_duration(config_.tick_rate, now - start_);
      const std::int64_t skipped = present.tick() - next_tick_.tick() + 1;
      stats_.ticks_skipped += static_cast<std::uint64_t>(skipped);
      tick_ += skipped;
      next_tick_ = next_tick_.add_ticks(skipped);
      log_->warn("tick loop fell behind; skipped {} ticks", skipped);
      break;
    }
    run_tick(now);
    ++ran;
  }
  check_timeouts(now);
  transport_->flush(now);
}

void Server::run_tick(Time now) {
  ++tick_;
  next_tick_ = next_tick_.add_ticks(1);
  ++stats_.ticks_run;
  if (shutting_down_) return;
  // Each client hears from us every send_divisor_ ticks, and clients are
  // spread over those ticks so no single tick carries every send.
  for (auto& [peer, slot] : slots_) {
    if (slot->welcomed() && (slot->id + tick_.value()) % send_divisor_ == 0) send_keep_alive(*slot, now);
  }
}

void Server::send_keep_alive(Slot& slot, Time now) {
  PacketHeader header = slot.channel.next_header(PacketType::kKeepAlive, now);
  KeepAlive body{tick_};
  BitWriter w(kMaxUnreliablePacket);
  if (!serialize(w, header) || !serialize(w, body)) return;
  const auto bytes = w.take();
  if (transport_->send(slot.peer, Delivery::kUnreliable, bytes, now).ok()) {
    ++slot.stats.packets_out;
    ++stats_.packets_out;
    stats_.bytes_out += bytes.size();
  }
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
      ++stats_.packets_in;
      stats_.bytes_in += event.data.size();
      ++slot.stats.packets_in;
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
        log_->info("client {} ({}) disconnected: {}", slot.id, slot.name, to_string(event.reason));
        events_.push_back({ServerEvent::Type::kClientDisconnected, slot.id, slot.name, slot.address, event.reason});
        ++stats_.disconnects;
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
    // Nothing after the handshake travels reliably from a client yet.
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
  if (hello.fingerprint != protocol_fingerprint(kProtocolVersion, config_.schema_hash)) {
    deny(slot, DisconnectReason::kFingerprintMismatch, "protocol fingerprint differs", now);
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
  slot.id = next_client_id_++;
  slot.name = hello.client_name;
  slot.stats.id = slot.id;
  slot.stats.name = slot.name;
  slot.stats.address = slot.address;

  PacketPrefix welcome_prefix;
  welcome_prefix.type = PacketType::kWelcome;
  Welcome welcome{slot.id, static_cast<std::uint16_t>(config_.tick_rate), static_cast<std::uint16_t>(config_.send_rate),
                  tick_};
  BitWriter w(kMaxReliableMessage);
  serialize(w, welcome_prefix);
  serialize(w, welcome);
  const auto out = w.take();
  (void)transport_->send(slot.peer, Delivery::kReliableOrdered, out, now);
  ++stats_.connects;
  log_->info("client {} ({}) joined from {}", slot.id, json_escape(slot.name), slot.address);
  events_.push_back(
      {ServerEvent::Type::kClientConnected, slot.id, slot.name, slot.address, DisconnectReason::kUnknown});
  send_keep_alive(slot, now);
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
  if (header.prefix.type != PacketType::kKeepAlive) {
    bad_packet(slot, make_error(ErrorCode::kBadPacketType, to_string(header.prefix.type)), now);
    return;
  }
  KeepAlive body;
  if (!serialize(r, body) || !r.finish()) {
    bad_packet(slot, r.error().value_or(make_error(ErrorCode::kMalformed)), now);
    return;
  }
  if (slot.channel.receive(header, now) != PacketChannel::Verdict::kAccept) {
    ++slot.stats.duplicate_packets;
    return;
  }
  if (auto sample = slot.channel.take_rtt_sample()) {
    // A plain exponential average; the time system replaces this with its
    // own estimators.
    slot.rtt = slot.has_rtt ? (slot.rtt * 7 + sample->rtt) / 8 : sample->rtt;
    slot.has_rtt = true;
    slot.stats.rtt = slot.rtt;
  }
}

void Server::bad_packet(Slot& slot, const Error& error, Time now) {
  const auto index = static_cast<std::size_t>(error.code);
  if (index < stats_.bad_packets_by_reason.size()) ++stats_.bad_packets_by_reason[index];
  ++slot.stats.bad_packets;
  if (bad_packet_log_limit_.allow(now)) {
    log_->warn("bad packet from {} ({}): {} {}", slot.address, slot.id, to_string(error.code),
               json_escape(error.detail));
  }
  if (now - slot.bad_window_start > config_.bad_packet_window) {
    slot.bad_window_start = now;
    slot.bad_in_window = 0;
  }
  if (++slot.bad_in_window > config_.max_bad_packets) {
    log_->warn("disconnecting {} ({}): too many bad packets", slot.address, slot.id);
    drop(slot.peer, DisconnectReason::kProtocolError, now);
  }
}

void Server::deny(Slot& slot, DisconnectReason reason, const std::string& detail, Time now) {
  ++stats_.denials;
  log_->info("denied {}: {} ({})", slot.address, to_string(reason), json_escape(detail));
  events_.push_back({ServerEvent::Type::kClientDenied, 0, {}, slot.address, reason});
  drop(slot.peer, reason, now);
}

void Server::drop(PeerId peer, DisconnectReason reason, Time now) {
  auto it = slots_.find(peer);
  if (it == slots_.end()) return;
  if (it->second->welcomed()) {
    events_.push_back(
        {ServerEvent::Type::kClientDisconnected, it->second->id, it->second->name, it->second->address, reason});
    ++stats_.disconnects;
  }
  transport_->disconnect(peer, reason, now);
  slots_.erase(it);
}

void Server::check_timeouts(Time now) {
  std::vector<std::pair<PeerId, DisconnectReason>> expired;
  for (const auto& [peer, slot] : slots_) {
    if (!slot->welcomed() && now - slot->connected_at > config_.handshake_timeout) {
      expired.emplace_back(peer, DisconnectReason::kHandshakeTimeout);
    } else if (slot->welcomed() && now - slot->last_heard > config_.client_timeout) {
      expired.emplace_back(peer, DisconnectReason::kTimeout);
    }
  }
  for (const auto& [peer, reason] : expired) {
    log_->info("peer {} timed out: {}", peer.value(), to_string(reason));
    drop(peer, reason, now);
  }
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

std::optional<ServerEvent> Server::poll_event() {
  if (events_.empty()) return std::nullopt;
  ServerEvent e = std::move(events_.front());
  events_.pop_front();
  return e;
}

std::size_t Server::connected_clients() const {
  return static_cast<std::size_t>(
      std::count_if(slots_.begin(), slots_.end(), [](const auto& kv) { return kv.second->welcomed(); }));
}

ServerStats Server::stats() const {
  ServerStats s = stats_;
  s.tick = tick_;
  s.clients = connected_clients();
  return s;
}

std::vector<ClientStats> Server::client_stats() const {
  std::vector<ClientStats> out;
  for (const auto& [peer, slot] : slots_) {
    if (slot->welcomed()) out.push_back(slot->stats);
  }
  return out;
}

}  // namespace tickwire::server
