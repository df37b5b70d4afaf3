#include "tickwire/client/client.h"

#include <cmath>
#include <stdexcept>

#include "tickwire/core/handshake.h"
#include "tickwire/core/keep_alive.h"
#include "tickwire/core/logging.h"
#include "tickwire/core/serialize.h"
#include "tickwire/snapshot/codebook.h"
#include "tickwire/timesync/client_time_provider.h"

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
  if (max_ticks_per_update == 0) fail("max_ticks_per_update must be at least 1");
  if (input_interval == 0 || input_interval > kMaxInputInterval) {
    fail("input_interval must be in 1.." + std::to_string(kMaxInputInterval));
  }
  if (max_replay_ticks == 0 || max_replay_ticks > 1024) fail("max_replay_ticks must be in 1..1024");
  if (spawn_confirm_ticks == 0 || spawn_confirm_ticks > 65536) fail("spawn_confirm_ticks must be in 1..65536");
  if (snapshot_history_ticks == 0 || snapshot_history_ticks > 4096) fail("snapshot_history_ticks must be in 1..4096");
  if (prediction_switch_blend < Duration::zero() || prediction_switch_blend > Duration::seconds(10)) {
    fail("prediction_switch_blend must be in 0..10 s");
  }
  if (!std::isfinite(visual_pop_distance) || visual_pop_distance <= 0.0F) {
    fail("visual_pop_distance must be a positive number");
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

const char* to_string(ClientEvent::Type type) {
  switch (type) {
    case ClientEvent::Type::kConnected: return "connected";
    case ClientEvent::Type::kDenied: return "denied";
    case ClientEvent::Type::kDisconnected: return "disconnected";
    case ClientEvent::Type::kEntitySpawned: return "entity spawned";
    case ClientEvent::Type::kEntityDespawned: return "entity despawned";
  }
  return "unknown event";
}

std::string to_string(const ClientEvent& event) {
  using Type = ClientEvent::Type;
  switch (event.type) {
    case Type::kConnected: return "connected";
    case Type::kDenied:
    case Type::kDisconnected: return std::string(to_string(event.type)) + ": " + transport::to_string(event.reason);
    case Type::kEntitySpawned: return "entity " + std::to_string(event.entity.value) + " spawned";
    case Type::kEntityDespawned: return "entity " + std::to_string(event.entity.value) + " despawned";
  }
  return to_string(event.type);
}

namespace {

ClientConfig validated(ClientConfig config, const prediction::NetGame& game) {
  config.validate();
  try {
    config.prediction_checks.validate(game.schema());
    config.smoothing.validate(game.schema());
    std::vector<prediction::MotionFields> motion;
    game.motion_fields(motion);
    prediction::validate_motion_fields(game.schema(), motion);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("client config: ") + e.what());
  }
  if (!config.snapshot_codebook && !config.adaptive_snapshot_models)
    config.snapshot_codebook = game.snapshot_codebook();
  return config;
}

snapshot::ReceiverConfig receiver_config(const ClientConfig& config) {
  snapshot::ReceiverConfig r;
  r.history_ticks = config.snapshot_history_ticks;
  r.codebook = config.snapshot_codebook;
  return r;
}

// Room for the server's ids and this client's predicted spawns above them
// (prediction::PredictionConfig's defaults).
snapshot::WorldConfig view_config() {
  const prediction::PredictionConfig defaults;
  return {defaults.server_max_entities + defaults.max_local_spawns};
}

}  // namespace

Client::Client(std::unique_ptr<transport::Transport> transport, prediction::NetGame& game,
               prediction::InputSampler sampler, ClientConfig config)
    : transport_(std::move(transport)),
      game_(game),
      sampler_(std::move(sampler)),
      config_(validated(std::move(config), game)),
      redundancy_(config_.input_redundancy),
      receiver_(game.schema(), receiver_config(config_)),
      interpolator_(game.schema(), config_.interpolation),
      authoritative_(game.schema()),
      view_(game.schema(), view_config()) {
  if (!transport_) throw std::invalid_argument("client: transport is null");
  if (!sampler_) throw std::invalid_argument("client: input sampler is empty");
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
  server_address_ = server;
  arrivals_.clear();
  state_ = ClientState::kConnecting;
  connect_started_ = now;
  last_heard_ = now;
  last_sent_ = now;
  client_id_.reset();
  disconnect_reason_.reset();
  stats_ = ClientStats();
  log_->info("connecting to {}", server.to_string());
  return {};
}

void Client::receive(Time now) {
  if (state_ == ClientState::kIdle || state_ == ClientState::kDisconnected) return;
  while (arrivals_.size() < kMaxArrivals) {
    auto event = transport_->poll(now);
    if (!event) break;
    arrivals_.push_back({std::move(*event), now});
  }
  if (resend_at_ && now >= *resend_at_ && state_ == ClientState::kConnected) {
    resend_inputs(now);
    transport_->flush(now);
  }
}

