#pragma once
// Seeds for randomized tests: TICKWIRE_SEED reproduces a run, otherwise a
// fresh one. Always printed, so a failure can be replayed.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>

namespace tickwire::testing {

inline std::uint64_t test_seed(const char* test_name) {
  std::uint64_t seed = 0;
  if (const char* env = std::getenv("TICKWIRE_SEED")) {
    try {
      std::size_t used = 0;
      seed = std::stoull(env, &used);
      if (env[used] != '\0') throw std::invalid_argument("trailing characters");
    } catch (const std::exception&) {
      std::fprintf(stderr, "TICKWIRE_SEED=%s is not a whole number\n", env);
      std::abort();
    }
  } else {
    seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  }
  std::printf("%s: seed %llu (set TICKWIRE_SEED to repeat)\n", test_name, static_cast<unsigned long long>(seed));
  return seed;
}

}  // namespace tickwire::testing
