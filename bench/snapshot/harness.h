#pragma once
// Runs one scene for one client over SimNetwork: the server ticks the
// scene, captures the world and sends each snapshot after a core packet
// header; the client decodes it and acknowledges the newest snapshot tick
// in every input packet (60 per second), as the client runtime will.

#include <cstdint>
#include <string>

#include "scene.h"
#include "tickwire/snapshot/sender.h"

namespace tickwire::bench {

struct RunOptions {
  double loss = 0.0;       // each way
  double seconds = 120.0;  // simulated
  std::uint64_t seed = 1;
  snapshot::SenderConfig sender;  // tick_rate is taken from the scene
  bool unlimited = false;         // lift the payload limit (to measure compression alone)
};

struct RunResult {
  std::string scene;
  double loss = 0;
  std::uint32_t send_hz = 0;
  double payload_kbps = 0;
  double wire_kbps = 0;
  double snapshot_wire_kbps = 0;  // snapshot datagrams only (no transport pings)
  std::size_t bytes_p50 = 0;
  std::size_t bytes_max = 0;
  double encode_us = 0;          // per client per snapshot
  double decode_us = 0;          // per decoded snapshot
  double capture_us = 0;         // per captured tick, shared by all clients
  double mean_baseline_age = 0;  // ticks, over snapshots that had one
  std::uint64_t snapshots = 0;
  std::uint64_t full_snapshots = 0;
  std::uint64_t decoded = 0;
  std::uint64_t dropped = 0;
  std::uint64_t mismatches = 0;  // decoded states that differ from what the server recorded
  std::uint64_t deferred = 0;    // entity updates left for a later packet by the budget
};

RunResult run_scene(Scene& scene, const RunOptions& options);

}  // namespace tickwire::bench
