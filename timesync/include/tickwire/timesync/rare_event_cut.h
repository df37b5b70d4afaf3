#pragma once
// Where to stop covering a tail of rare events: the lead's rule, so that a
// rare event is ridden out instead of being paid for all the time. (The
// interpolation delay weighs starved time instead of events, since a hold
// costs in proportion to its length: interpolation_estimator.h.)
//
// A lead (or buffer) of x leaves late every sample above x. Covering one
// more kind of event costs its size in latency on every frame; leaving it
// uncovered costs one hitch (a late input, a starved frame) each time it
// happens. The cut is the x that minimises
//
//     x + event_cost x (samples above x per second)
//
// over the candidates at or below the quantile a target rate asks for:
// never more than the target, less where the target's last stretch costs
// more latency than the hitches it saves. With an event cost of 100 ms per
// event per second:
// - a lost input's copy in the next packet (one tick, 16.7 ms at 60 Hz) is
//   covered once losses come more than once in 6 s;
// - a 200 ms stall every 3 s (0.33 a second, worth 33 ms) is ridden out:
//   the player feels the stall, not 200 ms more latency all the time;
// - stalls that come several times a second are no longer rare: they are
//   covered, as the ordinary spread of that link.
//
// One sample per event: the lead's samples are the worst arrival of each
// feedback report (a stall that holds a dozen inputs shows as one).

#include <cstddef>
#include <iterator>

namespace tickwire::timesync {

// `largest_first` walks the samples from the largest down; `quantile_rank`
// (1-based) is the rank of the target quantile among them (the cut never
// lies above it); `floor` the lowest cut worth considering. `cost_per_rate`
// is the event cost in the samples' unit times seconds, `span_seconds` how
// long the samples took to gather. Returns the cut.
template <class It>
double cheapest_cut(It largest_first, It end, std::size_t quantile_rank, double cost_per_rate, double span_seconds,
                    double floor) {
  if (largest_first == end) return floor;
  const double per_sample = span_seconds > 0 ? cost_per_rate / span_seconds : 0.0;
  std::size_t rank = 1;
  It it = largest_first;
  while (rank < quantile_rank && std::next(it) != end) {
    ++it;
    ++rank;
  }
  double best_cut = *it;
  double best_cost = best_cut + per_sample * static_cast<double>(rank - 1);
  // Further down, the cost is at least floor + per_sample x rank: stop once
  // that passes the best, which bounds the walk to a few hundred samples.
  for (; it != end && *it >= floor; ++it, ++rank) {
    const double above = per_sample * static_cast<double>(rank - 1);
    if (floor + above >= best_cost) break;
    const double cost = *it + above;
    if (cost < best_cost) {
      best_cost = cost;
      best_cut = *it;
    }
  }
  return best_cut;
}

// The interpolation delay's counterpart, on a grid: of the delays target,
// target - step, ... down to `low`, the one that minimises
//
//     d + per_share x starved(d) / total
//
// (the first of equals from the top). `starved` must never fall as the
// delay falls, which starved time does exactly, in floating point too:
// each of its terms and their sum in a fixed order are monotone. Below a
// delay d no grid point can then cost less than low + per_share x
// starved(d) / total, so the walk stops once that reaches the best cost:
// the same answer as walking the whole grid (`exhaustive`, for tests),
// for a fraction of the evaluations of starved, each a pass over the
// whole window.
template <class Starved>
double cheapest_delay(double target, double low, double step, double per_share, double total, Starved&& starved,
                      bool exhaustive = false) {
  double best = target;
  double best_cost = target + per_share * starved(target) / total;
  for (double d = target - step; d >= low; d -= step) {
    const double starved_d = starved(d);
    const double cost = d + per_share * starved_d / total;
    if (cost < best_cost) {
      best_cost = cost;
      best = d;
    }
    if (!exhaustive && low + per_share * starved_d / total >= best_cost) break;
  }
  return best;
}

}  // namespace tickwire::timesync
