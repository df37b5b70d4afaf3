#pragma once
// One-way delay variation, as RTP measures it (RFC 3550, 6.4.1): the
// smoothed absolute change in transit time between consecutive packets.
// Transit is "arrival on one clock minus send time on another"; the unknown
// offset between the clocks cancels in the difference, so no clock
// agreement is needed.

#include <cmath>
#include <optional>

#include "tickwire/core/time.h"

namespace tickwire::timesync {

class JitterEstimator {
 public:
  // transit_us: arrival minus send time of one packet, in microseconds.
  void add(double transit_us) {
    if (last_transit_) {
      const double d = std::fabs(transit_us - *last_transit_);
      // Gain 1/16, the RTP value: a noise reduction that still follows a
      // change within a second or two at game packet rates.
      jitter_us_ += (d - jitter_us_) / 16.0;
    }
    last_transit_ = transit_us;
  }

  Duration jitter() const { return Duration::micros(std::llround(jitter_us_)); }
  void clear() {
    last_transit_.reset();
    jitter_us_ = 0.0;
  }

 private:
  std::optional<double> last_transit_;
  double jitter_us_ = 0.0;
};

}  // namespace tickwire::timesync
