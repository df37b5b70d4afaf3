#include "tickwire/transport/conditioned_transport.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

namespace tickwire::transport {
namespace {

// The two directions draw from separate streams, so how much this side
// sends never changes the fate of what it receives.
constexpr std::uint64_t kDownlinkStream = 0xD1B54A32D192ED03ULL;

void check(const LinkConditions& conditions, const char* direction) {
  if (auto ok = conditions.validate(); !ok) {
    throw std::invalid_argument(std::string("ConditionedTransport: ") + direction + ": " + ok.error().detail);
  }
}

}  // namespace

ConditionedTransport::ConditionedTransport(std::unique_ptr<Transport> inner, ConditionedConfig config)
    : inner_(std::move(inner)), config_(config), up_rng_(config.seed), down_rng_(config.seed ^ kDownlinkStream) {
  if (!inner_) throw std::invalid_argument("ConditionedTransport: null inner transport");
  check(config_.up, "up");
  check(config_.down, "down");
}

ConditionedTransport::~ConditionedTransport() = default;

Result<void> ConditionedTransport::set_conditions(const LinkConditions& up, const LinkConditions& down) {
  if (auto ok = up.validate(); !ok) return make_error(ErrorCode::kInvalidArgument, "up: " + ok.error().detail);
  if (auto ok = down.validate(); !ok) return make_error(ErrorCode::kInvalidArgument, "down: " + ok.error().detail);
  config_.up = up;
  config_.down = down;
  return {};
}

Result<PeerId> ConditionedTransport::connect(const Address& remote, Time now) {
  release_outgoing(now);
  return inner_->connect(remote, now);
}

Result<void> ConditionedTransport::send(PeerId peer, Delivery delivery, std::span<const std::uint8_t> bytes, Time now) {
  release_outgoing(now);
  if (delivery == Delivery::kReliableOrdered) return inner_->send(peer, delivery, bytes, now);
  if (bytes.size() > inner_->limits().max_unreliable_payload) {
    return make_error(ErrorCode::kTooLarge, "unreliable payload over max_unreliable_payload");
  }
  if (!connected_.contains(peer)) return make_error(ErrorCode::kNotConnected, "unknown peer");
  admit(up_, up_rng_, config_.up, outgoing_, peer, bytes, now);
  // A datagram with no delay leaves now, in the order it was sent.
  release_outgoing(now);
  return {};
}

std::optional<TransportEvent> ConditionedTransport::poll(Time now) {
  service(now);
  // Whichever became due first: the oldest pass-through event or the
  // earliest datagram the downlink has released.
  const bool datagram_due = !incoming_.empty() && incoming_.front().at <= now;
  if (!arrived_.empty()) {
    const Arrival& first = arrived_.front();
    const bool arrived_first = !datagram_due || first.at < incoming_.front().at ||
                               (first.at == incoming_.front().at && first.order < incoming_.front().order);
    if (arrived_first) {
      TransportEvent event = std::move(arrived_.front().event);
      arrived_.pop_front();
      return event;
    }
  }
  return take_incoming(now);
}

void ConditionedTransport::service(Time now) {
  release_outgoing(now);
  while (auto event = inner_->poll(now)) {
    switch (event->type) {
      case TransportEvent::Type::kReceived:
        if (event->delivery == Delivery::kUnreliable) {
          admit(down_, down_rng_, config_.down, incoming_, event->peer, event->data, now);
          continue;
        }
        break;
      case TransportEvent::Type::kConnected: connected_.insert(event->peer); break;
      case TransportEvent::Type::kDisconnected: forget(event->peer); break;
    }
    arrived_.push_back(Arrival{now, order_++, std::move(*event)});
  }
}

void ConditionedTransport::recycle(std::vector<std::uint8_t>&& buffer) { inner_->recycle(std::move(buffer)); }

void ConditionedTransport::flush(Time now) {
  release_outgoing(now);
  inner_->flush(now);
}

void ConditionedTransport::disconnect(PeerId peer, DisconnectReason reason, Time now) {
  release_outgoing(now);
  forget(peer);
  inner_->disconnect(peer, reason, now);
}

std::optional<PeerStats> ConditionedTransport::stats(PeerId peer) const { return inner_->stats(peer); }

std::optional<WireStats> ConditionedTransport::wire_stats() const { return inner_->wire_stats(); }

std::optional<Address> ConditionedTransport::local_address() const { return inner_->local_address(); }

const TransportLimits& ConditionedTransport::limits() const { return inner_->limits(); }

void ConditionedTransport::admit(SimLink& link, SimRng& rng, const LinkConditions& conditions, HeldQueue& queue,
                                 PeerId peer, std::span<const std::uint8_t> bytes, Time now) {
  const LinkVerdict verdict = link.admit(conditions, rng, now, bytes.size());
  if (verdict.fate != SimFate::kDelivered) return;
  const auto push = [&](Time at) {
    queue.push_back(Held{at, order_++, now, peer, {bytes.begin(), bytes.end()}});
    std::push_heap(queue.begin(), queue.end(), std::greater<>());
  };
  push(verdict.deliver);
  if (verdict.copy) push(*verdict.copy);
}

std::optional<ConditionedTransport::Held> ConditionedTransport::pop_due(HeldQueue& queue, Time now) {
  if (queue.empty() || queue.front().at > now) return std::nullopt;
  std::pop_heap(queue.begin(), queue.end(), std::greater<>());
  Held held = std::move(queue.back());
  queue.pop_back();
  return held;
}

void ConditionedTransport::release_outgoing(Time now) {
  while (auto held = pop_due(outgoing_, now)) {
    up_.on_delivered(held->sent, held->at, held->bytes.size());
    // The peer may have gone meanwhile; the datagram is then lost, as on
    // the wire.
    (void)inner_->send(held->peer, Delivery::kUnreliable, held->bytes, now);
  }
}

std::optional<TransportEvent> ConditionedTransport::take_incoming(Time now) {
  auto held = pop_due(incoming_, now);
  if (!held) return std::nullopt;
  down_.on_delivered(held->sent, held->at, held->bytes.size());
  TransportEvent event;
  event.type = TransportEvent::Type::kReceived;
  event.peer = held->peer;
  event.delivery = Delivery::kUnreliable;
  event.data = std::move(held->bytes);
  return event;
}

void ConditionedTransport::drop_peer(HeldQueue& queue, SimLink& link, PeerId peer) {
  const auto gone = std::remove_if(queue.begin(), queue.end(), [peer](const Held& h) { return h.peer == peer; });
  for (auto it = gone; it != queue.end(); ++it) link.on_discarded();
  queue.erase(gone, queue.end());
  std::make_heap(queue.begin(), queue.end(), std::greater<>());
}

void ConditionedTransport::forget(PeerId peer) {
  connected_.erase(peer);
  drop_peer(outgoing_, up_, peer);
  drop_peer(incoming_, down_, peer);
}

}  // namespace tickwire::transport
