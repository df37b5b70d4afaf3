#pragma once
// How many packets each input rides in, from how the uplink loses them.
//
// An input packet carries the newest input and the unacknowledged ones
// before it (input_history.h), so an input survives as long as one of the
// packets it rides in arrives. Independent losses need few copies; a burst
// of b lost packets needs b + 1. The policy watches which of its input
// packets the server acknowledged, measures the runs of consecutive losses
// over a window, and asks for one more copy than the longest run (plus a
// margin), between a floor and a ceiling. Extra copies are cheap: they are
// delta-coded against each other (nothing while the player holds still)
// and only unacknowledged inputs are sent, so on a clean link the packet
// carries what one round trip leaves unacknowledged and no more.
//
// Pure logic: sequences and times in, a count out.

#include <cstdint>
#include <deque>

#include "tickwire/core/sequence.h"
#include "tickwire/core/time.h"

namespace tickwire::prediction {

struct InputRedundancyConfig {
  // Copies while no burst is seen: three survive two lost packets in a row,
  // which at 2% independent loss happens to one input in 2,500.
  std::uint32_t min_copies = 3;
  // At most this many (at 60 Hz, 267 ms of inputs): longer bursts are
  // outages, which no redundancy covers in time.
  std::uint32_t max_copies = 16;
  // Copies beyond the longest burst's b + 1: the next burst may be longer.
  std::uint32_t margin = 1;
  // Bursts are remembered this long; a burst's copies stay that long after
  // it, so a link that loses in bursts every few seconds keeps them.
  Duration window = Duration::seconds(20);
  // A packet is judged lost once the server acknowledged one sent this many
  // packets after it and not it: a small allowance for reordering.
  std::uint32_t reorder_allowance = 3;
  // While more than this share of input packets were lost over the window,
  // each input packet goes out a second time resend_after_ticks of a tick
  // after the first. A lost packet's inputs then arrive 0.4 tick later
  // instead of a whole one (the next packet), so the lead that covers
  // losses is 0.6 tick shorter: at 1% loss and 60 Hz, 10 ms less latency
  // for one more datagram a tick. 0.4 rather than half: a game at 144
  // frames a second sends it at the next frame (6.9 ms), where half a tick
  // (8.3 ms) would wait for the second. A clean link sends each packet once.
  // A rate above 1 turns resending off.
  double resend_loss_rate = 0.002;
  double resend_after_ticks = 0.4;
};

struct InputRedundancyStats {
  std::uint64_t judged = 0;         // input packets whose fate is known
  std::uint64_t lost = 0;           // of those, never acknowledged
  std::uint32_t longest_burst = 0;  // in the window
  double loss_rate = 0;             // share of input packets lost, in the window
};

class InputRedundancy {
 public:
  // Throws std::invalid_argument for min_copies 0, max below min, or a
  // non-positive window.
  explicit InputRedundancy(InputRedundancyConfig config = {});

  // An input packet with `sequence` went out at `now`.
  void on_sent(Sequence sequence, Time now);
  // The server acknowledged `sequence` (any packet of ours). The packets an
  // acknowledgement settles are judged at the next on_sent, once every
  // acknowledgement of the same header has been marked.
  void on_acked(Sequence sequence, Time now);

  // Packets each input should ride in.
  std::uint32_t copies() const { return copies_; }
  // Whether each input packet should be sent a second time, and when after
  // the first (in ticks).
  bool resend() const { return loss_rate() > config_.resend_loss_rate; }
  double loss_rate() const;
  InputRedundancyStats stats() const;
  const InputRedundancyConfig& config() const { return config_; }

 private:
  struct Sent {
    Sequence sequence;
    bool acked = false;
  };
  struct Burst {
    Time at;
    std::uint32_t length = 0;
  };
  void judge(Time now);
  void end_run(Time now);
  void update(Time now);

  InputRedundancyConfig config_;
  std::deque<Sent> pending_;  // sent, not yet judged, oldest first
  std::deque<Burst> bursts_;
  struct Judged {
    Time at;
    bool lost = false;
  };
  std::deque<Judged> judged_window_;  // fates within the window, for the loss rate
  std::size_t lost_in_window_ = 0;
  void forget_oldest_judgement();
  bool have_newest_acked_ = false;
  Sequence newest_acked_;
  std::uint32_t run_ = 0;  // consecutive losses judged so far
  std::uint32_t copies_;
  std::uint64_t judged_ = 0;
  std::uint64_t lost_ = 0;
};

}  // namespace tickwire::prediction
