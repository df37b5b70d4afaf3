// Validation of what the smoother and the drawing measures read from the
// game: snap thresholds and motion fields must name slots of the schema.
#include <cmath>
#include <stdexcept>
#include <string>

#include "tickwire/prediction/render_smoother.h"

namespace tickwire::prediction {

namespace {

bool fits(const snapshot::Schema& schema, snapshot::TypeId type, std::size_t offset, std::size_t slots) {
  return schema.has_type(type) && slots > 0 && offset + slots <= schema.type(type).stride();
}

std::string slot_range(snapshot::TypeId type, std::size_t offset, std::size_t slots) {
  return "(type " + std::to_string(type.value) + ", slots " + std::to_string(offset) + ".." +
         std::to_string(offset + slots) + ")";
}

// What is wrong with motion fields, or null when nothing is.
const char* motion_problem(const snapshot::Schema& schema, const MotionFields& m) {
  if (m.dimensions < 1 || m.dimensions > 3) return "dimensions must be 1..3";
  if (!fits(schema, m.type, m.position_offset, m.dimensions)) return "the position is not a field of the schema";
  if (m.velocity_offset && !fits(schema, m.type, *m.velocity_offset, m.dimensions)) {
    return "the velocity is not a field of the schema";
  }
  if (std::isnan(m.radius) || m.radius < 0.0F) return "radius must be >= 0";
  return nullptr;
}

}  // namespace

void SmoothingConfig::validate(const snapshot::Schema& schema) const {
  const auto fail = [](const std::string& why) { throw std::invalid_argument("SmoothingConfig: " + why); };
  if (duration < Duration::zero()) fail("duration must be >= 0");
  if (std::isnan(snap_distance) || !(snap_distance > 0.0F)) fail("snap_distance must be > 0");
  if (std::isnan(max_correction_speed) || !(max_correction_speed > 0.0F)) fail("max_correction_speed must be > 0");
  for (std::size_t i = 0; i < thresholds.size(); ++i) {
    const SnapThreshold& t = thresholds[i];
    const bool in_schema = fits(schema, t.type, t.offset, t.slots);
    if (in_schema && !std::isnan(t.distance) && t.distance > 0.0F) continue;
    std::string why = "thresholds[" + std::to_string(i) + "] ";
    why += slot_range(t.type, t.offset, t.slots);
    why += in_schema ? ": distance must be > 0" : " is not a field of the schema";
    fail(why);
  }
}

void validate_motion_fields(const snapshot::Schema& schema, std::span<const MotionFields> motion) {
  for (std::size_t i = 0; i < motion.size(); ++i) {
    const MotionFields& m = motion[i];
    const char* problem = motion_problem(schema, m);
    if (problem == nullptr) continue;
    std::string why = "motion fields[" + std::to_string(i) + "] ";
    why += slot_range(m.type, m.position_offset, m.dimensions);
    why += ": ";
    why += problem;
    throw std::invalid_argument(why);
  }
}

}  // namespace tickwire::prediction
