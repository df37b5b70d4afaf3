#include "tickwire/prediction/input_queue.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tickwire::prediction {

const char* to_string(InputVerdict verdict) {
  switch (verdict) {
    case InputVerdict::kAccepted: return "accepted";
    case InputVerdict::kDuplicate: return "duplicate";
    case InputVerdict::kLate: return "late";
    case InputVerdict::kStale: return "stale";
    case InputVerdict::kTooFarAhead: return "too far ahead";
    case InputVerdict::kInvalid: return "invalid";
  }
  return "unknown";
}

namespace {

snapshot::Record checked_record(const snapshot::Schema& schema, snapshot::TypeId type) {
  if (!schema.has_type(type)) throw std::invalid_argument("InputQueue: unknown input type");
  return snapshot::Record(schema, type);
}

std::uint32_t checked_size(std::uint32_t n, const char* what) {
  if (n == 0) throw std::invalid_argument(std::string("InputQueue: ") + what + " must be at least 1");
  return n;
}

}  // namespace

InputQueue::InputQueue(snapshot::Schema schema, snapshot::TypeId input_type, InputQueueConfig config)
    : schema_(std::move(schema)),
      input_type_(input_type),
      config_(config),
      // Ticks next_tick .. next_tick + max_ticks_ahead may be pending at once.
      pending_(static_cast<std::size_t>(checked_size(config.max_ticks_ahead, "max_ticks_ahead")) + 1),
      consumed_(checked_size(config.remember_ticks, "remember_ticks")),
      last_(checked_record(schema_, input_type)),
      neutral_(checked_record(schema_, input_type)) {
  pending_values_.resize(pending_.size() * last_.slots().size());
}

InputQueue::Pending* InputQueue::find_pending(Tick tick) {
  Pending& slot = pending_[tick.value() % pending_.size()];
  return slot.held && slot.tick == tick ? &slot : nullptr;
}

const InputQueue::Pending* InputQueue::find_pending(Tick tick) const {
  const Pending& slot = pending_[tick.value() % pending_.size()];
  return slot.held && slot.tick == tick ? &slot : nullptr;
}

std::span<std::uint32_t> InputQueue::values_of(const Pending& slot) {
  const std::size_t stride = last_.slots().size();
  return std::span(pending_values_).subspan(static_cast<std::size_t>(&slot - pending_.data()) * stride, stride);
}

InputVerdict InputQueue::receive(Tick tick, const snapshot::Record& input, Tick next_tick,
                                 std::optional<ViewClaim> view) {
  if (check_input(input, input_type_) != InputFault::kNone) {
    ++stats_.invalid;
    return InputVerdict::kInvalid;
  }
  // The server's clock and the queue's own record both say what is past.
  Tick next = next_tick;
  if (last_consumed_ && *last_consumed_ >= next) next = *last_consumed_ + 1;
  if (tick < next) {
    const bool remembered = first_consumed_ && tick >= *first_consumed_ &&
                            (*last_consumed_ - tick) < static_cast<std::int64_t>(config_.remember_ticks);
    Consumed* state = remembered ? consumed_.find(tick) : nullptr;
    if (state == nullptr) {
      ++stats_.stale;
      return InputVerdict::kStale;
    }
    if (*state == Consumed::kMissing) {
      *state = Consumed::kMissingThenLate;
      ++stats_.late;
      return InputVerdict::kLate;
    }
    ++stats_.duplicates;
    return InputVerdict::kDuplicate;
  }
  if (tick - next > static_cast<std::int64_t>(config_.max_ticks_ahead)) {
    ++stats_.too_far_ahead;
    return InputVerdict::kTooFarAhead;
  }
  if (find_pending(tick) != nullptr) {
    ++stats_.duplicates;
    return InputVerdict::kDuplicate;
  }
  // The slot's earlier tick, if any, is past: every tick from next to
  // next + max_ticks_ahead has a slot of its own.
  Pending& slot = pending_[tick.value() % pending_.size()];
  slot = Pending{tick, true, view.has_value(), view.value_or(ViewClaim{})};
  const auto values = input.slots();
  std::copy(values.begin(), values.end(), values_of(slot).begin());
  if (!newest_received_ || tick > *newest_received_) newest_received_ = tick;
  ++stats_.accepted;
  return InputVerdict::kAccepted;
}

std::size_t InputQueue::receive(const InputPacket& packet, Tick next_tick) {
  std::size_t accepted = 0;
  for (std::size_t i = 0; i < packet.inputs.size(); ++i) {
    // A decoded packet never passes the end of Tick; a hand-built one is
    // checked rather than trusted.
    if (!detail::tick_in_range(static_cast<std::int64_t>(packet.first_tick.value()) + static_cast<std::int64_t>(i)))
      break;
    const Tick tick = packet.first_tick + static_cast<std::int64_t>(i);
    const std::optional<ViewClaim> view =
        i < packet.view_claims.size() ? std::optional<ViewClaim>(packet.view_claims[i]) : std::nullopt;
    if (receive(tick, packet.inputs[i], next_tick, view) == InputVerdict::kAccepted) ++accepted;
  }
  return accepted;
}

ConsumedInput InputQueue::consume(Tick tick) {
  if (last_consumed_ && tick <= *last_consumed_) {
    throw std::invalid_argument("InputQueue::consume: tick " + std::to_string(tick.value()) +
                                " is not after the last consumed tick " + std::to_string(last_consumed_->value()));
  }
  if (!first_consumed_) first_consumed_ = tick;
  last_consumed_ = tick;
  ++stats_.consumed;
  if (Pending* slot = find_pending(tick)) {
    last_.assign_slots(values_of(*slot));
    slot->held = false;
    consumed_.insert(tick, Consumed::kWithInput);
    return {&last_, false, slot->has_view ? std::optional<ViewClaim>(slot->view) : std::nullopt};
  }
  ++stats_.missing;
  consumed_.insert(tick, Consumed::kMissing);
  if (config_.missing == MissingInput::kNeutral) return {&neutral_, true, std::nullopt};
  return {&last_, true, std::nullopt};
}

std::size_t InputQueue::pending() const {
  if (!newest_received_) return 0;
  const std::int64_t from = last_consumed_ ? static_cast<std::int64_t>(last_consumed_->value()) + 1 : 0;
  std::size_t n = 0;
  for (std::int64_t t = newest_received_->value(); t >= from && *newest_received_ - Tick(static_cast<Tick::Rep>(t)) <=
                                                                    static_cast<std::int64_t>(config_.max_ticks_ahead);
       --t) {
    if (find_pending(Tick(static_cast<Tick::Rep>(t))) != nullptr) ++n;
  }
  return n;
}

}  // namespace tickwire::prediction
