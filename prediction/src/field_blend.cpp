#include "tickwire/prediction/field_blend.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tickwire/snapshot/field_value.h"

namespace tickwire::prediction {

namespace {

using snapshot::CodeKind;
using snapshot::FieldKind;
using snapshot::FieldSpec;
using snapshot::float_slot;
using snapshot::Interpolation;
using snapshot::slot_float;

struct Quat4 {
  double x = 0.0;
  double y = 0.0;
  double z = 0.0;
  double w = 1.0;
};

Quat4 load_quat(std::span<const std::uint32_t> s, std::size_t o) {
  return {slot_float(s[o]), slot_float(s[o + 1]), slot_float(s[o + 2]), slot_float(s[o + 3])};
}

void store_quat(std::span<std::uint32_t> s, std::size_t o, const Quat4& q) {
  s[o] = float_slot(static_cast<float>(q.x));
  s[o + 1] = float_slot(static_cast<float>(q.y));
  s[o + 2] = float_slot(static_cast<float>(q.z));
  s[o + 3] = float_slot(static_cast<float>(q.w));
}

double dot(const Quat4& a, const Quat4& b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }

Quat4 normalized(const Quat4& q) {
  const double n = std::sqrt(dot(q, q));
  if (!(n > 1e-12) || !std::isfinite(n)) return {};
  return {q.x / n, q.y / n, q.z / n, q.w / n};
}

Quat4 multiply(const Quat4& a, const Quat4& b) {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

Quat4 conjugate(const Quat4& q) { return {-q.x, -q.y, -q.z, q.w}; }

// Normalized lerp along the shorter arc. Between two ticks the arc is
// small, where nlerp and slerp differ by far less than the quantization.
Quat4 nlerp(const Quat4& a, Quat4 b, double t) {
  if (dot(a, b) < 0.0) b = {-b.x, -b.y, -b.z, -b.w};
  return normalized({a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t, a.w + (b.w - a.w) * t});
}

double wrap(double v, double span) {
  v = std::fmod(v, span);
  if (v > span / 2) v -= span;
  if (v < -span / 2) v += span;
  return v;
}

double wrap_pi(double a) { return wrap(a, 2.0 * std::numbers::pi); }

bool is_step(const FieldSpec& f) {
  return f.interpolation == Interpolation::kStep || f.interpolation == Interpolation::kTeleportCounter ||
         f.kind == FieldKind::kBool || f.kind == FieldKind::kEnum;
}

float clamp_to(double v, const snapshot::ComponentSpec& c) {
  const auto f = static_cast<float>(v);
  return std::clamp(f, c.min, c.max);
}

// A float declared angular wraps over its range (say -180..180 degrees).
float wrap_into(double v, const snapshot::ComponentSpec& c) {
  const double span = static_cast<double>(c.max) - static_cast<double>(c.min);
  double r = std::fmod(v - static_cast<double>(c.min), span);
  if (r < 0.0) r += span;
  return clamp_to(r + static_cast<double>(c.min), c);
}

}  // namespace

void blend(const snapshot::TypeSpec& type, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b, double t,
           std::span<std::uint32_t> out) {
  t = std::clamp(t, 0.0, 1.0);
  for (const FieldSpec& f : type.fields) {
    const std::size_t o = f.offset;
    const bool linear_int = f.kind == FieldKind::kInt || f.kind == FieldKind::kIntArray;
    if (is_step(f) || t == 0.0 || t == 1.0) {
      const auto& src = t >= 1.0 ? b : a;
      std::copy_n(src.begin() + static_cast<std::ptrdiff_t>(o), f.count, out.begin() + static_cast<std::ptrdiff_t>(o));
      continue;
    }
    if (f.kind == FieldKind::kQuat) {
      store_quat(out, o, nlerp(load_quat(a, o), load_quat(b, o), t));
      continue;
    }
    for (std::size_t i = o; i < o + f.count; ++i) {
      const snapshot::ComponentSpec& c = type.components[i];
      if (linear_int) {
        const double va = snapshot::slot_int(a[i]);
        const double vb = snapshot::slot_int(b[i]);
        const double lo = c.int_min;
        const double hi = lo + static_cast<double>(c.max_code);
        out[i] = snapshot::int_slot(static_cast<std::int32_t>(std::clamp(std::round(va + (vb - va) * t), lo, hi)));
        continue;
      }
      const double va = slot_float(a[i]);
      const double vb = slot_float(b[i]);
      if (c.kind == CodeKind::kAngle) {
        out[i] = float_slot(static_cast<float>(wrap_pi(va + wrap_pi(vb - va) * t)));
      } else if (f.interpolation == Interpolation::kAngular) {
        const double span = static_cast<double>(c.max) - static_cast<double>(c.min);
        out[i] = float_slot(wrap_into(va + wrap(vb - va, span) * t, c));
      } else {
        out[i] = float_slot(clamp_to(va + (vb - va) * t, c));
      }
    }
  }
}

void visual_error(const snapshot::TypeSpec& type, std::span<const std::uint32_t> drawn,
                  std::span<const std::uint32_t> base, std::span<float> error) {
  std::fill(error.begin(), error.end(), 0.0F);
  for (const FieldSpec& f : type.fields) {
    const std::size_t o = f.offset;
    if (is_step(f) || f.kind == FieldKind::kInt || f.kind == FieldKind::kIntArray) continue;
    if (f.kind == FieldKind::kQuat) {
      Quat4 d = load_quat(drawn, o);
      const Quat4 b = load_quat(base, o);
      if (dot(d, b) < 0.0) d = {-d.x, -d.y, -d.z, -d.w};
      const Quat4 e = normalized(multiply(d, conjugate(b)));
      error[o] = static_cast<float>(e.x);
      error[o + 1] = static_cast<float>(e.y);
      error[o + 2] = static_cast<float>(e.z);
      error[o + 3] = static_cast<float>(e.w);
      continue;
    }
    for (std::size_t i = o; i < o + f.count; ++i) {
      const snapshot::ComponentSpec& c = type.components[i];
      const double d = static_cast<double>(slot_float(drawn[i])) - static_cast<double>(slot_float(base[i]));
      if (c.kind == CodeKind::kAngle) {
        error[i] = static_cast<float>(wrap_pi(d));
      } else if (f.interpolation == Interpolation::kAngular) {
        error[i] = static_cast<float>(wrap(d, static_cast<double>(c.max) - static_cast<double>(c.min)));
      } else {
        error[i] = static_cast<float>(d);
      }
      if (!std::isfinite(error[i])) error[i] = 0.0F;
    }
  }
}

void apply_error(const snapshot::TypeSpec& type, std::span<const std::uint32_t> base, std::span<const float> error,
                 double weight, std::span<std::uint32_t> out) {
  weight = std::clamp(weight, 0.0, 1.0);
  std::copy(base.begin(), base.end(), out.begin());
  if (weight == 0.0) return;
  for (const FieldSpec& f : type.fields) {
    const std::size_t o = f.offset;
    if (is_step(f) || f.kind == FieldKind::kInt || f.kind == FieldKind::kIntArray) continue;
    if (f.kind == FieldKind::kQuat) {
      const Quat4 e{error[o], error[o + 1], error[o + 2], error[o + 3]};
      const Quat4 partial = nlerp(Quat4{}, e, weight);
      store_quat(out, o, normalized(multiply(partial, load_quat(base, o))));
      continue;
    }
    for (std::size_t i = o; i < o + f.count; ++i) {
      const snapshot::ComponentSpec& c = type.components[i];
      const double v = static_cast<double>(slot_float(base[i])) + static_cast<double>(error[i]) * weight;
      if (c.kind == CodeKind::kAngle) {
        out[i] = float_slot(static_cast<float>(wrap_pi(v)));
      } else if (f.interpolation == Interpolation::kAngular) {
        out[i] = float_slot(wrap_into(v, c));
      } else {
        out[i] = float_slot(clamp_to(v, c));
      }
    }
  }
}

bool teleported(const snapshot::TypeSpec& type, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b) {
  for (const FieldSpec& f : type.fields) {
    if (f.interpolation != Interpolation::kTeleportCounter) continue;
    const auto from = static_cast<std::ptrdiff_t>(f.offset);
    if (!std::equal(a.begin() + from, a.begin() + from + f.count, b.begin() + from)) return true;
  }
  return false;
}

float largest_linear_error(const snapshot::TypeSpec& type, std::span<const float> error) {
  float worst = 0.0F;
  for (const FieldSpec& f : type.fields) {
    if (is_step(f) || f.interpolation == Interpolation::kAngular || f.kind == FieldKind::kQuat ||
        f.kind == FieldKind::kAngle || f.kind == FieldKind::kInt || f.kind == FieldKind::kIntArray) {
      continue;
    }
    for (std::size_t i = f.offset; i < static_cast<std::size_t>(f.offset) + f.count; ++i) {
      worst = std::max(worst, std::fabs(error[i]));
    }
  }
  return worst;
}

}  // namespace tickwire::prediction
