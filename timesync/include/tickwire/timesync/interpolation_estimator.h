#pragma once
// How far behind the estimated server time the interpolation timeline must
// run so that it rarely outruns the newest snapshot, from the snapshots'
// arrivals.
//
// Interpolating at server time S - D starves (has no snapshot ahead) while
// the newest snapshot is older than D. Between two arrivals the newest
// snapshot ages from its own delivery delay up to its age at the last frame
// before its successor arrived (frames are the only moments anything is
// shown). That *pre-arrival age* A, the frame interval f and the time the
// interval lasted give the frames of that interval that starve for any D:
// those whose age passed D, ceil((A - D) / f) of them, however little they
// passed it by. Lost snapshots, late ones, jitter, the send interval and
// the frame rate all show in A. The buffer is the smallest D that starves
// at most target_starved_rate of the frames over the recent window, or less
// where the rest is rare hold-ups not worth their delay (starved_percent_cost).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "tickwire/core/network_time.h"
#include "tickwire/core/time.h"
#include "tickwire/timesync/rising_trend.h"

namespace tickwire::timesync {

struct InterpolationEstimatorConfig {
  // Share of time the interpolation may find no snapshot ahead and hold or
  // extrapolate. Half a percent is a few frames a second at worst and
  // invisible with short extrapolation.
  double target_starved_rate = 0.005;
  // The delay worth holding to spare 1% of frames starving: below the
  // target, the buffer is the delay that minimises delay + this x starved
  // percent. Rare long hold-ups (a 200 ms stall every few seconds) are
  // ridden out: covering them would cost their whole length on every
  // frame. A lost snapshot's extra interval is covered: it starves more
  // than a percent of frames for a few tens of milliseconds of delay.
  Duration starved_percent_cost = Duration::millis(30);
  // A clear upward trend of the ages over trend_window (rising_trend.h) is
  // projected trend_lookahead ahead: the quantile lags a ramp by the
  // starvation it allows, and the steering by 1 / gain.
  Duration trend_window = Duration::seconds(2);
  Duration trend_lookahead = Duration::millis(1500);
  // A minute of arrivals: a starved rate of 0.5% is then measured over
  // 0.3 s of starvation, enough to be stable.
  Duration window = Duration::seconds(60);
  std::uint32_t max_samples = 4096;
  // Needs this many intervals before it answers.
  std::uint32_t min_samples = 20;
  // The search is repeated at most this often (it walks the window).
  Duration recompute_interval = Duration::millis(250);
};

class InterpolationEstimator {
 public:
  // Throws std::invalid_argument for an unusable config.
  explicit InterpolationEstimator(InterpolationEstimatorConfig config = {});

  // A snapshot sent at server time `sent` arrived when the estimated server
  // time was `server_now` (local time `now`); the previous frame was at
  // estimated server time `server_at_previous_frame` (local
  // `previous_frame`), and frames come every `frame_interval`. Older
  // snapshots than the newest seen are ignored: they never become the newest.
  void add(Time now, const NetworkTime& sent, const NetworkTime& server_now, Time previous_frame,
           const NetworkTime& server_at_previous_frame, Duration frame_interval);
  // The interpolation delay behind the estimated server time; empty until
  // min_samples intervals were seen.
  std::optional<Duration> required_delay() const { return required_; }
  // The newest snapshot's age just before each arrival, as a distribution.
  std::size_t samples() const { return intervals_.size(); }
  void clear();

 private:
  struct Interval {
    Time at;
    double age_us = 0;     // age of the previous newest snapshot at this arrival
    double length_us = 0;  // how long it had been the newest
    double frame_us = 0;   // the frame interval then
  };
  void recompute();
  double starved_time(double delay_us) const;
  double rare_hold_up_cut(double target_us, double low_us, double total_us) const;
  double median_age() const;

  InterpolationEstimatorConfig config_;
  std::deque<Interval> intervals_;
  std::optional<NetworkTime> newest_sent_;
  std::optional<NetworkTime> newest_arrival_;
  Time newest_arrival_local_;
  std::optional<Time> last_recompute_;
  std::optional<Duration> required_;
  std::vector<double> ages_;        // scratch for the trend's slope
  std::vector<TrendSample> trend_;  // scratch for the trend, kept to spare an allocation
  // The intervals that were on screen, copied side by side once per
  // recompute and sorted by age, oldest first: the search asks a few dozen
  // times how long frames starve at a delay, and only the intervals older
  // than the delay starve any, so each asking walks those alone.
  std::vector<Interval> on_screen_;
};

}  // namespace tickwire::timesync
