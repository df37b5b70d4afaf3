#pragma once
// The server's timeline as a function of the client's clock: an offset and a
// rate (clock drift), from snapshots that carry the server time at send and,
// through the packet header's echo, the round trip they closed.
//
// Each sample says "the server time at arrival was about sent + rtt / 2"
// (the clock article's correction, exact when the path is symmetric), with
// an error of at most half the sample's queueing delay. So:
// - only the best sample of each time slice is kept: the one with the least
//   round trip, whose queueing (and frame-polling delay) is smallest;
// - drift is the slope of a weighted line through the best samples of the
//   last minutes, and the offset is their weighted mean over the last half
//   minute with that slope taken out: drift changes slowly, so its long fit
//   is steady, and the offset then needs no extrapolation along a noisy
//   slope. Weights fall with each sample's round trip above the floor;
// - a run of samples that no possible queueing explains is a step of the
//   server clock (a paused or restarted server): the history is dropped.
//
// The estimate handed out is not the fit itself but a clock that slews
// toward it, as NTP disciplines a system clock: it never jumps after the
// first seconds (except at a detected step), it changes rate by a bounded
// amount, and so two readings taken a moment apart carry the same error.
// The timelines are steered against this clock, and what they need from
// it is steadiness more than accuracy: an error that holds still cancels
// out of the lead (see lead_estimator.h).
//
// What no estimate can see is path asymmetry: with one-way delays `up` and
// `down` the estimate is off by (up - down) / 2. The prediction lead does
// not depend on it (it is steered by the server's arrival feedback), only
// the interpretation of "server time now" does.

#include <cstdint>
#include <deque>
#include <optional>

#include "tickwire/core/network_time.h"
#include "tickwire/core/time.h"

namespace tickwire::timesync {

struct ClockEstimatorConfig {
  // One best sample per slice. At 60 snapshots a second, half a second holds
  // 30 candidates: enough for one of them to have seen little queueing.
  Duration slice = Duration::millis(500);
  // Slices in the offset: 32 s at the default, which averages the best
  // samples' remaining noise down to a fraction of a millisecond.
  std::uint32_t slices = 64;
  // Slices in the drift fit: two minutes, over which 1000 ppm is 120 ms,
  // far above the samples' noise.
  std::uint32_t drift_slices = 240;
  // The drift is fitted only once the slices span this long; until then the
  // rate is taken as 1. Over shorter spans the noise would swamp a slope of
  // a few hundred ppm.
  Duration min_drift_span = Duration::seconds(4);
  // |rate - 1| is capped here: 2000 ppm, twice the worst crystal we plan for.
  double max_drift = 0.002;
  // Weight of a best sample: 1 / (floor^2 + (queueing / 2)^2). The floor
  // keeps samples with equal round trips equally weighted.
  Duration quality_floor = Duration::micros(250);
  // A sample is inconsistent with the fit when it is further from it than
  // its own queueing can explain plus this much; step_samples inconsistent
  // samples in a row mean the server clock stepped.
  Duration step_tolerance = Duration::millis(25);
  std::uint32_t step_samples = 8;
  // Round trips above this are not samples of a live path.
  Duration max_rtt = Duration::seconds(10);
  // The clock handed out closes the gap to the fit over slew_time, at most
  // max_slew faster or slower than the fitted rate (1 ms per second).
  Duration slew_time = Duration::seconds(4);
  double max_slew = 0.001;
  // For the first slices after a (re)start it follows the fit directly: the
  // first fits improve fast, and slewing would only delay that.
  std::uint32_t free_slices = 4;
};

class ClockEstimator {
 public:
  // Throws std::invalid_argument for an invalid tick rate or config.
  explicit ClockEstimator(std::uint32_t tick_rate, ClockEstimatorConfig config = {});

  // A packet sent at server time `sent` arrived at local time `received`
  // and closed a round trip of `rtt`. Returns false for a sample it cannot
  // use (a round trip outside [0, max_rtt], time going backwards), or one it
  // set aside as inconsistent.
  bool add(Time received, const NetworkTime& sent, Duration rtt);

  bool has_estimate() const { return !points_.empty(); }
  // The server time at local time `local`; empty before the first sample.
  std::optional<NetworkTime> server_time(Time local) const;
  // Server seconds per local second of the clock handed out: 1 + the
  // estimated drift, + its current slew.
  double rate() const { return 1.0 + out_rate_; }
  // The fit itself at `local`, unslewed (for tests and diagnostics).
  std::optional<NetworkTime> fitted_server_time(Time local) const;
  // Server clock steps detected so far (each one restarts the estimate).
  std::uint64_t steps() const { return steps_; }
  // Local time of the latest restart (the first sample counts as one).
  std::optional<Time> epoch() const { return epoch_; }
  std::uint64_t accepted() const { return accepted_; }
  std::uint64_t rejected() const { return rejected_; }

 private:
  struct Point {
    std::int64_t slice = 0;
    double x_us = 0;  // local time since the reference sample
    double y_us = 0;  // offset (server - local) since the reference sample
    double rtt_us = 0;
  };

  void restart(Time received, const NetworkTime& sent, Duration rtt);
  double offset_at(double x_us) const;  // the fitted y at x
  double output_at(double x_us) const;  // the slewed y at x
  void slew(double x_us);
  std::optional<NetworkTime> time_at(Time local, double y_us) const;
  double rtt_floor_us() const;
  void refit();

  std::uint32_t rate_;
  ClockEstimatorConfig config_;
  std::optional<Time> ref_local_;
  std::optional<NetworkTime> ref_server_;
  double ref_half_rtt_us_ = 0;
  std::optional<Time> epoch_;
  std::optional<Time> last_received_;
  std::deque<Point> points_;  // by slice, oldest first, at most config.drift_slices
  double intercept_ = 0;      // the fitted y at x = 0
  double floor_us_ = 0;       // rtt_floor_us() as of the last refit (the points since)
  double slope_ = 0;
  double out_x_ = 0;  // the slewed clock: y = out_y_ + out_rate_ * (x - out_x_)
  double out_y_ = 0;
  double out_rate_ = 0;
  std::uint32_t inconsistent_run_ = 0;
  std::uint64_t steps_ = 0;
  std::uint64_t accepted_ = 0;
  std::uint64_t rejected_ = 0;
};

}  // namespace tickwire::timesync
