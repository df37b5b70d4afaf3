#include "tickwire/core/tick.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <unordered_set>

namespace tickwire {
namespace {

constexpr Tick::Rep kMax = std::numeric_limits<Tick::Rep>::max();

TEST(Tick, DefaultsToZero) {
  EXPECT_EQ(Tick().value(), 0U);
  static_assert(Tick() == Tick(0));
}

TEST(Tick, Arithmetic) {
  Tick t(10);
  EXPECT_EQ(t + 5, Tick(15));
  EXPECT_EQ(t - 10, Tick(0));
  EXPECT_EQ(t + (-3), Tick(7));
  EXPECT_EQ(Tick(15) - Tick(10), 5);
  EXPECT_EQ(Tick(10) - Tick(15), -5);
  EXPECT_EQ(Tick(kMax) - Tick(0), static_cast<std::int64_t>(kMax));
  EXPECT_EQ(++t, Tick(11));
  t += 9;
  EXPECT_EQ(t, Tick(20));
  t += -20;
  EXPECT_EQ(t, Tick(0));
  static_assert(Tick(3) + 4 == Tick(7));
}

TEST(Tick, Ordering) {
  EXPECT_LT(Tick(1), Tick(2));
  EXPECT_GT(Tick(kMax), Tick(0));
  EXPECT_LE(Tick(2), Tick(2));
  EXPECT_NE(Tick(1), Tick(2));
}

TEST(Tick, OptionalSpellsNoTickYet) {
  std::optional<Tick> last_acked;
  EXPECT_FALSE(last_acked.has_value());
  EXPECT_NE(last_acked, Tick(0));  // "none" is distinct from tick zero
  last_acked = Tick(0);
  EXPECT_EQ(last_acked, Tick(0));
  last_acked = std::max(*last_acked, Tick(4));
  EXPECT_EQ(last_acked.value_or(Tick(99)), Tick(4));
  last_acked.reset();
  EXPECT_EQ(last_acked.value_or(Tick(99)), Tick(99));
}

TEST(Tick, HashesByValue) {
  std::unordered_set<Tick> seen{Tick(1), Tick(2), Tick(1)};
  EXPECT_EQ(seen.size(), 2U);
  EXPECT_EQ(std::hash<Tick>{}(Tick(7)), std::hash<Tick>{}(Tick(7)));
}

TEST(Tick, UnderflowThrowsOutOfRange) {
  EXPECT_THROW((void)(Tick(0) - 1), std::out_of_range);
  EXPECT_THROW((void)(Tick(5) + (-6)), std::out_of_range);
  EXPECT_THROW((void)(Tick(0) + std::numeric_limits<std::int64_t>::min()), std::out_of_range);
  Tick t(2);
  EXPECT_THROW(t += -3, std::out_of_range);
  EXPECT_EQ(t, Tick(2));  // a failed step leaves the tick unchanged
}

TEST(Tick, OverflowThrowsOutOfRange) {
  EXPECT_NO_THROW((void)(Tick(kMax - 1) + 1));
  EXPECT_THROW((void)(Tick(kMax) + 1), std::out_of_range);
  EXPECT_THROW((void)(Tick(0) + (static_cast<std::int64_t>(kMax) + 1)), std::out_of_range);
  EXPECT_THROW((void)(Tick(0) + std::numeric_limits<std::int64_t>::max()), std::out_of_range);
  Tick t(kMax);
  EXPECT_THROW(++t, std::out_of_range);
  EXPECT_EQ(t, Tick(kMax));
  EXPECT_THROW(t += 1, std::out_of_range);
}

}  // namespace
}  // namespace tickwire
