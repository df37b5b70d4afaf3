#include "family_run.h"

#include <cmath>
#include <cstdio>
#include <iostream>

#include "parallel.h"
#include "report.h"

namespace tickwire::bench {

namespace {

LinkOutcome run_link(const FamilyRunSettings& s, const RandomLinkId& id) {
  RunConfig config = s.run;
  config.length = Duration::micros(std::llround(s.seconds_per_link * 1e6));
  // The network's seed is the link's own: a link re-run alone runs the same.
  config.seed = id.link_seed();
  const BenchProfile profile = draw_random_link(id, config.length);
  LinkOutcome out{id, profile.description, {}};
  for (const std::uint32_t hz : s.send_rates) {
    config.send_rate = hz;
    std::vector<RunResult> group;
    for (const ProviderKind kind : s.providers) group.push_back(run_scenario(profile, kind, config));
    judge(group);
    out.runs.insert(out.runs.end(), group.begin(), group.end());
  }
  return out;
}

}  // namespace

int run_family(const FamilyRunSettings& s) {
  std::printf(
      "bench_timesync: random links, %.0f simulated seconds per link, %u clients, ticks at %u Hz, frames at "
      "%.0f Hz, %u thread%s (the figures do not depend on it)\n",
      s.seconds_per_link, s.run.clients, s.run.tick_rate, s.run.frame_rate, s.threads, s.threads == 1 ? "" : "s");
  print_table_header();
  std::vector<LinkOutcome> outcomes(s.links.size());
  run_in_order(
      s.links.size(), s.threads, [&](std::size_t i) { outcomes[i] = run_link(s, s.links[i]); },
      [&](std::size_t i) {
        for (const RunResult& r : outcomes[i].runs) print_row(r);
        std::printf("  (%s: link seed %llu; %s)\n", outcomes[i].id.name().c_str(),
                    static_cast<unsigned long long>(outcomes[i].id.link_seed()), outcomes[i].description.c_str());
      });

  FamilyConditions c;
  c.which = s.which;
  c.seconds_per_link = s.seconds_per_link;
  c.clients = s.run.clients;
  c.send_rates = s.send_rates;
  for (const ProviderKind kind : s.providers) c.providers.push_back(to_string(kind));
  c.prices = s.prices;
  c.threads = s.threads;
  print_family(outcomes, c);
  if (s.json && !write_family_json(*s.json, outcomes, c)) {
    std::cerr << "bench_timesync: cannot write " << *s.json << "\n";
    return 1;
  }
  return 0;
}

}  // namespace tickwire::bench
