#pragma once
// An in-memory network for deterministic tests. Endpoints are Transports
// that talk through simulated links with configurable impairments; time
// moves only as the caller passes it in, and every random draw comes from
// one seeded generator at send time, so the same seed and the same calls
// give the same run, datagram for datagram.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "tickwire/core/time.h"
#include "tickwire/transport/address.h"
#include "tickwire/transport/link_conditions.h"
#include "tickwire/transport/transport.h"

namespace tickwire::transport {

struct SimEndpointConfig {
  // Connections this endpoint holds at once, outgoing ones included; a
  // connect request beyond it is refused with kServerFull, and connect()
  // beyond it fails with kInvalidArgument.
  std::size_t max_peers = 64;
  TransportLimits limits;
  Duration timeout = Duration::seconds(5);          // silence before kTimeout
  Duration ping_interval = Duration::millis(250);   // keep-alive and RTT probe
  Duration connect_timeout = Duration::seconds(5);  // then kConnectFailed
  // Reliable messages queued or unacknowledged per peer; a reliable send
  // past either bound fails with kTooLarge, which keeps a dead or slow peer
  // from growing memory without limit.
  std::size_t max_reliable_backlog_messages = 1024;
  std::size_t max_reliable_backlog_bytes = 1024 * 1024;
};

// Counters of one direction of one link. Drops are counted at send time,
// deliveries when the receiving endpoint polls.
struct SimLinkStats {
  std::uint64_t sent = 0;          // datagrams handed to the link
  std::uint64_t delivered = 0;     // copies received, duplicates included
  std::uint64_t dropped_loss = 0;  // random or burst loss
  std::uint64_t dropped_mtu = 0;
  std::uint64_t dropped_queue = 0;     // bandwidth queue full
  std::uint64_t dropped_overflow = 0;  // in-flight cap of the link
  std::uint64_t dropped_severed = 0;
  std::uint64_t dropped_unreachable = 0;  // no endpoint at the address
  std::uint64_t duplicated = 0;
  std::uint64_t reordered = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_delivered = 0;
  Duration total_delay;  // sum of (delivery - send) over delivered copies
};

enum class SimFate : std::uint8_t {
  kDelivered,  // scheduled for delivery
  kLost,
  kTooBig,     // over the MTU
  kQueueFull,  // bandwidth queue full
  kOverflow,   // in-flight cap of the link
  kSevered,
  kUnreachable,
};

// One datagram (or duplicate copy) as the network decided its fate at send time.
struct TraceEntry {
  Time sent;
  std::optional<Time> delivered;  // scheduled delivery time; empty when dropped
  Address from;
  Address to;
  std::size_t size = 0;
  SimFate fate = SimFate::kDelivered;
  bool duplicate = false;  // the extra copy made by the link
  bool reordered = false;
  bool operator==(const TraceEntry&) const = default;
};

class SimEndpoint;

// The network must outlive its endpoints: each holds a pointer to it and
// unregisters its address on destruction. (Destroying the network first
// detaches the survivors, which then behave as if unplugged, rather than
// dangle.) Destroying an endpoint sends nothing: its peers time out, as
// after a crash.
class SimNetwork {
 public:
  explicit SimNetwork(std::uint64_t seed);
  ~SimNetwork();
  SimNetwork(const SimNetwork&) = delete;
  SimNetwork& operator=(const SimNetwork&) = delete;

  // An endpoint keeps the Transport promises over its links:
  // - connect() sends a request every 200 ms until an accept (or any other
  //   datagram of that connection) arrives, or until connect_timeout, which
  //   raises kDisconnected with kConnectFailed.
  // - Unreliable payloads travel as one datagram each, as is.
  // - Reliable messages are cut into fragments no larger than
  //   limits.max_unreliable_payload, so they meet the same MTU as unreliable
  //   datagrams, and are retransmitted until acknowledged: they arrive
  //   complete, in order and once, whatever the link loses, duplicates or
  //   reorders.
  // - Pings every ping_interval, busy or idle, feed stats(): rtt is a
  //   smoothed RTT, packet_loss the round-trip loss of the last 64 pings.
  // - disconnect() sends three unacknowledged copies of the reason.
  // Throws std::invalid_argument if the address is taken or the config is
  // unusable (non-positive intervals, limits that need over 65535 fragments).
  std::unique_ptr<Transport> create_endpoint(const Address& address, SimEndpointConfig config = {});

  // Conditions of one direction; links not set follow the default. Both
  // throw std::invalid_argument when conditions.validate() fails.
  void set_link(const Address& from, const Address& to, const LinkConditions& conditions);
  void set_default_link(const LinkConditions& conditions);
  const LinkConditions& link(const Address& from, const Address& to) const;

  // Runs `change` once, at the first endpoint call (poll, send, connect,
  // disconnect, flush) whose time is >= at; changes due together run in
  // the order they were scheduled.
  void schedule(Time at, std::function<void(SimNetwork&)> change);

  // Drops every datagram sent between a and b, both ways, until restore();
  // datagrams already in flight still arrive.
  void sever(const Address& a, const Address& b);
  void restore(const Address& a, const Address& b);
  bool is_severed(const Address& a, const Address& b) const;

  SimLinkStats stats(const Address& from, const Address& to) const;

  // Appends one entry per datagram sent from now on; nullptr stops it. The
  // vector must outlive the tracing.
  void set_trace(std::vector<TraceEntry>* trace);

 private:
  friend class SimEndpoint;
  struct State;

  struct Datagram {
    Address from;
    std::vector<std::uint8_t> bytes;
  };

  void unregister_endpoint(const Address& address);
  void advance(Time now);
  void transmit(const Address& from, const Address& to, std::vector<std::uint8_t> bytes, Time now);
  std::optional<Datagram> take_due(const Address& to, Time now);
  std::uint32_t next_session();

  std::unique_ptr<State> state_;
};

}  // namespace tickwire::transport
