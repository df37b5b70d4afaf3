#pragma once
// Holds the lead up when its large rises keep coming back, as on a route
// that flaps between a short and a long path.
//
// The lead estimator follows a shorter route down within seconds, which is
// right after a one-off change. When the long route returns every few
// seconds, each return is a step the client can only see a round trip after
// it happened: every input sent in that time is late, a score of them per
// step at 60 Hz. Following each fall then pays those late inputs again and
// again. This class remembers the large rises of the raw lead and the late
// inputs reported around each one, and answers whether the lead should stay
// at the level the rises keep reaching. It weighs the way the lead's tail
// does (rare_event_cut.h), a late input being one late event (a tick the
// server ran on a guess; at 60 reports a second, one of the tail's samples):
// holding a gap G of lead is worth it while
//   G <= late_event_cost x (late inputs a second that the rises cost),
// so a route that changes once in a while is followed down as before, and
// the hold ends once the rises stop coming (their rate falls with every
// second without one, and fewer than min_rises within the memory hold
// nothing).
//
// Late inputs are counted only for rises met without the hold: a rise the
// hold covered costs nothing, and counting its zero would talk the hold out
// of what kept it at zero. So the cost of a rise is the mean over the last
// few met without it, kept beyond the memory, while how often rises come
// counts every rise in the memory, held or not.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

#include "tickwire/core/time.h"

namespace tickwire::timesync {

struct RecurringRisesConfig {
  bool enabled = true;
  // A step of the raw lead at least this large, between two frames, is a
  // rise (a longer route, a level that jumped). The same threshold as the
  // lead filter's large fall: smaller steps are the estimate's wobble.
  Duration min_rise = Duration::millis(20);
  // How long a rise is remembered. How often rises come is the intervals
  // between those in memory over the time since the oldest (at least a
  // quarter of the memory, so that two rises close together are not read
  // as a storm): once they stop, the rate falls with every second.
  Duration memory = Duration::seconds(60);
  // Rises in memory before any hold: one step is a route change, not yet a
  // pattern.
  std::uint32_t min_rises = 2;
  // Late inputs reported this long before a rise, or after its last step,
  // are its cost: the reports that raised the lead carry the first of
  // them, and the steering takes a few frames more to catch up. Steps
  // within blame_after of the last are the same rise.
  Duration blame_before = Duration::millis(500);
  Duration blame_after = Duration::millis(1500);
};

class RecurringRises {
 public:
  // Throws std::invalid_argument for an unusable config.
  explicit RecurringRises(RecurringRisesConfig config = {});

  // The raw lead at local time `now`; `held` when the lead in use was held
  // above it. Call once a frame, in time order.
  void observe(Time now, Duration raw, bool held);
  // `count` inputs newly reported late at `now`.
  void on_late(Time now, std::uint64_t count);
  // The lead to hold the raw lead up to at `now`, or empty: the lowest
  // level the remembered rises reached, when the late inputs they cost are
  // worth more than the gap to `raw` at `late_event_cost` (the latency
  // worth holding to spare one late input a second).
  std::optional<Duration> floor(Time now, Duration raw, Duration late_event_cost) const;

  std::size_t rises() const { return rises_.size(); }
  // Late inputs a rise met without the hold cost, on average over the last
  // kCostSamples of them; empty before one is known.
  std::optional<double> late_per_rise() const;
  void clear();

 private:
  struct Rise {
    Time at;                 // its first step
    Time last_step;          // and its last
    double peak_us = 0;      // the highest raw lead in the blame window after it
    std::uint64_t late = 0;  // late inputs blamed on it
    bool measured = false;   // met without the hold: `late` is its cost
    bool settled = false;    // its cost has gone into costs_
  };
  void forget(Time now);
  void settle_costs(Time now);

  static constexpr std::size_t kCostSamples = 8;

  RecurringRisesConfig config_;
  std::deque<Rise> rises_;
  struct Late {
    Time at;
    std::uint64_t count = 0;
  };
  std::deque<Late> lates_;           // reports of the last blame_before
  std::deque<std::uint64_t> costs_;  // late inputs of the last measured rises
  std::optional<Duration> last_raw_;
};

}  // namespace tickwire::timesync
