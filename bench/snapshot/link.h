#pragma once
// The two ends of the benchmark's one client connection and how time
// passes between them: a SimNetwork link stepped in virtual time, or two
// real ENet hosts on loopback in real time. Each also says what crossed
// its wire: SimNetwork's model of its datagrams, or the EnetTransports'
// counts at their sockets.

#include <cstdint>
#include <memory>

#include "tickwire/core/time.h"
#include "tickwire/transport/address.h"
#include "tickwire/transport/transport.h"

namespace tickwire::bench {

// Datagrams one side sent and their bytes with IP and UDP headers (28 per
// datagram), as a capture would count them less link-layer framing.
struct Traffic {
  std::uint64_t datagrams = 0;
  std::uint64_t bytes = 0;
  Traffic operator-(const Traffic& o) const { return {datagrams - o.datagrams, bytes - o.bytes}; }
};

class Link {
 public:
  virtual ~Link() = default;
  Link() = default;
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  virtual transport::Transport& server() = 0;
  virtual transport::Transport& client() = 0;
  virtual transport::Address server_address() const = 0;
  virtual Time now() = 0;
  // The next moment to run the loop at: SimNetwork's a millisecond on;
  // ENet's when traffic arrives or `until` comes, whichever is first.
  virtual Time advance(Time now, Time until) = 0;
  virtual Traffic sent_by_server() const = 0;
  virtual Traffic sent_by_client() const = 0;
  // "modelled" (SimNetwork) or "measured" (at the socket).
  virtual const char* wire_kind() const = 0;
};

struct SimLinkOptions {
  double loss = 0.0;  // each way
  std::uint64_t seed = 1;
  bool unlimited = false;         // no MTU, no payload limit
  std::uint32_t latency_ms = 25;  // one-way
};

// `latency_ms` one-way, 2 ms jitter, `loss` each way.
std::unique_ptr<Link> make_sim_link(const SimLinkOptions& options);
struct EnetLinkOptions {
  double loss = 0.0;  // each way, dropped at the receiving end after the socket
  std::uint64_t seed = 1;
};

// Server bound to 127.0.0.1 on a free port, client connecting to it, both
// with the transport's defaults (address validation, 250 ms pings, 1 s
// round-trip probes). Throws std::runtime_error when a socket cannot be
// opened.
std::unique_ptr<Link> make_enet_link(const EnetLinkOptions& options);

}  // namespace tickwire::bench