void Client::update(Time now) {
  // Handling an arrival may end the session; what follows is then ignored
  // by handle_event like anything else from a peer we no longer talk to.
  // Each event's data goes back to the transport once handled, for the
  // next datagrams: a client (or a thousand bots) then allocates no buffer
  // per datagram received.
  for (Arrival& a : arrivals_) {
    handle_event(a.event, a.at);
    transport_->recycle(std::move(a.event.data));
  }
  arrivals_.clear();
  while (auto event = transport_->poll(now)) {
    handle_event(*event, now);
    transport_->recycle(std::move(event->data));
  }
  if (state_ == ClientState::kConnecting || state_ == ClientState::kHandshaking) {
    if (now - connect_started_ > config_.connect_timeout) {
      fail(state_ == ClientState::kConnecting ? DisconnectReason::kConnectFailed : DisconnectReason::kHandshakeTimeout,
           now);
    }
  } else if (state_ == ClientState::kConnected) {
    if (now - last_heard_ > config_.timeout) {
      fail(DisconnectReason::kTimeout, now);
    } else {
      if (resend_at_ && now >= *resend_at_) resend_inputs(now);
      run_session(now);
      if (greet_ || now - last_sent_ >= keep_alive_after()) send_keep_alive(now);
      greet_ = false;
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
      if (retry_connect(event.reason, now)) return;
      // A disconnect with a reason before the Welcome is the server's
      // denial, whether it came during the handshake or while the
      // transport was still connecting (a refused token, say).
      finish(event.reason, (state_ == ClientState::kHandshaking || state_ == ClientState::kConnecting) &&
                               event.reason != DisconnectReason::kTimeout &&
                               event.reason != DisconnectReason::kConnectFailed);
      return;
    case TransportEvent::Type::kReceived:
      // Left over from a session that has ended (read before it ended).
      if (state_ == ClientState::kDisconnected || state_ == ClientState::kIdle) return;
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

// A handshake the network lost (no answer, or a message never acknowledged
// while the transport backed off its resends) starts again while the
// connect timeout allows: over a slow, lossy link each fresh try is a new
// chance, where one try's resends space out until it gives up. A refusal
// from the server (full, wrong version, bad token) is final.
bool Client::retry_connect(DisconnectReason reason, Time now) {
  const bool handshaking = state_ == ClientState::kConnecting || state_ == ClientState::kHandshaking;
  const bool lost = reason == DisconnectReason::kTimeout || reason == DisconnectReason::kConnectFailed ||
                    reason == DisconnectReason::kHandshakeTimeout;  // the server's: our Hello never came
  if (!handshaking || !lost || now - connect_started_ >= config_.connect_timeout) return false;
  auto peer = transport_->connect(server_address_, now);
  if (!peer) return false;
  server_ = *peer;
  state_ = ClientState::kConnecting;
  ++stats_.connect_retries;
  log_->info("handshake lost ({}); connecting again", to_string(reason));
  return true;
}

void Client::send_hello(Time now) {
  PacketPrefix prefix;
  prefix.type = PacketType::kHello;
  const ProtocolFingerprint fingerprint{
      config_.schema_hash.value_or(game_.schema().hash()),
      snapshot::fingerprint_codebook_hash(config_.snapshot_codebook.get(), game_.schema())};
  Hello hello{fingerprint, config_.name};
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
  if (welcome.client_id == 0 || welcome.tick_rate == 0 || welcome.send_rate == 0 ||
      welcome.tick_rate > NetworkTime::kMaxTickRate || !game_.supports_tick_rate(welcome.tick_rate)) {
    ++stats_.bad_packets;
    log_->warn("the server's welcome names a client id or rates this game cannot use");
    fail(DisconnectReason::kProtocolError, now);
    return;
  }
  client_id_ = welcome.client_id;
  tick_rate_ = welcome.tick_rate;
  send_rate_ = welcome.send_rate;
  game_.set_tick_rate(tick_rate_);
  start_session();
  state_ = ClientState::kConnected;
  events_.push_back({ClientEvent::Type::kConnected, DisconnectReason::kUnknown});
  log_->info("connected as client {} (tick rate {} Hz, send rate {} Hz)", welcome.client_id, tick_rate_, send_rate_);
  // The first packet of the session goes out at the end of this update,
  // stamped then: a Welcome read earlier by receive() is handled with the
  // time it came, and a stamp that old would make the first round trip
  // the server echoes look longer by the wait.
  greet_ = true;
}

// Input packets every few ticks are keep-alives enough: waiting a tick
// longer than their interval before sending one keeps a batching client
// from sending a keep-alive between every two of them.
Duration Client::keep_alive_after() const {
  if (tick_rate_ == 0 || config_.input_interval == 1) return config_.keep_alive_interval;
  const Duration batch = NetworkTime::from_tick(tick_rate_, Tick(config_.input_interval + 1)).since_zero();
  return std::max(config_.keep_alive_interval, batch);
}

void Client::send_keep_alive(Time now) {
  PacketHeader header = channel_.next_header(PacketType::kKeepAlive, now);
  KeepAlive body;
  BitWriter w(kMaxPacket);
  if (!serialize(w, header) || !serialize(w, body)) return;
  (void)send_packet(w.data(), now);
}

bool Client::send_packet(std::span<const std::uint8_t> bytes, Time now) {
  if (!transport_->send(server_, Delivery::kUnreliable, bytes, now).ok()) return false;
  ++stats_.packets_out;
  stats_.bytes_out += bytes.size();
  last_sent_ = now;
  return true;
}

void Client::set_prediction_checks(const prediction::PredictionChecks& checks) {
  checks.validate(game_.schema());
  config_.prediction_checks = checks;
  if (prediction_) prediction_->set_checks(checks);
}

std::optional<ClientEvent> Client::poll_event() {
  if (events_.empty()) return std::nullopt;
  ClientEvent e = events_.front();
  events_.pop_front();
  return e;
}

}  // namespace tickwire::client
