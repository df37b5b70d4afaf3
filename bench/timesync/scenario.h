#pragma once
// One benchmark run: a server tick loop and clients over SimNetwork with
// stepped time, one provider on one profile, and the figures the issue
// defines (docs/time.md, "Measuring").
//
// What the harness models, and nothing more:
// - the server runs its ticks from a TimeSystem, services the network every
//   millisecond (a server that wakes on packets, to the millisecond) and
//   sends each client a snapshot after every tick with its timing and the
//   InputArrivalTracker's feedback;
// - an input for tick T counts as on time when any copy arrived before the
//   server ran T; each input packet carries the newest `redundancy` inputs;
// - each client renders at frame_rate on its own clock (which may drift),
//   polls the network once per frame, runs the ticks its TimeSystem hands
//   out and sends one input packet per tick; until the time system starts
//   it sends keep-alives so that round trips can be measured.

#include <cstdint>
#include <optional>
#include <string>

#include "profiles.h"

namespace tickwire::bench {

enum class ProviderKind : std::uint8_t { kAdaptive, kRfc, kRttHalfSlack, kOneShot };
const char* to_string(ProviderKind kind);

struct RunConfig {
  Duration length = Duration::seconds(600);
  std::uint32_t tick_rate = 60;
  double frame_rate = 144;
  std::uint32_t clients = 4;
  std::uint32_t redundancy = 3;
  std::uint64_t seed = 1;
  // Figures that need the estimates settled (offset error, hard resets,
  // scale sign changes) start this long after each client's time started.
  Duration convergence = Duration::seconds(2);
  // When set, client 0's timelines are written here as CSV every 100 ms.
  std::string trace_path;
  // When set, overrides the adaptive provider's target late rate.
  std::optional<double> adaptive_late_rate;
};

struct RunResult {
  std::string provider;
  std::string profile;
  std::uint64_t inputs = 0;  // client ticks the server reached
  std::uint64_t on_time = 0;
  std::uint64_t reached = 0;  // inputs of which any copy arrived at all, late or not
  double on_time_rate = 0;
  double reachable_rate = 0;  // the ceiling no lead can beat
  double mean_excess_lead_ms = 0;
  double p99_excess_lead_ms = 0;
  double interp_delay_ms_p50 = 0;
  double starved_frame_rate = 0;
  std::uint64_t hard_resets = 0;  // after convergence
  std::uint64_t hard_resets_total = 0;
  double scale_sign_changes_per_min = 0;  // both timelines
  double predicted_sign_changes_per_min = 0;
  double interpolation_sign_changes_per_min = 0;
  double offset_error_ms_p99 = 0;   // of |estimate - truth|
  double offset_error_ms_mean = 0;  // signed
  double wall_seconds = 0;
};

RunResult run_scenario(const BenchProfile& profile, ProviderKind provider, const RunConfig& config);

}  // namespace tickwire::bench
