#include "tickwire/core/view_claim.h"

#include <algorithm>

namespace tickwire {

ViewClaim make_view_claim(Tick input_tick, const NetworkTime& view) {
  const std::int64_t input_units = static_cast<std::int64_t>(input_tick.value()) * NetworkTime::kUnitsPerTick;
  const std::int64_t behind = input_units - view.units();
  if (behind <= 0) return ViewClaim{0};
  // Round half up to the nearest step, then saturate: never further back
  // than the code reaches, nor before tick zero (a client's interpolation
  // time may be negative in its first moments; a receiver refuses that).
  const std::int64_t steps = (behind + kUnitsPerViewStep / 2) / kUnitsPerViewStep;
  const std::int64_t to_zero = static_cast<std::int64_t>(input_tick.value()) * kViewStepsPerTick;
  return ViewClaim{static_cast<std::uint32_t>(std::min({steps, to_zero, std::int64_t{kMaxViewOffset}}))};
}

std::optional<NetworkTime> claimed_view_time(Tick input_tick, ViewClaim claim, std::uint32_t tick_rate) {
  const auto steps =
      static_cast<std::int64_t>(input_tick.value()) * kViewStepsPerTick - static_cast<std::int64_t>(claim.offset);
  if (steps < 0 || claim.offset > kMaxViewOffset) return std::nullopt;
  return NetworkTime::from_tick(tick_rate, Tick(static_cast<Tick::Rep>(steps / kViewStepsPerTick)),
                                (steps % kViewStepsPerTick) * kUnitsPerViewStep);
}

}  // namespace tickwire
