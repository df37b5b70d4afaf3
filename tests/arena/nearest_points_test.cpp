// Each client's nearest entities: the grid search picks exactly the set a
// look at every point picks, ties, edges and small worlds included.
#include "tickwire/arena/nearest_points.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "test_seed.h"
#include "tickwire/arena/arena.h"

namespace tickwire::arena {
namespace {

// The definition: the `keep` smallest by (squared distance, index), found
// by sorting every point.
std::vector<std::uint32_t> brute_force(const std::vector<Vec2>& points, Vec2 centre, std::size_t keep) {
  std::vector<std::pair<float, std::uint32_t>> all;
  for (std::uint32_t i = 0; i < points.size(); ++i) {
    const float dx = points[i].x - centre.x;
    const float dy = points[i].y - centre.y;
    all.emplace_back(dx * dx + dy * dy, i);
  }
  std::sort(all.begin(), all.end());
  std::vector<std::uint32_t> out;
  for (std::size_t k = 0; k < std::min(keep, all.size()); ++k) out.push_back(all[k].second);
  std::sort(out.begin(), out.end());
  return out;
}

// Coordinates that land on cell edges, on a coarse lattice (so that many
// points are equally far from a lattice centre), outside the arena, or
// anywhere.
float coordinate(std::mt19937_64& rng) {
  switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
    case 0: return static_cast<float>(std::uniform_int_distribution<int>(-20, 20)(rng)) * 2.0F;
    case 1: return static_cast<float>(std::uniform_int_distribution<int>(-16, 16)(rng)) * 2.5F;
    case 2: return std::uniform_real_distribution<float>(-kHalfSize * 1.5F, kHalfSize * 1.5F)(rng);
    case 3: return std::uniform_int_distribution<int>(0, 1)(rng) == 0 ? -kHalfSize : kHalfSize;
    default: return std::uniform_real_distribution<float>(-kHalfSize, kHalfSize)(rng);
  }
}

TEST(NearestPoints, PicksWhatLookingAtEveryPointPicks) {
  const auto seed = testing::test_seed("NearestPoints.PicksWhatLookingAtEveryPointPicks");
  std::mt19937_64 rng(seed);
  int ties_at_the_cut = 0;
  int fewer_than_keep = 0;
  for (int world = 0; world < 400; ++world) {
    const float cell = std::array{2.0F, 3.0F, 4.0F, 7.5F, 80.0F}[static_cast<std::size_t>(world % 5)];
    NearestPoints nearest(kHalfSize, cell);
    const auto n = std::uniform_int_distribution<std::size_t>(0, world % 4 == 0 ? 40 : 400)(rng);
    std::vector<Vec2> points;
    for (std::size_t i = 0; i < n; ++i) {
      if (!points.empty() && std::uniform_int_distribution<int>(0, 9)(rng) == 0) {
        points.push_back(points[std::uniform_int_distribution<std::size_t>(0, points.size() - 1)(rng)]);  // same place
      } else if (std::uniform_int_distribution<int>(0, 49)(rng) == 0) {
        points.push_back({kHalfSize * 4.0F, kHalfSize * 4.0F});  // where shot results are put
      } else {
        points.push_back({coordinate(rng), coordinate(rng)});
      }
    }
    nearest.build(points);
    ASSERT_EQ(nearest.size(), n);
    for (int query = 0; query < 25; ++query) {
      const Vec2 centre = !points.empty() && query % 3 == 0
                              ? points[std::uniform_int_distribution<std::size_t>(0, points.size() - 1)(rng)]
                              : Vec2{coordinate(rng), coordinate(rng)};
      const auto keep = std::uniform_int_distribution<std::size_t>(0, 80)(rng);
      // A first radius to try changes nothing but the time taken.
      float hint = 0.0F;
      switch (query % 5) {
        case 1: hint = std::uniform_real_distribution<float>(0.001F, 100.0F)(rng); break;
        case 2: hint = std::sqrt(std::max(nearest.kth_square(), 0.0F)); break;  // NaN stays NaN
        case 3: hint = std::numeric_limits<float>::infinity(); break;
        case 4: hint = std::uniform_int_distribution<int>(0, 1)(rng) == 0 ? -1.0F : 1e-30F; break;
        default: break;
      }
      const auto picked = nearest.select(centre, keep, hint);
      std::vector<std::uint32_t> got(picked.begin(), picked.end());
      std::sort(got.begin(), got.end());
      const auto want = brute_force(points, centre, keep);
      ASSERT_EQ(got, want) << "seed " << seed << " world " << world << " query " << query << " n " << n << " keep "
                           << keep << " centre " << centre.x << "," << centre.y << " cell " << cell;
      if (keep >= n) ++fewer_than_keep;
      if (keep > 0 && keep < n) {
        // The keep-th squared distance it reports is the true one.
        float kth = 0.0F;
        for (const std::uint32_t i : want) {
          const float ix = points[i].x - centre.x;
          const float iy = points[i].y - centre.y;
          kth = std::max(kth, ix * ix + iy * iy);
        }
        ASSERT_EQ(nearest.kth_square(), kth) << "seed " << seed << " world " << world << " query " << query;
      }
      if (keep > 0 && keep < n) {
        // Does the cut fall between points equally far away?
        std::vector<float> d2;
        for (const Vec2 p : points)
          d2.push_back((p.x - centre.x) * (p.x - centre.x) + (p.y - centre.y) * (p.y - centre.y));
        std::nth_element(d2.begin(), d2.begin() + static_cast<std::ptrdiff_t>(keep) - 1, d2.end());
        const float kth = d2[keep - 1];
        if (std::count(d2.begin(), d2.end(), kth) > 1) ++ties_at_the_cut;
      }
    }
  }
  // The cases that matter most came up.
  EXPECT_GT(ties_at_the_cut, 100);
  EXPECT_GT(fewer_than_keep, 100);
}

TEST(NearestPoints, ReusedForFewerAndMorePoints) {
  NearestPoints nearest(kHalfSize, 2.0F);
  std::vector<Vec2> points{{0.0F, 0.0F}, {1.0F, 0.0F}, {-1.0F, 0.0F}, {0.0F, 5.0F}};
  nearest.build(points);
  auto picked = nearest.select({0.0F, 0.0F}, 3);
  EXPECT_EQ(std::vector<std::uint32_t>(picked.begin(), picked.end()).size(), 3u);
  // Equally far: the lower index wins.
  picked = nearest.select({0.0F, 0.0F}, 2);
  std::vector<std::uint32_t> got(picked.begin(), picked.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::uint32_t>{0, 1}));
  nearest.build(std::span(points).first(1));
  picked = nearest.select({30.0F, 30.0F}, 5);
  EXPECT_EQ(std::vector<std::uint32_t>(picked.begin(), picked.end()), (std::vector<std::uint32_t>{0}));
  nearest.build({});
  EXPECT_TRUE(nearest.select({0.0F, 0.0F}, 5).empty());
}

