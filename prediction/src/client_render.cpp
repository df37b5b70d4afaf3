// ClientPrediction's drawing side: the state between the last two
// predicted ticks, plus the smoother's decaying correction error.
#include <algorithm>
#include <cmath>

#include "tickwire/prediction/client_prediction.h"
#include "tickwire/prediction/field_blend.h"

namespace tickwire::prediction {

bool ClientPrediction::base_state(EntityId id, TypeId type, double ticks, std::span<std::uint32_t> out) const {
  const Tick newest = *predicted_tick_;
  const auto copy_row = [&](const StateBlock* block) {
    const HistoryRow* row = block != nullptr ? block->find(id) : nullptr;
    if (row == nullptr || row->type != type) return false;
    const auto s = block->slots(*row);
    std::copy(s.begin(), s.end(), out.begin());
    return true;
  };
  if (ticks < static_cast<double>(newest.value())) {
    const double floor = std::floor(std::max(ticks, 0.0));
    const Tick k(static_cast<Tick::Rep>(floor));
    const StateBlock* a = history_.find(k);
    const StateBlock* b = history_.find(k + 1);
    const HistoryRow* ra = a != nullptr ? a->find(id) : nullptr;
    const HistoryRow* rb = b != nullptr ? b->find(id) : nullptr;
    if (ra != nullptr && rb != nullptr && ra->type == type && rb->type == type) {
      const snapshot::TypeSpec& spec = schema_.type(type);
      // Across a teleport nothing lies between the two ticks: the new state.
      const bool jumped = ticks > floor && teleported(spec, a->slots(*ra), b->slots(*rb));
      blend(spec, a->slots(*ra), b->slots(*rb), jumped ? 1.0 : ticks - floor, out);
      return true;
    }
    if (copy_row(b) || copy_row(a)) return true;
  } else if (copy_row(history_.find(newest))) {
    return true;
  }
  // Not in the history (just spawned or restored): its present state.
  const auto s = world_.slots(id);
  if (s.size() != out.size()) return false;
  std::copy(s.begin(), s.end(), out.begin());
  return true;
}

void ClientPrediction::render(const NetworkTime& predicted_time, snapshot::World& out) {
  still_rendered_.clear();
  smoother_.set_enabled(smoothing_);
  if (predicted_tick_) {
    // One tick behind the predicted time: the newest tick is only complete
    // at its end, so the two ticks around predicted_time - 1 are the
    // newest pair that both exist.
    const double ticks = predicted_time.ticks_f() - 1.0;
    for (const EntityId id : predicted_) {
      const auto type = world_.type_of(id);
      if (!type) continue;
      const std::size_t stride = schema_.type(*type).stride();
      const auto base = std::span(base_).first(stride);
      const auto drawn = std::span(drawn_).first(stride);
      if (!base_state(id, *type, ticks, base)) continue;
      std::span<const std::uint32_t> then;
      if (const auto t = smoother_.rebase_time(id)) {
        const auto then_slots = std::span(base_then_).first(stride);
        if (base_state(id, *type, *t, then_slots)) then = then_slots;
      }
      smoother_.draw(id, *type, ticks, base, then, drawn);
      if (!smoothing_) std::copy(base.begin(), base.end(), drawn.begin());
      if (out.type_of(id) != type) {
        out.despawn(id);
        if (!out.spawn_at(id, *type)) continue;
      }
      std::copy(drawn.begin(), drawn.end(), out.slots(id).begin());
      still_rendered_.push_back(id);
    }
  }
  // Both lists are in id order: one merge pass finds what left.
  auto kept = still_rendered_.begin();
  for (const EntityId id : rendered_) {
    while (kept != still_rendered_.end() && *kept < id) ++kept;
    if (kept != still_rendered_.end() && *kept == id) continue;
    out.despawn(id);
    smoother_.forget(id);
  }
  rendered_.swap(still_rendered_);
}

}  // namespace tickwire::prediction
