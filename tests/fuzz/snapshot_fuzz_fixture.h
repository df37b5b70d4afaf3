#pragma once
// The receiver every fuzz input is decoded against, built the same way each
// time: a schema with every field kind, a world that moves, spawns and
// despawns, and a client that has decoded (and acknowledged) the first
// stretch of snapshots, so inputs can be deltas against real baselines,
// with real references and inherited coding models. The corpus generator
// continues the same run and writes the snapshots the client has not seen.

#include <cmath>
#include <cstdint>
#include <vector>

#include "tickwire/snapshot/receiver.h"
#include "tickwire/snapshot/sender.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::snapshot::fuzz {

enum class Mood : std::uint8_t { kCalm, kAngry, kAsleep };

struct Fixture {
  static constexpr std::uint32_t kHistory = 64;
  static constexpr std::uint32_t kMaxEntities = 256;
  static constexpr std::uint32_t kDelivered = 40;  // ticks the receiver has seen

  // Handles first: make_schema fills them in while `schema` is built.
  TypeId thing;
  TypeId pebble;
  Field<float> speed;
  Field<std::int32_t> health;
  Field<bool> alive;
  Field<Mood> mood;
  Field<float> yaw;
  Field<Vec3> position;
  Field<Quat> rotation;
  Field<std::array<std::int32_t, 2>> ammo;
  Field<Vec3> falling;
  Schema schema;
  World world;
  SnapshotSender sender;
  SnapshotReceiver receiver;
  std::uint32_t tick = 0;
  std::uint32_t rng = 12345;

  static Schema make_schema(Fixture& f) {
    SchemaBuilder b;
    TypeBuilder t = b.entity_type("thing");
    f.speed = t.add_float("speed", 0.0F, 50.0F, 0.01F);
    f.health = t.add_int("health", -100, 100);
    f.alive = t.add_bool("alive");
    f.mood = t.add_enum<Mood>("mood", 3);
    f.yaw = t.add_angle("yaw", 12);
    f.position = t.add_vec3("position", {-500, -500, -500}, {500, 500, 500}, 0.01F);
    f.rotation = t.add_quat("rotation", 0.001F);
    f.ammo = t.add_int_array<2>("ammo", 0, 999);
    f.thing = t.id();
    TypeBuilder p = b.entity_type("pebble");
    f.falling = p.add_vec3("falling", {-100, -100, -100}, {100, 100, 100}, 0.01F, Interpolation::kLinear,
                           Prediction::kAcceleration);
    f.pebble = p.id();
    b.record_type("input").add_bool("fire");
    return b.build();
  }

  Fixture()
      : schema(make_schema(*this)),
        world(schema, WorldConfig{kMaxEntities}),
        sender(schema, sender_config()),
        receiver(schema, ReceiverConfig{kHistory, kMaxEntities, 1200}) {
    for (int i = 0; i < 24; ++i) world.spawn(i % 3 == 0 ? pebble : thing);
    for (; tick < kDelivered;) {
      const auto bytes = next();
      (void)receiver.receive(bytes);
      if (tick > 2) sender.acknowledge(Tick(tick - 2));
    }
  }

  static SenderConfig sender_config() {
    SenderConfig c;
    c.history_ticks = kHistory;
    return c;
  }

  std::uint32_t random() {
    rng = rng * 1664525U + 1013904223U;
    return rng >> 8;
  }

  // Advances the world one tick and encodes it.
  std::vector<std::uint8_t> next() {
    ++tick;
    const float t = static_cast<float>(tick);
    world.for_each([&](EntityId id) {
      if (world.type_of(id) == thing) {
        world.set(id, position, Vec3{std::sin(t * 0.05F + static_cast<float>(id.value)) * 100.0F, t * 0.1F, 3.0F});
        world.set(id, yaw, t * 0.07F);
        world.set(id, speed, static_cast<float>(random() % 5000) / 100.0F);
        world.set(id, rotation, Quat{0.0F, std::sin(t * 0.02F), 0.0F, std::cos(t * 0.02F)});
        if (random() % 8 == 0) world.set(id, health, static_cast<std::int32_t>(random() % 201) - 100);
        if (random() % 16 == 0) world.set(id, mood, static_cast<Mood>(random() % 3));
        world.set(id, alive, random() % 2 == 0);
        world.set(id, ammo, std::array<std::int32_t, 2>{static_cast<std::int32_t>(random() % 1000), 7});
      } else {
        world.set(id, falling, Vec3{1.0F, 90.0F - 0.002F * t * t, -2.0F});
      }
    });
    if (tick % 7 == 0) {
      EntityId victim{random() % world.id_limit()};
      if (world.contains(victim)) world.despawn(victim);
      world.spawn(random() % 2 == 0 ? thing : pebble);
    }
    WorldState state;
    capture(world, Tick(tick), state);
    return sender.encode(state);
  }
};

}  // namespace tickwire::snapshot::fuzz
