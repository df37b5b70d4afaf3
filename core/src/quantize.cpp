#include "tickwire/core/quantize.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace tickwire {
namespace {

constexpr double kMaxSteps = static_cast<double>(std::numeric_limits<std::uint32_t>::max());

// Steps as a double, or a negative value when the fields are unusable.
// Ranges that are a whole number of precisions up to float noise (0.01F is
// not exactly 0.01) get exactly that many steps instead of one extra.
double checked_steps(float min, float max, float precision) {
  if (!std::isfinite(min) || !std::isfinite(max) || !std::isfinite(precision)) return -1.0;
  if (!(min < max) || !(precision > 0.0F)) return -1.0;
  const double ratio = (static_cast<double>(max) - static_cast<double>(min)) / static_cast<double>(precision);
  if (!std::isfinite(ratio)) return -1.0;
  const double nearest = std::round(ratio);
  const double steps = std::fabs(ratio - nearest) <= 1e-6 * std::fmax(1.0, ratio) ? nearest : std::ceil(ratio);
  if (steps > kMaxSteps) return -1.0;
  return std::fmax(1.0, steps);
}

}  // namespace

std::uint32_t FloatQuantizer::steps() const {
  const double s = checked_steps(min, max, precision);
  return s < 0.0 ? 0U : static_cast<std::uint32_t>(s);
}

std::uint32_t FloatQuantizer::quantize(float v) const {
  const std::uint32_t n = steps();
  if (n == 0 || std::isnan(v) || v <= min) return 0;
  if (v >= max) return n;
  const double t = (static_cast<double>(v) - static_cast<double>(min)) /
                   (static_cast<double>(max) - static_cast<double>(min)) * static_cast<double>(n);
  const double q = std::floor(t + 0.5);
  return q >= static_cast<double>(n) ? n : static_cast<std::uint32_t>(q);
}

float FloatQuantizer::dequantize(std::uint32_t q) const {
  const std::uint32_t n = steps();
  if (n == 0 || q == 0) return min;
  if (q >= n) return max;
  const double span = static_cast<double>(max) - static_cast<double>(min);
  const double exact = static_cast<double>(min) + span * (static_cast<double>(q) / static_cast<double>(n));
  const auto v = static_cast<float>(exact);
  // Rounding to float cannot leave [min, max] since both are floats, but a
  // clamp keeps the guarantee independent of that reasoning.
  return v < min ? min : (v > max ? max : v);
}

std::optional<FloatQuantizer> try_make_quantizer(float min, float max, float precision) {
  if (checked_steps(min, max, precision) < 0.0) return std::nullopt;
  return FloatQuantizer{min, max, precision};
}

FloatQuantizer make_quantizer(float min, float max, float precision) {
  auto q = try_make_quantizer(min, max, precision);
  if (!q) {
    throw std::invalid_argument("FloatQuantizer needs finite min < max, precision > 0 and at most 2^32 - 1 steps");
  }
  return *q;
}

}  // namespace tickwire
