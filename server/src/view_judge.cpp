#include "view_judge.h"

namespace tickwire::server {

lagcomp::TimeRange rewind_range(Tick tick, Duration max_rewind, std::uint32_t tick_rate) {
  const Tick newest_tick = tick.value() > 0 ? tick - 1 : tick;
  const NetworkTime newest = NetworkTime::from_tick(tick_rate, newest_tick);
  const NetworkTime zero = NetworkTime::from_tick(tick_rate, Tick(0));
  NetworkTime oldest = newest - max_rewind;
  if (oldest < zero) oldest = zero;
  return {oldest, newest};
}

lagcomp::RewindDecision ViewJudge::decide(Tick tick, const std::optional<NetworkTime>& claim, Duration round_trip,
                                          Duration interpolation_delay, Duration max_rewind, std::uint32_t tick_rate) {
  const NetworkTime* arrival = arrivals_.find(tick);
  const NetworkTime arrived = arrival != nullptr ? *arrival : NetworkTime::from_tick(tick_rate, tick);
  NetworkTime estimate = lagcomp::estimate_view_time(arrived, round_trip, interpolation_delay);
  // Far enough back that the policy clamps it; NetworkTime itself must not
  // go below zero.
  const NetworkTime zero = NetworkTime::from_tick(tick_rate, Tick(0));
  if (estimate < zero) estimate = zero;
  return policy_.decide(claim, estimate, rewind_range(tick, max_rewind, tick_rate));
}

void add_rewind_stats(lagcomp::RewindStats& a, const lagcomp::RewindStats& b) {
  a.decisions += b.decisions;
  a.as_claimed += b.as_claimed;
  a.unclaimed += b.unclaimed;
  a.replaced += b.replaced;
  a.clamped += b.clamped;
  a.teleport_blocked += b.teleport_blocked;
}

}  // namespace tickwire::server
