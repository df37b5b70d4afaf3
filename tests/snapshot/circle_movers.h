#pragma once
// Movers on circles of their own (first-order motion only, as the arena's
// players), with a counter that ticks now and then; optionally one leaving
// and another joining every 23 ticks. For the sender and codebook tests.

#include <cmath>
#include <cstdint>
#include <vector>

#include "tickwire/snapshot/world.h"

namespace tickwire::testing {

struct CircleMoversShape {
  int count = 24;
  float first_radius = 5.0F;          // mover i circles at first_radius + i
  std::uint32_t counter_period = 17;  // ticks between a mover's counter changes
  float speed = 1.0F;                 // scales every angular speed
};

struct CircleMovers {
  using Schema = snapshot::Schema;
  using SchemaBuilder = snapshot::SchemaBuilder;
  using TypeBuilder = snapshot::TypeBuilder;
  using TypeId = snapshot::TypeId;
  using EntityId = snapshot::EntityId;
  using Vec2 = snapshot::Vec2;
  template <class T>
  using Field = snapshot::Field<T>;
  using World = snapshot::World;

  using Shape = CircleMoversShape;

  TypeId mover;  // set by make(), so declared before schema
  Field<Vec2> position;
  Field<std::int32_t> counter;
  Schema schema;
  World world;
  std::vector<EntityId> ids;
  Shape shape;

  static Schema make(TypeId& type, Field<Vec2>& p, Field<std::int32_t>& c) {
    SchemaBuilder b;
    TypeBuilder t = b.entity_type("mover");
    type = t.id();
    p = t.add_vec2("position", {-100.0F, -100.0F}, {100.0F, 100.0F}, 0.01F);
    c = t.add_int("counter", 0, 1000);
    return b.build();
  }
  explicit CircleMovers(Shape s = {}) : schema(make(mover, position, counter)), world(schema), shape(s) {
    for (int i = 0; i < shape.count; ++i) ids.push_back(world.spawn(mover));
  }
  void step(std::uint32_t t, bool churn = false) {
    if (churn && t % 23 == 0) {
      world.despawn(ids[t % ids.size()]);
      ids[t % ids.size()] = world.spawn(mover);
    }
    const std::uint32_t period = shape.counter_period;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const float phase = shape.speed * 0.03F * static_cast<float>(t) * (1.0F + 0.1F * static_cast<float>(i));
      const float r = shape.first_radius + static_cast<float>(i);
      world.set(ids[i], position, Vec2{r * std::cos(phase), r * std::sin(phase)});
      if ((t + i) % period == 0) world.set(ids[i], counter, static_cast<std::int32_t>((t / period) % 1000));
    }
    world.quantize();
  }
};

}  // namespace tickwire::testing
