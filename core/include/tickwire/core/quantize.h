#pragma once
// Range and precision arithmetic shared by the bit streams: how many bits a
// bounded integer needs, and how a bounded float maps to an integer step.
// A float is sent as a step index so both ends agree on the exact value the
// receiver will see (snap lets the sender simulate with that value too).

#include <bit>
#include <cstdint>
#include <optional>

namespace tickwire {

// Bits needed to hold every value in 0..range (0 bits for range 0).
constexpr int bits_required(std::uint64_t range) { return static_cast<int>(std::bit_width(range)); }

// Bits needed to hold every value in min..max; 0 when min >= max.
constexpr int bits_required_for(std::int64_t min, std::int64_t max) {
  if (max <= min) return 0;
  return bits_required(static_cast<std::uint64_t>(max) - static_cast<std::uint64_t>(min));
}

// Maps [min, max] onto the integers 0..steps() with a step no wider than
// `precision`, so a snapped value is within precision / 2 of the original.
// Build it with make_quantizer, which validates the fields; a quantizer
// with invalid fields reports steps() == 0 and maps everything to min.
struct FloatQuantizer {
  float min = 0.0F;
  float max = 1.0F;
  float precision = 1.0F;

  std::uint32_t steps() const;
  int bits() const { return bits_required(steps()); }

  // Clamps into [min, max], maps NaN to min (these are program values, not
  // wire values) and rounds to the nearest step.
  std::uint32_t quantize(float v) const;
  // Step indices above steps() clamp to max; the result is always in [min, max].
  float dequantize(std::uint32_t q) const;
  // The value the receiving end will see; snap(snap(v)) == snap(v).
  float snap(float v) const { return dequantize(quantize(v)); }
};

// Throws std::invalid_argument when min >= max, precision <= 0, any field
// is not finite, or the steps do not fit in 32 bits: quantizers are set up
// once from constants, so a bad one is a programming error.
FloatQuantizer make_quantizer(float min, float max, float precision);

// The same checks without throwing, for code that runs per packet.
std::optional<FloatQuantizer> try_make_quantizer(float min, float max, float precision);

}  // namespace tickwire
