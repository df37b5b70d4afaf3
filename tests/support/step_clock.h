#pragma once
// Stepped time for deterministic tests: a loop that advances a virtual
// clock in fixed steps, calls every participant, and stops when a
// condition holds or a virtual deadline passes.

#include <functional>

#include "tickwire/core/time.h"

namespace tickwire::testing {

class StepClock {
 public:
  explicit StepClock(Duration step = Duration::millis(1)) : step_(step) {}
  Time now() const { return now_; }

  // Steps until `done` returns true (then true) or `limit` of virtual time
  // has passed (then false). `tick` runs once per step with the new time.
  bool run_until(const std::function<bool()>& done, Duration limit, const std::function<void(Time)>& tick) {
    const Time deadline = now_ + limit;
    while (!done()) {
      if (now_ >= deadline) return false;
      now_ += step_;
      tick(now_);
    }
    return true;
  }

  void run_for(Duration span, const std::function<void(Time)>& tick) {
    run_until([] { return false; }, span, tick);
  }

 private:
  Duration step_;
  Time now_ = Time::from_micros(1'000'000);
};

}  // namespace tickwire::testing
