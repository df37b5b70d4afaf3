#pragma once
// The attack itself: one UDP socket per forged source, bound to its own
// 127.x address, sending paced connect attempts to the target. A real
// spoofer never sees what the server sends to the addresses it forges;
// here the sockets stand in for those addresses' owners, never answer,
// and only count what arrives, so the run measures how much traffic the
// server would have reflected onto bystanders.

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "datagrams.h"
#include "options.h"
#include "tickwire/core/result.h"

namespace tickwire::spoof {

struct AttackConfig {
  Ipv4Endpoint target;
  double rate = 10000.0;
  std::size_t sources = 256;
  std::uint32_t first_source = kFirstSource;
  double duration_s = 10.0;
  std::vector<Kind> mix{kAllKinds.begin(), kAllKinds.end()};
  std::uint64_t seed = 1;
  // Answers can come late (ENet retransmits its reply to a CONNECT), so
  // the sockets are still read this long after the last send.
  std::chrono::milliseconds listen_after{1000};
  // Nonzero ends the run early (set from a signal handler); it still reports.
  const std::atomic<int>* stop = nullptr;
};

struct Counter {
  std::uint64_t packets = 0;
  std::uint64_t bytes = 0;
  void add(std::size_t size) {
    ++packets;
    bytes += size;
  }
};

struct SourceCounters {
  Ipv4Endpoint endpoint;  // the forged address and the ephemeral port it got
  Counter sent;
  Counter received;
};

struct AttackResult {
  std::array<Counter, kKindCount> sent_by_kind{};  // indexed by index_of(kind)
  std::uint64_t attempts = 0;                      // scheduled, sent or not
  std::uint64_t send_errors = 0;                   // refused by the kernel (full buffers)
  std::vector<SourceCounters> sources;
  std::chrono::nanoseconds sending_time{0};  // from the start to the last send
  bool stopped_early = false;
  double cpu_user_s = 0.0;  // of the attacking thread, listening included
  double cpu_system_s = 0.0;
};

// Fails (kIo) when the sockets cannot be opened or bound, e.g. with too
// few file descriptors allowed; the soft limit is raised as far as needed.
Result<AttackResult> run_attack(const AttackConfig& config);

}  // namespace tickwire::spoof
