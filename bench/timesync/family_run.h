#pragma once
// bench_timesync --random-links: every provider on every link of a random
// family, links run in parallel, the rows printed in link order and the
// family's report (family.h) at the end.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "family.h"
#include "providers.h"
#include "random_links.h"
#include "scenario.h"

namespace tickwire::bench {

struct FamilyRunSettings {
  std::vector<RandomLinkId> links;
  std::string which;  // how the report names the set of links
  // Every run's settings but its link, length, snapshot rate and seed.
  RunConfig run;
  double seconds_per_link = 120;
  std::vector<std::uint32_t> send_rates;
  std::vector<ProviderKind> providers;
  CostPrices prices;
  unsigned threads = 1;
  std::optional<std::string> json;
};

// Returns the process's exit code.
int run_family(const FamilyRunSettings& s);

}  // namespace tickwire::bench
