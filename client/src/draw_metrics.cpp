#include "tickwire/client/draw_metrics.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "tickwire/client/client.h"
#include "tickwire/prediction/render_smoother.h"

namespace tickwire::client {

namespace {

float length(const prediction::Point& p) { return prediction::distance(p, prediction::Point{}); }

}  // namespace

DrawMetrics::DrawMetrics(const snapshot::Schema& schema, std::span<const prediction::MotionFields> motion,
                         float pop_distance)
    : types_(schema.type_count()), pop_distance_(pop_distance) {
  prediction::validate_motion_fields(schema, motion);
  if (!std::isfinite(pop_distance) || pop_distance <= 0.0F) {
    throw std::invalid_argument("DrawMetrics: pop distance must be a positive number");
  }
  for (const prediction::MotionFields& m : motion) types_[m.type.value].motion = m;
  for (std::size_t t = 0; t < types_.size(); ++t) {
    for (const snapshot::FieldSpec& f : schema.type(snapshot::TypeId{static_cast<std::uint16_t>(t)}).fields) {
      if (f.interpolation != snapshot::Interpolation::kTeleportCounter) continue;
      for (std::size_t i = 0; i < f.count; ++i)
        types_[t].teleport_slots.push_back(static_cast<std::uint16_t>(f.offset + i));
    }
  }
}

std::uint64_t DrawMetrics::teleport_key(const TypeInfo& info, std::span<const std::uint32_t> slots) const {
  // FNV-1a over the counters' slots: any change to one changes the key.
  std::uint64_t key = 14695981039346656037ULL;
  for (const std::uint16_t s : info.teleport_slots) key = (key ^ slots[s]) * 1099511628211ULL;
  return key;
}

bool DrawMetrics::pops(const Track& prev, const Track& now, double dt) {
  if (prev.teleports != now.teleports) return false;    // a teleport is meant to jump
  if (!prev.has_speed && !now.has_speed) return false;  // nothing to judge the move by yet
  const float moved = prediction::distance(now.position, prev.position);
  const double explained = static_cast<double>(std::max(prev.speed, now.speed)) * dt;
  const auto unexplained = static_cast<float>(static_cast<double>(moved) - explained);
  worst_ = std::max(worst_, unexplained);
  return unexplained > pop_distance_;
}

void DrawMetrics::frame(const snapshot::World& view, Time now) {
  ++frames_;
  const double dt = last_time_ ? std::max(0.0, (now - *last_time_).seconds_f()) : 0.0;
  now_.clear();
  auto prev = last_.begin();
  view.for_each([&](snapshot::EntityId id) {
    const auto type = view.type_of(id);
    if (!type || type->value >= types_.size()) return;
    const TypeInfo& info = types_[type->value];
    if (!info.motion) return;
    const auto slots = view.slots(id);
    Track t{id, *type, info.motion->position(slots), 0.0F, false, teleport_key(info, slots)};
    if (const auto v = info.motion->velocity(slots)) {
      t.speed = length(*v);
      t.has_speed = true;
    }
    while (prev != last_.end() && prev->id < id) ++prev;
    if (prev != last_.end() && prev->id == id && prev->type == t.type && last_time_) {
      if (pops(*prev, t, dt)) ++pops_;
      // Without a velocity field, this frame's move stands for the next
      // one's speed (not across a teleport, which is no speed).
      if (!info.motion->velocity_offset && dt > 0.0 && prev->teleports == t.teleports) {
        t.speed = static_cast<float>(static_cast<double>(prediction::distance(t.position, prev->position)) / dt);
        t.has_speed = true;
      }
    }
    now_.push_back(t);
  });
  last_.swap(now_);
  last_time_ = now;
}

// Client's share: the stats of what was drawn.
void Client::refresh_draw_stats(Time now) {
  // The quantiles sort the window: only when a correction added to it, and
  // once the window is large, at most once a second, so a client corrected
  // every frame does not sort thousands of sizes every frame.
  constexpr std::uint64_t kSortAlways = 256;
  const prediction::CorrectionSizes& sizes = prediction_->smoother().correction_sizes();
  stats_.corrections_drawn = sizes.count();
  const bool added = sizes.count() != quantiles_count_;
  const bool due = sizes.count() <= kSortAlways || !quantiles_at_ || now - *quantiles_at_ >= Duration::seconds(1);
  if (added && due) {
    quantiles_count_ = sizes.count();
    stats_.correction_p50 = sizes.quantile(0.50);
    stats_.correction_p99 = sizes.quantile(0.99);
    quantiles_at_ = now;
  }
  stats_.visual_pops = draw_metrics_.pops();
  stats_.frames_drawn = draw_metrics_.frames();
}

}  // namespace tickwire::client
