#pragma once
// Time as a value: integer microseconds, never read from a clock here.
// Only the outermost loop (a binary, a bot, the game) reads the clock and
// hands the result in, which is what makes every layer steppable in tests.

#include <compare>
#include <cstdint>

namespace tickwire {

// A span of time in microseconds; may be negative.
class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration micros(std::int64_t us) { return Duration(us); }
  static constexpr Duration millis(std::int64_t ms) { return Duration(ms * 1000); }
  static constexpr Duration seconds(std::int64_t s) { return Duration(s * 1'000'000); }
  static constexpr Duration zero() { return Duration(0); }

  constexpr std::int64_t micros() const { return us_; }
  constexpr double millis_f() const { return static_cast<double>(us_) / 1e3; }
  constexpr double seconds_f() const { return static_cast<double>(us_) / 1e6; }

  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration o) const { return Duration(us_ + o.us_); }
  constexpr Duration operator-(Duration o) const { return Duration(us_ - o.us_); }
  constexpr Duration operator-() const { return Duration(-us_); }
  constexpr Duration operator*(std::int64_t k) const { return Duration(us_ * k); }
  constexpr Duration operator/(std::int64_t k) const { return Duration(us_ / k); }
  constexpr Duration& operator+=(Duration o) {
    us_ += o.us_;
    return *this;
  }
  constexpr Duration& operator-=(Duration o) {
    us_ -= o.us_;
    return *this;
  }

 private:
  constexpr explicit Duration(std::int64_t us) : us_(us) {}
  std::int64_t us_ = 0;
};

// A point in time in microseconds since an arbitrary epoch chosen by the
// caller (for the binaries: the steady clock at start-up).
class Time {
 public:
  constexpr Time() = default;
  static constexpr Time from_micros(std::int64_t us) { return Time(us); }
  constexpr std::int64_t micros() const { return us_; }
  constexpr double seconds_f() const { return static_cast<double>(us_) / 1e6; }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Duration d) const { return Time(us_ + d.micros()); }
  constexpr Time operator-(Duration d) const { return Time(us_ - d.micros()); }
  constexpr Duration operator-(Time o) const { return Duration::micros(us_ - o.us_); }
  constexpr Time& operator+=(Duration d) {
    us_ += d.micros();
    return *this;
  }

 private:
  constexpr explicit Time(std::int64_t us) : us_(us) {}
  std::int64_t us_ = 0;
};

}  // namespace tickwire
