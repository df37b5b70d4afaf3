#pragma once
// A Transport decorator that puts a simulated bad network in front of any
// other Transport, so one process can run many clients over real UDP, each
// through its own impaired path, without a relay. Each direction has its
// own LinkModel (SimLink) and its own seeded generator: the uplink decides
// the fate of each unreliable send, the downlink the fate of each
// unreliable datagram the inner transport hands up. The same
// LinkConditions mean the same thing here, in SimNetwork and in the
// tickwire-netsim relay.
//
// Only the unreliable channel is conditioned. Reliable messages pass
// straight through, because the inner transport (ENet) already retransmits
// them: dropping one here would only test our own wrapper, and delaying it
// could reorder it against the connection events that pass through too.
//
// Time is passed in: nothing reads a clock. A held datagram leaves (or is
// handed up) at the first call whose `now` has reached its delivery time,
// and what the inner transport received is stamped with the `now` of the
// call that took it. A caller that polls once per frame therefore sees
// delays rounded up to its frame; one that wants them finer calls
// service() between frames.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <unordered_set>
#include <vector>

#include "tickwire/core/peer_id.h"
#include "tickwire/core/result.h"
#include "tickwire/core/time.h"
#include "tickwire/transport/link_conditions.h"
#include "tickwire/transport/link_model.h"
#include "tickwire/transport/transport.h"

namespace tickwire::transport {

struct ConditionedConfig {
  LinkConditions up;    // what this side sends
  LinkConditions down;  // what this side receives
  std::uint64_t seed = 1;
};

class ConditionedTransport final : public Transport {
 public:
  // Throws std::invalid_argument for a null `inner` or conditions that
  // fail validate().
  ConditionedTransport(std::unique_ptr<Transport> inner, ConditionedConfig config);
  ~ConditionedTransport() override;

  Result<PeerId> connect(const Address& remote, Time now) override;
  // An unreliable send over the size limit fails with kTooLarge and one to
  // a peer not (or no longer) connected with kNotConnected, as the inner
  // transport would; a datagram the uplink drops still reports success,
  // as the wire would.
  Result<void> send(PeerId peer, Delivery delivery, std::span<const std::uint8_t> bytes, Time now) override;
  // Hands up what is due, in the order it became due: connection events
  // and reliable messages as they arrived, unreliable datagrams once the
  // downlink lets them through.
  std::optional<TransportEvent> poll(Time now) override;
  // To the inner transport, whose datagrams the events carry.
  void recycle(std::vector<std::uint8_t>&& buffer) override;
  // Sends the held datagrams whose time has come and takes in what the
  // inner transport received, stamped with `now`, without handing anything
  // up. poll() does this first; calling it between polls makes the delays
  // as fine as the calls.
  void service(Time now);
  // Sends what is due by `now`; datagrams still held by the uplink's delay
  // stay held.
  void flush(Time now) override;
  // Discards what is held for the peer in both directions.
  void disconnect(PeerId peer, DisconnectReason reason, Time now) override;
  // The inner transport's figures: what crossed the real wire.
  std::optional<PeerStats> stats(PeerId peer) const override;
  // The inner transport's socket: what the uplink let through, not what
  // it dropped.
  std::optional<WireStats> wire_stats() const override;
  std::optional<Address> local_address() const override;
  const TransportLimits& limits() const override;

  // Changes the conditions from now on, as a link conditioner panel does:
  // what each link already holds keeps the delivery time it was given, and
  // since the links stay first in, first out, a shorter latency takes
  // effect once the longer-held datagrams are out. Fails with
  // kInvalidArgument (the conditions unchanged) when either fails validate().
  Result<void> set_conditions(const LinkConditions& up, const LinkConditions& down);
  const LinkConditions& up_conditions() const { return config_.up; }
  const LinkConditions& down_conditions() const { return config_.down; }

  const SimLinkStats& uplink_stats() const { return up_.stats(); }
  const SimLinkStats& downlink_stats() const { return down_.stats(); }
  // Datagrams held back by the links right now, both directions.
  std::size_t held() const { return outgoing_.size() + incoming_.size(); }

 private:
  struct Held {
    Time at;
    std::uint64_t order = 0;  // ties keep the order they were admitted in
    Time sent;
    PeerId peer;
    std::vector<std::uint8_t> bytes;
    bool operator>(const Held& o) const { return at != o.at ? at > o.at : order > o.order; }
  };
  // A min-heap on (at, order), kept in a vector so a released datagram's
  // bytes can be moved out rather than copied.
  using HeldQueue = std::vector<Held>;

  void admit(SimLink& link, SimRng& rng, const LinkConditions& conditions, HeldQueue& queue, PeerId peer,
             std::span<const std::uint8_t> bytes, Time now);
  static std::optional<Held> pop_due(HeldQueue& queue, Time now);
  void release_outgoing(Time now);
  std::optional<TransportEvent> take_incoming(Time now);
  struct Arrival {
    Time at;
    std::uint64_t order = 0;
    TransportEvent event;
  };
  void forget(PeerId peer);
  static void drop_peer(HeldQueue& queue, SimLink& link, PeerId peer);

  std::unique_ptr<Transport> inner_;
  ConditionedConfig config_;
  SimRng up_rng_;
  SimRng down_rng_;
  SimLink up_;
  SimLink down_;
  HeldQueue outgoing_;
  HeldQueue incoming_;
  std::deque<Arrival> arrived_;  // events that pass unconditioned, oldest first
  std::uint64_t order_ = 0;
  std::unordered_set<PeerId> connected_;
};

}  // namespace tickwire::transport
