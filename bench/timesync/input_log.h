#pragma once
// The harness's ledger of inputs: when each tick's input was sent, when its
// first copy reached the server and when the server ran the tick. The
// on-time and excess-lead figures are read from it.

#include <cstdint>
#include <vector>

#include "scenario.h"
#include "tickwire/core/tick.h"
#include "tickwire/core/time.h"

namespace tickwire::bench {

// What happened to each tick's input, in true microseconds (kNever if not).
class InputLog {
 public:
  static constexpr std::int64_t kNever = -1;
  explicit InputLog(std::size_t ticks) : sent_(ticks, kNever), arrived_(ticks, kNever), consumed_(ticks, kNever) {}

  void sent(Tick t, Time at) { set(sent_, t, at); }
  bool first_arrival(Tick t, Time at) {
    if (!in_range(t) || arrived_[t.value()] != kNever) return false;
    arrived_[t.value()] = at.micros();
    return true;
  }
  void consumed(Tick t, Time at) { set(consumed_, t, at); }
  bool arrived_by(Tick t, Time at) const {
    return in_range(t) && arrived_[t.value()] != kNever && arrived_[t.value()] <= at.micros();
  }

  void tally(RunResult& r, std::vector<double>& excess_ms) const {
    for (std::size_t i = 0; i < sent_.size(); ++i) {
      if (sent_[i] == kNever || consumed_[i] == kNever) continue;
      ++r.inputs;
      if (arrived_[i] == kNever) continue;
      ++r.reached;
      if (arrived_[i] <= consumed_[i]) {
        ++r.on_time;
        excess_ms.push_back(static_cast<double>(consumed_[i] - arrived_[i]) / 1000.0);
      }
    }
  }

  struct Seconds {
    std::uint64_t with_inputs = 0;  // seconds in which inputs were sent
    std::uint64_t late_burst = 0;   // of those, with more than `fraction` of them not on time
  };
  // Buckets the inputs the server reached by the whole second (since
  // `start`) they were sent in.
  Seconds late_burst_seconds(Time start, double fraction) const {
    struct Tally {
      std::uint64_t inputs = 0;
      std::uint64_t late = 0;
    };
    std::vector<Tally> seconds;
    for (std::size_t i = 0; i < sent_.size(); ++i) {
      if (sent_[i] == kNever || consumed_[i] == kNever || sent_[i] < start.micros()) continue;
      const auto second = static_cast<std::size_t>((sent_[i] - start.micros()) / 1'000'000);
      if (second >= seconds.size()) seconds.resize(second + 1);
      ++seconds[second].inputs;
      if (arrived_[i] == kNever || arrived_[i] > consumed_[i]) ++seconds[second].late;
    }
    Seconds out;
    for (const Tally& s : seconds) {
      if (s.inputs == 0) continue;
      ++out.with_inputs;
      if (static_cast<double>(s.late) > fraction * static_cast<double>(s.inputs)) ++out.late_burst;
    }
    return out;
  }

 private:
  bool in_range(Tick t) const { return t.value() < sent_.size(); }
  void set(std::vector<std::int64_t>& v, Tick t, Time at) {
    if (in_range(t) && v[t.value()] == kNever) v[t.value()] = at.micros();
  }
  std::vector<std::int64_t> sent_, arrived_, consumed_;
};

}  // namespace tickwire::bench
