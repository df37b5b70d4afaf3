// The memory bound: after construction, recording and querying allocate
// nothing, however entities come, go and teleport, and the history's
// buffers never grow. Counted by replacing the global operator new in
// this test binary alone.

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <new>
#include <random>

#include "test_seed.h"
#include "tickwire/lagcomp/hit_history.h"

namespace {
std::size_t g_allocations = 0;  // the test is single-threaded
}  // namespace

void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace tickwire::lagcomp {
namespace {

TEST(HitHistoryMemory, SteadyStateAllocatesNothingAndNeverGrows) {
  std::mt19937_64 rng(::tickwire::testing::test_seed("HitHistoryMemory.SteadyStateAllocatesNothingAndNeverGrows"));
  HistoryConfig config;
  config.max_entities = 64;
  HitHistory h(config);
  const std::size_t bytes_at_start = h.bytes();

  std::uniform_real_distribution<float> place(-50.0F, 50.0F);
  std::array<bool, 96> alive{};
  std::array<Vec3, 96> pos{};
  std::array<OverlapHit, 64> out{};
  std::uint64_t hits = 0;
  const auto run = [&](std::uint32_t from, std::uint32_t to) {
    for (std::uint32_t t = from; t < to; ++t) {
      ASSERT_TRUE(h.begin_tick(Tick(t)).ok());
      std::uint32_t recorded = 0;
      // 96 ids for 64 places: lives end and begin all the time.
      for (std::uint32_t i = 0; i < alive.size(); ++i) {
        Motion motion = Motion::kContinuous;
        const auto roll = rng() % 100;
        if (roll < 3) alive[i] = !alive[i];
        if (roll == 3) {
          pos[i] = {place(rng), 0, place(rng)};
          motion = Motion::kTeleported;
        }
        if (roll == 4) motion = Motion::kNewLife;
        pos[i].x += 0.1F;
        if (!alive[i] || recorded == config.max_entities) continue;
        const std::array<Shape, 2> s{Shape::capsule({pos[i].x, 0.4F, pos[i].z}, {pos[i].x, 1.4F, pos[i].z}, 0.4F),
                                     Shape::sphere({pos[i].x, 1.7F, pos[i].z}, 0.2F)};
        ASSERT_TRUE(h.record(EntityId{i}, pos[i], s, motion).ok());
        ++recorded;
      }
      ASSERT_TRUE(h.end_tick().ok());
      const TimeRange r = *h.range();
      NetworkTime view = r.newest - Duration::millis(103);  // between two ticks
      if (view < r.oldest) view = r.oldest;
      const auto hit = h.ray_cast(Ray{{place(rng), 1, place(rng)}, {1, 0, 0.1F}, 200}, view);
      ASSERT_TRUE(hit.ok());
      if (hit->hit) ++hits;
      ASSERT_TRUE(h.overlap_sphere({place(rng), 1, place(rng)}, 5, view, out).ok());
      (void)h.rewind(EntityId{static_cast<std::uint32_t>(rng() % 96)}, view);
    }
  };
  run(0, 100);  // warm-up
  const std::size_t before = g_allocations;
  run(100, 5100);
  EXPECT_EQ(g_allocations, before) << "allocations in the steady state";
  EXPECT_EQ(h.bytes(), bytes_at_start);
  EXPECT_GT(hits, 0U);
  EXPECT_EQ(h.stats().rejected_records, 0U);
}

}  // namespace
}  // namespace tickwire::lagcomp
