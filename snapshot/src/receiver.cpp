#include "tickwire/snapshot/receiver.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tickwire/snapshot/codebook.h"

namespace tickwire::snapshot {

namespace {

ReceiverConfig checked(ReceiverConfig c) {
  if (c.history_ticks == 0 || c.history_ticks > kMaxHistoryTicks) {
    throw std::invalid_argument("SnapshotReceiver: history_ticks must be in [1, 4096]");
  }
  if (c.max_entities == 0 || c.max_entities > (1U << 24)) {
    throw std::invalid_argument("SnapshotReceiver: max_entities must be in [1, 2^24]");
  }
  return c;
}

ErrorCode code_of(DropReason reason) {
  switch (reason) {
    case DropReason::kOversized: return ErrorCode::kTooLarge;
    case DropReason::kTruncated: return ErrorCode::kTruncated;
    case DropReason::kOutOfRange:
    case DropReason::kTooManyEntities: return ErrorCode::kOutOfRange;
    default: return ErrorCode::kMalformed;
  }
}

}  // namespace

SnapshotReceiver::SnapshotReceiver(Schema schema, ReceiverConfig config)
    : config_(checked(config)),
      decoder_(std::move(schema), DecodeLimits{config_.max_entities, config_.history_ticks, config_.max_payload}),
      ring_(config_.history_ticks) {
  if (config_.codebook && !codebook_fits(*config_.codebook, decoder_.schema())) {
    throw std::invalid_argument("SnapshotReceiver: the codebook was made for another schema");
  }
  decoder_.set_codebook(config_.codebook);
}

const WorldState* SnapshotReceiver::state(Tick tick) const {
  const auto* slot = ring_.find(tick);
  return slot != nullptr ? slot->state.get() : nullptr;
}

const WorldState* SnapshotReceiver::find_by_low_bits(std::uint16_t low) const {
  const auto newest = ring_.newest();
  if (!newest) return nullptr;
  // Held ticks lie within history_ticks (< 65536) below the newest, so the
  // low bits name at most one of them.
  const auto back = static_cast<std::uint16_t>(static_cast<std::uint16_t>(newest->value()) - low);
  if (back > newest->value()) return nullptr;
  return state(Tick(newest->value() - back));
}

void SnapshotReceiver::held_ticks(std::vector<Tick>& out) const {
  out.clear();
  for (const auto& s : ring_.slots()) {
    if (s.tick) out.push_back(*s.tick);
  }
  std::sort(out.begin(), out.end());
}

Result<Tick> SnapshotReceiver::drop(DropReason reason, const char* detail) {
  ++stats_.dropped[static_cast<std::size_t>(reason)];
  last_drop_ = reason;
  return make_error(code_of(reason), std::string("snapshot dropped (") + to_string(reason) + "): " + detail);
}

Result<Tick> SnapshotReceiver::receive(std::span<const std::uint8_t> bytes) {
  ++stats_.received;
  ParsedHeader header;
  if (auto f = decoder_.parse_header(bytes, *this, header)) return drop(f->reason, f->detail);
  const auto newest = ring_.newest();
  if (newest && header.tick <= *newest && *newest - header.tick >= config_.history_ticks) {
    return drop(DropReason::kStale, "older than the history");
  }
  if (state(header.tick) != nullptr) return drop(DropReason::kDuplicate, "tick already decoded");
  if (auto f = decoder_.decode_body(bytes, header, scratch_)) return drop(f->reason, f->detail);
  // Decoded in full: only now does it replace anything.
  StateRing::Slot& slot = ring_.claim(header.tick);
  std::swap(*slot.state, scratch_);
  ++stats_.decoded;
  last_drop_.reset();
  return header.tick;
}

}  // namespace tickwire::snapshot
