#pragma once
// When each attempt is sent and from where. Attempt k (counting from 1) is
// due k / rate seconds after the start, so sends are spread evenly; the
// sender asks how many are due by now and sends the difference, which
// catches up after a late wake-up without drifting.

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace tickwire::spoof {

// The sender wakes this often and sends what is due in one batch: at
// 10,000/s that is ten datagrams per wake-up instead of one wake-up each.
inline constexpr std::chrono::milliseconds kBatchInterval{1};

// Attempts in a run of `duration_s` seconds at `rate` per second.
std::uint64_t total_attempts(double rate, double duration_s);

// Attempts due by `elapsed`, never more than `total`.
std::uint64_t attempts_due(double rate, std::chrono::nanoseconds elapsed, std::uint64_t total);

// Attempt i comes from source i mod N. Each source steps through the mix on
// its own, starting one kind further than the source before it, so every
// source sends every kind and each round of N attempts keeps the mix even.
struct Slot {
  std::size_t source = 0;
  std::size_t kind_index = 0;  // into the mix
};
Slot slot_of(std::uint64_t attempt, std::size_t sources, std::size_t mix_size);

}  // namespace tickwire::spoof
