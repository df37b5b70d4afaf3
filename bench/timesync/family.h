#pragma once
// The report over a family of random links (random_links.h): for each
// provider and snapshot rate, how its figures spread across the links, how
// often another provider dominates it, and the links where ours does worst.
// docs/time-measurements.md ("Random links") defines the figures.

#include <cstdint>
#include <string>
#include <vector>

#include "random_links.h"
#include "scenario.h"

namespace tickwire::bench {

// The player-facing cost of a run, in milliseconds of input latency:
//   mean excess lead
//   + late_input_ms x (share of inputs not on time)
//   + late_burst_second_ms x (share of seconds that were late bursts).
// A late input is one the server had to guess, a misprediction the player
// sees; a late-burst second is a visible stutter, charged on every input of
// that second.
struct CostPrices {
  double late_input_ms = 100;
  double late_burst_second_ms = 100;
};

double player_cost_ms(const RunResult& r, const CostPrices& prices);

// Late-burst seconds per client-minute of inputs.
double late_burst_per_minute(const RunResult& r);

struct LinkOutcome {
  RandomLinkId id;
  std::string description;
  std::vector<RunResult> runs;  // every provider at every snapshot rate
};

struct FamilyConditions {
  std::string which;  // the links, as "r1:0..r1:199" or a list
  double seconds_per_link = 0;
  std::uint32_t clients = 0;
  std::vector<std::uint32_t> send_rates;
  std::vector<std::string> providers;  // in table order
  CostPrices prices;
  unsigned threads = 1;
};

// The distribution table, the dominance and 99.5% shares, the targets of
// our provider and its ten worst links, on stdout.
void print_family(const std::vector<LinkOutcome>& links, const FamilyConditions& c);

bool write_family_json(const std::string& path, const std::vector<LinkOutcome>& links, const FamilyConditions& c);

}  // namespace tickwire::bench
