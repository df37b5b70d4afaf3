#pragma once
// A match of shooters on the simulated network, for bench_hit_registration
// and its sim test: a server hosting the arena and shooter clients (the
// bots' shooter and shooter_miss scripts, each a full client runtime),
// deterministic for a seed. Every shot is scored as the bots score it
// (tools/bots/shooting.h).

#include <cstddef>
#include <cstdint>

#include "shooting.h"
#include "tickwire/core/time.h"
#include "tickwire/transport/link_profiles.h"

namespace tickwire::bench {

struct ShootingOutcome {
  bots::ShotFigures on;   // the shooter script's shots
  bots::ShotFigures off;  // the shooter_miss script's shots
  std::uint64_t replaced = 0;
  std::uint64_t clamped = 0;
  std::uint64_t decisions = 0;
  double rtt_ms = 0;
  double view_behind_ms = 0;  // lead plus interpolation delay, mean over shooters
};

// `shooters` clients on `link` (half shooter, half shooter_miss) for
// `seconds` of simulated time, the server's rewind window `window` (0: no
// compensation).
ShootingOutcome run_shooting_match(const transport::LinkProfile& link, Duration window, double seconds,
                                   std::size_t shooters, std::uint64_t seed);

}  // namespace tickwire::bench
