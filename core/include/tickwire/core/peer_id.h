#pragma once
// A handle for a connected peer. Values are never reused within one
// transport's lifetime, so a stale handle cannot address a new peer.

#include <compare>
#include <cstdint>
#include <functional>

namespace tickwire {

class PeerId {
 public:
  constexpr PeerId() = default;
  constexpr explicit PeerId(std::uint32_t value) : value_(value) {}
  constexpr std::uint32_t value() const { return value_; }
  constexpr auto operator<=>(const PeerId&) const = default;

 private:
  std::uint32_t value_ = 0;
};

}  // namespace tickwire

template <>
struct std::hash<tickwire::PeerId> {
  std::size_t operator()(tickwire::PeerId p) const noexcept { return std::hash<std::uint32_t>{}(p.value()); }
};