// Through the game: each client's list is its nearest entities by
// (squared distance, id), its own avatar and its shot, sorted.
TEST(ArenaNetGame, RelevancyIsTheNearestByDistanceThenId) {
  const auto seed = testing::test_seed("ArenaNetGame.RelevancyIsTheNearestByDistanceThenId");
  std::mt19937_64 rng(seed);
  const Schema& s = schema();
  for (int round = 0; round < 20; ++round) {
    const std::size_t keep = std::array<std::size_t, 4>{1, 8, 64, 100}[static_cast<std::size_t>(round % 4)];
    Game game(GameConfig{keep});
    snapshot::World world(s.schema);
    game.populate(world);
    const auto players = std::uniform_int_distribution<std::uint32_t>(1, 300)(rng);
    for (std::uint32_t owner = 1; owner <= players; ++owner) {
      game.player_joined(world, prediction::PlayerId{owner});
      world.set(*find_player(world, owner), s.player_position, Vec2{coordinate(rng), coordinate(rng)});
    }
    // Some players have a shot result, which has no place.
    for (std::uint32_t owner = 1; owner <= players; owner += 3) {
      const EntityId shot = world.spawn(s.shot_type);
      world.set(shot, s.shot_owner, static_cast<std::int32_t>(owner));
    }
    // Several ticks, the players moving between them: each query starts
    // from the last one's distance.
    for (int tick = 0; tick < 3; ++tick) {
      if (tick > 0) {
        for (std::uint32_t owner = 1; owner <= players; ++owner) {
          const EntityId id = *find_player(world, owner);
          const Vec2 at = world.get(id, s.player_position);
          const float step = tick == 1 ? 0.1F : 5.0F;
          world.set(id, s.player_position,
                    Vec2{at.x + std::uniform_real_distribution<float>(-step, step)(rng),
                         at.y + std::uniform_real_distribution<float>(-step, step)(rng)});
        }
      }
      game.before_snapshots(world);
      for (std::uint32_t owner = 1; owner <= players; owner += 1 + players / 40) {
        const auto relevant = game.relevancy(world, prediction::PlayerId{owner});
        if (world.size() <= keep) {
          EXPECT_FALSE(relevant);
          continue;
        }
        ASSERT_TRUE(relevant.listed());
        const EntityId me = *find_player(world, owner);
        const Vec2 centre = world.get(me, s.player_position);
        std::vector<std::pair<float, EntityId>> all;
        for (const EntityId id : world.ids()) {
          const auto type = world.type_of(id);
          const Vec2 p = type == s.player_type ? world.get(id, s.player_position)
                         : type == s.shot_type ? Vec2{kHalfSize * 4.0F, kHalfSize * 4.0F}
                                               : world.get(id, s.platform_position);
          all.emplace_back((p.x - centre.x) * (p.x - centre.x) + (p.y - centre.y) * (p.y - centre.y), id);
        }
        std::sort(all.begin(), all.end());
        std::vector<EntityId> want;
        for (std::size_t k = 0; k < keep; ++k) want.push_back(all[k].second);
        want.push_back(me);
        if (const auto shot = find_shot(world, owner)) want.push_back(*shot);
        std::sort(want.begin(), want.end());
        want.erase(std::unique(want.begin(), want.end()), want.end());
        const std::vector<EntityId> got(relevant.ids().begin(), relevant.ids().end());
        ASSERT_EQ(got, want) << "seed " << seed << " round " << round << " tick " << tick << " owner " << owner;
      }
    }
  }
}

}  // namespace
}  // namespace tickwire::arena
