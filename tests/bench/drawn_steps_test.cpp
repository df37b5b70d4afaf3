// The prediction benchmark's own count of drawn pops: a move its velocity
// explains is none, a jump beyond it is one, a teleport is none, and the
// warm-up is not counted.

#include "drawn_steps.h"

#include <gtest/gtest.h>

#include "pitch/game.h"

namespace tickwire::bench {
namespace {

constexpr Duration kFrame = Duration::micros(16'667);
bool interpolated(snapshot::EntityId) { return false; }

struct Scene {
  const pitch::Schema& s = pitch::schema();
  snapshot::World world{pitch::schema().schema};
  snapshot::EntityId ball;

  Scene() {
    pitch::populate(world, pitch::GameConfig{});
    ball = *pitch::find_ball(world);
  }
  void put_ball(float x, float vx) {
    world.set(ball, s.ball_position, pitch::Vec2{x, 0.0F});
    world.set(ball, s.ball_velocity, pitch::Vec2{vx, 0.0F});
  }
};

TEST(DrawnSteps, MovesItsVelocityExplainsAreNoPops) {
  Scene scene;
  DrawnSteps steps(0.25F);
  float x = 0.0F;
  for (int frame = 0; frame < 60; ++frame) {
    scene.put_ball(x, 12.0F);
    steps.observe(scene.world, kFrame, true, interpolated);
    x += 12.0F / 60.0F;
  }
  EXPECT_EQ(steps.pops(), 0u);
  EXPECT_EQ(steps.frames(), 60u);
  EXPECT_LT(steps.largest_excess(), 0.01);
}

TEST(DrawnSteps, AJumpBeyondTheVelocityIsAPopOfTheBall) {
  Scene scene;
  DrawnSteps steps(0.25F);
  scene.put_ball(0.0F, 0.0F);
  steps.observe(scene.world, kFrame, true, interpolated);
  scene.put_ball(1.0F, 0.0F);
  steps.observe(scene.world, kFrame, true, interpolated);
  EXPECT_EQ(steps.pops(), 1u);
  EXPECT_EQ(steps.ball_pops(), 1u);
  EXPECT_EQ(steps.pops_interpolated(), 1u);
  EXPECT_NEAR(steps.largest_excess(), 1.0, 1e-3);
}

TEST(DrawnSteps, APopSoonAfterASwitchOfTimelineCountsAsTheSwitchs) {
  Scene scene;
  DrawnSteps steps(0.25F);
  bool predicted = false;
  const auto predicts = [&predicted](snapshot::EntityId) { return predicted; };
  scene.put_ball(0.0F, 0.0F);
  steps.observe(scene.world, kFrame, true, predicts);
  predicted = true;
  scene.put_ball(1.0F, 0.0F);
  steps.observe(scene.world, kFrame, true, predicts);
  for (std::uint64_t frame = 0; frame < DrawnSteps::kSwitchWindow; ++frame) {
    steps.observe(scene.world, kFrame, true, predicts);
  }
  scene.put_ball(2.0F, 0.0F);
  steps.observe(scene.world, kFrame, true, predicts);
  EXPECT_EQ(steps.pops(), 2u);
  EXPECT_EQ(steps.pops_after_switch(), 1u);
  EXPECT_EQ(steps.pops_predicted(), 1u);
}

TEST(DrawnSteps, ATeleportIsNoPop) {
  Scene scene;
  DrawnSteps steps(0.25F);
  scene.put_ball(25.0F, 0.0F);
  steps.observe(scene.world, kFrame, true, interpolated);
  scene.put_ball(0.0F, 0.0F);
  scene.world.set(scene.ball, scene.s.ball_teleports, scene.world.get(scene.ball, scene.s.ball_teleports) + 1);
  steps.observe(scene.world, kFrame, true, interpolated);
  EXPECT_EQ(steps.pops(), 0u);
}

TEST(DrawnSteps, TheWarmUpIsNotCounted) {
  Scene scene;
  DrawnSteps steps(0.25F);
  scene.put_ball(0.0F, 0.0F);
  steps.observe(scene.world, kFrame, false, interpolated);
  scene.put_ball(2.0F, 0.0F);
  steps.observe(scene.world, kFrame, false, interpolated);
  EXPECT_EQ(steps.pops(), 0u);
  EXPECT_EQ(steps.frames(), 0u);
  scene.put_ball(4.0F, 0.0F);
  steps.observe(scene.world, kFrame, true, interpolated);
  EXPECT_EQ(steps.pops(), 1u);
}

}  // namespace
}  // namespace tickwire::bench
