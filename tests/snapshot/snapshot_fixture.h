#pragma once
// Shared by the snapshot tests: a schema with every field kind, seeded
// random worlds, and a small loop that plays sender and receiver against
// each other with acks, so each test states only what it is about.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <vector>

#include "tickwire/snapshot/codebook.h"
#include "tickwire/snapshot/field_codec.h"
#include "tickwire/snapshot/receiver.h"
#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/sender.h"
#include "tickwire/snapshot/state_ring.h"
#include "tickwire/snapshot/world.h"
#include "tickwire/snapshot/world_state.h"

namespace tickwire::snapshot::testing {

// Fixed by default so failures reproduce; TICKWIRE_TEST_SEED overrides it.
// Every randomized test prints the seed it used.
inline std::uint64_t test_seed(const char* test_name) {
  std::uint64_t seed = 20240611;
  if (const char* s = std::getenv("TICKWIRE_TEST_SEED")) seed = std::strtoull(s, nullptr, 10);
  std::cout << "[ seed     ] " << test_name << ": " << seed << " (set TICKWIRE_TEST_SEED to change)\n";
  return seed;
}

enum class Mood : std::uint8_t { kCalm, kAngry, kAsleep };

// One entity type with a field of every kind, one simple type, one record.
struct KitchenSink {
  Schema schema;
  TypeId thing;
  TypeId pebble;
  TypeId input;
  Field<float> speed;          // [0, 50] at 0.01
  Field<std::int32_t> health;  // [-100, 100], step
  Field<bool> alive;
  Field<Mood> mood;                         // 3 values
  Field<float> yaw;                         // angle, 12 bits
  Field<Vec2> aim;                          // [-1, 1]^2 at 1/256
  Field<Vec3> position;                     // [-500, 500]^3 at 0.01, linear
  Field<Quat> rotation;                     // smallest three at 0.001
  Field<std::array<float, 3>> weights;      // [0, 1] at 0.01
  Field<std::array<std::int32_t, 2>> ammo;  // [0, 999]
  Field<float> heading_deg;                 // [-180, 180] float, angular
  Field<Vec3> pebble_position;              // [-100, 100]^3 at 0.05
  Field<Vec3> falling;                      // acceleration prediction
  Field<Vec2> move;                         // record: input
  Field<bool> fire;

  KitchenSink() {
    SchemaBuilder b;
    TypeBuilder t = b.entity_type("thing");
    speed = t.add_float("speed", 0.0F, 50.0F, 0.01F);
    health = t.add_int("health", -100, 100);
    alive = t.add_bool("alive");
    mood = t.add_enum<Mood>("mood", 3);
    yaw = t.add_angle("yaw", 12);
    aim = t.add_vec2("aim", {-1, -1}, {1, 1}, 1.0F / 256.0F);
    position = t.add_vec3("position", {-500, -500, -500}, {500, 500, 500}, 0.01F);
    rotation = t.add_quat("rotation", 0.001F);
    weights = t.add_float_array<3>("weights", 0.0F, 1.0F, 0.01F);
    ammo = t.add_int_array<2>("ammo", 0, 999);
    heading_deg = t.add_float("heading_deg", -180.0F, 180.0F, 0.1F, Interpolation::kAngular);
    thing = t.id();
    TypeBuilder p = b.entity_type("pebble");
    pebble_position = p.add_vec3("position", {-100, -100, -100}, {100, 100, 100}, 0.05F);
    falling = p.add_vec3("falling", {-100, -100, -100}, {100, 100, 100}, 0.01F, Interpolation::kLinear,
                         Prediction::kAcceleration);
    pebble = p.id();
    TypeBuilder in = b.record_type("input");
    move = in.add_vec2("move", {-1, -1}, {1, 1}, 1.0F / 127.0F);
    fire = in.add_bool("fire");
    input = in.id();
    schema = b.build();
  }
};

inline float uniform(std::mt19937_64& rng, float lo, float hi) {
  return lo + (hi - lo) * static_cast<float>(static_cast<double>(rng() >> 11) * 0x1.0p-53);
}

inline Quat random_rotation(std::mt19937_64& rng) {
  Quat q{uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1)};
  const float n = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  if (n < 1e-3F) return {};
  return {q.x / n, q.y / n, q.z / n, q.w / n};
}

// Sets every field of a thing to random values inside (and sometimes at
// the edges of) its range.
inline void randomize_thing(const KitchenSink& k, World& w, EntityId id, std::mt19937_64& rng) {
  w.set(id, k.speed, uniform(rng, -1.0F, 51.0F));
  w.set(id, k.health, static_cast<std::int32_t>(rng() % 201) - 100);
  w.set(id, k.alive, (rng() & 1U) != 0);
  w.set(id, k.mood, static_cast<Mood>(rng() % 3));
  w.set(id, k.yaw, uniform(rng, -10.0F, 10.0F));
  w.set(id, k.aim, Vec2{uniform(rng, -1, 1), uniform(rng, -1, 1)});
  w.set(id, k.position, Vec3{uniform(rng, -500, 500), uniform(rng, -500, 500), uniform(rng, -500, 500)});
  w.set(id, k.rotation, random_rotation(rng));
  w.set(id, k.weights, std::array<float, 3>{uniform(rng, 0, 1), uniform(rng, 0, 1), uniform(rng, 0, 1)});
  w.set(id, k.ammo,
        std::array<std::int32_t, 2>{static_cast<std::int32_t>(rng() % 1000), static_cast<std::int32_t>(rng() % 1000)});
  w.set(id, k.heading_deg, uniform(rng, -180, 180));
}

