#include "tickwire/core/packet_channel.h"

#include <algorithm>
#include <utility>

namespace tickwire {

PacketChannel::PacketChannel(Acks acks) : acks_(acks), sent_(kWindow), received_(kWindow) {}

PacketHeader PacketChannel::next_header(PacketType type, Time now) {
  sent_any_ = true;
  PacketHeader h;
  h.prefix.type = type;
  h.sequence = next_sequence_;
  next_sequence_ = next_sequence_.next();
  if (Sent* s = sent_.insert(h.sequence)) {
    *s = Sent{now};
    acked_.reset(h.sequence.value() % kWindow);
  }
  if (!received_.empty()) {
    h.ack = received_.newest();
    h.ack_bits = received_.ack_bits(h.ack);
  }
  // One sample per packet received: repeating the hold of a packet already
  // answered would only cost bits (a client sends two inputs per snapshot).
  if (hold_due_) {
    hold_due_ = false;
    const std::int64_t held = std::max<std::int64_t>((now - newest_received_at_).micros(), 0);
    h.hold = Hold{static_cast<std::uint32_t>(std::min<std::int64_t>(held, kMaxHoldMicros))};
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

  // Only the newest packet is worth a hold: answering an older one would
  // overstate the round trip.
  if (received_.newest() == header.sequence) {
    newest_received_at_ = now;
    hold_due_ = true;
  }

  // The round trip of the packet the peer says it held, read before the
  // acks below mark it: a sequence we never sent (or long forgot) yields
  // nothing, and a hold longer than the time since we sent is a lie.
  rtt_sample_.reset();
  if (header.hold && sent_any_) {
    if (const Sent* sent = sent_.find(header.ack); sent != nullptr && sent->at <= now) {
      const Duration elapsed = now - sent->at;
      if (Duration::micros(header.hold->hold_us) <= elapsed) {
        rtt_sample_ = RttSample{elapsed - Duration::micros(header.hold->hold_us)};
      }
    }
  }

  // Acks: the peer's view of which of our packets arrived. A sequence we never
  // sent (or long forgot) is ignored rather than trusted.
  auto mark = [this](Sequence s) {
    const std::size_t bit = s.value() % kWindow;
    if (sent_.exists(s) && !acked_.test(bit)) {
      acked_.set(bit);
      if (acks_ == Acks::kReported) {
        if (newly_acked_.size() == kWindow) newly_acked_.erase(newly_acked_.begin());
        newly_acked_.push_back(s);
      }
      ++stats_.acked;
    }
  };
  if (sent_any_) {
    mark(header.ack);
    for (int i = 0; i < 32; ++i) {
      if ((header.ack_bits >> i) & 1u) mark(header.ack - (i + 1));
    }
  }
  return Verdict::kAccept;
}

std::vector<Sequence> PacketChannel::take_acked() {
  std::vector<Sequence> out;
  take_acked(out);
  return out;
}

void PacketChannel::take_acked(std::vector<Sequence>& out) {
  out.clear();
  std::swap(out, newly_acked_);
}

std::optional<RttSample> PacketChannel::take_rtt_sample() { return std::exchange(rtt_sample_, std::nullopt); }

}  // namespace tickwire
