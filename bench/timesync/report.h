#pragma once
// The benchmark's output: the verdict on our provider, the table and the
// JSON, all from the same results.

#include <string>
#include <vector>

#include "scenario.h"

namespace tickwire::bench {

// A baseline dominates ours on a (profile, snapshot rate) when it has at
// least this many more points of inputs on time and at least this much less
// mean excess lead: better on both counts by more than noise.
inline constexpr double kDominanceOnTimePoints = 0.05;
inline constexpr double kDominanceExcessLeadMs = 2.0;

// Whether `a` dominates `b` (runs on the same link at the same rate) by
// the margins above.
bool dominates(const RunResult& a, const RunResult& b);

// Sets dominated_by on the adaptive results of `group` (the runs of one
// profile at one snapshot rate): the baselines in it that dominate.
void judge(std::vector<RunResult>& group);

void print_table_header();
void print_row(const RunResult& r);

struct RunConditions {
  double minutes = 0;
  std::uint32_t clients = 0;
  std::uint64_t seed = 0;
  std::uint32_t tick_rate = 0;
  std::vector<std::uint32_t> send_rates;
  double frame_rate = 0;
  std::string redundancy;
};

// One line saying what every run shares.
std::string describe(const RunConditions& c);

bool write_json(const std::string& path, const std::vector<RunResult>& results, const RunConditions& c);

}  // namespace tickwire::bench
