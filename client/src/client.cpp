#include "tickwire/client/client.h"

#include <stdexcept>

#include "tickwire/core/handshake.h"
#include "tickwire/core/keep_alive.h"
#include "tickwire/core/logging.h"
#include "tickwire/core/serialize.h"

namespace tickwire::client {

using transport::Delivery;
using transport::DisconnectReason;
using transport::TransportEvent;

namespace {
constexpr std::size_t kMaxPacket = 1200;
}  // namespace

void ClientConfig::validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument("client config: " + what); };
  if (name.size() > kMaxClientNameLength) fail("name longer than " + std::to_string(kMaxClientNameLength) + " bytes");
  if (connect_timeout <= Duration::zero()) fail("connect_timeout must be positive");
  if (timeout <= Duration::zero()) fail("timeout must be positive");
  if (keep_alive_interval <= Duration::zero() || keep_alive_interval >= timeout) {
    fail("keep_alive_interval must be positive and shorter than timeout");
  }
}

const char* to_string(ClientState state) {
  switch (state) {
    case ClientState::kIdle: return "idle";
    case ClientState::kConnecting: return "connecting";
    case ClientState::kHandshaking: return "handshaking";
    case ClientState::kConnected: return "connected";
    case ClientState::kDisconnected: return "disconnected";
  }
  return "unknown";
}

Client::Client(std::unique_ptr<transport::Transport> transport, ClientConfig config)
    : transport_(std::move(transport)), config_(std::move(config)) {
  config_.validate();
  if (!transport_) throw std::invalid_argument("client: transport is null");
  log_ = config_.logger ? config_.logger : Logging::null_logger("client");
}

Client::~Client() {
  if (state_ == ClientState::kConnected || state_ == ClientState::kHandshaking) {
    // Leaving without a word would make the server wait for a timeout.
    transport_->disconnect(server_, DisconnectReason::kRequested, last_sent_);
    transport_->flush(last_sent_);
  }
}

Result<void> Client::connect(const transport::Address& server, Time now) {
  if (state_ == ClientState::kConnecting || state_ == ClientState::kHandshaking || state_ == ClientState::kConnected) {
    return make_error(ErrorCode::kInvalidArgument, std::string("client is already ") + to_string(state_));
  }
  auto peer = transport_->connect(server, now);
  if (!peer) return peer.error();
  server_ = *peer;
  state_ = ClientState::kConnecting;
  connect_started_ = now;
  last_heard_ = now;
  last_sent_ = now;
  client_id_.reset();
  disconnect_reason_.reset();
  last_server_tick_.reset();
  channel_ = PacketChannel();
  has_rtt_ = false;
  log_->info("connecting to {}", server.to_string());
  return {};
}

void Client::update(Time now) {
  while (auto event = transport_->poll(now)) handle_event(*event, now);
  if (state_ == ClientState::kConnecting || state_ == ClientState::kHandshaking) {
    if (now - connect_started_ > config_.connect_timeout) {
      fail(state_ == ClientState::kConnecting ? DisconnectReason::kConnectFailed : DisconnectReason::kHandshakeTimeout,
           now);
    }
  } else if (state_ == ClientState::kConnected) {
    if (now - last_heard_ > config_.timeout) {
      fail(DisconnectReason::kTimeout, now);
    } else if (now - last_sent_ >= config_.keep_alive_interval) {
      send_keep_alive(now);
    }
  }
  transport_->flush(now);
}

void Client::disconnect(Time now) {
  if (state_ == ClientState::kIdle || state_ == ClientState::kDisconnected) return;
  transport_->disconnect(server_, DisconnectReason::kRequested, now);
  transport_->flush(now);
  finish(DisconnectReason::kRequested, false);
}

void Client::fail(DisconnectReason reason, Time now) {
  const bool denied = state_ != ClientState::kConnected;
  transport_->disconnect(server_, reason, now);
  finish(reason, denied && reason != DisconnectReason::kConnectFailed && reason != DisconnectReason::kHandshakeTimeout);
}

void Client::finish(DisconnectReason reason, bool denied) {
  state_ = ClientState::kDisconnected;
  disconnect_reason_ = reason;
  events_.push_back({denied ? ClientEvent::Type::kDenied : ClientEvent::Type::kDisconnected, reason});
  log_->info("{}: {}", denied ? "denied" : "disconnected", to_string(reason));
}

