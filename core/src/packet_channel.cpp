#include "tickwire/core/packet_channel.h"

#include <algorithm>
#include <utility>

namespace tickwire {

PacketChannel::PacketChannel() : sent_(kWindow), received_(kWindow) {}

PacketHeader PacketChannel::next_header(PacketType type, Time now) {
  if (!sent_any_) {
    sent_any_ = true;
    started_ = now;
  }
  PacketHeader h;
  h.prefix.type = type;
  h.sequence = next_sequence_;
  next_sequence_ = next_sequence_.next();
  if (Sent* s = sent_.insert(h.sequence)) *s = Sent{now, false};
  if (!received_.empty()) {
    h.ack = received_.newest();
    h.ack_bits = received_.ack_bits(h.ack);
  }
  h.send_time_us = wire_time(now);
  if (peer_time_) {
    const Duration held = now - peer_time_received_at_;
    h.echo = Echo{*peer_time_, static_cast<std::uint32_t>(std::min<std::int64_t>(
                                   std::max<std::int64_t>(held.micros(), 0), kMaxEchoHoldMicros))};
  }
  ++stats_.sent;
  return h;
}

PacketChannel::Verdict PacketChannel::receive(const PacketHeader& header, Time now) {
  if (received_.exists(header.sequence)) {
    ++stats_.duplicates;
    return Verdict::kDuplicate;
  }
  if (received_.insert(header.sequence) == nullptr) {
    ++stats_.stale;
    return Verdict::kStale;
  }
  ++stats_.received;

  // Only the newest packet's stamp is worth echoing: an older one would
  // overstate the round trip.
  if (!peer_time_ || received_.newest() == header.sequence) {
    peer_time_ = header.send_time_us;
    peer_time_received_at_ = now;
  }

  // Acks: the peer's view of which of our packets arrived. A sequence we never
  // sent (or long forgot) is ignored rather than trusted.
  auto mark = [this](Sequence s) {
    Sent* sent = sent_.find(s);
    if (sent != nullptr && !sent->acked) {
      sent->acked = true;
      newly_acked_.push_back(s);
      ++stats_.acked;
    }
  };
  if (sent_any_) {
    mark(header.ack);
    for (int i = 0; i < 32; ++i) {
      if ((header.ack_bits >> i) & 1u) mark(header.ack - (i + 1));
    }
  }

  // The echo is the peer's claim; accept it only if it is a stamp we could
  // have sent (not in the future, not before we started) and the hold fits.
  rtt_sample_.reset();
  if (header.echo && sent_any_) {
    const std::uint32_t elapsed = wrapping_elapsed(wire_time(now), header.echo->time_us);
    const std::int64_t since_start = (now - started_).micros();
    if (static_cast<std::int64_t>(elapsed) <= since_start && header.echo->hold_us <= elapsed) {
      rtt_sample_ = RttSample{Duration::micros(elapsed - header.echo->hold_us), header.send_time_us};
    }
  }
  return Verdict::kAccept;
}

std::vector<Sequence> PacketChannel::take_acked() { return std::exchange(newly_acked_, {}); }

std::optional<RttSample> PacketChannel::take_rtt_sample() { return std::exchange(rtt_sample_, std::nullopt); }

}  // namespace tickwire
