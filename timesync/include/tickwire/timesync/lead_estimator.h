#pragma once
// How far ahead of the server the predicted timeline must run so that
// inputs reach the server in time, from the server's arrival feedback.
//
// Each feedback sample gives one input's *need*: the lead (predicted time
// minus estimated server time) at which that input would have arrived
// exactly as the server consumed it. It folds in everything between the
// tick boundary and the server's queue: the frame the client ran the tick
// in, the uplink's delay and jitter, stalls behind a delayed packet, and,
// when the first copy was lost, the extra tick a redundant copy needs. A
// lead above a fraction 1 - p of the needs makes a fraction p of inputs
// late. Since it is measured against the estimated server time, an error of
// that estimate cancels out of lead = need.
//
// The needs are split into a level and a tail, so that each follows change
// at its own pace:
// - level: the median need of the last moments; it follows a route change
//   within a second, and a rise of every recent sample at once within a few
//   samples;
// - tail: the needs above (or below) the level at their time, over minutes,
//   because late inputs are rare events (loss, delay spikes) whose rate can
//   only be known from many samples. Being relative, the tail survives a
//   change of level: after a route change the tail learned before still
//   applies.
// Required lead = level + the tail's (1 - target_late_rate) quantile, or
// less where covering the last of the tail costs more latency than the late
// inputs it would spare (rare_event_cut.h): rare stalls are ridden out, not
// paid for on every frame.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "tickwire/core/time.h"
#include "tickwire/timesync/rising_trend.h"
#include "tickwire/timesync/sorted_bag.h"
#include "tickwire/timesync/sorted_window.h"

namespace tickwire::timesync {

struct LeadEstimatorConfig {
  // Share of inputs the lead may leave late: one in a thousand. Losses of
  // every copy of an input are beyond any lead and do not count here. Lower
  // values buy little on lossy links: what remains late there is mostly an
  // input whose first two copies were both lost, and covering those costs a
  // whole extra tick of lead (docs/time.md, "What a lead costs").
  double target_late_rate = 1e-3;
  // The latency worth holding to spare one late event a second
  // (rare_event_cut.h): below the target's quantile, the tail is cut where
  // covering more would cost more lead than the late inputs it saves. A
  // stall every few seconds is ridden out; a lost input's second sending
  // (0.4 tick later, input_redundancy.h) is covered as soon as losses come
  // more than once in 15 s.
  Duration late_event_cost = Duration::millis(100);
  // The level is the median over this window, centred on each sample when
  // it enters the tail (so a step of the level splits cleanly) and trailing
  // for the level now.
  Duration level_window = Duration::seconds(2);
  // A rise of the level is taken at once when every need of the last
  // rise_window (at least rise_samples of them) is above the level by more
  // than the level's spread (or rise_margin_min): every recent input needed
  // more, as after a route change. A stall, however long, shows as one
  // sample (its inputs arrive together and the report carries the worst),
  // so it is tail, not level. 70 ms holds three reports at 30 a second: a
  // lengthened route is followed 67 ms after the first report that shows
  // it. Three, because two samples in a row above the spread come by
  // chance every few seconds on a noisy link.
  std::uint32_t rise_samples = 3;
  Duration rise_window = Duration::millis(70);
  Duration rise_margin_min = Duration::millis(1);
  // A clear upward trend of the needs over the level window (rising_trend.h)
  // is projected this far ahead: the median lags a ramp by half its window
  // and the steering by a further 1 / gain (0.5 s at 2 per second).
  Duration trend_lookahead = Duration::millis(1500);
  // Minutes of tail: at 60 samples a second and the default late rate, the
  // quantile is the eighth largest of 7200 samples, well inside the events
  // (losses, delay spikes) that come more often than once a minute.
  Duration tail_window = Duration::seconds(120);
  // Bounds memory whatever the sample rate.
  std::uint32_t max_tail_samples = 16384;
  std::uint32_t max_level_samples = 1024;
  // Until the tail holds this many samples the requirement is the largest
  // need seen (plus the learning margin): conservative while little is known.
  std::uint32_t min_tail_samples = 60;
  // Until needs have come in for this long the estimate has not met the
  // network's rare events yet; the requirement carries learning_margin on
  // top, one tick at 60 Hz: what an input needs when its first copy is lost
  // and the next packet, a tick later, brings it. A time, not a count, so
  // that a client at 30 snapshots a second learns as fast as one at 60.
  Duration learning_period = Duration::seconds(10);
  Duration learning_margin = Duration::millis(17);
};

class LeadEstimator {
 public:
  // Throws std::invalid_argument for an unusable config.
  explicit LeadEstimator(LeadEstimatorConfig config = {});

  // One input's need, learned at local time `now`.
  void add(Time now, Duration need);
  // The lead that leaves at most target_late_rate of inputs late; empty
  // before the first sample.
  std::optional<Duration> required() const { return required_; }
  // True once the tail holds min_tail_samples.
  bool settled() const { return tail_.size() >= config_.min_tail_samples; }
  // True until needs have come in for learning_period.
  bool learning() const { return samples_ == 0 || newest_at_ - first_at_ < config_.learning_period; }
  Duration level() const { return Duration::micros(static_cast<std::int64_t>(level_us_)); }
  std::size_t samples() const { return samples_; }
  // The needs' clear upward trend, in microseconds per second; 0 when none.
  double trend() const { return trend_us_per_s_; }
  void clear();

 private:
  struct Sample {
    Time at;
    double need_us = 0;
  };
  void commit_ready(Time now);
  void update_level();
  // The same medians from windows kept sorted, when recent_ is in time
  // order (it always is with a monotonic clock); otherwise by selection.
  bool in_time_order() const { return popped_ >= out_of_order_at_; }
  double centred_median(std::size_t index, Duration half);
  void update_trend(Time newest);
  double need_at(std::uint64_t position) const { return recent_[static_cast<std::size_t>(position - popped_)].need_us; }
  void update_required(Time now);
  double tail_cut(Time now) const;

  LeadEstimatorConfig config_;
  std::deque<Sample> recent_;    // the last level_window of samples
  std::size_t uncommitted_ = 0;  // the newest samples of recent_ not yet in the tail
  std::deque<Sample> tail_log_;  // need - level, in arrival order, for expiry
  std::vector<double> window_;   // scratch for medians, kept to spare an allocation per sample
  SortedBag tail_;               // the same values, sorted
  double level_us_ = 0;
  double max_need_us_ = 0;
  double trend_us_per_s_ = 0;
  Time first_at_;                           // the first need's time
  Time newest_at_;                          // the newest need's time
  std::vector<TrendSample> trend_samples_;  // scratch
  std::optional<Time> last_rise_;           // when the level last stepped up at once
  std::optional<Duration> required_;
  std::size_t samples_ = 0;
  // Absolute positions of recent_'s samples: recent_[i] is position
  // popped_ + i. out_of_order_at_ is the newest position whose time was
  // earlier than its predecessor's; once it is at the front, order holds.
  std::uint64_t popped_ = 0;
  std::uint64_t out_of_order_at_ = 0;
  SortedWindow centred_;  // the window centred on the sample being committed
  SortedWindow level_;    // the trailing level window
  SortedWindow older_;    // the trend window's older half
  SortedWindow newer_;    // and its newer half
};

}  // namespace tickwire::timesync
