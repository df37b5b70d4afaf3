#pragma once
// Runs one scene for one client over a Link (link.h): the server ticks the
// scene, captures the world and sends each snapshot after a core packet
// header; the client decodes it and acknowledges the newest snapshot tick
// in every input packet (60 per second), as the client runtime will.

#include <cstdint>
#include <string>

#include "scene.h"
#include "tickwire/snapshot/codebook.h"
#include "tickwire/snapshot/sender.h"

namespace tickwire::bench {

enum class TransportKind : std::uint8_t {
  kSim,   // SimNetwork, virtual time: the wire is modelled
  kEnet,  // two EnetTransports on loopback, real time: the wire is measured at the sockets
};

struct RunOptions {
  TransportKind transport = TransportKind::kSim;
  double loss = 0.0;       // each way
  double seconds = 120.0;  // simulated, or real with ENet
  // Scene time run before the client connects, as fast as it computes,
  // to measure a later part of a scene that changes as it runs.
  double warmup_seconds = 0.0;
  std::uint64_t seed = 1;
  snapshot::SenderConfig sender;  // tick_rate is taken from the scene
  bool unlimited = false;         // lift the payload limit (to measure compression alone); SimNetwork only
  std::uint32_t latency_ms = 25;  // one-way; SimNetwork only
  // When set, every packet's models are added to it (to train a codebook).
  snapshot::CodebookTrainer* train = nullptr;
};

// One direction of the client's connection, averaged over the run.
struct Direction {
  double payload_kbps = 0;  // the game's bytes: snapshot payloads down, acks and inputs up
  double wire_kbps = 0;     // every datagram with its IP and UDP headers
  double datagrams_per_s = 0;
};

struct RunResult {
  std::string scene;
  std::string transport;  // "sim" or "enet"
  std::string wire;       // "modelled" or "measured"
  double loss = 0;
  std::uint32_t send_hz = 0;
  double seconds = 0;  // the measured span
  double warmup_seconds = 0;
  Direction down;  // server to client
  Direction up;    // client to server
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
  // Decoded states the sender kept no record of (a round trip longer than
  // the history: SenderStats::views_not_kept): not comparable. Every other
  // is compared with the sender's state as it was sent.
  std::uint64_t unverified = 0;
  std::uint64_t deferred = 0;  // entity updates left for a later packet by the budget
};

// Throws std::runtime_error when the link cannot be set up or connected,
// or when options ask the ENet link for what only SimNetwork can do.
RunResult run_scene(Scene& scene, const RunOptions& options);

}  // namespace tickwire::bench
