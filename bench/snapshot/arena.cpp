// A shooter arena: 64 players on a 100 m square floor, all relevant to
// all, 60 Hz ticks and snapshots, position at 1 cm, yaw at 16 bits. Every
// 250 ms (staggered per player) each picks a new heading anywhere on the
// circle and a speed up to 6 m/s. In `arena` a player faces and moves the
// new way at once, as the workload states it. `arena_smooth` is a variant
// reported alongside: velocity follows at 40 m/s^2 (a brisk ground
// acceleration) and facing turns at 720 degrees per second, so yaw spends
// much of its time ramping, which costs more. Walls reflect.

#include <numbers>

#include "scene.h"

namespace tickwire::bench {
namespace {

using snapshot::Field;
using snapshot::Vec3;

constexpr int kPlayers = 64;
constexpr double kDt = 1.0 / 60.0;
constexpr double kHalf = 50.0;
constexpr int kRethinkTicks = 15;  // 250 ms

struct Player {
  snapshot::EntityId id;
  double x = 0, z = 0, vx = 0, vz = 0;
  double heading = 0, speed = 0, yaw = 0;
  int phase = 0;
};

double wrap(double a) {
  while (a > std::numbers::pi) a -= 2 * std::numbers::pi;
  while (a < -std::numbers::pi) a += 2 * std::numbers::pi;
  return a;
}

class Arena final : public Scene {
 public:
  Arena(std::uint64_t seed, bool smooth) : rng_(seed), smooth_(smooth) {
    snapshot::SchemaBuilder b;
    auto t = b.entity_type("player");
    position_ = t.add_vec3("position", {-64, -8, -64}, {64, 24, 64}, 0.01F);
    yaw_ = t.add_angle("yaw", 16);
    schema_ = b.build();
  }
  std::string name() const override { return smooth_ ? "arena_smooth" : "arena"; }
  std::uint32_t tick_rate() const override { return 60; }
  std::uint32_t send_hz() const override { return 60; }
  const snapshot::Schema& schema() const override { return schema_; }

  void setup(snapshot::World& world) override {
    const auto type = *schema_.find_type("player");
    for (int i = 0; i < kPlayers; ++i) {
      Player p;
      p.id = world.spawn(type);
      p.x = rng_.uniform(-kHalf, kHalf);
      p.z = rng_.uniform(-kHalf, kHalf);
      p.phase = i % kRethinkTicks;
      rethink(p);
      p.yaw = p.heading;
      players_.push_back(p);
    }
    write(world);
  }

  void step(snapshot::World& world) override {
    ++tick_;
    for (Player& p : players_) {
      if ((tick_ + static_cast<std::uint64_t>(p.phase)) % kRethinkTicks == 0) rethink(p);
      const double wx = std::cos(p.heading) * p.speed;
      const double wz = std::sin(p.heading) * p.speed;
      double dx = wx - p.vx;
      double dz = wz - p.vz;
      const double len = std::sqrt(dx * dx + dz * dz);
      const double max_dv = 40.0 * kDt;
      if (smooth_ && len > max_dv) {
        dx *= max_dv / len;
        dz *= max_dv / len;
      }
      p.vx += dx;
      p.vz += dz;
      p.x += p.vx * kDt;
      p.z += p.vz * kDt;
      if (std::fabs(p.x) > kHalf) {
        p.x = std::copysign(kHalf, p.x);
        p.vx = -p.vx;
        p.heading = wrap(std::numbers::pi - p.heading);
      }
      if (std::fabs(p.z) > kHalf) {
        p.z = std::copysign(kHalf, p.z);
        p.vz = -p.vz;
        p.heading = wrap(-p.heading);
      }
      const double turn = wrap(p.heading - p.yaw);
      const double max_turn = 4.0 * std::numbers::pi * kDt;
      p.yaw = wrap(p.yaw + (!smooth_ || std::fabs(turn) <= max_turn ? turn : std::copysign(max_turn, turn)));
    }
    write(world);
  }

 private:
  void rethink(Player& p) {
    p.heading = rng_.uniform(-std::numbers::pi, std::numbers::pi);
    p.speed = rng_.uniform(0.0, 6.0);
  }
  void write(snapshot::World& world) {
    for (const Player& p : players_) {
      world.set(p.id, position_, Vec3{static_cast<float>(p.x), 0.0F, static_cast<float>(p.z)});
      world.set(p.id, yaw_, static_cast<float>(p.yaw));
    }
  }

  Rng rng_;
  snapshot::Schema schema_;
  Field<Vec3> position_;
  Field<float> yaw_;
  std::vector<Player> players_;
  std::uint64_t tick_ = 0;
  bool smooth_;
};

}  // namespace

std::unique_ptr<Scene> make_arena(std::uint64_t seed) { return std::make_unique<Arena>(seed, false); }
std::unique_ptr<Scene> make_arena_smooth(std::uint64_t seed) { return std::make_unique<Arena>(seed, true); }

}  // namespace tickwire::bench
