#include "tickwire/core/sequence.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace tickwire {
namespace {

TEST(Sequence, NextAndArithmeticWrap) {
  EXPECT_EQ(Sequence(5).next(), Sequence(6));
  EXPECT_EQ(Sequence(65535).next(), Sequence(0));
  EXPECT_EQ(Sequence(65530) + 10, Sequence(4));
  EXPECT_EQ(Sequence(3) - 5, Sequence(65534));
  EXPECT_EQ(Sequence(3) + (-5), Sequence(65534));
  EXPECT_EQ(Sequence().value(), 0);
  static_assert(Sequence(65535).next() == Sequence(0));
}

TEST(Sequence, IsNewerWithoutWrap) {
  EXPECT_TRUE(is_newer(Sequence(2), Sequence(1)));
  EXPECT_FALSE(is_newer(Sequence(1), Sequence(2)));
  EXPECT_FALSE(is_newer(Sequence(7), Sequence(7)));
  EXPECT_TRUE(is_newer(Sequence(32767), Sequence(0)));
}

TEST(Sequence, IsNewerAcrossWrap) {
  EXPECT_TRUE(is_newer(Sequence(0), Sequence(65535)));
  EXPECT_FALSE(is_newer(Sequence(65535), Sequence(0)));
  EXPECT_TRUE(is_newer(Sequence(10), Sequence(65500)));
  EXPECT_FALSE(is_newer(Sequence(65500), Sequence(10)));
  // Exactly half the space apart is ambiguous; neither side counts as newer.
  EXPECT_FALSE(is_newer(Sequence(32768), Sequence(0)));
  EXPECT_FALSE(is_newer(Sequence(0), Sequence(32768)));
}

TEST(Sequence, Distance) {
  EXPECT_EQ(Sequence::distance(Sequence(5), Sequence(3)), 2);
  EXPECT_EQ(Sequence::distance(Sequence(3), Sequence(5)), -2);
  EXPECT_EQ(Sequence::distance(Sequence(1), Sequence(65535)), 2);
  EXPECT_EQ(Sequence::distance(Sequence(65535), Sequence(1)), -2);
  EXPECT_EQ(Sequence::distance(Sequence(32767), Sequence(0)), 32767);
  EXPECT_EQ(Sequence::distance(Sequence(32768), Sequence(0)), -32768);
}

TEST(Sequence, IsNewerIsAntisymmetricEverywhere) {
  // Every starting point, a spread of gaps up to just under half the space.
  for (int start = 0; start < 65536; ++start) {
    const Sequence a(static_cast<std::uint16_t>(start));
    for (int gap : {1, 2, 255, 256, 4096, 32766, 32767}) {
      const Sequence b = a + gap;
      ASSERT_TRUE(is_newer(b, a)) << start << "+" << gap;
      ASSERT_FALSE(is_newer(a, b)) << start << "+" << gap;
      ASSERT_EQ(Sequence::distance(b, a), gap);
    }
  }
}

}  // namespace
}  // namespace tickwire
