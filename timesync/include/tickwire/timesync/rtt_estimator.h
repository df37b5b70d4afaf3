#pragma once
// Round-trip time from echoed timestamps (core/packet_channel.h gives one
// sample per accepted packet that echoed ours). Two views of the same
// samples, because they answer different questions:
// - the windowed minimum is the path's propagation delay, blind to queueing
//   and jitter spikes (what a clock offset estimate wants);
// - the smoothed mean and mean deviation (RFC 6298) describe what packets
//   typically see, spikes included (what a buffer wants).

#include <cstdint>
#include <optional>

#include "tickwire/core/time.h"
#include "tickwire/timesync/windowed_min.h"

namespace tickwire::timesync {

struct RttEstimatorConfig {
  // Long enough to contain a quiet moment on a busy link; short enough that a
  // route change to a longer path shows within seconds.
  Duration min_window = Duration::seconds(10);
  // Samples above this are nonsense (the header already caps the echo hold
  // at 10 s) and are dropped.
  Duration max_rtt = Duration::seconds(10);
};

class RttEstimator {
 public:
  // Throws std::invalid_argument for a non-positive window or maximum.
  explicit RttEstimator(RttEstimatorConfig config = {});

  // Returns false, and counts, for a sample outside [0, max_rtt].
  bool add(Time now, Duration rtt);

  bool has_sample() const { return samples_ > 0; }
  // Every accessor below returns zero before the first sample.
  Duration latest() const { return latest_; }
  Duration min() const;        // over min_window before the newest sample
  Duration smoothed() const;   // exponentially weighted mean, gain 1/8
  Duration deviation() const;  // mean absolute deviation from it, gain 1/4
  std::uint64_t samples() const { return samples_; }
  std::uint64_t rejected() const { return rejected_; }
  void clear();

 private:
  RttEstimatorConfig config_;
  WindowedMin<std::int64_t> window_;
  Time last_add_;
  Duration latest_;
  double smoothed_us_ = 0.0;
  double deviation_us_ = 0.0;
  std::uint64_t samples_ = 0;
  std::uint64_t rejected_ = 0;
};

}  // namespace tickwire::timesync
