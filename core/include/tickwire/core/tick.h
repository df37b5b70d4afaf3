#pragma once
// Simulation ticks. A Tick counts up from zero for the life of a match and
// never wraps: 32 bits at 60 Hz last 828 days. "No tick yet" is spelled
// std::optional<Tick>, never -1.

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>

namespace tickwire {

class Tick {
 public:
  using Rep = std::uint32_t;
  constexpr Tick() = default;
  constexpr explicit Tick(Rep value) : value_(value) {}
  constexpr Rep value() const { return value_; }

  constexpr auto operator<=>(const Tick&) const = default;

  // Moving a tick before zero or past the end of its range is a programming
  // error: the caller computed a tick it should not have.
  constexpr Tick operator+(std::int64_t delta) const {
    return Tick(checked(static_cast<std::int64_t>(value_) + delta));
  }
  constexpr Tick operator-(std::int64_t delta) const { return *this + (-delta); }
  constexpr std::int64_t operator-(Tick other) const {
    return static_cast<std::int64_t>(value_) - static_cast<std::int64_t>(other.value_);
  }
  constexpr Tick& operator++() {
    value_ = checked(static_cast<std::int64_t>(value_) + 1);
    return *this;
  }
  constexpr Tick& operator+=(std::int64_t delta) {
    *this = *this + delta;
    return *this;
  }

 private:
  static constexpr Rep checked(std::int64_t v) {
    if (v < 0 || v > static_cast<std::int64_t>(std::numeric_limits<Rep>::max())) {
      throw std::out_of_range("tick arithmetic left the range of Tick");
    }
    return static_cast<Rep>(v);
  }
  Rep value_ = 0;
};

}  // namespace tickwire

template <>
struct std::hash<tickwire::Tick> {
  std::size_t operator()(tickwire::Tick t) const noexcept { return std::hash<std::uint32_t>{}(t.value()); }
};
