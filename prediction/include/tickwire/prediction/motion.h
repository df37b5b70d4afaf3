#pragma once
// Where an entity type keeps its place and its motion, as the game states
// it (NetGame::motion_fields). The runtime measures what a player sees
// with it: how far a correction moved what was drawn, whether a drawn
// entity jumped further than its velocity explains, how far an entity is
// from the player's avatar when deciding what to predict, and which
// fields a smoothing threshold compares. A type without motion fields is
// measured by none of these.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>

#include "tickwire/snapshot/field_value.h"
#include "tickwire/snapshot/ids.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::prediction {

using Point = std::array<float, 3>;  // unused axes are 0

struct MotionFields {
  snapshot::TypeId type{};
  std::uint16_t position_offset = 0;  // the position field's first slot
  std::uint8_t dimensions = 0;        // 2 (Vec2) or 3 (Vec3)
  // A velocity field of the same dimensions, in position units per second.
  std::optional<std::uint16_t> velocity_offset;
  // How far the entity reaches from its position (its radius, for a round
  // one): two entities closer than the sum of theirs may touch. 0: a point.
  float radius = 0.0F;

  template <class V>
  static MotionFields of(snapshot::Field<V> position, float radius = 0.0F) {
    static_assert(std::is_same_v<V, snapshot::Vec2> || std::is_same_v<V, snapshot::Vec3>);
    return {position.type(), position.offset(), static_cast<std::uint8_t>(snapshot::FieldValue<V>::kSlots),
            std::nullopt, radius};
  }
  template <class V>
  static MotionFields of(snapshot::Field<V> position, snapshot::Field<V> velocity, float radius = 0.0F) {
    MotionFields m = of(position, radius);
    m.velocity_offset = velocity.offset();
    return m;
  }

  // The position held in an entity's slots (its whole row).
  Point position(std::span<const std::uint32_t> slots) const { return read(slots, position_offset); }
  std::optional<Point> velocity(std::span<const std::uint32_t> slots) const {
    if (!velocity_offset) return std::nullopt;
    return read(slots, *velocity_offset);
  }
  // Whether slot `slot` of the type belongs to the position field.
  bool is_position_slot(std::size_t slot) const {
    return slot >= position_offset && slot < static_cast<std::size_t>(position_offset) + dimensions;
  }
  bool operator==(const MotionFields&) const = default;

 private:
  Point read(std::span<const std::uint32_t> slots, std::uint16_t offset) const {
    Point p{};
    for (std::size_t i = 0; i < dimensions && offset + i < slots.size(); ++i) {
      p[i] = snapshot::slot_float(slots[offset + i]);
    }
    return p;
  }
};

float distance(const Point& a, const Point& b);

}  // namespace tickwire::prediction
