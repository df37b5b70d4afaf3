#pragma once
// The server's view of how one client's inputs arrive, turned into the
// feedback its snapshots carry (snapshot_timing.h). The server runtime
// feeds it every input of the client as it arrives (each tick of each
// redundant copy: only the first copy of a tick counts) and every tick it
// runs, saying whether that client's input for it was there.
//
// The margin of an input is the server time its tick starts (when the
// server runs it) minus the server time its first copy arrived; negative
// for an input that came too late. The client's inputs are not trusted:
// ticks far from the server's present are ignored and counted, and margins
// saturate at the wire's bounds.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "tickwire/core/network_time.h"
#include "tickwire/core/tick.h"
#include "tickwire/timesync/snapshot_timing.h"

namespace tickwire::timesync {

struct InputArrivalTrackerConfig {
  std::uint32_t tick_rate = 60;
  // Ticks remembered around the present, and the furthest an input's tick
  // may be from the server's tick: 256 at 60 Hz is over 4 s either way,
  // more than any client should lead by or any input be late by.
  std::uint32_t window_ticks = 256;
};

struct InputArrivalStats {
  std::uint64_t inputs = 0;         // first copies of inputs, within the window
  std::uint64_t duplicates = 0;     // further copies
  std::uint64_t out_of_window = 0;  // inputs for ticks too far from the present
  std::uint64_t missed = 0;         // ticks run without the client's input
  std::uint64_t late = 0;           // of those, inputs that arrived afterwards
};

class InputArrivalTracker {
 public:
  // Throws std::invalid_argument for an invalid tick rate or window.
  explicit InputArrivalTracker(InputArrivalTrackerConfig config = {});

  // A copy of the client's input for `tick` arrived at server time `arrival`.
  void on_input(Tick tick, const NetworkTime& arrival);
  // The server ran `tick`; `had_input` says whether this client's input for
  // it was there.
  void on_tick_consumed(Tick tick, bool had_input);
  // The feedback for the next snapshot to this client, whose timing says
  // `snapshot_tick`. Starts a new report: the arrivals it carries (worst
  // margin, count, the other margins) are not repeated in the next one. A lead
  // too far from snapshot_tick for the wire (a report long overdue) is
  // left out, with the arrivals it summed up.
  InputFeedback make_report(Tick snapshot_tick);

  const InputArrivalStats& stats() const { return stats_; }

 private:
  // What is known of a tick: flags in one byte. kHeld marks a slot in use.
  enum Flag : std::uint8_t { kHeld = 1, kArrived = 2, kConsumed = 4, kMissed = 8 };
  // The flags of `tick`, cleared if its slot held another tick.
  std::uint8_t& record(Tick tick);

  InputArrivalTrackerConfig config_;
  // A ring of 2 x window_ticks slots: each slot's tick and its flags, five
  // bytes a slot where a TickBuffer of the same took twelve (a server keeps
  // one per client).
  std::vector<Tick> ticks_;
  std::vector<std::uint8_t> flags_;
  // The arrivals since the previous report: the worst with the count, the
  // first kMaxListedInputs margins in arrival order, and the best.
  struct Pending {
    InputFeedback::Lead lead;
    std::array<std::int32_t, kMaxListedInputs> margins{};
    std::int32_t best = 0;
    std::size_t listed = 0;
  };
  std::optional<Pending> pending_;
  InputArrivalStats stats_;
};

}  // namespace tickwire::timesync
