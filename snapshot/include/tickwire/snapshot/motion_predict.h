#pragma once
// Predicting a field's new code from its codes at two earlier ticks, for
// delta encoding: a moving entity is sent as the difference between where
// it is and where its recent motion says it would be.
//
// Everything here is integer arithmetic on codes. The server and every
// client must compute the same prediction bit for bit, on any compiler and
// CPU, or a client would decode a different value than the server meant;
// floating point (with fused multiply-add on some targets and not others)
// cannot promise that.

#include <cstdint>

namespace tickwire::snapshot {

// Linear prediction continues the motion between a reference state and
// the baseline: base + (base - ref) * num / den, where num is the time past
// the baseline and den the time between the two. Second-order prediction
// adds an older reference and fits a parabola through all three, which
// follows steady acceleration (a turning player, a falling body) that a
// straight line overshoots. Factors are Q24 fixed point, computed once per
// set of tick distances.
inline constexpr int kFactorBits = 24;
// Past this extrapolation ratio quantization noise in the estimated motion
// outweighs what the motion explains; the ratio is clamped to it.
inline constexpr std::int64_t kMaxExtrapolation = 8;
// Second order is used only for spans up to this many ticks and deltas up
// to this many codes (beyond, it falls back to linear), which bounds its
// integer arithmetic.
inline constexpr std::int64_t kMaxSecondOrderSpan = 4096;
inline constexpr std::int64_t kMaxSecondOrderDelta = std::int64_t{1} << 24;

struct MotionFactors {
  std::int64_t linear = 0;  // weight of (base - ref)
  std::int64_t alpha = 0;   // second order: weight of (base - ref)
  std::int64_t beta = 0;    // second order: weight of (ref - ref2)
  bool second_order = false;
};

// num = tick - base's tick, den = base's - ref's, den2 = ref's - ref2's
// (0 when there is no second reference).
inline MotionFactors motion_factors(std::int64_t num, std::int64_t den, std::int64_t den2) {
  MotionFactors f;
  if (den <= 0 || num <= 0) return f;
  if (num > kMaxExtrapolation * den) num = kMaxExtrapolation * den;
  f.linear = ((num << kFactorBits) + den / 2) / den;
  // A second span much shorter than the first would make the curvature
  // estimate mostly noise.
  if (den2 <= 0 || den > kMaxSecondOrderSpan || den2 > kMaxSecondOrderSpan || den2 * 4 < den) return f;
  const std::int64_t b = num + den;  // tick - ref's tick
  const std::int64_t s20 = den + den2;
  f.alpha = ((num * (s20 + b)) << kFactorBits) / (den * s20);
  f.beta = -(((num * b) << kFactorBits) / (den2 * s20));
  f.second_order = true;
  return f;
}

inline std::int64_t apply_factor(std::int64_t factor, std::int64_t d) {
  return (factor * d + (std::int64_t{1} << (kFactorBits - 1))) >> kFactorBits;
}

// d taken modulo `modulus` into [-modulus/2, modulus/2). Wrapping fields
// are angles, whose modulus is a power of two: a mask, not a division.
inline std::int64_t wrap_signed(std::int64_t d, std::int64_t modulus) {
  std::int64_t r = 0;
  if ((modulus & (modulus - 1)) == 0) {
    r = d & (modulus - 1);
  } else {
    r = d % modulus;
    if (r < 0) r += modulus;
  }
  if (r >= modulus / 2 + (modulus & 1)) r -= modulus;
  return r;
}

// v taken modulo `modulus` into [0, modulus).
inline std::int64_t wrap_unsigned(std::int64_t v, std::int64_t modulus) {
  if ((modulus & (modulus - 1)) == 0) return v & (modulus - 1);
  const std::int64_t r = v % modulus;
  return r < 0 ? r + modulus : r;
}

// The predicted code of one component. `ref2` may be null; `second` asks
// for second order, which needs it.
inline std::uint32_t predict_code(std::uint32_t base, std::uint32_t ref, const std::uint32_t* ref2, bool wraps,
                                  std::uint32_t max_code, const MotionFactors& f, bool second) {
  const std::int64_t modulus = std::int64_t{max_code} + 1;
  std::int64_t d21 = static_cast<std::int64_t>(base) - static_cast<std::int64_t>(ref);
  if (wraps) d21 = wrap_signed(d21, modulus);
  std::int64_t step = apply_factor(f.linear, d21);
  if (second && ref2 != nullptr && f.second_order) {
    std::int64_t d10 = static_cast<std::int64_t>(ref) - static_cast<std::int64_t>(*ref2);
    if (wraps) d10 = wrap_signed(d10, modulus);
    if (d21 < kMaxSecondOrderDelta && d21 > -kMaxSecondOrderDelta && d10 < kMaxSecondOrderDelta &&
        d10 > -kMaxSecondOrderDelta) {
      step = (f.alpha * d21 + f.beta * d10 + (std::int64_t{1} << (kFactorBits - 1))) >> kFactorBits;
    }
  }
  const std::int64_t p = static_cast<std::int64_t>(base) + step;
  if (wraps) return static_cast<std::uint32_t>(wrap_unsigned(p, modulus));
  if (p < 0) return 0;
  if (p > static_cast<std::int64_t>(max_code)) return max_code;
  return static_cast<std::uint32_t>(p);
}

// ---- quaternions ----
//
// A quaternion's smallest-three codes are read into Q24 fixed point, the
// rotation from the reference to the baseline is raised to the power
// num/den (a small-angle series accurate to the third order) and applied
// again, and the result is written back as codes in whatever frame (index
// of the largest component) the actual value uses.

inline constexpr int kQ = 24;
inline constexpr std::int64_t kQOne = std::int64_t{1} << kQ;

struct FixedQuat {
  std::int64_t v[4] = {0, 0, 0, kQOne};  // x, y, z, w
};

// codes = {largest index, three components}; steps is the components' max code.
FixedQuat fixed_from_codes(const std::uint32_t* codes, std::uint32_t steps);
// Rotation that continues from ref to base for num/den of the time between them.
FixedQuat extrapolate(const FixedQuat& base, const FixedQuat& ref, std::int64_t num, std::int64_t den);
// Index of the largest |component|; ties go to the lowest index.
int largest_index(const FixedQuat& q);
// The three components other than `index`, signed so q[index] >= 0, as codes.
void codes_in_frame(const FixedQuat& q, int index, std::uint32_t steps, std::uint32_t* out);

std::uint64_t isqrt(std::uint64_t v);

}  // namespace tickwire::snapshot
