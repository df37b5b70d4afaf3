#pragma once
// The impairments of one direction of a network path, as plain data, so the
// in-memory SimNetwork and a UDP relay can apply the same profile. The
// defaults describe a perfect wire with a 1400-byte MTU: every impairment is
// off until a field turns it on.

#include <cstddef>
#include <cstdint>

#include "tickwire/core/result.h"
#include "tickwire/core/time.h"

namespace tickwire::transport {

struct LinkConditions {
  // One-way base delay, counted from the moment the datagram has finished
  // serializing onto the wire (see bandwidth below).
  Duration latency = Duration::zero();

  // Delay variation: each datagram gets latency + jitter * (u1 + u2 - 1) for
  // two independent uniform draws, a triangular distribution on
  // [latency - jitter, latency + jitter] with mean `latency` and standard
  // deviation jitter / sqrt(6). Bounded on purpose, so a test can state the
  // worst case. Delays below zero are clamped to zero: keep jitter <= latency
  // for the mean to hold.
  // Jitter alone never reorders: like a router queue, a link never delivers
  // a datagram before one sent earlier on it, so a burst sent faster than
  // the jitter spread sees a slightly higher mean. Only `reorder` (and the
  // late copies made by `duplicate`) break the order.
  Duration jitter = Duration::zero();

  // Independent loss probability per datagram, in both burst states.
  double loss = 0.0;

  // Bursty loss as a two-state Gilbert-Elliott chain stepped once per
  // datagram: good -> bad with probability burst_enter, bad -> good with
  // burst_exit, and in the bad state a datagram is lost with burst_loss (on
  // top of `loss`). The chain spends burst_enter / (burst_enter + burst_exit)
  // of the time in the bad state and a bad spell lasts 1 / burst_exit
  // datagrams on average, so the mean loss is about
  //   loss + (1 - loss) * burst_loss * burst_enter / (burst_enter + burst_exit).
  double burst_enter = 0.0;
  double burst_exit = 0.25;
  double burst_loss = 1.0;

  // Probability a datagram is delivered twice; the copy draws its own delay
  // but never arrives before the original.
  double duplicate = 0.0;

  // Probability a datagram is held back reorder_delay more than it would
  // be, so datagrams sent after it can overtake it.
  double reorder = 0.0;
  Duration reorder_delay = Duration::millis(30);

  // Datagrams larger than this are dropped (and counted); 0 means no limit.
  std::size_t mtu = 1400;

  // Bottleneck rate; 0 means unlimited. Datagrams serialize one after
  // another at this rate through a FIFO queue holding at most
  // bandwidth_queue_bytes; a datagram that does not fit is dropped (and
  // counted), as a router tail-drops.
  std::uint64_t bandwidth_bytes_per_second = 0;
  std::size_t bandwidth_queue_bytes = 64 * 1024;

  // Rare long stalls, as on wifi: with probability delay_spike_rate a
  // datagram gets an extra delay uniform in [delay_spike_min,
  // delay_spike_max]. Since the link stays first in, first out, the
  // datagrams behind it stall too.
  double delay_spike_rate = 0.0;
  Duration delay_spike_min = Duration::zero();
  Duration delay_spike_max = Duration::zero();
  // When positive, a spike's length is heavy-tailed instead of uniform:
  // Pareto with this shape and scale delay_spike_min, capped at
  // delay_spike_max, so P(length > x) = (delay_spike_min / x)^shape. Real
  // stalls (a wifi retry storm, a scan, power save) are mostly short with a
  // few very long ones; a shape near 1 gives that tail, a larger shape a
  // lighter one. Needs delay_spike_min > 0.
  double delay_spike_pareto_shape = 0.0;

  // Delay that changes with time, on top of `latency`, both timed from the
  // first datagram the link carries. Off while the period is zero.
  //
  // A slowly rising delay, as when a queue on the path fills (another
  // download, a bufferbloated modem): over each rise_period the extra delay
  // climbs steadily from zero to rise_delay, then the queue drains and it
  // starts again from zero. A sawtooth: the slow climb is what a controller
  // must follow, the sudden drop what it must not overreact to.
  Duration rise_delay = Duration::zero();
  Duration rise_period = Duration::zero();
  // A flapping route: every flap_period the path switches between the
  // base route and one flap_delay longer. The link stays first in, first
  // out, so after a switch to the shorter route datagrams queue behind
  // the last one sent on the longer.
  Duration flap_delay = Duration::zero();
  Duration flap_period = Duration::zero();

  // Rejects negative durations, probabilities outside [0, 1] or NaN, a
  // spike range with min > max, a Pareto shape that is negative, NaN,
  // infinite or set without a positive delay_spike_min, and a rise or flap
  // delay without its period, naming the offending field.
  Result<void> validate() const;
};

}  // namespace tickwire::transport
