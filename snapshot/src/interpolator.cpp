#include "tickwire/snapshot/interpolator.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tickwire/snapshot/field_codec.h"

namespace tickwire::snapshot {

namespace {

double wrap_pi(double a) {
  const double two_pi = 2.0 * std::numbers::pi;
  a = std::fmod(a + std::numbers::pi, two_pi);
  if (a < 0.0) a += two_pi;
  return a - std::numbers::pi;
}

float clampf(double v, float lo, float hi) {
  const auto f = static_cast<float>(v);
  return f < lo ? lo : (f > hi ? hi : f);
}

// Slerp that also extrapolates (alpha > 1); nlerp when the angle is tiny.
void slerp(const float* a, const float* b, double alpha, float* out) {
  double qa[4];
  double qb[4];
  double dot = 0.0;
  for (int i = 0; i < 4; ++i) {
    qa[i] = a[i];
    qb[i] = b[i];
    dot += qa[i] * qb[i];
  }
  if (dot < 0.0) {
    for (double& c : qb) c = -c;
    dot = -dot;
  }
  double wa = 1.0 - alpha;
  double wb = alpha;
  if (dot < 0.9995) {
    const double theta = std::acos(std::min(dot, 1.0));
    const double s = std::sin(theta);
    wa = std::sin((1.0 - alpha) * theta) / s;
    wb = std::sin(alpha * theta) / s;
  }
  double r[4];
  double n2 = 0.0;
  for (int i = 0; i < 4; ++i) {
    r[i] = wa * qa[i] + wb * qb[i];
    n2 += r[i] * r[i];
  }
  const double inv = n2 > 0.0 ? 1.0 / std::sqrt(n2) : 0.0;
  for (int i = 0; i < 4; ++i) out[i] = static_cast<float>(n2 > 0.0 ? r[i] * inv : (i == 3 ? 1.0 : 0.0));
}

}  // namespace

Interpolator::Interpolator(Schema schema, InterpolationConfig config) : schema_(std::move(schema)), config_(config) {}

bool Interpolator::teleported(const TypeSpec& type, std::span<const std::uint32_t> a,
                              std::span<const std::uint32_t> b) {
  for (const FieldSpec& f : type.fields) {
    if (f.interpolation != Interpolation::kTeleportCounter) continue;
    if (!std::equal(a.begin() + f.offset, a.begin() + f.offset + f.count, b.begin() + f.offset)) return true;
  }
  return false;
}

void Interpolator::blend(const TypeSpec& type, const std::uint32_t* older, const std::uint32_t* newer, double alpha,
                         std::span<std::uint32_t> out) {
  const std::uint16_t stride = type.stride();
  a_slots_.resize(stride);
  b_slots_.resize(stride);
  dequantize_entity(type, {older, stride}, a_slots_);
  dequantize_entity(type, {newer, stride}, b_slots_);
  for (const FieldSpec& f : type.fields) {
    const std::size_t o = f.offset;
    if (f.interpolation == Interpolation::kStep || f.interpolation == Interpolation::kTeleportCounter || alpha <= 0.0 ||
        alpha == 1.0) {
      const auto& src = alpha >= 1.0 ? b_slots_ : a_slots_;
      std::copy_n(src.begin() + static_cast<std::ptrdiff_t>(o), f.count, out.begin() + static_cast<std::ptrdiff_t>(o));
      continue;
    }
    if (f.kind == FieldKind::kQuat) {
      float qa[4];
      float qb[4];
      float r[4];
      for (std::size_t i = 0; i < 4; ++i) {
        qa[i] = slot_float(a_slots_[o + i]);
        qb[i] = slot_float(b_slots_[o + i]);
      }
      slerp(qa, qb, alpha, r);
      for (std::size_t i = 0; i < 4; ++i) out[o + i] = float_slot(r[i]);
      continue;
    }
    for (std::size_t i = o; i < o + f.count; ++i) {
      const ComponentSpec& c = type.components[i];
      switch (c.kind) {
        case CodeKind::kFloat: {
          const double a = slot_float(a_slots_[i]);
          const double b = slot_float(b_slots_[i]);
          double d = b - a;
          if (f.interpolation == Interpolation::kAngular) {
            // A float declared angular wraps over its range (say -180..180).
            const double span = static_cast<double>(c.max) - static_cast<double>(c.min);
            d = std::fmod(d, span);
            if (d > span / 2) d -= span;
            if (d < -span / 2) d += span;
            double v = a + d * alpha;
            v = std::fmod(v - c.min, span);
            if (v < 0) v += span;
            out[i] = float_slot(clampf(v + c.min, c.min, c.max));
          } else {
            out[i] = float_slot(clampf(a + d * alpha, c.min, c.max));
          }
          break;
        }
        case CodeKind::kAngle: {
          const double a = slot_float(a_slots_[i]);
          const double d = wrap_pi(static_cast<double>(slot_float(b_slots_[i])) - a);
          out[i] = float_slot(static_cast<float>(wrap_pi(a + d * alpha)));
          break;
        }
        case CodeKind::kInt: {
          const double a = slot_int(a_slots_[i]);
          const double b = slot_int(b_slots_[i]);
          const double lo = c.int_min;
          const double hi = lo + static_cast<double>(c.max_code);
          const double v = std::clamp(std::round(a + (b - a) * alpha), lo, hi);
          out[i] = int_slot(static_cast<std::int32_t>(v));
          break;
        }
        case CodeKind::kQuatIndex:
        case CodeKind::kQuatValue: break;
      }
    }
  }
}

SampleMode Interpolator::sample(const SnapshotReceiver& states, double time, World& out,
                                const std::function<bool(EntityId)>& skip) {
  ++stats_.samples;
  states.held_ticks(ticks_);
  if (ticks_.empty()) {
    ++stats_.empty;
    return SampleMode::kEmpty;
  }
  // Pick the pair of states to blend and the time to blend them at.
  const auto above = std::upper_bound(ticks_.begin(), ticks_.end(), time,
                                      [](double t, Tick tick) { return t < static_cast<double>(tick.value()); });
  const WorldState* older = nullptr;
  const WorldState* newer = nullptr;
  SampleMode mode = SampleMode::kInterpolated;
  double at = time;
  double limit = 0.0;  // extrapolation bound past each entity's newest values
  if (above == ticks_.begin()) {
    newer = states.state(ticks_.front());
    older = newer;
    at = static_cast<double>(ticks_.front().value());
    mode = SampleMode::kHeld;
  } else if (above == ticks_.end()) {
    newer = states.state(ticks_.back());
    older = ticks_.size() > 1 ? states.state(ticks_[ticks_.size() - 2]) : newer;
    const double newest = static_cast<double>(ticks_.back().value());
    if (time > newest) {
      mode = time - newest <= config_.max_extrapolation_ticks ? SampleMode::kExtrapolated : SampleMode::kHeld;
      at = std::min(time, newest + config_.max_extrapolation_ticks);
    }
    limit = config_.max_extrapolation_ticks;
  } else {
    newer = states.state(*above);
    older = states.state(*(above - 1));
  }
  switch (mode) {
    case SampleMode::kInterpolated: ++stats_.interpolated; break;
    case SampleMode::kExtrapolated: ++stats_.extrapolated; break;
    default: ++stats_.held; break;
  }

  // Which state defines the entity set: the older one while interpolating
  // (a spawn appears, a despawn goes, when its state's tick is reached),
  // the newest one past the end.
  const bool past_end = above == ticks_.end();
  const WorldState& present = past_end ? *newer : *older;
  const WorldState& other = past_end ? *older : *newer;
  gone_.clear();
  out.for_each([&](EntityId id) {
    if (skip && skip(id)) return;
    if (present.find(id) == nullptr) gone_.push_back(id);
  });
  for (EntityId id : gone_) out.despawn(id);

  for (const EntityState& e : present.entities()) {
    if (skip && skip(e.id)) continue;
    if (out.type_of(e.id) != e.type) {
      out.despawn(e.id);
      if (!out.spawn_at(e.id, e.type)) continue;  // beyond this world's bounds
    }
    const TypeSpec& type = schema_.type(e.type);
    const EntityState* o = other.find(e.id);
    const bool paired = o != nullptr && o->type == e.type && o->generation == e.generation && o->updated != e.updated;
    std::span<std::uint32_t> slots = out.slots(e.id);
    // Across a teleport the entity is not blended: the state that defines
    // the set (the older one until the newer's tick, the newest past the
    // end) is shown as it is.
    if (!paired || teleported(type, present.codes(e, type.stride()), other.codes(*o, type.stride()))) {
      dequantize_entity(type, present.codes(e, type.stride()), slots);
      continue;
    }
    const EntityState& first = past_end ? *o : e;
    const EntityState& second = past_end ? e : *o;
    const double t0 = first.updated.value();
    const double t1 = second.updated.value();
    double t = at;
    if (past_end) t = std::min(t, t1 + limit);
    const double alpha = std::max(0.0, (t - t0) / (t1 - t0));
    const WorldState& s0 = past_end ? other : present;
    const WorldState& s1 = past_end ? present : other;
    blend(type, s0.code_data(first), s1.code_data(second), past_end ? alpha : std::min(alpha, 1.0), slots);
  }
  return mode;
}

}  // namespace tickwire::snapshot
