#pragma once
// The impairment model of one direction of a network path: given a datagram
// and the time it is sent, decides whether it arrives, when, and whether a
// copy follows. SimNetwork runs one per direction between two addresses,
// and the tickwire-netsim relay runs the same model over real UDP, so a
// profile means the same thing in a deterministic test and on the wire.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "tickwire/core/time.h"
#include "tickwire/transport/link_conditions.h"
#include "tickwire/transport/sim_network.h"

namespace tickwire::transport {

// xoshiro256** seeded through splitmix64. Our own, rather than <random>
// distributions, because those may give different values on another
// standard library, and a seed must replay the same run everywhere.
class SimRng {
 public:
  explicit SimRng(std::uint64_t seed);
  std::uint64_t next();
  double uniform();       // [0, 1), from the top 53 bits
  bool chance(double p);  // draws nothing when p <= 0 or p >= 1

 private:
  std::array<std::uint64_t, 4> s_{};
};

struct LinkVerdict {
  SimFate fate = SimFate::kDelivered;
  Time deliver;
  bool reordered = false;
  std::optional<Time> copy;  // delivery time of a duplicate
};

// One direction between two addresses: decides each datagram's fate at send
// time and keeps the state that spans datagrams (burst state, bandwidth
// queue, FIFO order) and the counters.
class SimLink {
 public:
  // Bounds memory when a receiver stops polling.
  static constexpr std::size_t kMaxInFlight = 16384;

  LinkVerdict admit(const LinkConditions& conditions, SimRng& rng, Time now, std::size_t size);
  // For drops decided by the network rather than the conditions.
  void count_drop(SimFate fate, std::size_t size);
  void on_delivered(Time sent, Time deliver, std::size_t size);
  void on_discarded() { --in_flight_; }

  const SimLinkStats& stats() const { return stats_; }
  std::optional<LinkConditions> conditions;  // empty: the network default

 private:
  // The delay of a datagram sent at `now`: latency, the rise and flap
  // schedules (timed from the first datagram), jitter and spikes.
  Duration draw_delay(const LinkConditions& conditions, SimRng& rng, Time now);

  SimLinkStats stats_;
  bool bad_state_ = false;
  Time busy_until_;
  Time fifo_tail_;
  std::optional<Time> started_;  // the first datagram's send time
  std::size_t in_flight_ = 0;
};

}  // namespace tickwire::transport
