#pragma once
// A session attacker's state (evil_session.cpp), apart from evil.h so that
// the bots' public surface does not carry raw sockets.

#include <cstdint>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "raw_ip.h"

namespace tickwire::bots {

struct SessionSpoofer {
  explicit SessionSpoofer(spoof::RawSender raw, std::uint64_t seed) : sender(std::move(raw)), rng(seed) {}
  spoof::RawSender sender;
  std::optional<spoof::RawSniffer> sniffer;  // replay only
  std::mt19937_64 rng;
  std::optional<spoof::Ipv4Endpoint> server;
  std::optional<spoof::Ipv4Endpoint> victim;
  std::uint64_t sent = 0;
  std::vector<std::uint8_t> captured;  // replay: the victim's largest datagram seen
};

}  // namespace tickwire::bots
