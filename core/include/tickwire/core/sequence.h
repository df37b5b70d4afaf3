#pragma once
// 16-bit packet sequence numbers that wrap. Unlike ticks they are compared
// with is_newer, which treats the half of the range ahead as newer
// (ENet's ENET_TIME_LESS idea, RFC 1982 serial number arithmetic).

#include <cstdint>

namespace tickwire {

class Sequence {
 public:
  constexpr Sequence() = default;
  constexpr explicit Sequence(std::uint16_t value) : value_(value) {}
  constexpr std::uint16_t value() const { return value_; }
  constexpr bool operator==(const Sequence&) const = default;

  constexpr Sequence next() const { return Sequence(static_cast<std::uint16_t>(value_ + 1)); }
  constexpr Sequence operator+(int delta) const { return Sequence(static_cast<std::uint16_t>(value_ + delta)); }
  constexpr Sequence operator-(int delta) const { return Sequence(static_cast<std::uint16_t>(value_ - delta)); }

  // How far ahead `a` is of `b`, in [-32768, 32767].
  static constexpr int distance(Sequence a, Sequence b) {
    return static_cast<std::int16_t>(static_cast<std::uint16_t>(a.value_ - b.value_));
  }

 private:
  std::uint16_t value_ = 0;
};

// True when `a` was sent after `b` (allowing for wrap-around).
constexpr bool is_newer(Sequence a, Sequence b) { return Sequence::distance(a, b) > 0; }

}  // namespace tickwire
