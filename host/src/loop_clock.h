#pragma once
// The clock and the wait of the server loop.

#include <algorithm>
#include <chrono>
#include <ctime>
#include <thread>

#include "tickwire/core/time.h"
#include "tickwire/transport/enet_transport.h"

namespace tickwire::host {

using SteadyClock = std::chrono::steady_clock;

// Local time: microseconds of the steady clock since start-up. The loop,
// the server's tick timing and the stats all read this one clock.
class LocalClock {
 public:
  Time now() const { return to_time(SteadyClock::now()); }
  Time to_time(SteadyClock::time_point t) const {
    return Time::from_micros(std::chrono::duration_cast<std::chrono::microseconds>(t - epoch_).count());
  }
  SteadyClock::time_point to_steady(Time t) const { return epoch_ + std::chrono::microseconds(t.micros()); }

 private:
  SteadyClock::time_point epoch_ = SteadyClock::now();
};

// The CPU time of the whole process (every thread), for timing the
// server's phases by what they cost rather than by the wall clock, which
// counts the time another process had the core.
inline Time process_cpu_time() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return Time::from_micros(static_cast<std::int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000);
}

// ENet waits on its socket in whole milliseconds, rounded down, and the
// kernel may wake it a little late besides, so waiting for traffic right
// up to the tick would start ticks up to a millisecond or more late. The
// loop waits for traffic only until about a millisecond before the tick
// and sleeps the rest on the steady clock, which is precise to
// microseconds. Neither spins, so an idle server uses next to no CPU.
inline constexpr Duration kTrafficWaitMargin = Duration::millis(1);

// Once woken by traffic the loop lets more gather for this long before it
// reads: a busy server that woke for every datagram would spend much of
// its time waking (the scheduler, ENet's pass over every peer, the
// server's own checks), and nothing read between ticks is used before the
// next one anyway. A datagram waits at most this much longer to be read,
// which clients see in their round trips (half of it on average).
inline constexpr Duration kTrafficGather = Duration::millis(1);

inline void wait_for_tick_or_traffic(transport::EnetTransport& enet, const LocalClock& clock, Time due) {
  const Duration left = due - clock.now();
  // Below margin + 1 ms the traffic wait would round to nothing and the
  // loop would come straight back; sleep to the tick instead.
  if (left >= kTrafficWaitMargin + Duration::millis(1)) {
    enet.wait_for_traffic(left - kTrafficWaitMargin);
    std::this_thread::sleep_until(clock.to_steady(std::min(clock.now() + kTrafficGather, due)));
  } else if (left > Duration::zero()) {
    std::this_thread::sleep_until(clock.to_steady(due));
  }
}

}  // namespace tickwire::host