inline void randomize_pebble(const KitchenSink& k, World& w, EntityId id, std::mt19937_64& rng) {
  w.set(id, k.pebble_position, Vec3{uniform(rng, -100, 100), uniform(rng, -100, 100), uniform(rng, -100, 100)});
  w.set(id, k.falling, Vec3{uniform(rng, -100, 100), uniform(rng, -100, 100), uniform(rng, -100, 100)});
}

// Sender and receiver wired directly (no network): every snapshot is
// delivered unless `lose` says otherwise, and acked `ack_delay` sends later.
struct Link {
  SnapshotSender sender;
  SnapshotReceiver receiver;
  std::vector<std::vector<std::uint8_t>> sent;
  std::vector<Tick> pending_acks;

  Link(const Schema& schema, SenderConfig sc = {}, ReceiverConfig rc = {}) : sender(schema, sc), receiver(schema, rc) {}

  // Encodes `state`, delivers it (unless lost) and returns the decoded tick.
  std::optional<Tick> send(const WorldState& state, bool lose = false, std::size_t ack_delay = 2) {
    sent.push_back(sender.encode(state));
    std::optional<Tick> got;
    if (!lose) {
      auto r = receiver.receive(sent.back());
      EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().detail);
      if (r.ok()) {
        got = r.value();
        const WorldState* theirs = receiver.state(*got);
        const WorldState* ours = sender.view(*got);
        EXPECT_TRUE(theirs != nullptr && ours != nullptr && theirs->same_content(*ours, receiver.schema()))
            << "decoded state differs from what the sender recorded at tick " << got->value();
        pending_acks.push_back(*got);
      }
    }
    while (pending_acks.size() > ack_delay) {
      sender.acknowledge(pending_acks.front());
      pending_acks.erase(pending_acks.begin());
    }
    return got;
  }
};

// The codes of `world` and of a decoded state agree entity for entity.
inline ::testing::AssertionResult same_entities(const Schema& schema, const WorldState& expected,
                                                const WorldState& got) {
  if (expected.size() != got.size()) {
    return ::testing::AssertionFailure() << "entity count " << got.size() << ", expected " << expected.size();
  }
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const EntityState& a = expected.entities()[i];
    const EntityState& b = got.entities()[i];
    if (a.id != b.id || a.type != b.type) return ::testing::AssertionFailure() << "entity " << i << " differs";
    const auto stride = schema.type(a.type).stride();
    for (std::uint16_t c = 0; c < stride; ++c) {
      if (expected.code_data(a)[c] != got.code_data(b)[c]) {
        return ::testing::AssertionFailure() << "entity " << a.id.value << " code " << c << " is "
                                             << got.code_data(b)[c] << ", expected " << expected.code_data(a)[c];
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// Feeds `receiver` `count` hostile inputs, half random byte strings, half
// `delta` or `full` (real packets it can decode) with a few bits flipped,
// which reach deeper; returns how many decoded. Whatever decodes must hold
// only values inside their ranges and ids under `max_entities`, and every
// input must end decoded or counted as a drop.
inline std::uint64_t receive_damaged_packets(SnapshotReceiver& receiver, const Schema& schema,
                                             const std::vector<std::uint8_t>& delta,
                                             const std::vector<std::uint8_t>& full, std::uint32_t max_entities,
                                             std::uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  const auto received_before = receiver.stats().received;
  const auto settled_before = receiver.stats().decoded + receiver.stats().dropped_total();
  std::uint64_t accepted = 0;
  for (int i = 0; i < count; ++i) {
    std::vector<std::uint8_t> bytes;
    if (i % 2 == 0) {
      bytes.resize(rng() % 64);
      for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
    } else {
      bytes = (i % 4 == 1) ? delta : full;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips && !bytes.empty(); ++f) {
        bytes[rng() % bytes.size()] ^= static_cast<std::uint8_t>(1U << (rng() % 8));
      }
    }
    const auto r = receiver.receive(bytes);
    if (!r.ok()) continue;
    ++accepted;
    for (const EntityState& e : receiver.state(r.value())->entities()) {
      const TypeSpec& spec = schema.type(e.type);
      EXPECT_TRUE(codes_in_range(spec, receiver.state(r.value())->codes(e, spec.stride())));
      EXPECT_LT(e.id.value, max_entities);
    }
  }
  EXPECT_EQ(receiver.stats().received - received_before, static_cast<std::uint64_t>(count));
  EXPECT_EQ(receiver.stats().decoded + receiver.stats().dropped_total() - settled_before,
            static_cast<std::uint64_t>(count));
  std::cout << "[ info     ] " << accepted << " of " << count << " damaged inputs decoded as valid snapshots\n";
  return accepted;
}

// A codebook trained on `ticks` ticks of `world`: `step(t)` moves it, and
// one sender codes every tick from a shared history (history_ticks
// `history`) with acks `lag` ticks late, each packet's models trained.
template <class Step>
std::shared_ptr<const ModelState> train_codebook(const World& world, std::uint32_t ticks, std::uint32_t lag,
                                                 std::uint32_t history, Step step) {
  SenderConfig config;
  config.history_ticks = history;
  SnapshotSender sender(world.schema(), config);
  CodebookTrainer trainer(world.schema());
  WorldHistory captures(2 * static_cast<std::size_t>(history));
  for (std::uint32_t t = 1; t <= ticks; ++t) {
    step(t);
    captures.capture(world, Tick(t));
    std::vector<std::uint8_t> out;
    sender.encode(captures, Tick(t), out);
    if (const WorldState* v = sender.view(Tick(t)); v != nullptr && v->models() != nullptr) {
      trainer.add(*v->models(), sender.last_baseline_age());
    }
    if (t > lag) sender.acknowledge(Tick(t - lag));
  }
  return trainer.codebook();
}

}  // namespace tickwire::snapshot::testing
