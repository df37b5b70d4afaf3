#pragma once
// Real time for tests over real sockets: a pump that calls its participants
// every millisecond until a condition holds or a real deadline passes.

#include <chrono>
#include <functional>
#include <thread>

#include "tickwire/core/time.h"

namespace tickwire::testing {

class WallClock {
 public:
  Time now() const {
    const auto d = std::chrono::steady_clock::now() - epoch_;
    return Time::from_micros(std::chrono::duration_cast<std::chrono::microseconds>(d).count() + 1'000'000);
  }

  bool pump_until(const std::function<bool()>& done, Duration limit, const std::function<void(Time)>& step) const {
    const Time deadline = now() + limit;
    while (!done()) {
      if (now() >= deadline) return false;
      step(now());
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }

 private:
  std::chrono::steady_clock::time_point epoch_ = std::chrono::steady_clock::now();
};

}  // namespace tickwire::testing
