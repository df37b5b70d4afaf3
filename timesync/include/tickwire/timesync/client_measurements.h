#pragma once
// Everything a client learns about time from the server, in one place: the
// runtime feeds it each snapshot's timing (with the round trip its header
// closed and the server's feedback on our inputs) and the time system tells
// it when each predicted tick ran. Time providers read from it.
//
// Nothing here trusts the peer: round trips outside their bounds, server
// times that go backwards, feedback about ticks we never sent or about
// inputs sent before a server clock step, and stale running totals are all
// ignored and counted.

#include <cstdint>
#include <optional>

#include "tickwire/core/network_time.h"
#include "tickwire/core/tick.h"
#include "tickwire/core/tick_buffer.h"
#include "tickwire/core/time.h"
#include "tickwire/timesync/clock_estimator.h"
#include "tickwire/timesync/input_margins.h"
#include "tickwire/timesync/jitter_estimator.h"
#include "tickwire/timesync/rtt_estimator.h"
#include "tickwire/timesync/snapshot_timing.h"

namespace tickwire::timesync {

// One received snapshot, as the runtime saw it.
struct SnapshotReceipt {
  Time received;                // local time it was taken from the transport
  SnapshotTiming timing;        // the server's timeline when it sent it
  std::optional<Duration> rtt;  // the round trip its header's echo closed
  std::optional<InputFeedback> feedback;
};

// What one receipt taught, for the time provider.
struct SnapshotObservation {
  SnapshotObservation(Time received_at, const NetworkTime& sent_at) : received(received_at), sent(sent_at) {}
  Time received;
  NetworkTime sent;
  // The client's previous frame before this arrival, if known: the last
  // moment the snapshot this one replaces as newest was on screen; and the
  // client's typical time between frames.
  std::optional<Time> previous_frame;
  std::optional<Duration> frame_interval;
  bool newest = false;          // newer than every snapshot before it
  std::optional<Duration> rtt;  // accepted round trip
  // The lead one of our inputs needed (see lead_estimator.h), when the
  // feedback carried a usable arrival.
  std::optional<Duration> need;
  // The feedback's arrival report, when it is about an input we sent: the
  // margins themselves, for a provider that steers by them in its own way.
  std::optional<InputFeedback::Lead> arrivals;
  std::uint64_t newly_missed = 0;  // inputs the server ran without, since the previous report
  std::uint64_t newly_late = 0;    // of those, inputs that arrived after all
};

struct MeasurementConfig {
  RttEstimatorConfig rtt;
  ClockEstimatorConfig clock;
  // Ticks whose send time is remembered for the server's feedback; 512 at
  // 60 Hz is 8.5 s, far longer than feedback takes to come back.
  std::uint32_t sent_ticks_remembered = 512;
  InputMarginConfig margins;
};

struct MeasurementStats {
  std::uint64_t snapshots = 0;
  std::uint64_t stale_snapshots = 0;    // not newer than the newest (reordered or replayed)
  std::uint64_t rejected_rtt = 0;       // round trips outside their bounds
  std::uint64_t rejected_feedback = 0;  // about ticks we did not send (recently)
  std::uint64_t stale_totals = 0;       // running totals older than ones already seen
  std::uint64_t missed = 0;             // inputs the server ran without, summed from totals
  std::uint64_t late = 0;               // of those, inputs that arrived after all
};

class ClientMeasurements {
 public:
  // Throws std::invalid_argument for an invalid tick rate or config.
  ClientMeasurements(std::uint32_t tick_rate, MeasurementConfig config = {});

  SnapshotObservation on_snapshot(const SnapshotReceipt& receipt);
  // The predicted tick `tick` ran at local time `at`, `overshoot` past its
  // boundary on the predicted timeline (the frame came after the boundary);
  // its input leaves now. `after_jump`: the tick ran in the update that
  // started or reset the timeline, so its lateness says nothing about the
  // network and its feedback is not used.
  void on_predicted_tick(Tick tick, Time at, Duration overshoot, bool after_jump);
  // The client's frames, for the interpolation figures: the time system
  // reports each update's local time.
  void on_frame(Time at);

  std::uint32_t tick_rate() const { return rate_; }
  const RttEstimator& rtt() const { return rtt_; }
  const ClockEstimator& clock() const { return clock_; }
  // One-way jitter of snapshots (server to client), from their arrivals.
  Duration downlink_jitter() const { return down_jitter_.jitter(); }
  // One-way jitter of inputs (client to server), from the feedback.
  Duration uplink_jitter() const { return up_jitter_.jitter(); }

  struct Seen {
    NetworkTime sent;
    Time received;
  };
  // The newest snapshot by server time.
  const std::optional<Seen>& newest() const { return newest_; }
  // The first snapshot that came with a round trip: a one-shot clock sync.
  struct Sync {
    NetworkTime sent;
    Time received;
    Duration rtt;
  };
  const std::optional<Sync>& first_sync() const { return first_sync_; }

  const MeasurementStats& stats() const { return stats_; }
  // How early our inputs reached the server, from its reports about
  // inputs we sent (figures only: the providers steer by need).
  const InputMarginMonitor& input_margins() const { return margins_; }

 private:
  struct SentTick {
    Time at;
    Duration overshoot;
    bool after_jump = false;
  };
  std::optional<Duration> need_of(const InputFeedback::Lead& lead);
  void take_totals(const InputFeedback& f, SnapshotObservation& obs);

  std::uint32_t rate_;
  MeasurementConfig config_;
  RttEstimator rtt_;
  ClockEstimator clock_;
  JitterEstimator down_jitter_;
  JitterEstimator up_jitter_;
  TickBuffer<SentTick> sent_;
  std::optional<Seen> newest_;
  std::optional<Sync> first_sync_;
  std::optional<Time> previous_frame_;
  double frame_interval_us_ = 0;
  std::optional<std::uint16_t> missed_total_;
  std::optional<std::uint16_t> late_total_;
  InputMarginMonitor margins_;
  MeasurementStats stats_;
};

}  // namespace tickwire::timesync
