#pragma once
// The state of remote (non-predicted) entities at any interpolation time,
// from the states a client has decoded. Between two states, each field
// follows its rule: linear, angular (angles the short way, rotations by
// slerp) or step. Past the newest state (the buffer ran dry) it
// extrapolates from the two newest, for at most max_extrapolation_ticks,
// then holds; both are counted, since a client that keeps extrapolating
// needs a longer interpolation delay.
//
// Time is in ticks (a NetworkTime's ticks_f()), passed in like every time.
// Per entity the blend uses the ticks its values were taken at, so an
// entity the server had no room to refresh slows smoothly instead of
// freezing and jumping.

#include <cstdint>
#include <functional>
#include <vector>

#include "tickwire/snapshot/receiver.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::snapshot {

struct InterpolationConfig {
  double max_extrapolation_ticks = 6.0;  // 100 ms at 60 Hz
};

enum class SampleMode : std::uint8_t {
  kEmpty,         // no state decoded yet: nothing written
  kInterpolated,  // between two states (or exactly on one)
  kExtrapolated,  // past the newest, within the limit
  kHeld,          // past the limit, or before the oldest state
};

struct InterpolationStats {
  std::uint64_t samples = 0;
  std::uint64_t interpolated = 0;
  std::uint64_t extrapolated = 0;
  std::uint64_t held = 0;
  std::uint64_t empty = 0;
};

class Interpolator {
 public:
  explicit Interpolator(Schema schema, InterpolationConfig config = {});

  // Writes the state at `time` of every entity the states hold into `out`
  // (same schema), spawning and despawning there to match, except entities
  // for which `skip` is true: those (the predicted ones) belong to the game
  // and are left untouched.
  SampleMode sample(const SnapshotReceiver& states, double time, World& out,
                    const std::function<bool(EntityId)>& skip = {});

  const InterpolationStats& stats() const { return stats_; }

 private:
  // Whether a teleport counter differs between the two states' codes.
  static bool teleported(const TypeSpec& type, std::span<const std::uint32_t> a, std::span<const std::uint32_t> b);
  void blend(const TypeSpec& type, const std::uint32_t* older, const std::uint32_t* newer, double alpha,
             std::span<std::uint32_t> out);

  Schema schema_;
  InterpolationConfig config_;
  InterpolationStats stats_;
  std::vector<Tick> ticks_;
  std::vector<std::uint32_t> a_slots_;
  std::vector<std::uint32_t> b_slots_;
  std::vector<EntityId> gone_;
};

}  // namespace tickwire::snapshot
