#include "tickwire/snapshot/field_codec.h"

#include <cmath>
#include <numbers>

namespace tickwire::snapshot {

std::uint32_t quantize_float(float v, float min, float max, std::uint32_t steps) {
  if (steps == 0 || std::isnan(v) || v <= min) return 0;
  if (v >= max) return steps;
  const double t = (static_cast<double>(v) - static_cast<double>(min)) /
                   (static_cast<double>(max) - static_cast<double>(min)) * static_cast<double>(steps);
  const double q = std::floor(t + 0.5);
  return q >= static_cast<double>(steps) ? steps : static_cast<std::uint32_t>(q);
}

float dequantize_float(std::uint32_t code, float min, float max, std::uint32_t steps) {
  if (steps == 0 || code == 0) return min;
  if (code >= steps) return max;
  const double span = static_cast<double>(max) - static_cast<double>(min);
  const auto v =
      static_cast<float>(static_cast<double>(min) + span * (static_cast<double>(code) / static_cast<double>(steps)));
  return v < min ? min : (v > max ? max : v);
}

std::uint32_t quantize_angle(float radians, int bits) {
  if (!std::isfinite(radians)) return 0;
  const double turns = static_cast<double>(radians) / (2.0 * std::numbers::pi);
  const double frac = turns - std::floor(turns);
  const double scale = static_cast<double>(std::uint64_t{1} << bits);
  const auto code = static_cast<std::uint64_t>(std::floor(frac * scale + 0.5));
  return static_cast<std::uint32_t>(code & ((std::uint64_t{1} << bits) - 1));
}

float dequantize_angle(std::uint32_t code, int bits) {
  const std::uint32_t half = std::uint32_t{1} << (bits - 1);
  const double scale = static_cast<double>(std::uint64_t{1} << bits);
  double turns = static_cast<double>(code) / scale;
  if (code >= half) turns -= 1.0;
  return static_cast<float>(turns * 2.0 * std::numbers::pi);
}

void quantize_quat(std::span<const std::uint32_t, 4> slots, std::uint32_t steps, std::span<std::uint32_t, 4> codes) {
  double q[4];
  double norm2 = 0.0;
  for (int i = 0; i < 4; ++i) {
    q[i] = static_cast<double>(slot_float(slots[static_cast<std::size_t>(i)]));
    norm2 += q[i] * q[i];
  }
  if (!(norm2 > 1e-24) || !std::isfinite(norm2)) {
    q[0] = q[1] = q[2] = 0.0;
    q[3] = 1.0;
  } else {
    const double inv = 1.0 / std::sqrt(norm2);
    for (double& c : q) c *= inv;
  }
  int largest = 0;
  for (int i = 1; i < 4; ++i) {
    if (std::fabs(q[i]) > std::fabs(q[largest])) largest = i;
  }
  if (q[largest] < 0.0) {
    for (double& c : q) c = -c;
  }
  std::uint32_t small[3];
  for (int i = 0, k = 0; i < 4; ++i) {
    if (i == largest) continue;
    small[k++] = quantize_float(static_cast<float>(q[i]), -kQuatBound, kQuatBound, steps);
  }
  // Keep the rebuilt largest component strictly the largest, with a margin
  // wider than float rounding, so the snapped value quantizes to itself.
  for (int guard = 0; guard < 8; ++guard) {
    double sum = 0.0;
    double c[3];
    for (int k = 0; k < 3; ++k) {
      c[k] = static_cast<double>(dequantize_float(small[k], -kQuatBound, kQuatBound, steps));
      sum += c[k] * c[k];
    }
    const double rebuilt = std::sqrt(sum < 1.0 ? 1.0 - sum : 0.0);
    int worst = -1;
    for (int k = 0; k < 3; ++k) {
      if (std::fabs(c[k]) >= rebuilt - 1e-6 && (worst < 0 || std::fabs(c[k]) > std::fabs(c[worst]))) worst = k;
    }
    if (worst < 0) break;
    std::uint32_t& code = small[worst];
    if (c[worst] > 0.0) {
      --code;
    } else {
      ++code;
    }
  }
  codes[0] = static_cast<std::uint32_t>(largest);
  codes[1] = small[0];
  codes[2] = small[1];
  codes[3] = small[2];
}

void dequantize_quat(std::span<const std::uint32_t, 4> codes, std::uint32_t steps, std::span<std::uint32_t, 4> slots) {
  const std::uint32_t largest = codes[0] & 3U;
  float out[4];
  double sum = 0.0;
  for (std::uint32_t i = 0, k = 1; i < 4; ++i) {
    if (i == largest) continue;
    out[i] = dequantize_float(codes[k++], -kQuatBound, kQuatBound, steps);
    sum += static_cast<double>(out[i]) * static_cast<double>(out[i]);
  }
  out[largest] = static_cast<float>(std::sqrt(sum < 1.0 ? 1.0 - sum : 0.0));
  for (std::size_t i = 0; i < 4; ++i) slots[i] = float_slot(out[i]);
}

namespace {

std::uint32_t quantize_component(const ComponentSpec& c, std::uint32_t slot) {
  switch (c.kind) {
    case CodeKind::kFloat: return quantize_float(slot_float(slot), c.min, c.max, c.max_code);
    case CodeKind::kAngle: return quantize_angle(slot_float(slot), c.bits);
    case CodeKind::kInt: {
      const std::int64_t v = slot_int(slot);
      const std::int64_t lo = c.int_min;
      const std::int64_t hi = lo + static_cast<std::int64_t>(c.max_code);
      return static_cast<std::uint32_t>((v < lo ? lo : (v > hi ? hi : v)) - lo);
    }
    case CodeKind::kQuatIndex:
    case CodeKind::kQuatValue: break;  // whole quaternions only
  }
  return 0;
}

std::uint32_t dequantize_component(const ComponentSpec& c, std::uint32_t code) {
  switch (c.kind) {
    case CodeKind::kFloat: return float_slot(dequantize_float(code, c.min, c.max, c.max_code));
    case CodeKind::kAngle: return float_slot(dequantize_angle(code, c.bits));
    case CodeKind::kInt: return int_slot(static_cast<std::int32_t>(static_cast<std::int64_t>(c.int_min) + code));
    case CodeKind::kQuatIndex:
    case CodeKind::kQuatValue: break;
  }
  return 0;
}

}  // namespace

void quantize_entity(const TypeSpec& type, std::span<const std::uint32_t> slots, std::span<std::uint32_t> codes) {
  for (const FieldSpec& f : type.fields) {
    if (f.kind == FieldKind::kQuat) {
      quantize_quat(slots.subspan(f.offset).first<4>(), type.components[f.offset + 1U].max_code,
                    codes.subspan(f.offset).first<4>());
      continue;
    }
    for (std::size_t i = f.offset; i < static_cast<std::size_t>(f.offset) + f.count; ++i) {
      codes[i] = quantize_component(type.components[i], slots[i]);
    }
  }
}

void dequantize_entity(const TypeSpec& type, std::span<const std::uint32_t> codes, std::span<std::uint32_t> slots) {
  for (const FieldSpec& f : type.fields) {
    if (f.kind == FieldKind::kQuat) {
      dequantize_quat(codes.subspan(f.offset).first<4>(), type.components[f.offset + 1U].max_code,
                      slots.subspan(f.offset).first<4>());
      continue;
    }
    for (std::size_t i = f.offset; i < static_cast<std::size_t>(f.offset) + f.count; ++i) {
      slots[i] = dequantize_component(type.components[i], codes[i]);
    }
  }
}

bool codes_in_range(const TypeSpec& type, std::span<const std::uint32_t> codes) {
  if (codes.size() < type.components.size()) return false;
  for (std::size_t i = 0; i < type.components.size(); ++i) {
    if (codes[i] > type.components[i].max_code) return false;
  }
  return true;
}

}  // namespace tickwire::snapshot
