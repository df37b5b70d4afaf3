#pragma once
// The server's memory as the allocator sees it, and giving freed memory
// back. A server under churn allocates for its peak of concurrent players;
// glibc keeps memory freed in the middle of its heap, so the resident set
// stays at the size of the largest crowd long after it left and creeps up
// with every new peak, which an operator cannot tell from a leak. Trimming
// every few seconds keeps the resident set near what is in use, and the
// heap figure shows what is in use whatever the allocator keeps.

#include <cstdint>

#include "tickwire/core/time.h"

namespace tickwire::host {

// This process's resident set in KiB, 0 when it cannot be read.
std::uint64_t resident_set_kb();

// Bytes the allocator has handed out and not had back, in KiB (mmapped
// blocks included); 0 where the C library cannot tell.
std::uint64_t heap_in_use_kb();

// Gives free heap pages back to the system at most once per interval.
class MemoryTrimmer {
 public:
  MemoryTrimmer(Duration interval, Time now) : interval_(interval), next_(now + interval) {}

  // True when the interval has passed (and the next one starts now).
  bool due(Time now) {
    if (now < next_) return false;
    next_ = now + interval_;
    return true;
  }
  // Returns free pages to the system (a no-op where the C library has no
  // way to). It walks the allocator's free lists, so it is called between
  // ticks, not during one.
  static void trim();

 private:
  Duration interval_;
  Time next_;
};

}  // namespace tickwire::host
