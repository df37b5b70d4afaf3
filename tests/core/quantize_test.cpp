#include "tickwire/core/quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <stdexcept>

namespace tickwire {
namespace {

// Fixed by default so failures reproduce; TICKWIRE_TEST_SEED overrides it.
std::uint64_t test_seed() {
  if (const char* s = std::getenv("TICKWIRE_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  return 20240611;
}

TEST(BitsRequired, CoversRangeEdges) {
  EXPECT_EQ(bits_required(0), 0);
  EXPECT_EQ(bits_required(1), 1);
  EXPECT_EQ(bits_required(2), 2);
  EXPECT_EQ(bits_required(3), 2);
  EXPECT_EQ(bits_required(255), 8);
  EXPECT_EQ(bits_required(256), 9);
  EXPECT_EQ(bits_required(0xFFFF'FFFFU), 32);
  EXPECT_EQ(bits_required(std::numeric_limits<std::uint64_t>::max()), 64);
  static_assert(bits_required(1023) == 10);
}

TEST(BitsRequired, ForSignedRanges) {
  EXPECT_EQ(bits_required_for(5, 5), 0);
  EXPECT_EQ(bits_required_for(5, 4), 0);
  EXPECT_EQ(bits_required_for(-1, 1), 2);
  EXPECT_EQ(bits_required_for(-128, 127), 8);
  EXPECT_EQ(bits_required_for(-1000, -10), 10);
  EXPECT_EQ(bits_required_for(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()), 64);
}

TEST(FloatQuantizer, StepsAndBits) {
  EXPECT_EQ(make_quantizer(0.0F, 1.0F, 0.1F).steps(), 10U);
  EXPECT_EQ(make_quantizer(0.0F, 1.0F, 0.1F).bits(), 4);
  // 0.01F is slightly below 0.01; the range is still 20000 steps, not 20001.
  EXPECT_EQ(make_quantizer(-100.0F, 100.0F, 0.01F).steps(), 20000U);
  EXPECT_EQ(make_quantizer(-100.0F, 100.0F, 0.01F).bits(), 15);
  // A range that is not a whole number of steps rounds the count up, so
  // the step never exceeds the precision.
  EXPECT_EQ(make_quantizer(0.0F, 1.0F, 0.3F).steps(), 4U);
  EXPECT_EQ(make_quantizer(0.0F, 1.0F, 5.0F).steps(), 1U);
  EXPECT_EQ(make_quantizer(0.0F, 1.0F, 5.0F).bits(), 1);
  // The largest count that fits.
  EXPECT_EQ(make_quantizer(0.0F, 65535.0F, 1.0F / 65536.0F).steps(), 65535U * 65536U);
  EXPECT_EQ(make_quantizer(0.0F, 65535.0F, 1.0F / 65536.0F).bits(), 32);
}

TEST(FloatQuantizer, RoundsToNearestStep) {
  const auto q = make_quantizer(0.0F, 10.0F, 1.0F);
  EXPECT_EQ(q.quantize(4.4F), 4U);
  EXPECT_EQ(q.quantize(4.6F), 5U);
  EXPECT_EQ(q.quantize(4.5F), 5U);
  EXPECT_EQ(q.quantize(0.49F), 0U);
  EXPECT_EQ(q.quantize(9.51F), 10U);
  EXPECT_EQ(q.dequantize(0), 0.0F);
  EXPECT_EQ(q.dequantize(7), 7.0F);
  EXPECT_EQ(q.dequantize(10), 10.0F);
}

TEST(FloatQuantizer, ClampsAndMapsNanToMin) {
  const auto q = make_quantizer(-2.0F, 2.0F, 0.5F);
  EXPECT_EQ(q.quantize(-100.0F), 0U);
  EXPECT_EQ(q.quantize(100.0F), q.steps());
  EXPECT_EQ(q.quantize(std::numeric_limits<float>::infinity()), q.steps());
  EXPECT_EQ(q.quantize(-std::numeric_limits<float>::infinity()), 0U);
  EXPECT_EQ(q.quantize(std::nanf("")), 0U);
  EXPECT_EQ(q.snap(std::nanf("")), -2.0F);
  EXPECT_EQ(q.dequantize(q.steps() + 1), 2.0F);
  EXPECT_EQ(q.dequantize(0xFFFF'FFFFU), 2.0F);
}

TEST(FloatQuantizer, SnapIsWithinHalfAStepAndIdempotent) {
  const std::uint64_t seed = test_seed();
  std::cout << "seed=" << seed << std::endl;
  SCOPED_TRACE(testing::Message() << "seed=" << seed);
  std::mt19937_64 rng(seed);
  const FloatQuantizer quantizers[] = {make_quantizer(-100.0F, 100.0F, 0.01F), make_quantizer(0.0F, 1.0F, 0.3F),
                                       make_quantizer(-3.14159F, 3.14159F, 0.001F), make_quantizer(-1e6F, 1e6F, 0.5F),
                                       // Steps finer than a float can resolve near the top of the range.
                                       make_quantizer(1e6F, 1e6F + 1000.0F, 0.001F),
                                       make_quantizer(0.0F, 65535.0F, 1.0F / 65536.0F)};
  for (const auto& q : quantizers) {
    SCOPED_TRACE(testing::Message() << "min=" << q.min << " max=" << q.max << " precision=" << q.precision);
    std::uniform_real_distribution<float> value(q.min - 1.0F, q.max + 1.0F);
    const double step = (static_cast<double>(q.max) - q.min) / q.steps();
    const bool resolvable = step > 4 * std::fmax(std::fabs(q.min), std::fabs(q.max)) * 1.2e-7;
    for (int i = 0; i < 20000; ++i) {
      const float v = value(rng);
      const float s = q.snap(v);
      ASSERT_GE(s, q.min);
      ASSERT_LE(s, q.max);
      ASSERT_EQ(q.snap(s), s) << "v=" << v;
      if (resolvable) {
        const float clamped = std::fmin(std::fmax(v, q.min), q.max);
        ASSERT_LE(std::fabs(static_cast<double>(s) - clamped), step / 2 * 1.001 + 1e-6) << "v=" << v;
      }
    }
  }
}

TEST(FloatQuantizer, InvalidConstructionsThrow) {
  const float nan = std::nanf("");
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_THROW(make_quantizer(1.0F, 1.0F, 0.1F), std::invalid_argument);
  EXPECT_THROW(make_quantizer(2.0F, 1.0F, 0.1F), std::invalid_argument);
  EXPECT_THROW(make_quantizer(0.0F, 1.0F, 0.0F), std::invalid_argument);
  EXPECT_THROW(make_quantizer(0.0F, 1.0F, -0.1F), std::invalid_argument);
  EXPECT_THROW(make_quantizer(nan, 1.0F, 0.1F), std::invalid_argument);
  EXPECT_THROW(make_quantizer(0.0F, inf, 0.1F), std::invalid_argument);
  EXPECT_THROW(make_quantizer(-inf, 0.0F, 0.1F), std::invalid_argument);
  EXPECT_THROW(make_quantizer(0.0F, 1.0F, nan), std::invalid_argument);
  EXPECT_THROW(make_quantizer(0.0F, 1.0F, inf), std::invalid_argument);
  EXPECT_THROW(make_quantizer(0.0F, 1e10F, 1e-3F), std::invalid_argument);  // 2^43 steps
  EXPECT_THROW(make_quantizer(0.0F, 1.0F, 1e-30F), std::invalid_argument);
  EXPECT_FALSE(try_make_quantizer(2.0F, 1.0F, 0.1F).has_value());
  EXPECT_TRUE(try_make_quantizer(0.0F, 1.0F, 0.1F).has_value());
}

TEST(FloatQuantizer, UnvalidatedFieldsDegradeToMin) {
  const FloatQuantizer broken{1.0F, 0.0F, 0.1F};
  EXPECT_EQ(broken.steps(), 0U);
  EXPECT_EQ(broken.bits(), 0);
  EXPECT_EQ(broken.quantize(0.5F), 0U);
  EXPECT_EQ(broken.dequantize(3), 1.0F);
}

}  // namespace
}  // namespace tickwire
