#pragma once
// NetworkTime: a tick plus a fraction at a fixed tick rate.
//
// Stored as one integer count of "units", where a unit is 1/(rate * 1e6) of a
// second. One microsecond is then exactly `rate` units and one tick exactly
// kUnitsPerTick units, so converting durations in and ticks out is exact
// integer arithmetic: a clock that adds 16'667 us sixty times a second drifts
// only by what the caller adds, never by rounding here (a float seconds
// counter, as in the time RFC, loses a tick within days).

#include <compare>
#include <cstdint>

#include "tickwire/core/tick.h"
#include "tickwire/core/time.h"

namespace tickwire {

class NetworkTime {
 public:
  static constexpr std::int64_t kUnitsPerTick = 1'000'000;
  static constexpr std::uint32_t kMaxTickRate = 1000;

  // Time zero at `tick_rate` Hz. A rate of 0 or above kMaxTickRate throws
  // std::invalid_argument: tick rates are configuration, checked at set-up.
  explicit NetworkTime(std::uint32_t tick_rate);

  static NetworkTime from_tick(std::uint32_t tick_rate, Tick tick);
  // `fraction_units` in [0, kUnitsPerTick).
  static NetworkTime from_tick(std::uint32_t tick_rate, Tick tick, std::int64_t fraction_units);
  static NetworkTime from_duration(std::uint32_t tick_rate, Duration since_zero);
  static NetworkTime from_ticks_f(std::uint32_t tick_rate, double ticks);

  std::uint32_t tick_rate() const { return rate_; }
  bool is_negative() const { return units_ < 0; }

  // The tick this time falls in (floor). Throws std::logic_error when the
  // time is negative: a negative time has no tick.
  Tick tick() const;
  // Position within the tick, in [0, 1) and in exact units.
  double fraction() const;
  std::int64_t fraction_units() const;
  bool on_tick_boundary() const { return fraction_units() == 0; }

  // Time since zero, rounded toward negative infinity to a microsecond.
  Duration since_zero() const;
  double seconds() const;
  double ticks_f() const;
  Duration tick_interval() const;  // rounded to the microsecond
  std::int64_t units() const { return units_; }

  NetworkTime operator+(Duration d) const;
  NetworkTime operator-(Duration d) const;
  NetworkTime& operator+=(Duration d);
  NetworkTime& operator-=(Duration d);
  NetworkTime add_ticks(std::int64_t ticks) const;
  // With another time of the same rate (a different rate throws
  // std::invalid_argument: mixing rates is a programming error).
  NetworkTime operator+(const NetworkTime& o) const;
  NetworkTime operator-(const NetworkTime& o) const;
  std::strong_ordering operator<=>(const NetworkTime& o) const;
  bool operator==(const NetworkTime& o) const;

 private:
  NetworkTime(std::uint32_t rate, std::int64_t units) : rate_(rate), units_(units) {}
  std::int64_t units_of(Duration d) const;
  void require_same_rate(const NetworkTime& o) const;

  std::uint32_t rate_ = 60;
  std::int64_t units_ = 0;
};

}  // namespace tickwire
