// The range coder, the residual codes and the motion predictors.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "snapshot_fixture.h"
#include "tickwire/snapshot/field_codec.h"
#include "tickwire/snapshot/motion_predict.h"
#include "tickwire/snapshot/range_coder.h"
#include "tickwire/snapshot/residual_code.h"

namespace tickwire::snapshot {
namespace {

TEST(RangeCoder, RoundTripsRandomDecisionsAndRawBits) {
  const auto seed = testing::test_seed("RangeCoder.RoundTripsRandomDecisionsAndRawBits");
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::uint8_t> out;
    std::vector<std::uint32_t> values;
    std::vector<int> kinds;
    const bool adaptive = round % 2 == 0;
    {
      RangeEncoder enc(out, adaptive);
      std::vector<BitModel> models(8);
      for (int i = 0; i < 2000; ++i) {
        const int kind = static_cast<int>(rng() % 3);
        kinds.push_back(kind);
        if (kind == 0) {
          // Skewed bits, so the models have something to learn.
          const bool b = (rng() % 100) < 90;
          values.push_back(b ? 1 : 0);
          enc.bit(models[static_cast<std::size_t>(i % 8)], b);
        } else {
          const int n = static_cast<int>(rng() % 33);
          const std::uint32_t v =
              n == 32 ? static_cast<std::uint32_t>(rng()) : static_cast<std::uint32_t>(rng() & ((1ULL << n) - 1));
          values.push_back(v);
          kinds.back() = 1 + n;
          enc.direct(v, n);
        }
      }
      enc.finish();
    }
    RangeDecoder dec(out, adaptive);
    std::vector<BitModel> models(8);
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      if (kinds[i] == 0) {
        ASSERT_EQ(dec.bit(models[i % 8]) ? 1U : 0U, values[i]) << "decision " << i;
      } else {
        ASSERT_EQ(dec.direct(kinds[i] - 1), values[i]) << "raw " << i;
      }
    }
    EXPECT_TRUE(dec.at_end());
  }
}

TEST(RangeCoder, LikelyDecisionsCostAFractionOfABit) {
  std::vector<std::uint8_t> out;
  RangeEncoder enc(out);
  BitModel m;
  for (int i = 0; i < 8000; ++i) enc.bit(m, false);
  enc.finish();
  EXPECT_LT(out.size(), 40U);  // 8000 decisions in well under 8000 bits
}

TEST(RangeCoder, EveryTruncationOverrunsAndTrailingBytesRemain) {
  const auto seed = testing::test_seed("RangeCoder.EveryTruncationOverrunsAndTrailingBytesRemain");
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> out;
  std::vector<bool> bits;
  {
    RangeEncoder enc(out);
    BitModel m;
    for (int i = 0; i < 500; ++i) {
      bits.push_back(rng() % 4 == 0);
      enc.bit(m, bits.back());
    }
    enc.finish();
  }
  auto decode = [&](std::span<const std::uint8_t> in) {
    RangeDecoder dec(in);
    BitModel m;
    for (std::size_t i = 0; i < bits.size(); ++i) (void)dec.bit(m);
    return dec;
  };
  EXPECT_TRUE(decode(out).at_end());
  for (std::size_t cut = 0; cut < out.size(); ++cut) {
    EXPECT_TRUE(decode(std::span(out).first(cut)).overran()) << "cut at " << cut;
  }
  auto longer = out;
  longer.push_back(0);
  EXPECT_FALSE(decode(longer).at_end());
}

