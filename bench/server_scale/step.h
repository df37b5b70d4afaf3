#pragma once
// One step of the benchmark: a server and two bots processes at one bot
// count, measured over a window after the bots have connected and settled.

#include <atomic>
#include <optional>
#include <string>

#include "figures.h"

namespace tickwire::bench {

struct StepConfig {
  std::string server_bin;
  std::string bots_bin;
  std::uint16_t port = 27960;
  double seconds = 30;  // the measurement window
  double ramp = 2;      // the bots connect over this long
  double settle = 3;    // and play this long more before the window opens
  std::optional<int> server_cpu;
  std::optional<int> bots_cpu;
  std::uint64_t seed = 1;
  // Thin bots (tickwire-bots --thin: the whole protocol, no prediction or
  // interpolation) keep the load generator off the critical path; full
  // bots cost several times the CPU per frame.
  bool thin_bots = true;
  // Snapshots per second to each client: the targets are set at
  // 60 (every tick); the server ships 30.
  int send_rate = 60;
  // Ticks of input per bot input packet (tickwire-bots --input-interval);
  // 1, every tick, is what clients do unless told otherwise.
  int input_interval = 1;
  // A snapshot codebook file given to the server and the bots; empty: the
  // one the arena ships (the shared path), unless adaptive_models.
  std::string codebook;
  bool adaptive_models = false;  // both run with --adaptive-models
  // A named link profile (transport/link_profiles.h) every bot's traffic
  // crosses, shaped inside the bots process; empty: loopback as it is.
  std::string link_profile;
  std::string work_dir;  // logs, stats and reports of every step
};

// Runs the step; `stop` set by a signal ends it early with an error. All
// children have ended when it returns.
StepFigures run_step(int bots, const StepConfig& config, const Targets& targets, const std::atomic<int>& stop);

}  // namespace tickwire::bench
