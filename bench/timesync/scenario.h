#pragma once
// One benchmark run: a server tick loop and clients over SimNetwork with
// stepped time, one provider on one profile at one snapshot rate, and the
// figures docs/time-measurements.md defines.
//
// What the harness models, and nothing more:
// - the server runs its ticks from a TimeSystem, services the network every
//   millisecond (a server that wakes on packets, to the millisecond) and,
//   every tick_rate / send_rate ticks, sends each client a snapshot with its
//   timing, the InputArrivalTracker's feedback and Netcode for Entities'
//   command age (which only the n4e provider reads);
// - an input for tick T counts as on time when any copy arrived before the
//   server ran T; each input packet carries the newest inputs, as many as
//   the redundancy policy says (redundancy.h);
// - each client renders at frame_rate on its own clock (which may drift),
//   polls the network once per frame, runs the ticks its TimeSystem hands
//   out and sends one input packet per tick; until the time system starts
//   it sends keep-alives so that round trips can be measured.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "profiles.h"
#include "providers.h"
#include "redundancy.h"

namespace tickwire::bench {

// The share of a second's inputs that, late, make it a late-burst second
// (timesync::InputMarginConfig's default).
inline constexpr double kLateBurstFraction = 0.01;

struct RunConfig {
  Duration length = Duration::seconds(600);
  std::uint32_t tick_rate = 60;
  // Snapshots per second; must divide tick_rate.
  std::uint32_t send_rate = 60;
  double frame_rate = 144;
  std::uint32_t clients = 4;
  RedundancySetting redundancy;
  std::uint64_t seed = 1;
  // Figures that need the estimates settled (offset error, hard resets,
  // scale sign changes) start this long after each client's time started.
  Duration convergence = Duration::seconds(2);
  // When set, client 0's timelines are written here as CSV every 100 ms.
  std::string trace_path;
  // When set, overrides the adaptive provider's target late rate.
  std::optional<double> adaptive_late_rate;
  std::optional<double> adaptive_late_event_cost_ms;
  bool adaptive_hold = true;
};

struct RunResult {
  std::string provider;
  std::string profile;
  std::uint32_t send_hz = 0;
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
  // Seconds (of true time, per client, summed over the clients) in which
  // more than kLateBurstFraction of the inputs sent were not on time, as
  // the runtime's InputMarginMonitor counts them; and the seconds in which
  // any input was sent.
  std::uint64_t late_burst_seconds = 0;
  std::uint64_t input_seconds = 0;
  double wall_seconds = 0;
  // The adaptive provider's verdict (report.h); empty for the others.
  std::optional<std::vector<std::string>> dominated_by;
};

// Throws std::invalid_argument for a send rate that does not divide the
// tick rate.
RunResult run_scenario(const BenchProfile& profile, ProviderKind provider, const RunConfig& config);

}  // namespace tickwire::bench
