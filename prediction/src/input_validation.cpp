#include "tickwire/prediction/input_validation.h"

#include <cmath>
#include <numbers>

#include "tickwire/snapshot/field_value.h"

namespace tickwire::prediction {

const char* to_string(InputFault fault) {
  switch (fault) {
    case InputFault::kNone: return "none";
    case InputFault::kWrongType: return "wrong input type";
    case InputFault::kNotFinite: return "not finite";
    case InputFault::kOutOfRange: return "out of range";
    case InputFault::kNotUnit: return "not a unit quaternion";
  }
  return "unknown";
}

namespace {

// Angles read back in [-pi, pi); a sampler may hand in a value a turn
// away, but nothing further (a huge finite angle is a broken or hostile
// sender, not a direction).
constexpr double kMaxAngle = 2.0 * std::numbers::pi;
// Float noise a sampler may leave in a normalized rotation.
constexpr double kUnitTolerance = 1e-3;

InputFault check_quat(std::span<const std::uint32_t> q) {
  double norm2 = 0.0;
  for (std::uint32_t slot : q) {
    const double c = snapshot::slot_float(slot);
    if (!std::isfinite(c)) return InputFault::kNotFinite;
    norm2 += c * c;
  }
  return std::fabs(norm2 - 1.0) <= kUnitTolerance ? InputFault::kNone : InputFault::kNotUnit;
}

InputFault check_component(const snapshot::ComponentSpec& c, std::uint32_t slot) {
  switch (c.kind) {
    case snapshot::CodeKind::kFloat: {
      const float v = snapshot::slot_float(slot);
      if (!std::isfinite(v)) return InputFault::kNotFinite;
      return v >= c.min && v <= c.max ? InputFault::kNone : InputFault::kOutOfRange;
    }
    case snapshot::CodeKind::kAngle: {
      const float v = snapshot::slot_float(slot);
      if (!std::isfinite(v)) return InputFault::kNotFinite;
      return std::fabs(static_cast<double>(v)) <= kMaxAngle ? InputFault::kNone : InputFault::kOutOfRange;
    }
    case snapshot::CodeKind::kInt: {
      const std::int64_t v = snapshot::slot_int(slot);
      const std::int64_t lo = c.int_min;
      const std::int64_t hi = lo + static_cast<std::int64_t>(c.max_code);
      return v >= lo && v <= hi ? InputFault::kNone : InputFault::kOutOfRange;
    }
    case snapshot::CodeKind::kQuatIndex:
    case snapshot::CodeKind::kQuatValue: break;  // checked per quaternion
  }
  return InputFault::kNone;
}

}  // namespace

InputFault check_input(const snapshot::TypeSpec& type, std::span<const std::uint32_t> slots) {
  if (slots.size() != type.components.size()) return InputFault::kWrongType;
  for (const snapshot::FieldSpec& f : type.fields) {
    const auto field = slots.subspan(f.offset, f.count);
    if (f.kind == snapshot::FieldKind::kQuat) {
      if (const InputFault q = check_quat(field); q != InputFault::kNone) return q;
      continue;
    }
    for (std::size_t i = 0; i < f.count; ++i) {
      const InputFault fault = check_component(type.components[f.offset + i], field[i]);
      if (fault != InputFault::kNone) return fault;
    }
  }
  return InputFault::kNone;
}

InputFault check_input(const snapshot::Record& input, snapshot::TypeId input_type) {
  if (input.type() != input_type) return InputFault::kWrongType;
  return check_input(input.spec(), input.slots());
}

}  // namespace tickwire::prediction
