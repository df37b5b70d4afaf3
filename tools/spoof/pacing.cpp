#include "pacing.h"

#include <algorithm>
#include <cmath>

namespace tickwire::spoof {

std::uint64_t total_attempts(double rate, double duration_s) {
  return static_cast<std::uint64_t>(std::llround(rate * duration_s));
}

std::uint64_t attempts_due(double rate, std::chrono::nanoseconds elapsed, std::uint64_t total) {
  if (elapsed.count() <= 0) return 0;
  const double due = std::floor(rate * std::chrono::duration<double>(elapsed).count());
  if (due >= static_cast<double>(total)) return total;
  return static_cast<std::uint64_t>(due);
}

Slot slot_of(std::uint64_t attempt, std::size_t sources, std::size_t mix_size) {
  const std::uint64_t n = std::max<std::size_t>(sources, 1);
  const std::uint64_t m = std::max<std::size_t>(mix_size, 1);
  const std::uint64_t source = attempt % n;
  const std::uint64_t round = attempt / n;
  return Slot{static_cast<std::size_t>(source), static_cast<std::size_t>((round + source) % m)};
}

}  // namespace tickwire::spoof
