#pragma once
// A small top-down game for the prediction tests: players move with a 2D
// stick and fire projectiles that clients spawn ahead of the server.
// Server-only knobs (refusing spawns) stand for what a client cannot know.

#include <cmath>
#include <optional>
#include <vector>

#include "tickwire/prediction/game.h"
#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::prediction::testing {

using snapshot::Field;
using snapshot::Vec2;

struct TestSchema {
  snapshot::Schema schema;
  TypeId player;
  TypeId projectile;
  TypeId input;
  Field<Vec2> position;
  Field<Vec2> velocity;
  Field<std::int32_t> owner;
  Field<std::int32_t> cooldown;
  Field<float> heading;
  Field<Vec2> shot_position;
  Field<Vec2> shot_velocity;
  Field<std::int32_t> life;
  SpawnKey shot_key;
  Field<Vec2> move;
  Field<bool> fire;
  // A ball nobody steers, for tests of teleports: it rolls at its velocity.
  TypeId ball;
  Field<Vec2> ball_position;
  Field<Vec2> ball_velocity;
  Field<std::int32_t> ball_teleports;

  TestSchema() {
    snapshot::SchemaBuilder b;
    snapshot::TypeBuilder p = b.entity_type("player");
    position = p.add_vec2("position", {-1000, -1000}, {1000, 1000}, 0.01F);
    velocity = p.add_vec2("velocity", {-50, -50}, {50, 50}, 0.01F);
    owner = p.add_int("owner", 0, 255);
    cooldown = p.add_int("cooldown", 0, 63);
    heading = p.add_angle("heading", 12);
    player = p.id();
    snapshot::TypeBuilder s = b.entity_type("projectile");
    shot_position = s.add_vec2("position", {-1000, -1000}, {1000, 1000}, 0.01F);
    shot_velocity = s.add_vec2("velocity", {-50, -50}, {50, 50}, 0.01F);
    life = s.add_int("life", 0, 255);
    shot_key = add_spawn_key(s, 255);
    projectile = s.id();
    snapshot::TypeBuilder in = b.record_type("input");
    move = in.add_vec2("move", {-1, -1}, {1, 1}, 1.0F / 127);
    fire = in.add_bool("fire");
    input = in.id();
    snapshot::TypeBuilder bl = b.entity_type("ball");
    ball_position = bl.add_vec2("position", {-1000, -1000}, {1000, 1000}, 0.01F);
    ball_velocity = bl.add_vec2("velocity", {-50, -50}, {50, 50}, 0.01F);
    ball_teleports = bl.add_int("teleports", 0, 3, snapshot::Interpolation::kTeleportCounter);
    ball = bl.id();
    schema = b.build();
  }
};

class TestGame : public Game {
 public:
  static constexpr float kSpeed = 6.0F;       // units per second at full stick
  static constexpr float kShotSpeed = 30.0F;  // units per second
  static constexpr std::int32_t kCooldown = 12;
  static constexpr std::int32_t kShotLife = 45;
  static constexpr float kDt = 1.0F / 60.0F;

  explicit TestGame(const TestSchema& s) : s_(s) {}

  // Server-only: when false the server refuses every shot (clients cannot know).
  bool allow_shots = true;
  // Both sides: at this tick every ball jumps by teleport_jump (a goal
  // putting it back on the centre spot), counting a teleport.
  std::optional<Tick> teleport_at;
  float teleport_jump = 50.0F;
  // Counters for tests.
  int simulate_calls = 0;
  int resimulate_calls = 0;

  EntityId find_avatar(const snapshot::World& world, PlayerId player) const {
    for (EntityId id : world.entities(s_.player)) {
      if (world.get(id, s_.owner) == static_cast<std::int32_t>(player.value)) return id;
    }
    return EntityId{0xFFFF'FFFFU};
  }

  void simulate(snapshot::World& world, Tick tick, const Inputs& inputs, SimContext& ctx) override {
    ++simulate_calls;
    if (ctx.resimulating()) ++resimulate_calls;
    for (const PlayerInput& in : inputs.all()) {
      const EntityId avatar = find_avatar(world, in.player);
      if (!world.contains(avatar) || !ctx.simulates(avatar)) continue;
      const Vec2 stick = in.input->get(s_.move);
      const Vec2 v{stick.x * kSpeed, stick.y * kSpeed};
      Vec2 p = world.get(avatar, s_.position);
      p.x += v.x * kDt;
      p.y += v.y * kDt;
      world.set(avatar, s_.position, p);
      world.set(avatar, s_.velocity, v);
      if (stick.x != 0.0F || stick.y != 0.0F) world.set(avatar, s_.heading, std::atan2(stick.y, stick.x));
      std::int32_t cd = world.get(avatar, s_.cooldown);
      if (cd > 0) --cd;
      if (in.input->get(s_.fire) && cd == 0 && (allow_shots || !ctx.authority())) {
        const EntityId shot = ctx.spawn(world, s_.projectile, s_.shot_key, in.player);
        const float h = world.get(avatar, s_.heading);
        world.set(shot, s_.shot_position, p);
        world.set(shot, s_.shot_velocity, Vec2{std::cos(h) * kShotSpeed, std::sin(h) * kShotSpeed});
        world.set(shot, s_.life, kShotLife);
        cd = kCooldown;
      }
      world.set(avatar, s_.cooldown, cd);
    }
    // Copy: despawning while walking the live list would skip entries.
    shots_.assign(world.entities(s_.projectile).begin(), world.entities(s_.projectile).end());
    for (EntityId shot : shots_) {
      if (!ctx.simulates(shot)) continue;
      const std::int32_t life = world.get(shot, s_.life) - 1;
      if (life <= 0) {
        world.despawn(shot);
        continue;
      }
      Vec2 p = world.get(shot, s_.shot_position);
      const Vec2 v = world.get(shot, s_.shot_velocity);
      p.x += v.x * kDt;
      p.y += v.y * kDt;
      world.set(shot, s_.shot_position, p);
      world.set(shot, s_.life, life);
    }
    roll_balls(world, tick, ctx);
  }

  void roll_balls(snapshot::World& world, Tick tick, SimContext& ctx) const {
    for (EntityId b : world.entities(s_.ball)) {
      if (!ctx.simulates(b)) continue;
      Vec2 p = world.get(b, s_.ball_position);
      const Vec2 v = world.get(b, s_.ball_velocity);
      p.x += v.x * kDt;
      p.y += v.y * kDt;
      if (teleport_at == tick) {
        p.x += teleport_jump;
        world.set(b, s_.ball_teleports, (world.get(b, s_.ball_teleports) + 1) % 4);
      }
      world.set(b, s_.ball_position, p);
    }
  }

 private:
  const TestSchema& s_;
  std::vector<EntityId> shots_;
};

// A world with one avatar per player id in `players`, at distinct places.
inline snapshot::World make_world(const TestSchema& s, const std::vector<std::uint32_t>& players) {
  snapshot::World w(s.schema);
  for (std::uint32_t p : players) {
    const EntityId id = w.spawn(s.player);
    w.set(id, s.owner, static_cast<std::int32_t>(p));
    w.set(id, s.position, Vec2{static_cast<float>(p) * 10.0F, 0.0F});
  }
  w.quantize();
  return w;
}

}  // namespace tickwire::prediction::testing
