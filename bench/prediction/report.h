#pragma once
// The prediction benchmark's table and JSON.

#include <cstdint>
#include <string>
#include <vector>

#include "match.h"

namespace tickwire::bench {

struct RunSettings {
  std::uint64_t seed = 0;  // the base seed; each profile's derives from it
  std::uint32_t clients = 0;
  double seconds = 0;         // measured per run
  double warmup_seconds = 0;  // before it
  std::string cpu;            // this host's, for the CPU columns
  std::vector<Variant> variants;
};

// "model name" from /proc/cpuinfo and the CPUs this process may use.
std::string describe_host_cpu();

void print_preamble(const RunSettings& settings);
void print_header();
void print_row(const MatchFigures& f);
// What the columns mean, after the table.
void print_legend();

bool write_json(const std::string& path, const RunSettings& settings, const std::vector<MatchFigures>& runs);

}  // namespace tickwire::bench
