#include "tickwire/lagcomp/rewind_policy.h"

#include <stdexcept>

namespace tickwire::lagcomp {

RewindDecision decide_rewind(const std::optional<NetworkTime>& claimed, const NetworkTime& estimate,
                             const TimeRange& range, Duration tolerance) {
  RewindDecision d{claimed.value_or(estimate)};
  if (!claimed) {
    d.replaced = true;
  } else {
    // Exact: both times in units, the tolerance converted the same way.
    const NetworkTime zero(estimate.tick_rate());
    const std::int64_t limit = (zero + tolerance).units();
    const std::int64_t apart = (*claimed - estimate).units();
    if (apart > limit || apart < -limit) {
      d.time = estimate;
      d.replaced = true;
    }
  }
  if (d.time < range.oldest) {
    d.time = range.oldest;
    d.clamped = true;
  } else if (d.time > range.newest) {
    d.time = range.newest;
    d.clamped = true;
  }
  return d;
}

NetworkTime estimate_view_time(const NetworkTime& arrival, Duration round_trip, Duration interpolation_delay) {
  return arrival - round_trip - interpolation_delay;
}

RewindPolicy::RewindPolicy(const RewindPolicyConfig& config) : config_(config) {
  if (config_.tolerance < Duration::zero() || config_.tolerance > kMaxTolerance) {
    throw std::invalid_argument("RewindPolicyConfig: tolerance must be in 0..1000 ms");
  }
}

RewindDecision RewindPolicy::decide(const std::optional<NetworkTime>& claimed, const NetworkTime& estimate,
                                    const TimeRange& range) {
  const RewindDecision d = decide_rewind(claimed, estimate, range, config_.tolerance);
  ++stats_.decisions;
  if (!claimed) ++stats_.unclaimed;
  if (d.replaced) ++stats_.replaced;
  if (d.clamped) ++stats_.clamped;
  if (!d.replaced && !d.clamped) ++stats_.as_claimed;
  return d;
}

}  // namespace tickwire::lagcomp
