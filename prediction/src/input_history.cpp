#include "tickwire/prediction/input_history.h"

#include <algorithm>
#include <stdexcept>

namespace tickwire::prediction {

namespace {
// Packets in flight we remember for acks: over 4 s at 60 packets a second,
// longer than any ack takes to come back.
constexpr std::size_t kSentWindow = 256;
}  // namespace

InputHistory::InputHistory(snapshot::Schema schema, snapshot::TypeId input_type, InputHistoryConfig config)
    : schema_(std::move(schema)),
      input_type_(input_type),
      config_(config),
      inputs_(config.capacity == 0 ? 1 : config.capacity),
      views_(config.capacity == 0 ? 1 : config.capacity),
      sent_(kSentWindow) {
  if (!schema_.has_type(input_type_)) throw std::invalid_argument("InputHistory: unknown input type");
  if (config_.capacity == 0) throw std::invalid_argument("InputHistory: capacity must be at least 1");
  if (config_.redundancy == 0 || config_.redundancy > kMaxInputsPerPacket) {
    throw std::invalid_argument("InputHistory: redundancy must be in 1..64");
  }
}

void InputHistory::store(Tick tick, const snapshot::Record& input, std::optional<ViewClaim> view) {
  if (input.type() != input_type_) throw std::invalid_argument("InputHistory::store: record of another type");
  snapshot::Record& stored = inputs_.insert(tick, input);
  stored.quantize();
  if (view) {
    views_.insert(tick, *view);
  } else {
    views_.erase(tick);
  }
}

std::optional<InputPacket> InputHistory::make_packet(std::optional<Tick> snapshot_ack,
                                                     std::optional<std::uint32_t> copies) const {
  InputPacket packet;
  if (!make_packet(snapshot_ack, copies, packet)) return std::nullopt;
  return packet;
}

bool InputHistory::make_packet(std::optional<Tick> snapshot_ack, std::optional<std::uint32_t> copies,
                               InputPacket& packet) const {
  const auto newest = inputs_.newest();
  if (!newest) return false;
  // Walk back from the newest while inputs are held, unacknowledged and
  // within the redundancy.
  const std::uint32_t limit = std::clamp(copies.value_or(config_.redundancy), 1U, config_.redundancy);
  Tick first = *newest;
  for (std::uint32_t n = 1; n < limit && first.value() > 0; ++n) {
    const Tick older = first - 1;
    if (acked_ && older <= *acked_) break;
    if (!inputs_.contains(older)) break;
    first = older;
  }
  packet.first_tick = first;
  packet.snapshot_ack = snapshot_ack;
  const auto count = static_cast<std::size_t>(*newest - first + 1);
  // Assigned over the records already there: each keeps its slots' storage.
  if (packet.inputs.size() > count)
    packet.inputs.erase(packet.inputs.begin() + static_cast<std::ptrdiff_t>(count), packet.inputs.end());
  for (std::size_t i = 0; i < count; ++i) {
    const snapshot::Record& input = *inputs_.find(first + static_cast<std::int64_t>(i));
    if (i < packet.inputs.size()) {
      packet.inputs[i] = input;
    } else {
      packet.inputs.push_back(input);
    }
  }
  // Claims go as a run, one per input, or not at all.
  packet.view_claims.clear();
  for (std::size_t i = 0; i < count; ++i) {
    const ViewClaim* view = views_.find(first + static_cast<std::int64_t>(i));
    if (view == nullptr) {
      packet.view_claims.clear();
      break;
    }
    packet.view_claims.push_back(*view);
  }
  return true;
}

void InputHistory::on_sent(Sequence sequence, const InputPacket& packet) {
  if (packet.inputs.empty()) return;
  if (Tick* slot = sent_.insert(sequence)) *slot = packet.last_tick();
}

void InputHistory::on_acked(Sequence sequence) {
  const Tick* newest = sent_.find(sequence);
  if (newest == nullptr) return;
  if (!acked_ || *newest > *acked_) acked_ = *newest;
  sent_.erase(sequence);
}

}  // namespace tickwire::prediction
