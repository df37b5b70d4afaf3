#pragma once
// Links drawn at random from a wide family, for judging time providers on
// shapes nobody designed them for (docs/time-measurements.md, "Random
// links"). Link `index` of family `seed` is the same whatever else is drawn
// and however long it runs: each of its parts has its own stream of random
// numbers, and changes over time are drawn in time order, so a longer run
// sees the same link for longer.

#include <cstdint>
#include <optional>
#include <string>

#include "profiles.h"

namespace tickwire::bench {

struct RandomLinkId {
  std::uint64_t family_seed = 1;
  std::uint32_t index = 0;
  // "r<seed>:<index>", the name the table, the JSON and --random-link use.
  std::string name() const;
  // The link's own seed: every draw of its shape and its runs' network
  // seed come from it.
  std::uint64_t link_seed() const;
};

// Parses "SEED:INDEX" (or the name, "rSEED:INDEX").
std::optional<RandomLinkId> parse_random_link(const std::string& text);

// The link, its changes drawn up to `length` into the run. Its description
// says in one line what was drawn.
BenchProfile draw_random_link(const RandomLinkId& id, Duration length);

}  // namespace tickwire::bench
