#include "sim_link.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <utility>

namespace tickwire::transport {

namespace {

Result<void> check_probability(double p, const char* name) {
  // Written so that NaN, which fails every comparison, is rejected too.
  if (!(p >= 0.0 && p <= 1.0)) {
    return make_error(ErrorCode::kInvalidArgument, std::string(name) + " must be a probability in [0, 1]");
  }
  return {};
}

Result<void> check_duration(Duration d, const char* name) {
  if (d < Duration::zero()) return make_error(ErrorCode::kInvalidArgument, std::string(name) + " is negative");
  return {};
}

std::uint64_t splitmix64(std::uint64_t& x) {
  x += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = x;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

Duration scale(Duration d, double factor) {
  return Duration::micros(std::llround(static_cast<double>(d.micros()) * factor));
}

// One spike's length from one uniform draw u in [0, 1): uniform over the
// range, or Pareto by inversion (1 - u is in (0, 1], so the power is
// finite) and capped.
Duration draw_spike(const LinkConditions& c, double u) {
  if (c.delay_spike_pareto_shape <= 0.0) return c.delay_spike_min + scale(c.delay_spike_max - c.delay_spike_min, u);
  const double length = std::pow(1.0 - u, -1.0 / c.delay_spike_pareto_shape);
  const double cap = static_cast<double>(c.delay_spike_max.micros()) / static_cast<double>(c.delay_spike_min.micros());
  return scale(c.delay_spike_min, std::min(length, cap));
}

}  // namespace

Result<void> LinkConditions::validate() const {
  const std::pair<Duration, const char*> durations[] = {
      {latency, "latency"},
      {jitter, "jitter"},
      {reorder_delay, "reorder_delay"},
      {delay_spike_min, "delay_spike_min"},
      {delay_spike_max, "delay_spike_max"},
      {rise_delay, "rise_delay"},
      {rise_period, "rise_period"},
      {flap_delay, "flap_delay"},
      {flap_period, "flap_period"},
  };
  for (const auto& [d, name] : durations) {
    if (auto r = check_duration(d, name); !r) return r;
  }
  const std::pair<double, const char*> probabilities[] = {
      {loss, "loss"},
      {burst_enter, "burst_enter"},
      {burst_exit, "burst_exit"},
      {burst_loss, "burst_loss"},
      {duplicate, "duplicate"},
      {reorder, "reorder"},
      {delay_spike_rate, "delay_spike_rate"},
  };
  for (const auto& [p, name] : probabilities) {
    if (auto r = check_probability(p, name); !r) return r;
  }
  if (delay_spike_min > delay_spike_max) {
    return make_error(ErrorCode::kInvalidArgument, "delay_spike_min exceeds delay_spike_max");
  }
  if (!(delay_spike_pareto_shape >= 0.0) || !std::isfinite(delay_spike_pareto_shape)) {
    return make_error(ErrorCode::kInvalidArgument, "delay_spike_pareto_shape must be a finite number >= 0");
  }
  if (delay_spike_pareto_shape > 0.0 && delay_spike_min <= Duration::zero()) {
    return make_error(ErrorCode::kInvalidArgument,
                      "delay_spike_pareto_shape needs a positive delay_spike_min (the distribution's scale)");
  }
  if (rise_delay > Duration::zero() && rise_period == Duration::zero()) {
    return make_error(ErrorCode::kInvalidArgument, "rise_delay needs a positive rise_period");
  }
  if (flap_delay > Duration::zero() && flap_period == Duration::zero()) {
    return make_error(ErrorCode::kInvalidArgument, "flap_delay needs a positive flap_period");
  }
  return {};
}

SimRng::SimRng(std::uint64_t seed) {
  for (auto& word : s_) word = splitmix64(seed);
}

std::uint64_t SimRng::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double SimRng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

bool SimRng::chance(double p) {
  if (p <= 0.0) return false;
  if (p >= 1.0) return true;
  return uniform() < p;
}

// ---------------------------------------------------------------------------
// SimLink

namespace {

// The rise and flap schedules' part of the delay, `since_start` after the
// link's first datagram.
Duration scheduled_delay(const LinkConditions& c, Duration since_start) {
  Duration extra = Duration::zero();
  if (c.rise_period > Duration::zero()) {
    const std::int64_t period = c.rise_period.micros();
    const std::int64_t into = since_start.micros() % period;
    extra += scale(c.rise_delay, static_cast<double>(into) / static_cast<double>(period));
  }
  if (c.flap_period > Duration::zero() && (since_start.micros() / c.flap_period.micros()) % 2 == 1) {
    extra += c.flap_delay;
  }
  return extra;
}

}  // namespace

Duration SimLink::draw_delay(const LinkConditions& c, SimRng& rng, Time now) {
  if (!started_) started_ = now;
  Duration delay = c.latency + scheduled_delay(c, now > *started_ ? now - *started_ : Duration::zero());
  if (c.jitter > Duration::zero()) {
    const double u1 = rng.uniform();
    const double u2 = rng.uniform();
    delay += scale(c.jitter, u1 + u2 - 1.0);
  }
  if (rng.chance(c.delay_spike_rate)) delay += draw_spike(c, rng.uniform());
  return std::max(delay, Duration::zero());
}

LinkVerdict SimLink::admit(const LinkConditions& c, SimRng& rng, Time now, std::size_t size) {
  stats_.sent += 1;
  stats_.bytes_sent += size;
  LinkVerdict verdict;
  verdict.deliver = now;
  if (c.mtu != 0 && size > c.mtu) {
    stats_.dropped_mtu += 1;
    verdict.fate = SimFate::kTooBig;
    return verdict;
  }

  // The bottleneck comes first: a datagram lost further on still used it.
  Time departs = now;
  if (c.bandwidth_bytes_per_second != 0) {
    const Time start = std::max(now, busy_until_);
    const double rate = static_cast<double>(c.bandwidth_bytes_per_second);
    const double queued_bytes = (start - now).seconds_f() * rate;
    if (queued_bytes + static_cast<double>(size) > static_cast<double>(c.bandwidth_queue_bytes)) {
      stats_.dropped_queue += 1;
      verdict.fate = SimFate::kQueueFull;
      return verdict;
    }
    const double serialize_us = std::ceil(static_cast<double>(size) * 1e6 / rate);
    busy_until_ = start + Duration::micros(static_cast<std::int64_t>(serialize_us));
    departs = busy_until_;
  }

  if (bad_state_) {
    if (rng.chance(c.burst_exit)) bad_state_ = false;
  } else if (rng.chance(c.burst_enter)) {
    bad_state_ = true;
  }
  bool lost = rng.chance(c.loss);
  if (!lost && bad_state_) lost = rng.chance(c.burst_loss);
  if (lost) {
    stats_.dropped_loss += 1;
    verdict.fate = SimFate::kLost;
    return verdict;
  }
  if (in_flight_ >= kMaxInFlight) {
    stats_.dropped_overflow += 1;
    verdict.fate = SimFate::kOverflow;
    return verdict;
  }

  Time arrives = std::max(departs + draw_delay(c, rng, now), fifo_tail_);
  if (rng.chance(c.reorder)) {
    // Held back without moving the FIFO tail, so later datagrams pass it.
    arrives += c.reorder_delay;
    verdict.reordered = true;
    stats_.reordered += 1;
  } else {
    fifo_tail_ = arrives;
  }
  verdict.deliver = arrives;
  in_flight_ += 1;

  if (rng.chance(c.duplicate) && in_flight_ < kMaxInFlight) {
    verdict.copy = std::max(departs + draw_delay(c, rng, now), arrives);
    stats_.duplicated += 1;
    in_flight_ += 1;
  }
  return verdict;
}

void SimLink::count_drop(SimFate fate, std::size_t size) {
  stats_.sent += 1;
  stats_.bytes_sent += size;
  if (fate == SimFate::kSevered) stats_.dropped_severed += 1;
  if (fate == SimFate::kUnreachable) stats_.dropped_unreachable += 1;
}

void SimLink::on_delivered(Time sent, Time deliver, std::size_t size) {
  --in_flight_;
  stats_.delivered += 1;
  stats_.bytes_delivered += size;
  stats_.total_delay += deliver - sent;
}

// ---------------------------------------------------------------------------
// RttEstimator

void RttEstimator::sample(Duration rtt) {
  rtt = std::max(rtt, Duration::zero());
  if (!has_sample_) {
    srtt_ = rtt;
    rttvar_ = rtt / 2;
    has_sample_ = true;
    return;
  }
  const Duration error = srtt_ > rtt ? srtt_ - rtt : rtt - srtt_;
  rttvar_ = (rttvar_ * 3 + error) / 4;
  srtt_ = (srtt_ * 7 + rtt) / 8;
}

Duration RttEstimator::rto() const {
  if (!has_sample_) return kInitialRto;
  return std::clamp(srtt_ + rttvar_ * 4, kMinRto, kMaxRto);
}

// ---------------------------------------------------------------------------
// ReliableChannel

ReliableChannel::ReliableChannel(Limits limits) : limits_(limits), window_(kReceiveWindow) {
  limits_.fragment_size = std::max<std::size_t>(limits_.fragment_size, 1);
}

std::size_t ReliableChannel::max_fragments() const {
  return std::max<std::size_t>(1, (limits_.max_message + limits_.fragment_size - 1) / limits_.fragment_size);
}

Result<void> ReliableChannel::queue(std::span<const std::uint8_t> message) {
  if (message.size() > limits_.max_message) {
    return make_error(ErrorCode::kTooLarge, "reliable message over max_reliable_payload");
  }
  if (backlog_messages_ >= limits_.max_backlog_messages ||
      backlog_bytes_ + message.size() > limits_.max_backlog_bytes) {
    return make_error(ErrorCode::kTooLarge, "reliable backlog full");
  }
  const std::size_t count =
      std::max<std::size_t>(1, (message.size() + limits_.fragment_size - 1) / limits_.fragment_size);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t begin = i * limits_.fragment_size;
    const std::size_t end = std::min(message.size(), begin + limits_.fragment_size);
    Outgoing fragment;
    fragment.seq = next_seq_++;
    fragment.index = static_cast<std::uint16_t>(i);
    fragment.count = static_cast<std::uint16_t>(count);
    fragment.bytes.assign(message.begin() + static_cast<std::ptrdiff_t>(begin),
                          message.begin() + static_cast<std::ptrdiff_t>(end));
    outgoing_.push_back(std::move(fragment));
  }
  backlog_messages_ += 1;
  backlog_bytes_ += message.size();
  return {};
}

void ReliableChannel::pump(Time now, Duration rto, std::vector<Fragment>& due) {
  due.clear();
  if (outgoing_.empty()) return;
  const std::uint32_t base = outgoing_.front().seq;
  for (Outgoing& f : outgoing_) {
    if (f.seq - base >= kSendWindow) break;
    if (f.acked) continue;
    if (f.transmissions == 0) {
      f.rto = rto;
    } else if (f.presumed_lost) {
      // Not a timeout, so no sign of congestion: the RTO stays.
    } else if (now - f.sent < f.rto) {
      continue;
    } else {
      f.rto = std::min(f.rto * 2, RttEstimator::kMaxRto);
    }
    f.presumed_lost = false;
    f.sent = now;
    f.transmissions += 1;
    due.push_back(Fragment{f.seq, f.index, f.count, f.bytes});
  }
}

std::optional<Duration> ReliableChannel::on_ack(std::uint32_t ack_next, std::uint64_t ack_bits, Time now) {
  std::optional<Duration> sample;
  for (Outgoing& f : outgoing_) {
    if (f.transmissions == 0) break;  // sent in order: nothing later was sent either
    if (f.acked) continue;
    const auto ahead = static_cast<std::int32_t>(f.seq - ack_next);
    const bool covered = ahead < 0 || (ahead >= 1 && ahead <= 64 && ((ack_bits >> (ahead - 1)) & 1U) != 0);
    if (!covered) continue;
    f.acked = true;
    if (f.transmissions == 1) sample = now - f.sent;
  }
  mark_presumed_lost();
  while (!outgoing_.empty() && outgoing_.front().acked) {
    const Outgoing& f = outgoing_.front();
    backlog_bytes_ -= f.bytes.size();
    if (f.index + 1 == f.count) backlog_messages_ -= 1;
    outgoing_.pop_front();
  }
  return sample;
}

void ReliableChannel::mark_presumed_lost() {
  // A fragment is presumed lost, and resent without waiting for its RTO,
  // once kFastRetransmitAfter fragments sent no earlier than its last
  // transmission have been acknowledged: like TCP's duplicate-ack rule, it
  // tolerates mild reordering and saves a timeout per loss.
  std::array<Time, kFastRetransmitAfter> latest{};  // send times of acked fragments, newest first
  std::size_t acked_seen = 0;
  for (auto it = outgoing_.rbegin(); it != outgoing_.rend(); ++it) {
    if (it->transmissions == 0) continue;
    if (it->acked) {
      auto pos = std::upper_bound(latest.begin(),
                                  latest.begin() + static_cast<std::ptrdiff_t>(std::min(acked_seen, latest.size())),
                                  it->sent, std::greater<>());
      if (pos != latest.end()) {
        std::move_backward(pos, latest.end() - 1, latest.end());
        *pos = it->sent;
      }
      ++acked_seen;
    } else if (acked_seen >= kFastRetransmitAfter && latest.back() >= it->sent) {
      it->presumed_lost = true;
    }
  }
}

std::uint64_t ReliableChannel::ack_bits() const {
  std::uint64_t bits = 0;
  for (std::uint32_t i = 0; i < 64; ++i) {
    if (window_[(next_expected_ + 1 + i) % kReceiveWindow]) bits |= std::uint64_t{1} << i;
  }
  return bits;
}

ReliableChannel::Receive ReliableChannel::on_fragment(const Fragment& fragment,
                                                      std::vector<std::vector<std::uint8_t>>& completed) {
  // Fragment sizes are the sender's choice; only the reassembled size is
  // bounded, by our own max_message.
  if (fragment.count == 0 || fragment.index >= fragment.count) return Receive::kProtocolError;
  const std::uint32_t ahead = fragment.seq - next_expected_;
  if (ahead >= 0x8000'0000U) return Receive::kDuplicate;  // already consumed
  if (ahead >= kReceiveWindow) return Receive::kOutOfWindow;
  auto& slot = window_[fragment.seq % kReceiveWindow];
  if (slot) return Receive::kDuplicate;
  slot = Incoming{fragment.index, fragment.count, {fragment.bytes.begin(), fragment.bytes.end()}};
  while (auto& next = window_[next_expected_ % kReceiveWindow]) {
    Incoming in = std::move(*next);
    next.reset();
    next_expected_ += 1;
    if (!consume(std::move(in), completed)) return Receive::kProtocolError;
  }
  return Receive::kAccepted;
}

bool ReliableChannel::consume(Incoming f, std::vector<std::vector<std::uint8_t>>& completed) {
  if (f.index == 0) {
    if (assembling_) return false;
    assembling_ = true;
    assembly_.clear();
    assembly_count_ = f.count;
  } else if (!assembling_ || f.index != assembly_next_ || f.count != assembly_count_) {
    return false;
  }
  if (assembly_.size() + f.bytes.size() > limits_.max_message) return false;
  assembly_.insert(assembly_.end(), f.bytes.begin(), f.bytes.end());
  assembly_next_ = static_cast<std::uint16_t>(f.index + 1);
  if (assembly_next_ == assembly_count_) {
    completed.push_back(std::move(assembly_));
    assembly_ = {};
    assembling_ = false;
  }
  return true;
}

}  // namespace tickwire::transport
