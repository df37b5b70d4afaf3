#pragma once
// The benchmark's deterministic scenes. Each owns its game state (physics
// in double precision, as a game engine would) and writes the networked
// fields into the World once per tick; the runtime quantizes and sends
// them. Every random draw comes from one seeded generator.

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::bench {

// splitmix64: tiny, portable, and the same numbers on every platform
// (std::uniform_real_distribution is not).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * (static_cast<double>(next() >> 11) * 0x1.0p-53); }

 private:
  std::uint64_t state_;
};

struct V3 {
  double x = 0, y = 0, z = 0;
  V3 operator+(V3 o) const { return {x + o.x, y + o.y, z + o.z}; }
  V3 operator-(V3 o) const { return {x - o.x, y - o.y, z - o.z}; }
  V3 operator*(double k) const { return {x * k, y * k, z * k}; }
  double dot(V3 o) const { return x * o.x + y * o.y + z * o.z; }
  V3 cross(V3 o) const { return {y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x}; }
  double length() const { return std::sqrt(dot(*this)); }
};

class Scene {
 public:
  virtual ~Scene() = default;
  virtual std::string name() const = 0;
  virtual std::uint32_t tick_rate() const = 0;  // simulation ticks per second
  virtual std::uint32_t send_hz() const = 0;    // snapshots per second
  virtual const snapshot::Schema& schema() const = 0;
  // Spawns the scene's entities.
  virtual void setup(snapshot::World& world) = 0;
  // Advances one tick and writes the networked fields.
  virtual void step(snapshot::World& world) = 0;
};

// The KinematicSoup benchmark's scene with rigid-body contact (asteroids.cpp).
std::unique_ptr<Scene> make_asteroids(std::uint64_t seed);
// The earlier, simpler version: spins never change, collisions are elastic.
std::unique_ptr<Scene> make_asteroids_simple(std::uint64_t seed);
std::unique_ptr<Scene> make_cubes_idle(std::uint64_t seed);
std::unique_ptr<Scene> make_arena(std::uint64_t seed);
std::unique_ptr<Scene> make_arena_smooth(std::uint64_t seed);

}  // namespace tickwire::bench
