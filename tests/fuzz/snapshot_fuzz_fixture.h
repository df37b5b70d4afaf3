#pragma once
// The receiver every fuzz input is decoded against, built the same way each
// time: a schema with every field kind, a world that moves, spawns and
// despawns, and a client that has decoded (and acknowledged) the first
// stretch of snapshots, so inputs can be deltas against real baselines,
// with real references and inherited coding models. The corpus generator
// continues the same run and writes the snapshots the client has not seen.

#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "fuzz_check.h"
#include "tickwire/snapshot/codebook.h"
#include "tickwire/snapshot/field_codec.h"
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

  // With `codebook`, both ends code with it (the bodies of
  // docs/wire-format.md, "Codebook bodies"); without, adaptively.
  explicit Fixture(std::shared_ptr<const ModelState> codebook = nullptr)
      : schema(make_schema(*this)),
        world(schema, WorldConfig{kMaxEntities}),
        sender(schema, sender_config(codebook)),
        receiver(schema, receiver_config(codebook)) {
    for (int i = 0; i < 24; ++i) world.spawn(i % 3 == 0 ? pebble : thing);
    for (; tick < kDelivered;) {
      const auto bytes = next();
      (void)receiver.receive(bytes);
      if (tick > 2) sender.acknowledge(Tick(tick - 2));
    }
  }

  // A codebook trained on this fixture's own run, the same every time.
  static std::shared_ptr<const ModelState> trained_codebook() {
    Fixture f;
    CodebookTrainer trainer(f.schema);
    for (int i = 0; i < 200; ++i) {
      (void)f.next();
      const WorldState* view = f.sender.view(Tick(f.tick));
      if (view != nullptr && view->models() != nullptr) trainer.add(*view->models(), f.sender.last_baseline_age());
      if (f.tick > 2) f.sender.acknowledge(Tick(f.tick - 2));
    }
    return trainer.codebook();
  }

  static SenderConfig sender_config(std::shared_ptr<const ModelState> codebook) {
    SenderConfig c;
    c.history_ticks = kHistory;
    c.codebook = std::move(codebook);
    return c;
  }
  static ReceiverConfig receiver_config(std::shared_ptr<const ModelState> codebook) {
    ReceiverConfig c{kHistory, kMaxEntities, 1200};
    c.codebook = std::move(codebook);
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

// What a fuzz input must come to against `f`'s receiver: a counted drop,
// or a state whose every entity and value is inside its bounds.
inline void check_decode(const Fixture& f, const std::uint8_t* data, std::size_t size) {
  SnapshotReceiver receiver = f.receiver;  // each input starts from the same held states
  const auto before = receiver.stats().dropped_total();
  const auto result = receiver.receive(std::span<const std::uint8_t>(data, size));
  if (!result.ok()) {
    TICKWIRE_FUZZ_CHECK(receiver.stats().dropped_total() == before + 1);
    return;
  }
  const WorldState* state = receiver.state(result.value());
  TICKWIRE_FUZZ_CHECK(state != nullptr && state->size() <= Fixture::kMaxEntities);
  EntityId previous{0};
  bool first = true;
  for (const EntityState& e : state->entities()) {
    TICKWIRE_FUZZ_CHECK(e.id.value < Fixture::kMaxEntities);
    TICKWIRE_FUZZ_CHECK(first || previous < e.id);  // sorted, no duplicates
    first = false;
    previous = e.id;
    const TypeSpec& spec = f.schema.type(e.type);
    TICKWIRE_FUZZ_CHECK(spec.role == TypeRole::kEntity);
    TICKWIRE_FUZZ_CHECK(codes_in_range(spec, state->codes(e, spec.stride())));
  }
}

}  // namespace tickwire::snapshot::fuzz
