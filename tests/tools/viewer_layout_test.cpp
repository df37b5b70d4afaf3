// The viewer's layout rules: which field places an entity of any schema,
// which plane a 3D position is seen on, how large it is drawn, and the view
// framed by the declared ranges with no game constant.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "tickwire/viewer/layout.h"

namespace tickwire::viewer {
namespace {

using snapshot::Vec2;
using snapshot::Vec3;

TEST(ViewerLayout, FindsPositionByNameThenBySubstring) {
  snapshot::SchemaBuilder b;
  auto ship = b.entity_type("ship");
  (void)ship.add_vec2("velocity", {-5, -5}, {5, 5}, 0.01F);
  (void)ship.add_vec2("target_pos", {-9, -9}, {9, 9}, 0.01F);
  (void)ship.add_vec2("position", {-10, -20}, {30, 40}, 0.01F);
  auto rock = b.entity_type("rock");
  (void)rock.add_vec2("velocity", {-5, -5}, {5, 5}, 0.01F);
  (void)rock.add_vec2("Spawn_Pos", {-1, -2}, {3, 4}, 0.01F);
  auto score = b.entity_type("score");
  (void)score.add_int("points", 0, 100);
  auto input = b.record_type("input");
  (void)input.add_vec2("pos", {-1, -1}, {1, 1}, 0.1F);
  const snapshot::Schema schema = b.build();

  const Layout layout(schema);
  ASSERT_EQ(layout.types().size(), 4U);
  // "position" wins over an earlier field that merely contains "pos".
  EXPECT_EQ(layout.types()[0].position_field, "position");
  EXPECT_EQ(layout.types()[0].range, (Bounds{{-10, -20}, {30, 40}}));
  // Without one, the first vec field with "pos" in its name, any case.
  EXPECT_EQ(layout.types()[1].position_field, "Spawn_Pos");
  EXPECT_FALSE(layout.types()[2].position_field.has_value());
  EXPECT_FALSE(layout.types()[2].drawn());
  // Records are never drawn.
  EXPECT_FALSE(layout.types()[3].entity);
  EXPECT_FALSE(layout.types()[3].drawn());
  // The view: the union of the drawn types' ranges.
  EXPECT_EQ(layout.bounds(), (Bounds{{-10, -20}, {30, 40}}));
}

TEST(ViewerLayout, ReadsPositionRadiusAndOwnerFromAWorld) {
  snapshot::SchemaBuilder b;
  auto ball = b.entity_type("ball");
  const auto pos = ball.add_vec3("pos", {-100, -2, -50}, {100, 2, 50}, 0.01F);
  const auto radius = ball.add_float("radius", 0, 10, 0.01F);
  const auto owner = ball.add_int("owner", 0, 1000);
  auto dot = b.entity_type("dot");
  const auto dot_pos = dot.add_vec2("position", {-1, -1}, {1, 1}, 0.01F);
  const snapshot::Schema schema = b.build();
  snapshot::World world(schema);
  const auto a = world.spawn(ball.id());
  world.set(a, pos, Vec3{3.0F, 1.0F, -7.0F});
  world.set(a, radius, 2.5F);
  world.set(a, owner, 42);
  const auto d = world.spawn(dot.id());
  world.set(d, dot_pos, Vec2{0.5F, -0.25F});

  LayoutOptions options;
  options.radii["dot"] = 0.1F;
  const Layout layout(schema, options);
  // y is the narrowest axis, so it is up: the ball is seen on x/z.
  EXPECT_EQ(layout.types()[0].plane, Plane::kXZ);
  EXPECT_EQ(layout.position(world, a), (Vec2{3.0F, -7.0F}));
  EXPECT_EQ(layout.radius(world, a), 2.5F);
  EXPECT_EQ(layout.owner(world, a), 42);
  EXPECT_EQ(layout.position(world, d), (Vec2{0.5F, -0.25F}));
  EXPECT_EQ(layout.radius(world, d), 0.1F);
  EXPECT_FALSE(layout.owner(world, d).has_value());
  EXPECT_FALSE(layout.position(world, snapshot::EntityId{99}).has_value());
  // The bounds cover the x/z range of the ball and the dot's.
  EXPECT_EQ(layout.bounds(), (Bounds{{-100, -50}, {100, 50}}));
  // Hit shapes follow the 3D positions' plane.
  EXPECT_EQ(layout.shape_plane(), Plane::kXZ);
  EXPECT_EQ(layout.project(Vec3{1, 2, 3}), (Vec2{1, 3}));
}

TEST(ViewerLayout, AutoPlaneTakesTheNarrowestAxisForUp) {
  EXPECT_EQ(auto_plane({-500, -50, -500}, {500, 50, 500}), Plane::kXZ);
  EXPECT_EQ(auto_plane({-500, -500, 0}, {500, 500, 30}), Plane::kXY);
  EXPECT_EQ(auto_plane({0, -500, -500}, {10, 500, 500}), Plane::kYZ);
  // A tie puts y up.
  EXPECT_EQ(auto_plane({-1, -1, -1}, {1, 1, 1}), Plane::kXZ);
}

TEST(ViewerLayout, OptionsOverrideTheRules) {
  snapshot::SchemaBuilder b;
  auto unit = b.entity_type("unit");
  (void)unit.add_vec2("position", {-1, -1}, {1, 1}, 0.01F);
  (void)unit.add_vec3("where", {-5, -6, -7}, {5, 6, 7}, 0.01F);
  auto fx = b.entity_type("fx");
  (void)fx.add_vec2("position", {-1000, -1000}, {1000, 1000}, 0.1F);
  const snapshot::Schema schema = b.build();

  LayoutOptions options;
  options.position_fields["unit"] = "where";
  options.plane = Plane::kXY;
  options.hidden_types = {"fx"};
  const Layout layout(schema, options);
  EXPECT_EQ(layout.types()[0].position_field, "where");
  EXPECT_EQ(layout.types()[0].plane, Plane::kXY);
  EXPECT_TRUE(layout.types()[1].hidden);
  // Hidden types leave the bounds alone.
  EXPECT_EQ(layout.bounds(), (Bounds{{-5, -6}, {5, 6}}));
  // A 2D-only game's hit shapes lie on the ground: x/z.
  snapshot::SchemaBuilder flat;
  (void)flat.entity_type("p").add_vec2("position", {-1, -1}, {1, 1}, 0.01F);
  EXPECT_EQ(Layout(flat.build()).shape_plane(), Plane::kXZ);

  options.bounds = Bounds{{0, 0}, {10, 5}};
  EXPECT_EQ(Layout(schema, options).bounds(), (Bounds{{0, 0}, {10, 5}}));
}

TEST(ViewerLayout, RejectsBadOptions) {
  snapshot::SchemaBuilder b;
  auto unit = b.entity_type("unit");
  (void)unit.add_vec2("position", {-1, -1}, {1, 1}, 0.01F);
  (void)unit.add_int("hp", 0, 10);
  const snapshot::Schema schema = b.build();
  LayoutOptions missing_type;
  missing_type.position_fields["ghost"] = "position";
  EXPECT_THROW(Layout(schema, missing_type), std::invalid_argument);
  LayoutOptions not_a_vector;
  not_a_vector.position_fields["unit"] = "hp";
  EXPECT_THROW(Layout(schema, not_a_vector), std::invalid_argument);
  LayoutOptions empty_bounds;
  empty_bounds.bounds = Bounds{{1, 1}, {1, 5}};
  EXPECT_THROW(Layout(schema, empty_bounds), std::invalid_argument);
}

TEST(ViewerLayout, NothingToFitGivesAUnitSquare) {
  snapshot::SchemaBuilder b;
  (void)b.entity_type("counter").add_int("n", 0, 9);
  const Layout layout(b.build());
  EXPECT_EQ(layout.bounds(), (Bounds{{-1, -1}, {1, 1}}));
}

TEST(ViewerViewport, FitsKeepingTheAspectCentred) {
  // 80 x 40 world into 400 x 400 pixels: 5 px per unit, centred vertically.
  const Viewport vp = Viewport::fit({{-40, -20}, {40, 20}}, 10, 20, 400, 400);
  EXPECT_FLOAT_EQ(vp.scale, 5.0F);
  EXPECT_FLOAT_EQ(vp.x(-40), 10.0F);
  EXPECT_FLOAT_EQ(vp.x(40), 410.0F);
  EXPECT_FLOAT_EQ(vp.y(20), 20.0F + 100.0F);  // y up: the top edge is max y
  EXPECT_FLOAT_EQ(vp.y(-20), 20.0F + 300.0F);
  EXPECT_FLOAT_EQ(vp.to_world_x(vp.x(12.5F)), 12.5F);
  EXPECT_FLOAT_EQ(vp.to_world_y(vp.y(-7.25F)), -7.25F);
}

TEST(ViewerViewport, GridStepIsOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_FLOAT_EQ(grid_step({{-40, -40}, {40, 40}}), 10.0F);
  EXPECT_FLOAT_EQ(grid_step({{0, 0}, {1000, 10}}), 100.0F);
  EXPECT_FLOAT_EQ(grid_step({{0, 0}, {3, 1}}), 0.5F);
  EXPECT_FLOAT_EQ(grid_step({{0, 0}, {0, 0}}), 1.0F);
}

TEST(ViewerViewport, GridLinesFallOnMultiplesStrictlyInside) {
  EXPECT_EQ(grid_lines(-40.0F, 40.0F, 10.0F), (std::vector<float>{-30, -20, -10, 0, 10, 20, 30}));
  EXPECT_EQ(grid_lines(0.0F, 25.0F, 10.0F), (std::vector<float>{10, 20}));
  EXPECT_TRUE(grid_lines(0.0F, 10.0F, 0.0F).empty());
  EXPECT_TRUE(grid_lines(10.0F, 0.0F, 1.0F).empty());
  EXPECT_TRUE(grid_lines(0.0F, std::nanf(""), 1.0F).empty());
}

TEST(ViewerViewport, GridLinesEndForBoundsFarFromTheOrigin) {
  // A step below half a float's spacing at 1e7: adding it up never moves.
  const Bounds narrow{{1e7F, 1e7F}, {1e7F + 1.0F, 1e7F + 1.0F}};
  const float step = grid_step(narrow);
  ASSERT_LT(step, 0.5F);
  const std::vector<float> lines = grid_lines(narrow.min.x, narrow.max.x, step);
  EXPECT_LE(lines.size(), 1000U);
  for (const float g : lines) {
    EXPECT_GT(g, narrow.min.x);
    EXPECT_LT(g, narrow.max.x);
  }
  // However many steps fit, at most the cap is drawn.
  EXPECT_EQ(grid_lines(-1000.0F, 1000.0F, 0.5F).size(), 1000U);
  EXPECT_EQ(grid_lines(-1000.0F, 1000.0F, 0.5F, 50).size(), 50U);
}

}  // namespace
}  // namespace tickwire::viewer
