#include "tickwire/prediction/render_smoother.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "tickwire/prediction/field_blend.h"

namespace tickwire::prediction {

namespace {

// The length of the error over `slots` slots from `offset`.
float error_length(std::span<const float> error, std::size_t offset, std::size_t slots) {
  double sum = 0.0;
  for (std::size_t i = offset; i < offset + slots && i < error.size(); ++i) {
    sum += static_cast<double>(error[i]) * static_cast<double>(error[i]);
  }
  return static_cast<float>(std::sqrt(sum));
}

}  // namespace

RenderSmoother::RenderSmoother(snapshot::Schema schema, SmoothingConfig config, std::uint32_t tick_rate,
                               std::span<const MotionFields> motion)
    : schema_(std::move(schema)), config_(std::move(config)) {
  config_.validate(schema_);
  validate_motion_fields(schema_, motion);
  if (tick_rate == 0) throw std::invalid_argument("RenderSmoother: tick rate must be > 0");
  duration_ticks_ = config_.duration.seconds_f() * static_cast<double>(tick_rate);
  max_correction_per_tick_ = static_cast<double>(config_.max_correction_speed) / static_cast<double>(tick_rate);
  build_rules(motion);
}

void RenderSmoother::build_rules(std::span<const MotionFields> motion) {
  rules_.assign(schema_.type_count(), {});
  motion_.assign(schema_.type_count(), std::nullopt);
  for (const MotionFields& m : motion) {
    motion_[m.type.value] = m;
    if (std::isinf(config_.snap_distance)) continue;
    rules_[m.type.value].push_back({m.position_offset, m.dimensions, config_.snap_distance});
  }
  for (const SnapThreshold& t : config_.thresholds) {
    auto& rules = rules_[t.type.value];
    const auto same = std::find_if(rules.begin(), rules.end(), [&](const Rule& r) { return r.offset == t.offset; });
    if (same != rules.end()) {
      *same = {t.offset, t.slots, t.distance};
    } else {
      rules.push_back({t.offset, t.slots, t.distance});
    }
  }
}

bool RenderSmoother::beyond_threshold(snapshot::TypeId type, std::span<const float> error) const {
  return std::any_of(rules_[type.value].begin(), rules_[type.value].end(),
                     [&](const Rule& r) { return error_length(error, r.offset, r.slots) > r.distance; });
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

void RenderSmoother::take_correction(Entry& e, const snapshot::TypeSpec& spec,
                                     std::span<const std::uint32_t> base_then) {
  // The error at the last draw, measured against the corrected trajectory
  // at that same moment: drawing base + error from then on continues
  // exactly from the last frame.
  visual_error(spec, e.last_drawn, base_then, e.error);
  // A replay that reproduced the same trajectory corrected nothing.
  const auto& m = motion_[e.type.value];
  if (m && !std::equal(e.last_base.begin(), e.last_base.end(), base_then.begin(), base_then.end())) {
    sizes_.record(distance(m->position(e.last_base), m->position(base_then)));
  }
  const bool snap = beyond_threshold(e.type, e.error);
  snaps_ += snap ? 1U : 0U;
  e.has_error = enabled_ && duration_ticks_ > 0.0 && !snap;
  e.error_time = e.last_time;
  e.fade_ticks = duration_ticks_;
  if (m) {
    // The velocity is drawn as corrected at once: a velocity that changed
    // is no jump on screen, and the drawn motion then agrees with it. The
    // position slides, no faster than max_correction_speed.
    if (m->velocity_offset) std::fill_n(e.error.begin() + *m->velocity_offset, m->dimensions, 0.0F);
    const double length = error_length(e.error, m->position_offset, m->dimensions);
    e.fade_ticks = std::max(duration_ticks_, length / max_correction_per_tick_);
  }
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
    e.last_base.resize(spec.stride());
    e.error.resize(spec.stride());
  }
  if (e.drawn && teleported(spec, e.last_drawn, base)) {
    // A teleport since the last frame, by a correction or by the entity's
    // own trajectory: drawn at the new state at once, nothing in between.
    snaps_ += e.pending ? 1U : 0U;
    e.has_error = false;
  } else if (e.pending && e.drawn) {
    take_correction(e, spec, base_then.size() == base.size() ? base_then : base);
  }
  e.pending = false;
  if (!enabled_) e.has_error = false;
  double weight = 0.0;
  if (e.has_error) {
    weight = 1.0 - (time - e.error_time) / e.fade_ticks;
    if (weight <= 0.0) e.has_error = false;
  }
  apply_error(spec, base, e.error, e.has_error ? weight : 0.0, out);
  std::copy(out.begin(), out.end(), e.last_drawn.begin());
  std::copy(base.begin(), base.end(), e.last_base.begin());
  e.last_time = time;
  e.drawn = true;
}

std::size_t RenderSmoother::smoothing() const {
  std::size_t n = 0;
  for (const auto& [id, e] : entries_) n += e.has_error ? 1U : 0U;
  return n;
}

}  // namespace tickwire::prediction
