#pragma once
// Quantization of an entity's slots to integer codes and back. Codes are
// what snapshots carry, compare and predict; slots are what game code reads.
// Every conversion here is a pure function of the schema, so the server
// and every client turn the same slots into the same codes.

#include <cstdint>
#include <span>

#include "tickwire/snapshot/schema.h"

namespace tickwire::snapshot {

// 1/sqrt(2) as a float: the bound of the three smaller quaternion components.
inline constexpr float kQuatBound = 0.70710677F;

// The same mapping as core's FloatQuantizer, with the step count computed
// once at registration instead of on every call.
std::uint32_t quantize_float(float v, float min, float max, std::uint32_t steps);
float dequantize_float(std::uint32_t code, float min, float max, std::uint32_t steps);

// bits in [2, 20]; NaN and infinities map to code 0.
std::uint32_t quantize_angle(float radians, int bits);
// In [-pi, pi).
float dequantize_angle(std::uint32_t code, int bits);

// Smallest three. The quaternion is normalized first (a zero or non-finite
// one becomes the identity). Codes: [largest index, three components]. A
// component that would tie with the rebuilt largest one is nudged a step
// toward zero, so dequantize-then-quantize gives the same codes back.
void quantize_quat(std::span<const std::uint32_t, 4> slots, std::uint32_t steps, std::span<std::uint32_t, 4> codes);
void dequantize_quat(std::span<const std::uint32_t, 4> codes, std::uint32_t steps, std::span<std::uint32_t, 4> slots);

// Whole entities; both spans hold type.stride() values.
void quantize_entity(const TypeSpec& type, std::span<const std::uint32_t> slots, std::span<std::uint32_t> codes);
void dequantize_entity(const TypeSpec& type, std::span<const std::uint32_t> codes, std::span<std::uint32_t> slots);
// True when every code is within its component's range (for decoded input).
bool codes_in_range(const TypeSpec& type, std::span<const std::uint32_t> codes);

}  // namespace tickwire::snapshot
