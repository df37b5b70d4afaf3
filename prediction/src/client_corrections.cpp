// ClientPrediction's count of corrections: each corrected entity of a
// snapshot, under its cause (correction_causes.h) and its type.
#include <algorithm>

#include "tickwire/prediction/client_prediction.h"

namespace tickwire::prediction {

void ClientPrediction::count_correction(EntityId id, TypeId type, bool spawn, const snapshot::World& authoritative,
                                        const StateBlock* block, Tick tick) {
  // Touching distance covers what both can move until this state: the
  // ticks since the previous one (one tick for the first).
  const std::int64_t ticks = authoritative_tick_ ? std::max<std::int64_t>(tick - *authoritative_tick_, 1) : 1;
  const double seconds = static_cast<double>(ticks) / static_cast<double>(config_.tick_rate);
  const CorrectionCause cause = causes_.classify(id, role(id), spawn, authoritative, block, seconds);
  ++stats_.mispredicted_entities;
  ++stats_.corrections_by_cause[static_cast<std::size_t>(cause)];
  if (type.value >= stats_.corrections_by_type.size()) {
    stats_.corrections_by_type.resize(std::max<std::size_t>(schema_.type_count(), std::size_t{type.value} + 1));
  }
  ++stats_.corrections_by_type[type.value];
}

void ClientPrediction::count_differing(EntityId id, const snapshot::World& authoritative, const StateBlock* block,
                                       Tick tick) {
  // compare() found a difference: a row at the tick exists.
  const HistoryRow* row = block->find(id);
  const auto type = authoritative.type_of(id);
  // Removed by the server, or replaced by an entity of another type.
  const bool spawn = row == nullptr || !type || *type != row->type;
  count_correction(id, type.value_or(row != nullptr ? row->type : TypeId{}), spawn, authoritative, block, tick);
}

void ClientPrediction::count_adopted(EntityId id, EntityId local, const snapshot::World& authoritative,
                                     const StateBlock* block, Tick tick) {
  // A predicted spawn the server confirmed: a correction when the server's
  // state at the tick differs from the one predicted for it.
  if (block == nullptr) return;
  const HistoryRow* row = block->find(local);
  const auto type = authoritative.type_of(id);
  if (row == nullptr || !type || row->type != *type) return;
  if (compare_slots(*type, authoritative.slots(id), block->slots(*row)) != Comparison::kDiffers) return;
  count_correction(id, *type, true, authoritative, block, tick);
}

}  // namespace tickwire::prediction
