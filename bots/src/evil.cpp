#include "evil.h"

#include <stdexcept>
#include <utility>

#include "bot_socket.h"
#include "evil_session.h"
namespace tickwire::bots {
namespace {

using transport::Delivery;
using transport::TransportEvent;

constexpr std::size_t kLongestGarbage = 1300;
constexpr int kGarbagePerFrame = 2;
constexpr int kFloodFactor = 100;  // times the honest rate of one input packet per tick
constexpr std::int64_t kFutureTicks = 1000;
constexpr std::size_t kRedundantInputs = 3;  // as an honest client repeats unacknowledged inputs
// Beyond the server's silence limit (the same --timeout by default), so a
// mute bot that hears from the server again was not timed out.
constexpr Duration kMuteMargin = Duration::seconds(2);

const GameSetup& game_of(const EvilBotConfig& config) {
  if (config.script == nullptr || !config.game) throw std::invalid_argument("evil bot without a script or a game");
  return *config.game;
}

}  // namespace

EvilBot::EvilBot(EvilBotConfig config) : config_(std::move(config)), forge_(game_of(config_)), rng_(config_.seed) {
  kind_ = config_.script->kind;
  end_.script = config_.script->name;
}

void EvilBot::update(Time now) {
  if (left_ || end_.reason) return;
  if (attacks_a_session(kind_)) {
    attack_session(now);
    return;
  }
  if (!net_) {
    connect(now);
    return;
  }
  if (silent_until_ && now < *silent_until_) return;
  take_events(now);
  if (end_.reason) return;
  if (welcome_) misbehave(now);
  net_->flush(now);
}

void EvilBot::conclude(Time now) {
  if (attacks_a_session(kind_)) {
    conclude_attack();
    return;
  }
  silent_until_.reset();
  if (net_ && !end_.reason) take_events(now);
}

void EvilBot::leave(Time now) {
  if (net_ && connected_ && !end_.reason) net_->disconnect(peer_, transport::DisconnectReason::kRequested, now);
  left_ = true;
}

void EvilBot::drain(Time now) {
  if (!net_) return;
  while (net_->poll(now)) {
  }
}

void EvilBot::connect(Time now) {
  // Evil bots hold tokens of their own when the server wants them, so the
  // server must catch them by what they do, not by a missing token.
  constexpr std::uint64_t kEvilClientIds = 1'000'000;
  auto net = bot_socket_config(config_.timeout, config_.server,
                               {kEvilClientIds + config_.seed % kEvilClientIds, config_.token_key}, config_.security);
  if (!net) {
    ended("no token: " + net.error().detail);
    return;
  }
  auto socket = transport::EnetTransport::create(net.value());
  if (!socket) {
    ended("no socket: " + socket.error().detail);
    return;
  }
  net_ = std::move(socket).value();
  auto peer = net_->connect(config_.server, now);
  if (!peer) {
    net_.reset();
    ended("connect refused: " + peer.error().detail);
    return;
  }
  peer_ = *peer;
}

void EvilBot::take_events(Time now) {
  while (net_ && !end_.reason) {
    auto event = net_->poll(now);
    if (!event) return;
    switch (event->type) {
      case TransportEvent::Type::kConnected:
        connected_ = true;
        end_.reached_server = true;
        // A staller opens the connection and never says hello.
        if (kind_ != EvilKind::kStall) send(Delivery::kReliableOrdered, forge_.hello(config_.name), now);
        break;
      case TransportEvent::Type::kReceived:
        if (event->delivery == Delivery::kUnreliable) {
          forge_.receive(event->data, now);
        } else if (!welcome_) {
          welcome_ = PacketForge::welcome(event->data);
          welcomed_at_ = now;
          if (welcome_ && kind_ == EvilKind::kMute) {
            // From here on the socket is not serviced at all: nothing is
            // read, acknowledged or sent.
            silent_until_ = now + config_.timeout + kMuteMargin;
            return;
          }
        }
        break;
      case TransportEvent::Type::kDisconnected: ended(transport::to_string(event->reason)); break;
    }
  }
}

void EvilBot::misbehave(Time now) {
  const Tick tick = server_tick(now);
  switch (kind_) {
    case EvilKind::kGarbage:
      for (int i = 0; i < kGarbagePerFrame; ++i) send_garbage(now);
      break;
    case EvilKind::kFlood: {
      const std::uint32_t rate = welcome_->tick_rate;
      const int per_frame = (kFloodFactor * static_cast<int>(rate) + config_.frame_rate - 1) / config_.frame_rate;
      for (int i = 0; i < per_frame; ++i)
        send(Delivery::kUnreliable, forge_.inputs(tick + 2, kRedundantInputs, now), now);
      break;
    }
    case EvilKind::kFuture: {
      const auto ahead = kFutureTicks + static_cast<std::int64_t>(rng_.next() % 1000);
      send(Delivery::kUnreliable, forge_.inputs(tick + ahead, kRedundantInputs, now), now);
      break;
    }
    case EvilKind::kNan: send(Delivery::kUnreliable, forge_.out_of_range_input(tick + 2, now), now); break;
    case EvilKind::kStall:
    case EvilKind::kMute:
    case EvilKind::kSpoofDisconnect:
    case EvilKind::kSpoofKeepAlive:
    case EvilKind::kForgeInput:
    case EvilKind::kReplay: break;
  }
}

void EvilBot::send_garbage(Time now) {
  if (lengths_.empty()) {
    for (std::size_t n = 0; n <= kLongestGarbage; ++n) lengths_.push_back(n);
    for (std::size_t i = lengths_.size() - 1; i > 0; --i) std::swap(lengths_[i], lengths_[rng_.next() % (i + 1)]);
  }
  const std::size_t length = lengths_[next_length_ % lengths_.size()];
  std::vector<std::uint8_t> bytes;
  if (++next_length_ % 2 == 0) {
    bytes = random_bytes(rng_, length);
  } else {
    // A valid input packet cut short somewhere before its end.
    bytes = forge_.inputs(server_tick(now) + 2, kRedundantInputs, now);
    bytes.resize(bytes.empty() ? 0 : length % bytes.size());
  }
  // Longer than a datagram may be: the reliable channel takes it, which a
  // joined client must not use either.
  const bool too_long = bytes.size() > net_->limits().max_unreliable_payload;
  send(too_long ? Delivery::kReliableOrdered : Delivery::kUnreliable, bytes, now);
}

void EvilBot::send(Delivery delivery, const std::vector<std::uint8_t>& bytes, Time now) {
  if (auto sent = net_->send(peer_, delivery, bytes, now); !sent && config_.logger) {
    config_.logger->debug("{}: send of {} bytes refused: {}", config_.name, bytes.size(), sent.error().detail);
  }
}

Tick EvilBot::server_tick(Time now) const {
  const std::int64_t elapsed = (now - welcomed_at_).micros();
  return welcome_->server_tick + elapsed * static_cast<std::int64_t>(welcome_->tick_rate) / 1'000'000;
}

void EvilBot::ended(const std::string& reason) {
  end_.reason = reason;
  if (config_.logger) config_.logger->debug("{} ({}): ended: {}", config_.name, end_.script, reason);
}

}  // namespace tickwire::bots
