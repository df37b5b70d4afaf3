#include "tickwire/snapshot/motion_predict.h"

#include <bit>
#include <cmath>

namespace tickwire::snapshot {

namespace {

// round(2^24 / sqrt 2): the bound of the smaller components in Q24.
constexpr std::int64_t kBound = 11863283;

std::int64_t round_shift(std::int64_t v) { return (v + (std::int64_t{1} << (kQ - 1))) >> kQ; }

FixedQuat multiply(const FixedQuat& a, const FixedQuat& b) {
  const std::int64_t ax = a.v[0], ay = a.v[1], az = a.v[2], aw = a.v[3];
  const std::int64_t bx = b.v[0], by = b.v[1], bz = b.v[2], bw = b.v[3];
  FixedQuat r;
  r.v[0] = round_shift(aw * bx + ax * bw + ay * bz - az * by);
  r.v[1] = round_shift(aw * by - ax * bz + ay * bw + az * bx);
  r.v[2] = round_shift(aw * bz + ax * by - ay * bx + az * bw);
  r.v[3] = round_shift(aw * bw - ax * bx - ay * by - az * bz);
  return r;
}

std::int64_t clamp_abs(std::int64_t v, std::int64_t limit) { return v > limit ? limit : (v < -limit ? -limit : v); }

}  // namespace

std::uint64_t isqrt(std::uint64_t v) {
  // A correctly rounded double square root is close; the integer fix-up
  // makes the result exactly floor(sqrt(v)) on every machine.
  auto r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(v)));
  while (r > 0 && (r > 0xFFFF'FFFFULL || r * r > v)) --r;
  while (r < 0xFFFF'FFFFULL && (r + 1) * (r + 1) <= v) ++r;
  return r;
}

FixedQuat fixed_from_codes(const std::uint32_t* codes, std::uint32_t steps) {
  FixedQuat q;
  const std::uint32_t largest = codes[0] & 3U;
  const auto s = static_cast<std::int64_t>(steps == 0 ? 1 : steps);
  std::int64_t sum = 0;
  for (std::uint32_t i = 0, k = 1; i < 4; ++i) {
    if (i == largest) continue;
    const std::int64_t c = codes[k++];
    const std::int64_t v = (c * 4 * kBound + s) / (2 * s) - kBound;
    q.v[i] = v;
    sum += v * v;
  }
  const std::int64_t rest = kQOne * kQOne - sum;
  q.v[largest] = rest > 0 ? static_cast<std::int64_t>(isqrt(static_cast<std::uint64_t>(rest))) : 0;
  return q;
}

FixedQuat extrapolate(const FixedQuat& base, const FixedQuat& ref, std::int64_t num, std::int64_t den) {
  if (den <= 0 || num <= 0) return base;
  if (num > kMaxExtrapolation * den) num = kMaxExtrapolation * den;
  FixedQuat r = ref;
  const std::int64_t dot = base.v[0] * r.v[0] + base.v[1] * r.v[1] + base.v[2] * r.v[2] + base.v[3] * r.v[3];
  if (dot < 0) {
    for (auto& c : r.v) c = -c;
  }
  // d = base * conj(ref): the rotation that took ref to base.
  FixedQuat conj = r;
  conj.v[0] = -conj.v[0];
  conj.v[1] = -conj.v[1];
  conj.v[2] = -conj.v[2];
  FixedQuat d = multiply(base, conj);
  if (d.v[3] < 0) {
    for (auto& c : d.v) c = -c;
  }
  // d = (cos a, sin a * axis). d^k = (cos ka, sin ka * axis), and
  // sin ka ~ k sin a (1 - (k^2 - 1) sin^2 a / 6) for small a.
  const std::int64_t s2 = round_shift(d.v[0] * d.v[0] + d.v[1] * d.v[1] + d.v[2] * d.v[2]);
  const std::int64_t correction = kQOne - ((num * num - den * den) * s2) / (6 * den * den);
  FixedQuat e;
  std::int64_t len2 = 0;
  for (int i = 0; i < 3; ++i) {
    const std::int64_t scaled = round_shift(d.v[i] * correction);
    // |scaled| <= 2^24 and num/den <= 8 keep the product far inside int64.
    std::int64_t v = scaled * num;
    v = v >= 0 ? (v + den / 2) / den : -((-v + den / 2) / den);
    e.v[i] = clamp_abs(v, kQOne);
    len2 += e.v[i] * e.v[i];
  }
  const std::int64_t rest = kQOne * kQOne - len2;
  e.v[3] = rest > 0 ? static_cast<std::int64_t>(isqrt(static_cast<std::uint64_t>(rest))) : 0;
  return multiply(e, base);
}

int largest_index(const FixedQuat& q) {
  int best = 0;
  for (int i = 1; i < 4; ++i) {
    const std::int64_t a = q.v[i] < 0 ? -q.v[i] : q.v[i];
    const std::int64_t b = q.v[best] < 0 ? -q.v[best] : q.v[best];
    if (a > b) best = i;
  }
  return best;
}

void codes_in_frame(const FixedQuat& q, int index, std::uint32_t steps, std::uint32_t* out) {
  const bool flip = q.v[index] < 0;
  const auto s = static_cast<std::int64_t>(steps);
  for (int i = 0, k = 0; i < 4; ++i) {
    if (i == index) continue;
    std::int64_t v = flip ? -q.v[i] : q.v[i];
    v = clamp_abs(v, kBound) + kBound;  // in [0, 2 * kBound]
    const std::int64_t code = (v * s * 2 + 2 * kBound) / (4 * kBound);
    out[k++] = static_cast<std::uint32_t>(code > s ? s : code);
  }
}

}  // namespace tickwire::snapshot