TEST(ResidualCode, RoundTripsEveryMagnitude) {
  std::vector<std::uint8_t> out;
  std::vector<std::int64_t> values;
  for (int e = 0; e <= 20; ++e) {
    const std::int64_t m = std::int64_t{1} << e;
    for (std::int64_t v : {m, m + 1, 2 * m - 1, -m, -(2 * m - 1), std::int64_t{0}}) values.push_back(v);
  }
  for (bool adaptive : {true, false}) {
    out.clear();
    {
      RangeEncoder enc(out, adaptive);
      ResidualModel rm;
      for (std::int64_t v : values) {
        if (adaptive) {
          encode_residual(enc, rm, v, 20);
        } else {
          encode_residual_fixed(enc, v, 20);
        }
      }
      MagnitudeModel mm;
      for (std::uint32_t v : {1U, 2U, 1000U, 0xFFFF'FFFFU}) encode_magnitude(enc, mm, v, kMaxExponent);
      enc.finish();
    }
    RangeDecoder dec(out, adaptive);
    ResidualModel rm;
    for (std::int64_t v : values)
      ASSERT_EQ(adaptive ? decode_residual(dec, rm, 20) : decode_residual_fixed(dec, 20), v);
    MagnitudeModel mm;
    for (std::uint32_t v : {1U, 2U, 1000U, 0xFFFF'FFFFU}) ASSERT_EQ(decode_magnitude(dec, mm, kMaxExponent), v);
    EXPECT_TRUE(dec.at_end());
  }
}

TEST(MotionPredict, LinearAndWrappingExtrapolationAreExact) {
  const MotionFactors f = motion_factors(2, 4, 0);  // half the reference span ahead
  EXPECT_EQ(predict_code(1000, 600, nullptr, false, 5000, f, false), 1200U);
  EXPECT_EQ(predict_code(600, 1000, nullptr, false, 5000, f, false), 400U);
  EXPECT_EQ(predict_code(4990, 4000, nullptr, false, 5000, f, false), 5000U);  // clamped
  // A 12-bit angle crossing zero keeps going the short way.
  EXPECT_EQ(predict_code(10, 4090, nullptr, true, 4095, f, false), 18U);
  // Extrapolation beyond kMaxExtrapolation times the span is capped.
  const MotionFactors far = motion_factors(100, 1, 0);
  EXPECT_EQ(predict_code(100, 99, nullptr, false, 5000, far, false), 100U + kMaxExtrapolation);
}

TEST(MotionPredict, SecondOrderFollowsConstantAcceleration) {
  // x(t) = t^2 at ticks 0, 4, 8 predicts 12^2 at tick 12.
  const MotionFactors f = motion_factors(4, 4, 4);
  ASSERT_TRUE(f.second_order);
  const std::uint32_t ref2 = 0;
  EXPECT_EQ(predict_code(64, 16, &ref2, false, 1000, f, true), 144U);
  EXPECT_EQ(predict_code(64, 16, &ref2, false, 1000, f, false), 112U);  // a straight line falls short
  // A second span much shorter than the first is not trusted.
  EXPECT_FALSE(motion_factors(4, 8, 1).second_order);
}

TEST(MotionPredict, QuaternionExtrapolationFollowsSteadyRotation) {
  const auto seed = testing::test_seed("MotionPredict.QuaternionExtrapolationFollowsSteadyRotation");
  std::mt19937_64 rng(seed);
  const std::uint32_t steps = 1415;  // precision 0.001
  int worst = 0;
  for (int trial = 0; trial < 200; ++trial) {
    // Rotation about a random axis at up to 2 rad/s, sampled at ticks 0, 4 and 8 of 60 Hz.
    double axis[3] = {static_cast<double>(testing::uniform(rng, -1, 1)),
                      static_cast<double>(testing::uniform(rng, -1, 1)),
                      static_cast<double>(testing::uniform(rng, -1, 1))};
    const double len = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    for (double& a : axis) a /= len;
    const double rate = static_cast<double>(testing::uniform(rng, 0, 2));
    const Quat start = testing::random_rotation(rng);
    auto at = [&](int tick) {
      const double half = rate * tick / 60.0 / 2.0;
      const double s = std::sin(half);
      const double r[4] = {axis[0] * s, axis[1] * s, axis[2] * s, std::cos(half)};
      const double q[4] = {start.x, start.y, start.z, start.w};
      // r * q
      const double x = r[3] * q[0] + r[0] * q[3] + r[1] * q[2] - r[2] * q[1];
      const double y = r[3] * q[1] - r[0] * q[2] + r[1] * q[3] + r[2] * q[0];
      const double z = r[3] * q[2] + r[0] * q[1] - r[1] * q[0] + r[2] * q[3];
      const double w = r[3] * q[3] - r[0] * q[0] - r[1] * q[1] - r[2] * q[2];
      std::uint32_t slots[4] = {float_slot(static_cast<float>(x)), float_slot(static_cast<float>(y)),
                                float_slot(static_cast<float>(z)), float_slot(static_cast<float>(w))};
      std::array<std::uint32_t, 4> codes{};
      quantize_quat(std::span<const std::uint32_t, 4>(slots, 4), steps, codes);
      return codes;
    };
    const auto ref = at(0);
    const auto base = at(4);
    const auto truth = at(8);
    const FixedQuat p = extrapolate(fixed_from_codes(base.data(), steps), fixed_from_codes(ref.data(), steps), 4, 4);
    std::uint32_t pred[3];
    codes_in_frame(p, static_cast<int>(truth[0]), steps, pred);
    for (int i = 0; i < 3; ++i) {
      worst = std::max(worst,
                       std::abs(static_cast<int>(pred[i]) - static_cast<int>(truth[static_cast<std::size_t>(i) + 1])));
    }
  }
  // Quantization noise of the two inputs, doubled by extrapolation: a few steps.
  EXPECT_LE(worst, 4);
}

TEST(MotionPredict, IntegerSquareRootIsExact) {
  for (std::uint64_t v : {0ULL, 1ULL, 2ULL, 3ULL, 4ULL, 15ULL, 16ULL, 17ULL, (1ULL << 48), (1ULL << 48) - 1, ~0ULL}) {
    const std::uint64_t r = isqrt(v);
    EXPECT_LE(r * r, v);            // r < 2^32, so r * r cannot overflow
    EXPECT_GT(r + 1, v / (r + 1));  // (r + 1)^2 > v without overflowing
  }
}

}  // namespace
}  // namespace tickwire::snapshot
