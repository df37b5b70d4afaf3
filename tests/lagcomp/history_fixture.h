#pragma once
// A small history for the tests: 50 Hz (20 ms a tick, so fractions of a
// tick are round numbers), 100 ms of rewind (5 ticks), room for 8 entities.

#include <gtest/gtest.h>

#include <vector>

#include "tickwire/lagcomp/hit_history.h"

namespace tickwire::lagcomp::testing {

inline constexpr std::uint32_t kRate = 50;

inline HistoryConfig small_config() {
  HistoryConfig c;
  c.tick_rate = kRate;
  c.max_entities = 8;
  c.max_shapes_per_entity = 3;
  c.max_rewind = Duration::millis(100);
  return c;
}

// Tick `tick` plus `quarters` quarters of a tick.
inline NetworkTime at(std::uint32_t tick, std::int64_t quarters = 0) {
  return NetworkTime::from_tick(kRate, Tick(tick), quarters * NetworkTime::kUnitsPerTick / 4);
}

inline EntityId id(std::uint32_t v) { return EntityId{v}; }

// A unit sphere at `p`, tagged 1.
inline Shape ball(Vec3 p) { return Shape::sphere(p, 0.5F, 1); }

// Records one tick of entities, each a ball at its position.
struct Placed {
  EntityId id;
  Vec3 position;
  Motion motion = Motion::kContinuous;
};

inline void record_tick(HitHistory& h, std::uint32_t tick, const std::vector<Placed>& entities) {
  ASSERT_TRUE(h.begin_tick(Tick(tick)).ok());
  for (const Placed& e : entities) {
    const Shape s = ball(e.position);
    ASSERT_TRUE(h.record(e.id, e.position, {&s, 1}, e.motion).ok());
  }
  ASSERT_TRUE(h.end_tick().ok());
}

}  // namespace tickwire::lagcomp::testing
