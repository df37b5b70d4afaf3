#include "tickwire/prediction/render_smoother.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "tickwire/prediction/field_blend.h"

namespace tickwire::prediction {

RenderSmoother::RenderSmoother(snapshot::Schema schema, SmoothingConfig config, std::uint32_t tick_rate)
    : schema_(std::move(schema)), config_(config) {
  if (config_.duration < Duration::zero()) throw std::invalid_argument("SmoothingConfig: duration must be >= 0");
  if (tick_rate == 0) throw std::invalid_argument("RenderSmoother: tick rate must be > 0");
  if (std::isnan(config_.snap_distance) || !(config_.snap_distance > 0.0F)) {
    throw std::invalid_argument("SmoothingConfig: snap_distance must be > 0");
  }
  duration_ticks_ = config_.duration.seconds_f() * static_cast<double>(tick_rate);
}

void RenderSmoother::corrected(snapshot::EntityId id) {
  auto it = entries_.find(id);
  if (it != entries_.end()) it->second.pending = true;
}

void RenderSmoother::transfer(snapshot::EntityId from, snapshot::EntityId to) {
  auto it = entries_.find(from);
  if (it == entries_.end()) return;
  Entry moved = std::move(it->second);
  entries_.erase(it);
  moved.pending = true;
  entries_[to] = std::move(moved);
}

void RenderSmoother::forget(snapshot::EntityId id) { entries_.erase(id); }

std::optional<double> RenderSmoother::rebase_time(snapshot::EntityId id) const {
  auto it = entries_.find(id);
  if (it == entries_.end() || !it->second.pending || !it->second.drawn) return std::nullopt;
  return it->second.last_time;
}

void RenderSmoother::draw(snapshot::EntityId id, snapshot::TypeId type, double time,
                          std::span<const std::uint32_t> base, std::span<const std::uint32_t> base_then,
                          std::span<std::uint32_t> out) {
  const snapshot::TypeSpec& spec = schema_.type(type);
  Entry& e = entries_[id];
  if (!e.drawn || e.type != type) {
    e = Entry{};
    e.type = type;
    e.last_drawn.resize(spec.stride());
    e.error.resize(spec.stride());
  }
  if (e.pending && e.drawn && duration_ticks_ > 0.0) {
    // The error at the last draw, measured against the corrected
    // trajectory at that same moment: drawing base + error from then on
    // continues exactly from the last frame.
    visual_error(spec, e.last_drawn, base_then.size() == base.size() ? base_then : base, e.error);
    e.has_error = largest_linear_error(spec, e.error) <= config_.snap_distance;
    e.error_time = e.last_time;
  }
  e.pending = false;
  double weight = 0.0;
  if (e.has_error) {
    weight = 1.0 - (time - e.error_time) / duration_ticks_;
    if (weight <= 0.0) e.has_error = false;
  }
  apply_error(spec, base, e.error, e.has_error ? weight : 0.0, out);
  std::copy(out.begin(), out.end(), e.last_drawn.begin());
  e.last_time = time;
  e.drawn = true;
}

std::size_t RenderSmoother::smoothing() const {
  std::size_t n = 0;
  for (const auto& [id, e] : entries_) n += e.has_error ? 1U : 0U;
  return n;
}

}  // namespace tickwire::prediction
