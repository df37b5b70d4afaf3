#include "attack.h"

#include <sys/resource.h>
#include <sys/time.h>

#include <algorithm>

#include "pacing.h"
#include "source_sockets.h"

namespace tickwire::spoof {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; }

// CPU time of the calling thread only, so a test that runs a server in
// another thread of the same process does not count it.
rusage thread_usage() {
  rusage usage{};
  ::getrusage(RUSAGE_THREAD, &usage);
  return usage;
}

std::chrono::milliseconds until(Clock::time_point deadline) {
  const auto left = deadline - Clock::now();
  if (left <= Clock::duration::zero()) return std::chrono::milliseconds{0};
  // Rounded up: waking early would only mean a wake-up with nothing due.
  return std::chrono::ceil<std::chrono::milliseconds>(left);
}

class Attack {
 public:
  Attack(const AttackConfig& config, const SourceSockets& sockets)
      : config_(config), sockets_(sockets), rng_(config.seed) {}

  AttackResult run() {
    const rusage cpu_before = thread_usage();
    result_.sources.resize(sockets_.size());
    for (std::size_t i = 0; i < sockets_.size(); ++i) result_.sources[i].endpoint = sockets_.endpoint(i);

    const std::uint64_t total = total_attempts(config_.rate, config_.duration_s);
    start_ = Clock::now();
    Clock::time_point last_send = start_;
    Clock::time_point next_wake = start_;
    while (result_.attempts < total && !stopped()) {
      const Clock::time_point now = Clock::now();
      const std::uint64_t due = attempts_due(config_.rate, now - start_, total);
      if (due > result_.attempts) last_send = now;
      while (result_.attempts < due) send_attempt(result_.attempts++, now);
      if (result_.attempts >= total) break;
      // Steady wake-ups; after a stall, resume from now rather than
      // waking repeatedly to catch up (the due count already did).
      next_wake = std::max(next_wake + kBatchInterval, now);
      sockets_.drain(until(next_wake), result_.sources);
    }
    result_.sending_time = last_send - start_;
    result_.stopped_early = stopped();

    const Clock::time_point listen_until = Clock::now() + config_.listen_after;
    while (Clock::now() < listen_until && !stopped()) sockets_.drain(until(listen_until), result_.sources);

    const rusage cpu_after = thread_usage();
    result_.cpu_user_s = seconds(cpu_after.ru_utime) - seconds(cpu_before.ru_utime);
    result_.cpu_system_s = seconds(cpu_after.ru_stime) - seconds(cpu_before.ru_stime);
    return std::move(result_);
  }

 private:
  bool stopped() const { return config_.stop != nullptr && config_.stop->load() != 0; }

  void send_attempt(std::uint64_t attempt, Clock::time_point now) {
    const Slot slot = slot_of(attempt, sockets_.size(), config_.mix.size());
    const Kind kind = config_.mix[slot.kind_index];
    // ENet only echoes the sent time; any clock will do.
    const auto sent_time =
        static_cast<std::uint16_t>(std::chrono::duration_cast<std::chrono::milliseconds>(now - start_).count());
    const std::vector<std::uint8_t> datagram = make_datagram(kind, rng_, sent_time);
    if (!sockets_.send(slot.source, config_.target, datagram)) {
      ++result_.send_errors;
      return;
    }
    result_.sent_by_kind[index_of(kind)].add(datagram.size());
    result_.sources[slot.source].sent.add(datagram.size());
  }

  const AttackConfig& config_;
  const SourceSockets& sockets_;
  Rng rng_;
  Clock::time_point start_;
  AttackResult result_;
};

}  // namespace

Result<AttackResult> run_attack(const AttackConfig& config) {
  if (config.mix.empty() || config.sources == 0 || !(config.rate > 0.0)) {
    return Error{ErrorCode::kInvalidArgument, "an attack needs a rate, sources and at least one kind"};
  }
  const std::uint64_t last_source = std::uint64_t{config.first_source} + config.sources - 1;
  if (!is_loopback(config.target.address) || !is_loopback(config.first_source) ||
      last_source > (kLoopbackNet | ~kLoopbackMask)) {
    return Error{ErrorCode::kInvalidArgument, "targets and sources must be loopback addresses (127.0.0.0/8)"};
  }
  auto sockets = SourceSockets::open(config.first_source, config.sources);
  if (!sockets) return sockets.error();
  return Attack(config, **sockets).run();
}

}  // namespace tickwire::spoof
