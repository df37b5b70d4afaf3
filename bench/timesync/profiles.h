#pragma once
// Network profiles for the time benchmark: the shared named links
// (transport/link_profiles.h), the ones that only make sense over time (a
// route change, clock drift, a bloating queue, a flapping route) and the
// harsher links of real networks, plus profiles loaded from a JSON file in
// the same terms. docs/time-measurements.md describes each.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tickwire/core/result.h"
#include "tickwire/core/time.h"
#include "tickwire/transport/link_conditions.h"

namespace tickwire::bench {

// From `at` on, the links are these (a route change).
struct LinkStep {
  Duration at;
  transport::LinkConditions up;
  transport::LinkConditions down;
};

// A one-way latency that changes by itself, over and over: a sawtooth rises
// linearly from `low` to `high` over `period` and drops back to `low` at
// once (a queue that fills behind a saturated link and then drains); a
// square wave holds `low` for `period`, then `high` for `period` (a route
// flapping between two paths). It sets the latency of the links it applies
// to, whatever a step says.
struct LatencyWave {
  enum class Shape : std::uint8_t { kSawtooth, kSquare };
  Shape shape = Shape::kSawtooth;
  Duration low;
  Duration high;
  Duration period;
  bool up = true;    // applies to client-to-server
  bool down = true;  // applies to server-to-client
  // The latency at `since_start` into the run.
  Duration at(Duration since_start) const;
};

// A delay added to some links' latency that changes over time: linear
// between its corners, a jump where two corners share a time, the first
// corner's value before it and the last one's after it. Any shape of
// changing delay is a track: steps, ramps, a sawtooth filling and
// draining, a route flapping; tracks on the same link add up.
struct DelayTrack {
  struct Corner {
    Duration at;     // since the run started
    Duration extra;  // added to the latency
  };
  std::vector<Corner> corners;  // in time order
  bool up = true;               // applies to client-to-server
  bool down = true;             // applies to server-to-client
  // When positive, the corners repeat every `repeat` (they should lie
  // within it): the track at t is the track at t modulo `repeat`.
  Duration repeat = Duration::zero();
  // The extra delay at `since_start` into the run; zero without corners.
  Duration at(Duration since_start) const;
};

// From `at` on, every client's clock reads `by` more than it did (a
// monotonic clock jumping forward: a suspended process, a paused virtual
// machine). The client keeps rendering at its own rate; only what its
// clock reads jumps.
struct ClockStep {
  Duration at;
  Duration by;
};

struct BenchProfile {
  std::string name;
  std::string description;
  transport::LinkConditions up;    // client to server
  transport::LinkConditions down;  // server to client
  // Client clocks run this much fast (positive) or slow, in parts per
  // million of the true time the network runs on.
  double drift_ppm = 0;
  std::vector<LinkStep> steps;
  std::optional<LatencyWave> wave;
  std::vector<DelayTrack> tracks;
  std::vector<ClockStep> clock_steps;  // in time order
  // How far the client clocks have jumped by `since_start`.
  Duration clock_jump(Duration since_start) const;
};

// A sawtooth moves in steps this long: 0.3 ms at a time for 20 -> 200 ms
// over 60 s, finer than any jitter.
inline constexpr Duration kWaveStep = Duration::millis(100);

// The links of a run of `length`, as changes from their time on (the
// first at zero when the profile changes over time): the steps, with any
// wave's latency laid over them and the tracks' delays added, sampled
// every kWaveStep while a track slopes.
std::vector<LinkStep> link_schedule(const BenchProfile& profile, Duration length);

// lan, broadband, wifi, mobile, asymmetric, route_change, drift, stalls,
// stalls_baseline, bufferbloat, flapping, bursty_uplink, uplink_bloat.
std::vector<BenchProfile> builtin_profiles();

// Reads {"profiles": [ ... ]}; see docs/time-measurements.md for the terms. Each profile
// may start from a built-in ("base": "broadband"), set both directions
// ("link": {...}) or each ("up", "down"), a clock drift ("drift_ppm"),
// route changes ("steps": [{"at_s": 180, "link": {...}}]), where a step's
// fields override the profile's own, one latency wave ("sawtooth" or
// "flap"), delay tracks ("tracks": [{"corners": [[0, 0], [5, 15]],
// "repeat_s": 60, "links": "up"}], corners as [seconds, ms]) and clock
// steps ("clock_steps": [{"at_s": 30, "by_ms": 120}]).
Result<std::vector<BenchProfile>> load_profiles(const std::string& path);

}  // namespace tickwire::bench
