#pragma once
// How a bench client's input packets carry its inputs. By default it is the
// runtime's own policy (prediction/input_redundancy.h), as the client
// runtime applies it: each packet carries the newest input and the ones the
// server has not acknowledged, as many as the uplink's recent loss bursts
// need, and while the uplink loses, each packet goes out a second time half
// a tick later. `--redundancy N` instead sends a fixed N inputs per packet,
// once, as earlier versions of this benchmark did. Every provider runs with
// the same setting: the benchmark compares time providers, not delivery.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "tickwire/core/sequence.h"
#include "tickwire/core/sequence_buffer.h"
#include "tickwire/core/tick.h"
#include "tickwire/core/time.h"
#include "tickwire/prediction/input_redundancy.h"

namespace tickwire::bench {

// The most inputs one bench input packet can carry (its wire field's bound):
// the runtime policy's ceiling.
inline constexpr std::uint32_t kMaxInputsPerPacket = 16;

struct RedundancySetting {
  std::uint32_t fixed = 0;  // 0: the runtime's policy; else this many inputs per packet
  std::string describe() const {
    return fixed == 0 ? std::string(
                            "the runtime's policy (copies from loss bursts, unacknowledged only, resent on "
                            "a lossy uplink)")
                      : "fixed, " + std::to_string(fixed) + " inputs per packet";
  }
};

class ClientRedundancy {
 public:
  explicit ClientRedundancy(RedundancySetting setting) : setting_(setting), sent_(256) {
    if (setting_.fixed > kMaxInputsPerPacket) throw std::invalid_argument("redundancy must be in 1..16");
    if (setting_.fixed == 0) policy_.emplace();
  }

  // Inputs in the packet whose newest input is for `newest`, when the
  // client has produced `inputs_sent` inputs so far.
  std::uint32_t inputs_for(Tick newest, std::uint32_t inputs_sent) const {
    std::uint32_t n = setting_.fixed != 0 ? setting_.fixed : policy_->copies();
    if (policy_ && acked_ && *acked_ < newest)
      n = std::min<std::uint32_t>(n, static_cast<std::uint32_t>(newest - *acked_));
    return std::clamp<std::uint32_t>(std::min(n, inputs_sent), 1, kMaxInputsPerPacket);
  }
  void on_sent(Sequence sequence, Tick newest, Time local) {
    if (!policy_) return;
    if (Tick* slot = sent_.insert(sequence)) *slot = newest;
    policy_->on_sent(sequence, local);
  }
  void on_acked(Sequence sequence, Time local) {
    if (!policy_) return;
    if (const Tick* t = sent_.find(sequence); t != nullptr && (!acked_ || *t > *acked_)) acked_ = *t;
    policy_->on_acked(sequence, local);
  }
  // Whether the packet just sent should go out again, and after what share
  // of a tick.
  std::optional<double> resend_after_ticks() const {
    if (!policy_ || !policy_->resend()) return std::nullopt;
    return policy_->config().resend_after_ticks;
  }

 private:
  RedundancySetting setting_;
  std::optional<prediction::InputRedundancy> policy_;
  SequenceBuffer<Tick> sent_;  // packet -> newest input in it
  std::optional<Tick> acked_;  // every input up to here reached the server
};

}  // namespace tickwire::bench
