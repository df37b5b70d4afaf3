#pragma once
// What every fuzz target shares. A target's LLVMFuzzerTestOneInput is
// compiled twice: into a libFuzzer binary here and into a plain gtest that
// replays the checked-in seeds and regression inputs (tests/fuzz_regressions).
// A broken invariant has to stop both the same way, with a message that
// names it, so it aborts rather than throwing (a target must never throw:
// an exception escaping is itself a finding).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "tickwire/core/bit_stream.h"

#define TICKWIRE_FUZZ_CHECK(condition)                                                \
  do {                                                                                \
    if (!(condition)) ::tickwire::fuzz::check_failed(#condition, __FILE__, __LINE__); \
  } while (false)

namespace tickwire::fuzz {

[[noreturn]] inline void check_failed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "fuzz invariant broken at %s:%d: %s\n", file, line, condition);
  std::fflush(stderr);
  std::abort();
}

// True when `written` holds exactly the first `bits` bits of `input`: a
// decoder that only accepts canonical encodings must re-encode what it read
// bit for bit, or two different inputs decode to one value.
inline bool same_bits(std::span<const std::uint8_t> input, std::span<const std::uint8_t> written, std::size_t bits) {
  if (written.size() != (bits + 7) / 8 || input.size() < written.size()) return false;
  const std::size_t whole = bits / 8;
  for (std::size_t i = 0; i < whole; ++i) {
    if (input[i] != written[i]) return false;
  }
  const std::size_t rest = bits % 8;
  if (rest == 0) return true;
  const auto mask = static_cast<std::uint8_t>((1U << rest) - 1U);
  return (input[whole] & mask) == written[whole];
}

}  // namespace tickwire::fuzz