void Client::handle_event(TransportEvent& event, Time now) {
  if (event.peer != server_) return;
  switch (event.type) {
    case TransportEvent::Type::kConnected:
      if (state_ == ClientState::kConnecting) {
        state_ = ClientState::kHandshaking;
        send_hello(now);
      }
      return;
    case TransportEvent::Type::kDisconnected:
      if (state_ == ClientState::kDisconnected || state_ == ClientState::kIdle) return;
      // A disconnect before the Welcome is the server's denial.
      finish(event.reason, state_ == ClientState::kHandshaking && event.reason != DisconnectReason::kTimeout);
      return;
    case TransportEvent::Type::kReceived:
      last_heard_ = now;
      ++stats_.packets_in;
      stats_.bytes_in += event.data.size();
      if (event.delivery == Delivery::kReliableOrdered) {
        handle_welcome(event.data, now);
      } else {
        handle_unreliable(event.data, now);
      }
      return;
  }
}

void Client::send_hello(Time now) {
  PacketPrefix prefix;
  prefix.type = PacketType::kHello;
  Hello hello{protocol_fingerprint(kProtocolVersion, config_.schema_hash), config_.name};
  BitWriter w(kMaxPacket);
  serialize(w, prefix);
  serialize(w, hello);
  const auto bytes = w.take();
  if (transport_->send(server_, Delivery::kReliableOrdered, bytes, now).ok()) {
    ++stats_.packets_out;
    stats_.bytes_out += bytes.size();
  }
}

void Client::handle_welcome(std::span<const std::uint8_t> bytes, Time now) {
  BitReader r(bytes);
  PacketPrefix prefix;
  Welcome welcome;
  const bool ok = serialize(r, prefix) && check_prefix(prefix).ok() && prefix.type == PacketType::kWelcome &&
                  serialize(r, welcome) && r.finish();
  if (!ok || state_ != ClientState::kHandshaking) {
    ++stats_.bad_packets;
    log_->warn("unexpected or malformed reliable message from the server");
    fail(DisconnectReason::kProtocolError, now);
    return;
  }
  client_id_ = welcome.client_id;
  tick_rate_ = welcome.tick_rate;
  send_rate_ = welcome.send_rate;
  last_server_tick_ = welcome.server_tick;
  last_server_tick_at_ = now;
  state_ = ClientState::kConnected;
  events_.push_back({ClientEvent::Type::kConnected, DisconnectReason::kUnknown});
  log_->info("connected as client {} (tick rate {} Hz, send rate {} Hz)", welcome.client_id, tick_rate_, send_rate_);
  send_keep_alive(now);
}

void Client::handle_unreliable(std::span<const std::uint8_t> bytes, Time now) {
  if (state_ != ClientState::kConnected) return;
  BitReader r(bytes);
  PacketHeader header;
  KeepAlive body;
  if (!serialize(r, header) || !check_prefix(header.prefix).ok() || header.prefix.type != PacketType::kKeepAlive ||
      !serialize(r, body) || !r.finish()) {
    ++stats_.bad_packets;
    return;
  }
  if (channel_.receive(header, now) != PacketChannel::Verdict::kAccept) return;
  if (auto sample = channel_.take_rtt_sample()) {
    stats_.rtt = has_rtt_ ? (stats_.rtt * 7 + sample->rtt) / 8 : sample->rtt;
    has_rtt_ = true;
  }
  if (body.server_tick && (!last_server_tick_ || *body.server_tick > *last_server_tick_)) {
    last_server_tick_ = body.server_tick;
    last_server_tick_at_ = now;
    ++stats_.server_ticks_heard;
  }
}

void Client::send_keep_alive(Time now) {
  PacketHeader header = channel_.next_header(PacketType::kKeepAlive, now);
  KeepAlive body;
  BitWriter w(kMaxPacket);
  if (!serialize(w, header) || !serialize(w, body)) return;
  const auto bytes = w.take();
  if (transport_->send(server_, Delivery::kUnreliable, bytes, now).ok()) {
    ++stats_.packets_out;
    stats_.bytes_out += bytes.size();
  }
  last_sent_ = now;
}

std::optional<Tick> Client::estimated_server_tick(Time now) const {
  if (!last_server_tick_ || tick_rate_ == 0) return last_server_tick_;
  const std::int64_t elapsed_ticks = (now - last_server_tick_at_).micros() * tick_rate_ / 1'000'000;
  return *last_server_tick_ + std::max<std::int64_t>(elapsed_ticks, 0);
}

std::optional<ClientEvent> Client::poll_event() {
  if (events_.empty()) return std::nullopt;
  ClientEvent e = events_.front();
  events_.pop_front();
  return e;
}

}  // namespace tickwire::client
