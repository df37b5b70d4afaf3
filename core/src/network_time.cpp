#include "tickwire/core/network_time.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace tickwire {
namespace {

std::uint32_t checked_rate(std::uint32_t rate) {
  if (rate == 0 || rate > NetworkTime::kMaxTickRate) {
    throw std::invalid_argument("tick rate must be in 1.." + std::to_string(NetworkTime::kMaxTickRate) + " Hz, got " +
                                std::to_string(rate));
  }
  return rate;
}

std::int64_t checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) throw std::overflow_error("NetworkTime overflow");
  return r;
}

std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throw std::overflow_error("NetworkTime overflow");
  return r;
}

// Floor division and modulo: the tick of -0.5 ticks is -1, not 0.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

NetworkTime::NetworkTime(std::uint32_t tick_rate) : rate_(checked_rate(tick_rate)) {}

NetworkTime NetworkTime::from_tick(std::uint32_t tick_rate, Tick tick) { return from_tick(tick_rate, tick, 0); }

NetworkTime NetworkTime::from_tick(std::uint32_t tick_rate, Tick tick, std::int64_t fraction_units) {
  if (fraction_units < 0 || fraction_units >= kUnitsPerTick) {
    throw std::invalid_argument("NetworkTime fraction must be in [0, kUnitsPerTick)");
  }
  return {checked_rate(tick_rate), static_cast<std::int64_t>(tick.value()) * kUnitsPerTick + fraction_units};
}

NetworkTime NetworkTime::from_duration(std::uint32_t tick_rate, Duration since_zero) {
  NetworkTime t(tick_rate);
  t.units_ = t.units_of(since_zero);
  return t;
}

NetworkTime NetworkTime::from_ticks_f(std::uint32_t tick_rate, double ticks) {
  if (!std::isfinite(ticks) || std::fabs(ticks) > 9e12) {
    throw std::invalid_argument("NetworkTime from a non-finite or huge tick count");
  }
  return {checked_rate(tick_rate), std::llround(ticks * static_cast<double>(kUnitsPerTick))};
}

Tick NetworkTime::tick() const {
  if (units_ < 0) throw std::logic_error("a negative NetworkTime has no tick");
  const std::int64_t t = units_ / kUnitsPerTick;
  if (t > static_cast<std::int64_t>(UINT32_MAX)) throw std::overflow_error("NetworkTime beyond the range of Tick");
  return Tick(static_cast<Tick::Rep>(t));
}

std::int64_t NetworkTime::fraction_units() const { return units_ - floor_div(units_, kUnitsPerTick) * kUnitsPerTick; }

double NetworkTime::fraction() const {
  return static_cast<double>(fraction_units()) / static_cast<double>(kUnitsPerTick);
}

Duration NetworkTime::since_zero() const { return Duration::micros(floor_div(units_, rate_)); }

double NetworkTime::seconds() const {
  return static_cast<double>(units_) / (static_cast<double>(rate_) * static_cast<double>(kUnitsPerTick));
}

double NetworkTime::ticks_f() const { return static_cast<double>(units_) / static_cast<double>(kUnitsPerTick); }

Duration NetworkTime::tick_interval() const { return Duration::micros((1'000'000 + rate_ / 2) / rate_); }

std::int64_t NetworkTime::units_of(Duration d) const { return checked_mul(d.micros(), rate_); }

void NetworkTime::require_same_rate(const NetworkTime& o) const {
  if (o.rate_ != rate_) {
    throw std::invalid_argument("NetworkTime arithmetic across tick rates (" + std::to_string(rate_) + " Hz and " +
                                std::to_string(o.rate_) + " Hz)");
  }
}

NetworkTime NetworkTime::operator+(Duration d) const { return {rate_, checked_add(units_, units_of(d))}; }
NetworkTime NetworkTime::operator-(Duration d) const { return {rate_, checked_add(units_, -units_of(d))}; }
NetworkTime& NetworkTime::operator+=(Duration d) { return *this = *this + d; }
NetworkTime& NetworkTime::operator-=(Duration d) { return *this = *this - d; }

NetworkTime NetworkTime::add_ticks(std::int64_t ticks) const {
  return {rate_, checked_add(units_, checked_mul(ticks, kUnitsPerTick))};
}

NetworkTime NetworkTime::operator+(const NetworkTime& o) const {
  require_same_rate(o);
  return {rate_, checked_add(units_, o.units_)};
}

NetworkTime NetworkTime::operator-(const NetworkTime& o) const {
  require_same_rate(o);
  return {rate_, checked_add(units_, -o.units_)};
}

std::strong_ordering NetworkTime::operator<=>(const NetworkTime& o) const {
  require_same_rate(o);
  return units_ <=> o.units_;
}

bool NetworkTime::operator==(const NetworkTime& o) const {
  require_same_rate(o);
  return units_ == o.units_;
}

}  // namespace tickwire
