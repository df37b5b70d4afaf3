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

}  // namespace

void SmoothingConfig::validate(const snapshot::Schema& schema) const {
  const auto fail = [](const std::string& why) { throw std::invalid_argument("SmoothingConfig: " + why); };
  if (duration < Duration::zero()) fail("duration must be >= 0");
  if (std::isnan(snap_distance) || !(snap_distance > 0.0F)) fail("snap_distance must be > 0");
  for (std::size_t i = 0; i < thresholds.size(); ++i) {
    const SnapThreshold& t = thresholds[i];
    const std::string name = "thresholds[" + std::to_string(i) + "] " + slot_range(t.type, t.offset, t.slots);
    if (!fits(schema, t.type, t.offset, t.slots)) fail(name + " is not a field of the schema");
    if (std::isnan(t.distance) || !(t.distance > 0.0F)) fail(name + ": distance must be > 0");
  }
}

void validate_motion_fields(const snapshot::Schema& schema, std::span<const MotionFields> motion) {
  for (std::size_t i = 0; i < motion.size(); ++i) {
    const MotionFields& m = motion[i];
    const std::string name =
        "motion fields[" + std::to_string(i) + "] " + slot_range(m.type, m.position_offset, m.dimensions);
    const auto fail = [&](const std::string& why) { throw std::invalid_argument(name + ": " + why); };
    if (m.dimensions < 1 || m.dimensions > 3) fail("dimensions must be 1..3");
    if (!fits(schema, m.type, m.position_offset, m.dimensions)) fail("the position is not a field of the schema");
    if (m.velocity_offset && !fits(schema, m.type, *m.velocity_offset, m.dimensions)) {
      fail("the velocity is not a field of the schema");
    }
    if (std::isnan(m.radius) || m.radius < 0.0F) fail("radius must be >= 0");
  }
}

}  // namespace tickwire::prediction
