// Glenn Fiedler's snapshot compression scene at rest: 901 cubes (a 30 x 30
// grid plus one on top), position bounded at 1/512 m (about 2 mm),
// orientation as smallest three at 9 bits per component, 60 Hz. Nothing
// moves, so after the first full state every snapshot says so.

#include <numbers>

#include "scene.h"

namespace tickwire::bench {
namespace {

using snapshot::Field;
using snapshot::Quat;
using snapshot::Vec3;

class CubesIdle final : public Scene {
 public:
  explicit CubesIdle(std::uint64_t seed) : rng_(seed) {
    snapshot::SchemaBuilder b;
    auto t = b.entity_type("cube");
    position_ = t.add_vec3("position", {-256, 0, -256}, {256, 32, 256}, 1.0F / 512.0F);
    rotation_ = t.add_quat_bits("rotation", 9);
    schema_ = b.build();
  }
  std::string name() const override { return "cubes_idle"; }
  std::uint32_t tick_rate() const override { return 60; }
  std::uint32_t send_hz() const override { return 60; }
  const snapshot::Schema& schema() const override { return schema_; }

  void setup(snapshot::World& world) override {
    const auto type = *schema_.find_type("cube");
    for (int i = 0; i < 901; ++i) {
      const snapshot::EntityId id = world.spawn(type);
      Vec3 p{0.0F, 3.0F, 0.0F};
      if (i < 900) p = {static_cast<float>((i % 30) - 15) * 2.0F, 0.5F, static_cast<float>((i / 30) - 15) * 2.0F};
      world.set(id, position_, p);
      const double yaw = rng_.uniform(0, 2 * std::numbers::pi);
      world.set(id, rotation_,
                Quat{0.0F, static_cast<float>(std::sin(yaw / 2)), 0.0F, static_cast<float>(std::cos(yaw / 2))});
    }
  }
  void step(snapshot::World& /*world*/) override {}

 private:
  Rng rng_;
  snapshot::Schema schema_;
  Field<Vec3> position_;
  Field<Quat> rotation_;
};

}  // namespace

std::unique_ptr<Scene> make_cubes_idle(std::uint64_t seed) { return std::make_unique<CubesIdle>(seed); }

}  // namespace tickwire::bench
