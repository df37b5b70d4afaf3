#pragma once

#include <spdlog/logger.h>

#include <cstdint>
#include <memory>
#include <string>

#include "tickwire/core/time.h"

namespace tickwire::server {

struct ServerConfig {
  std::uint32_t tick_rate = 60;  // simulation ticks per second
  std::uint32_t send_rate = 30;  // snapshots per second; must divide tick_rate
  std::size_t max_clients = 64;
  std::uint64_t schema_hash = 0;                      // the game's schema hash, part of the fingerprint
  Duration handshake_timeout = Duration::seconds(5);  // transport-connected but no Hello yet
  Duration client_timeout = Duration::seconds(5);     // nothing at all heard from a client
  // Most ticks one update() may run after a stall; further due ticks are
  // skipped (and counted) so a slow server cannot spiral.
  int max_catch_up_ticks = 8;
  // A client sending more undecodable packets than this within one
  // bad_packet_window is disconnected with kProtocolError.
  int max_bad_packets = 32;
  Duration bad_packet_window = Duration::seconds(10);
  std::shared_ptr<spdlog::logger> logger;  // none: logging off

  // Throws std::invalid_argument naming the first bad setting.
  void validate() const;
};

}  // namespace tickwire::server
