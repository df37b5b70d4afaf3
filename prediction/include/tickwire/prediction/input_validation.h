#pragma once
// Checks an input's raw values against its schema before the server uses
// it. Inputs decoded from the wire are always in range (they travel as
// bounded codes); this guards every other way in (a local player, a bot, a
// relay) against NaN, infinities and values outside the declared ranges,
// which must never reach simulate and never be relayed to other clients.

#include <cstdint>
#include <span>

#include "tickwire/snapshot/record.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::prediction {

enum class InputFault : std::uint8_t {
  kNone,
  kWrongType,   // a record of another type than the game's input type
  kNotFinite,   // NaN or an infinity in a float component
  kOutOfRange,  // a value outside its field's declared range
  kNotUnit,     // a rotation that is not a unit quaternion
};

const char* to_string(InputFault fault);

// The first fault found in `slots` as values of `type`; kNone when usable.
InputFault check_input(const snapshot::TypeSpec& type, std::span<const std::uint32_t> slots);

// The same for a record, which must be of `input_type`.
InputFault check_input(const snapshot::Record& input, snapshot::TypeId input_type);

}  // namespace tickwire::prediction
