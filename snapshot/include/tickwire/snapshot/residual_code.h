#pragma once
// Variable-length codes for the integers a snapshot body carries: signed
// residuals (value minus prediction) and unsigned counts and gaps.
//
// A residual is a zero flag, then a sign, then its magnitude m >= 1 as the
// position e of m's leading one and m's e lower bits. The zero flag and the
// exponent have adaptive models, so the code reshapes itself to the sizes
// that actually occur: when residuals are mostly -1, 0 and 1 it spends
// close to their entropy instead of the 3 bits a fixed code would. The sign
// and the lower bits are near uniform; they go raw, which costs under half
// a percent and saves the coder a modeled decision each. Counts and gaps
// send their exponent in unary and model their first lower bit too.
// Fixed coding (for measuring what adaptation buys) is the same code with
// every decision at one half: plain Exp-Golomb.

#include <array>
#include <bit>
#include <cstdint>

#include "tickwire/snapshot/range_coder.h"

namespace tickwire::snapshot {

inline constexpr int kMaxExponent = 31;

// The exponent (bit length - 1) a magnitude up to `max_magnitude` can need.
constexpr int max_exponent_for(std::uint64_t max_magnitude) {
  return max_magnitude == 0 ? 0 : static_cast<int>(std::bit_width(max_magnitude)) - 1;
}

// Unsigned magnitudes (counts, gaps) use binary decisions: a unary
// exponent and the bits below the leading one.
struct MagnitudeModel {
  std::array<BitModel, kMaxExponent + 1> exponent;
  std::array<BitModel, kMaxExponent + 1> mantissa;
};

struct ResidualModel {
  BitModel zero;
  std::array<BitModel, kMaxExponent + 1> exponent;  // one per unary step
};

// Where a residual's models are: its zero flag and its exponent steps, as
// many as its max_exponent uses (a snapshot's tables hold only those: see
// TypeModels).
struct ResidualModelRef {
  BitModel* zero;
  BitModel* exponent;
  ResidualModelRef(BitModel* zero_model, BitModel* exponents) : zero(zero_model), exponent(exponents) {}
  ResidualModelRef(ResidualModel& m)  // NOLINT(google-explicit-constructor): a model is where it is
      : zero(&m.zero), exponent(m.exponent.data()) {}
};

// m in [1, 2^(max_exponent + 1)); the terminating unary bit is left out at
// max_exponent, where it carries no information.
inline void encode_magnitude(RangeEncoder& rc, MagnitudeModel& mm, std::uint32_t m, int max_exponent) {
  const int e = static_cast<int>(std::bit_width(m)) - 1;
  for (int i = 0; i < e; ++i) rc.bit(mm.exponent[static_cast<std::size_t>(i)], true);
  if (e < max_exponent) rc.bit(mm.exponent[static_cast<std::size_t>(e)], false);
  if (e > 0) {
    rc.bit(mm.mantissa[static_cast<std::size_t>(e)], ((m >> (e - 1)) & 1U) != 0);
    if (e > 1) rc.direct(m & ((1U << (e - 1)) - 1U), e - 1);
  }
}

inline std::uint32_t decode_magnitude(RangeDecoder& rc, MagnitudeModel& mm, int max_exponent) {
  int e = 0;
  while (e < max_exponent && rc.bit(mm.exponent[static_cast<std::size_t>(e)])) ++e;
  std::uint32_t m = 1;
  if (e > 0) {
    m = (m << 1) | (rc.bit(mm.mantissa[static_cast<std::size_t>(e)]) ? 1U : 0U);
    if (e > 1) m = (m << (e - 1)) | rc.direct(e - 1);
  }
  return m;
}

// |r| < 2^(max_exponent + 1), where max_exponent matches the model's size.
// |r| < 2^(max_exponent + 1).
// |r| < 2^(max_exponent + 1). The exponent goes in unary: a tree would
// take fewer decisions for large residuals, but measured slower, its extra
// branching costing more than the decisions it saves.
inline void encode_residual(RangeEncoder& rc, ResidualModelRef rm, std::int64_t r, int max_exponent) {
  rc.bit(*rm.zero, r == 0);
  if (r == 0) return;
  rc.raw_bit(r < 0);
  const auto m = static_cast<std::uint32_t>(r < 0 ? -r : r);
  const int e = static_cast<int>(std::bit_width(m)) - 1;
  for (int i = 0; i < e; ++i) rc.bit(rm.exponent[i], true);
  if (e < max_exponent) rc.bit(rm.exponent[e], false);
  if (e > 0) rc.direct(m & ((1U << e) - 1U), e);
}

// The rest of a residual once its zero flag said it is not zero.
inline std::int64_t decode_nonzero_residual(RangeDecoder& rc, ResidualModelRef rm, int max_exponent) {
  const bool negative = rc.raw_bit();
  int e = 0;
  while (e < max_exponent && rc.bit(rm.exponent[e])) ++e;
  std::int64_t m = 1;
  if (e > 0) m = (m << e) | rc.direct(e);
  return negative ? -m : m;
}

inline std::int64_t decode_residual(RangeDecoder& rc, ResidualModelRef rm, int max_exponent) {
  if (rc.bit(*rm.zero)) return 0;
  return decode_nonzero_residual(rc, rm, max_exponent);
}

// Exp-Golomb with every decision at one half (the coder is in fixed mode).
inline void encode_residual_fixed(RangeEncoder& rc, std::int64_t r, int max_exponent) {
  BitModel half;
  MagnitudeModel mm;
  rc.bit(half, r == 0);
  if (r == 0) return;
  rc.bit(half, r < 0);
  encode_magnitude(rc, mm, static_cast<std::uint32_t>(r < 0 ? -r : r), max_exponent);
}

inline std::int64_t decode_residual_fixed(RangeDecoder& rc, int max_exponent) {
  BitModel half;
  MagnitudeModel mm;
  if (rc.bit(half)) return 0;
  const bool negative = rc.bit(half);
  const std::int64_t m = decode_magnitude(rc, mm, max_exponent);
  return negative ? -m : m;
}

}  // namespace tickwire::snapshot
