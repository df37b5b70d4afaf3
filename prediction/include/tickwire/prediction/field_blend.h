#pragma once
// Per-field arithmetic on an entity's slots for drawing it: blending two
// ticks, and the visual error between what was drawn and the corrected
// state. Each field follows its schema rule: floats and vectors linearly
// (angular floats wrap over their range), angles the short way round,
// rotations along the shorter arc, and step fields (integers, booleans,
// enums, anything declared kStep) never blend and never carry an error:
// a discrete value is either right or wrong, never halfway.

#include <cstdint>
#include <span>

#include "tickwire/snapshot/schema.h"

namespace tickwire::prediction {

// out = the state a fraction `t` in [0, 1] of the way from `a` to `b`;
// step fields hold `a` until t reaches 1. All spans hold type.stride() slots.
void blend(const snapshot::TypeSpec& type, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b, double t,
           std::span<std::uint32_t> out);

// The error `drawn` minus `base`, one float per slot: a difference for
// floats and angles (the short way round), for a rotation the quaternion
// taking `base` to `drawn`; zero for step fields.
void visual_error(const snapshot::TypeSpec& type, std::span<const std::uint32_t> drawn,
                  std::span<const std::uint32_t> base, std::span<float> error);

// out = base plus `weight` (in [0, 1]) of `error`.
void apply_error(const snapshot::TypeSpec& type, std::span<const std::uint32_t> base, std::span<const float> error,
                 double weight, std::span<std::uint32_t> out);

// Whether a teleport counter (kTeleportCounter) differs between two states
// of a type: the entity jumped, and nothing may be drawn between them.
bool teleported(const snapshot::TypeSpec& type, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b);

// The largest absolute error over the linear float components (positions,
// velocities alike).
float largest_linear_error(const snapshot::TypeSpec& type, std::span<const float> error);

}  // namespace tickwire::prediction
