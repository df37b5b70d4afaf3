#pragma once
// How many inputs each of a client's input packets carries. It is the one
// decision the bench's clients make about redundancy, kept behind this hook
// so that the runtime's own policy can be measured in its place: the policy
// sees what a client knows when it sends (its tick, its time system with
// the round trips and the server's feedback on missed and late inputs),
// never the harness's truth.

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "tickwire/core/tick.h"
#include "tickwire/timesync/time_system.h"

namespace tickwire::bench {

// The most inputs one bench input packet can carry (its wire field's bound).
inline constexpr std::uint32_t kMaxInputsPerPacket = 8;

struct RedundancyInputs {
  Tick tick;                         // the newest input: the tick this packet is for
  std::uint32_t inputs_sent = 1;     // inputs the client has produced, this one included
  const timesync::TimeSystem& time;  // round trips, feedback, timelines
};

class InputRedundancy {
 public:
  virtual ~InputRedundancy() = default;
  InputRedundancy() = default;
  InputRedundancy(const InputRedundancy&) = delete;
  InputRedundancy& operator=(const InputRedundancy&) = delete;

  // For the run's header, e.g. "fixed, 3 inputs per packet".
  virtual std::string describe() const = 0;
  // Inputs in the packet, the newest included. The harness holds the answer
  // to [1, min(inputs_sent, kMaxInputsPerPacket)].
  virtual std::uint32_t inputs_per_packet(const RedundancyInputs& in) const = 0;
};

// Today's policy: always the newest `count` inputs.
class FixedRedundancy final : public InputRedundancy {
 public:
  explicit FixedRedundancy(std::uint32_t count) : count_(count) {
    if (count_ < 1 || count_ > kMaxInputsPerPacket) throw std::invalid_argument("redundancy must be in 1..8");
  }
  std::string describe() const override { return "fixed, " + std::to_string(count_) + " inputs per packet"; }
  std::uint32_t inputs_per_packet(const RedundancyInputs& /*in*/) const override { return count_; }

 private:
  std::uint32_t count_;
};

// The count a packet carries: the policy's answer within its bounds.
inline std::uint32_t inputs_in_packet(const InputRedundancy& policy, const RedundancyInputs& in) {
  const std::uint32_t most = std::min(in.inputs_sent, kMaxInputsPerPacket);
  return std::clamp(policy.inputs_per_packet(in), std::uint32_t{1}, std::max(most, std::uint32_t{1}));
}

}  // namespace tickwire::bench
