#pragma once
// Bookkeeping for one direction pair of the unreliable channel: numbers our
// packets, acknowledges the peer's, filters duplicates and stale packets,
// and carries the timestamps that RTT and clock-offset estimation need.
// Pure logic: headers in, headers and decisions out; time is passed in.

#include <bitset>
#include <cstdint>
#include <optional>
#include <vector>

#include "tickwire/core/packet_header.h"
#include "tickwire/core/sequence.h"
#include "tickwire/core/sequence_buffer.h"
#include "tickwire/core/time.h"

namespace tickwire {

struct PacketChannelStats {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
  std::uint64_t duplicates = 0;  // same sequence seen twice (dropped)
  std::uint64_t stale = 0;       // older than the receive window (dropped)
  std::uint64_t acked = 0;       // our packets the peer confirmed
};

// One RTT sample: the peer acknowledged our packet `rtt` after we sent it,
// less the time it says it held the packet.
struct RttSample {
  Duration rtt;
};

class PacketChannel {
 public:
  static constexpr std::size_t kWindow = 256;

  // Whether the owner asks take_acked(): a side that never does (the
  // server) keeps no list. A reported list holds at most kWindow
  // sequences, the oldest dropped first, so an owner that stops asking
  // does not make it grow for the life of the connection.
  enum class Acks : std::uint8_t { kReported, kIgnored };

  explicit PacketChannel(Acks acks = Acks::kReported);

  // Fills the header of the next outgoing packet of `type` at `now`.
  PacketHeader next_header(PacketType type, Time now);

  enum class Verdict { kAccept, kDuplicate, kStale };
  // Records an incoming header. A duplicate or stale packet must be dropped
  // by the caller; its acks and timestamps are ignored.
  Verdict receive(const PacketHeader& header, Time now);

  // Sequences of ours that the peer acknowledged since the last call (the
  // newest kWindow of them; none with Acks::kIgnored).
  std::vector<Sequence> take_acked();
  // The same into `out` (cleared first), trading storage with it: an owner
  // that keeps `out` between calls allocates nothing per packet.
  void take_acked(std::vector<Sequence>& out);
  // The RTT sample carried by the last accepted header, if it held one of
  // our packets that we still remember sending.
  std::optional<RttSample> take_rtt_sample();

  const PacketChannelStats& stats() const { return stats_; }

 private:
  struct Sent {
    Time at;
  };
  struct Received {};

  Acks acks_;
  Sequence next_sequence_;
  SequenceBuffer<Sent> sent_;
  // Whether the peer acknowledged the sent packet in the same slot: beside
  // the send times rather than in them, which halves the window's size (a
  // server keeps one per client).
  std::bitset<kWindow> acked_;
  SequenceBuffer<Received> received_;
  std::vector<Sequence> newly_acked_;
  std::optional<RttSample> rtt_sample_;
  // When the peer's newest packet arrived, and whether our next header is
  // the first to acknowledge it (and so says how long we held it).
  Time newest_received_at_;
  bool hold_due_ = false;
  bool sent_any_ = false;
  PacketChannelStats stats_;
};

}  // namespace tickwire
