#pragma once
// One run of the prediction benchmark: a pitch match on the real server and
// client runtimes over a simulated network, every client's computer player
// chasing the ball (so players meet, push one another and fight for the
// ball nobody owns), with one set of prediction options. Everything but
// the client CPU time is deterministic for a seed.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tickwire/core/time.h"
#include "tickwire/prediction/correction_cause.h"
#include "tickwire/transport/link_profiles.h"

namespace tickwire::bench {

// The prediction options one run sets on every client.
struct Variant {
  std::string name;
  std::string description;
  Duration switch_blend;  // ClientConfig::prediction_switch_blend
  bool predict_remote_players = false;
  bool smoothing = true;  // DrawOptions::smoothing
};

// The runtime's defaults, then each option turned the other way.
std::vector<Variant> builtin_variants();

struct MatchConfig {
  transport::LinkProfile profile;
  Variant variant;
  std::uint32_t clients = 8;
  Duration length = Duration::seconds(60);  // measured, after the warm-up
  Duration warmup = Duration::seconds(3);   // connecting and settling the clocks
  std::uint64_t seed = 1;
};

inline constexpr std::uint32_t kTickRate = 60;
inline constexpr std::uint32_t kSendRate = 30;  // the server's shipped default
inline constexpr std::uint32_t kFrameRate = 60;

// Rates are per client and per minute of measured play, summed over the
// clients and divided by their number.
struct MatchFigures {
  std::string profile;
  std::string variant;
  std::uint64_t seed = 0;
  std::uint32_t clients = 0;
  std::uint32_t connected = 0;        // clients still connected at the end
  double minutes = 0;                 // measured play per client
  double mispredictions_per_min = 0;  // snapshots that corrected anything
  double rollbacks_per_min = 0;
  // Corrected entities by cause (prediction::CorrectionCause order).
  std::array<double, prediction::kCorrectionCauses> by_cause_per_min{};
  std::uint64_t corrections_drawn = 0;
  double correction_p50 = 0;  // metres: the median client's p50
  double correction_p99 = 0;  // metres: the worst client's p99
  std::uint64_t visual_pops = 0;
  std::uint64_t frames_drawn = 0;
  double visual_pops_per_min = 0;
  // The benchmark's own count from the drawn views (drawn_steps.h), and the
  // largest step beyond what a velocity explains that any client drew.
  std::uint64_t harness_pops = 0;
  std::uint64_t harness_ball_pops = 0;  // of those, the ball's
  // Of all: within 250 ms of a switch of timeline, else by the timeline.
  std::uint64_t harness_pops_after_switch = 0;
  std::uint64_t harness_pops_predicted = 0;
  std::uint64_t harness_pops_interpolated = 0;
  double harness_pops_per_min = 0;
  double largest_excess_m = 0;
  // Wall time of Client::update per frame, every client's measured frames.
  double update_p50_us = 0;
  double update_p99_us = 0;
  // The same frames in the thread's CPU time (what other processes on a
  // shared host took in between left out).
  double update_cpu_p50_us = 0;
  double update_cpu_p99_us = 0;
  std::uint64_t frames_timed = 0;
  std::uint64_t hard_resets = 0;
  std::int32_t goals = 0;
};

MatchFigures run_match(const MatchConfig& config);

}  // namespace tickwire::bench
