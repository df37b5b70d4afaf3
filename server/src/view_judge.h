#pragma once
// The server's side of a client's view time (docs/lag-compensation.md,
// section 3): when each input first arrived, so that the server has its
// own estimate of the view time behind it (arrival minus one round trip
// minus the client's interpolation delay), and the rewind policy that holds
// the client's claim against that estimate and the rewind window.

#include <optional>

#include "tickwire/core/network_time.h"
#include "tickwire/core/tick.h"
#include "tickwire/core/tick_buffer.h"
#include "tickwire/core/time.h"
#include "tickwire/lagcomp/rewind_policy.h"

namespace tickwire::server {

class ViewJudge {
 public:
  // `window_ticks`: arrivals remembered, from the next tick to run on (the
  // input queue's reach ahead, plus one).
  ViewJudge(const lagcomp::RewindPolicyConfig& policy, std::size_t window_ticks)
      : policy_(policy), arrivals_(window_ticks) {}

  // A copy of the input for `tick` arrived at server time `arrival`, with
  // `next` the next tick the server runs; only the first copy's arrival
  // counts. Copies of ticks already run (the redundant copies every input
  // packet carries) are never judged, and are not kept: kept, they would
  // take the slots of inputs still to come. Nor are ticks beyond the
  // window, which the input queue refuses.
  void on_input(Tick tick, const NetworkTime& arrival, Tick next) {
    if (tick < next || tick - next >= static_cast<std::int64_t>(arrivals_.capacity())) return;
    if (!arrivals_.contains(tick)) arrivals_.insert(tick, arrival);
  }

  // The view time to rewind to for the client's input at `tick`, run at
  // server tick `tick` whose newest recorded world is tick - 1. An input
  // whose arrival is no longer known (it cannot be: the queue only hands
  // out inputs that arrived) is judged as arriving at its tick.
  lagcomp::RewindDecision decide(Tick tick, const std::optional<NetworkTime>& claim, Duration round_trip,
                                 Duration interpolation_delay, Duration max_rewind, std::uint32_t tick_rate);

  const lagcomp::RewindStats& stats() const { return policy_.stats(); }

 private:
  lagcomp::RewindPolicy policy_;
  TickBuffer<NetworkTime> arrivals_;
};

// The window of views a server may rewind to when it runs `tick`: from
// max_rewind before tick - 1 (never before tick 0) to tick - 1.
lagcomp::TimeRange rewind_range(Tick tick, Duration max_rewind, std::uint32_t tick_rate);

// Sums b into a.
void add_rewind_stats(lagcomp::RewindStats& a, const lagcomp::RewindStats& b);

}  // namespace tickwire::server
