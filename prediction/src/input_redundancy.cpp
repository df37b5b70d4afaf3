#include "tickwire/prediction/input_redundancy.h"

#include <algorithm>
#include <stdexcept>

namespace tickwire::prediction {

namespace {

// Packets in flight remembered at most: 4 s at 60 a second. A packet that
// stays unjudged longer (no acknowledgement arrives at all) is dropped from
// the record unjudged: a silent server is a timeout, not a burst.
constexpr std::size_t kMaxPending = 256;
// Fates kept for the loss rate: the window's worth at 60 packets a second,
// whatever the window.
constexpr std::size_t kMaxJudged = 1200;

InputRedundancyConfig checked(InputRedundancyConfig c) {
  if (c.min_copies == 0 || c.max_copies < c.min_copies) {
    throw std::invalid_argument("InputRedundancyConfig: need 1 <= min_copies <= max_copies");
  }
  if (c.window <= Duration::zero()) throw std::invalid_argument("InputRedundancyConfig: window must be positive");
  if (!(c.resend_loss_rate >= 0.0) || !(c.resend_after_ticks > 0.0 && c.resend_after_ticks < 1.0)) {
    throw std::invalid_argument(
        "InputRedundancyConfig: resend_loss_rate must not be negative, resend_after_ticks must be in (0, 1)");
  }
  return c;
}

}  // namespace

InputRedundancy::InputRedundancy(InputRedundancyConfig config)
    : config_(checked(config)), copies_(config_.min_copies) {}

void InputRedundancy::on_sent(Sequence sequence, Time now) {
  if (!pending_.empty() && !is_newer(sequence, pending_.back().sequence)) return;  // not in send order: ignore
  // Judged before the new packet joins: by now every acknowledgement that
  // arrived since the last send has been marked, whatever order a header's
  // acknowledgements were reported in.
  judge(now);
  pending_.push_back(Sent{sequence, false});
  while (pending_.size() > kMaxPending) pending_.pop_front();
}

void InputRedundancy::on_acked(Sequence sequence, Time now) {
  for (Sent& s : pending_) {
    if (s.sequence == sequence) s.acked = true;
  }
  if (!have_newest_acked_ || is_newer(sequence, newest_acked_)) {
    newest_acked_ = sequence;
    have_newest_acked_ = true;
  }
  update(now);
}

void InputRedundancy::judge(Time now) {
  // Oldest first: a packet is settled once the server acknowledged one sent
  // reorder_allowance packets after it.
  while (!pending_.empty() && have_newest_acked_) {
    const Sent& s = pending_.front();
    if (!s.acked && Sequence::distance(newest_acked_, s.sequence) < static_cast<int>(config_.reorder_allowance)) {
      break;
    }
    ++judged_;
    judged_window_.push_back(Judged{now, !s.acked});
    if (!s.acked) ++lost_in_window_;
    if (judged_window_.size() > kMaxJudged) forget_oldest_judgement();
    if (s.acked) {
      end_run(now);
    } else {
      ++lost_;
      ++run_;
    }
    pending_.pop_front();
  }
  update(now);
}

void InputRedundancy::end_run(Time now) {
  if (run_ > 0) bursts_.push_back(Burst{now, run_});
  run_ = 0;
}

void InputRedundancy::update(Time now) {
  while (!bursts_.empty() && now - bursts_.front().at > config_.window) bursts_.pop_front();
  while (!judged_window_.empty() && now - judged_window_.front().at > config_.window) forget_oldest_judgement();
  std::uint32_t longest = run_;  // a run still going counts already
  for (const Burst& b : bursts_) longest = std::max(longest, b.length);
  const std::uint32_t wanted = longest == 0 ? config_.min_copies : longest + 1 + config_.margin;
  copies_ = std::clamp(wanted, config_.min_copies, config_.max_copies);
}

void InputRedundancy::forget_oldest_judgement() {
  if (judged_window_.front().lost) --lost_in_window_;
  judged_window_.pop_front();
}

double InputRedundancy::loss_rate() const {
  if (judged_window_.empty()) return 0.0;
  return static_cast<double>(lost_in_window_) / static_cast<double>(judged_window_.size());
}

InputRedundancyStats InputRedundancy::stats() const {
  InputRedundancyStats s;
  s.judged = judged_;
  s.lost = lost_;
  for (const Burst& b : bursts_) s.longest_burst = std::max(s.longest_burst, b.length);
  s.longest_burst = std::max(s.longest_burst, run_);
  s.loss_rate = loss_rate();
  return s;
}

}  // namespace tickwire::prediction
