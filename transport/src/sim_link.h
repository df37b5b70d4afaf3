#pragma once
// The pieces a simulated connection is made of, below the endpoint: the
// seeded random source, the wire of one direction with its impairments
// (SimLink), and what an endpoint runs over such a wire to make one peer's
// traffic reliable (RttEstimator, ReliableChannel).

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "tickwire/core/result.h"
#include "tickwire/core/time.h"
#include "tickwire/transport/link_conditions.h"
#include "tickwire/transport/link_model.h"
#include "tickwire/transport/sim_network.h"

namespace tickwire::transport {

// RFC 6298 smoothing, with a floor low enough for game traffic.
class RttEstimator {
 public:
  static constexpr Duration kInitialRto = Duration::millis(200);
  static constexpr Duration kMinRto = Duration::millis(50);
  static constexpr Duration kMaxRto = Duration::seconds(2);

  void sample(Duration rtt);
  bool has_sample() const { return has_sample_; }
  Duration srtt() const { return srtt_; }
  Duration variance() const { return rttvar_; }
  Duration rto() const;

 private:
  bool has_sample_ = false;
  Duration srtt_;
  Duration rttvar_;
};

// One peer's reliable ordered stream, both halves. Messages are split into
// fragments of at most fragment_size bytes (so reliable datagrams are never
// larger than unreliable ones and face the same MTU), each fragment has its
// own sequence number, and a selective-repeat window retransmits each
// fragment after its RTO (doubling per retry), or sooner once later ones
// are acknowledged without it, until it is acknowledged. The
// receiver buffers out-of-order fragments within its window, drops
// duplicates and hands complete messages over in order. Acks are cumulative
// (everything below ack_next) plus a 64-bit map of the fragments after it.
class ReliableChannel {
 public:
  static constexpr std::uint32_t kSendWindow = 128;
  static constexpr std::uint32_t kReceiveWindow = 256;  // >= kSendWindow
  static constexpr std::size_t kFastRetransmitAfter = 3;

  struct Limits {
    std::size_t fragment_size = 1200;
    std::size_t max_message = 16 * 1024;
    std::size_t max_backlog_messages = 1024;
    std::size_t max_backlog_bytes = 1024 * 1024;
  };

  struct Fragment {
    std::uint32_t seq = 0;
    std::uint16_t index = 0;
    std::uint16_t count = 1;
    std::span<const std::uint8_t> bytes;
  };

  enum class Receive : std::uint8_t { kAccepted, kDuplicate, kOutOfWindow, kProtocolError };

  explicit ReliableChannel(Limits limits);

  // Fails with kTooLarge over max_message or when the backlog is full.
  Result<void> queue(std::span<const std::uint8_t> message);
  // Fills `due` with every fragment inside the window that was never sent,
  // is presumed lost or whose RTO has expired, and counts them as sent now.
  // The spans stay valid until the next call that changes the channel.
  void pump(Time now, Duration rto, std::vector<Fragment>& due);
  // Returns an RTT sample when the ack covers a fragment sent exactly once
  // (Karn: a retransmitted one's ack is ambiguous).
  std::optional<Duration> on_ack(std::uint32_t ack_next, std::uint64_t ack_bits, Time now);

  // Appends the messages the fragment completes, in order.
  Receive on_fragment(const Fragment& fragment, std::vector<std::vector<std::uint8_t>>& completed);
  std::uint32_t ack_next() const { return next_expected_; }
  std::uint64_t ack_bits() const;

  std::size_t max_fragments() const;

 private:
  struct Outgoing {
    std::uint32_t seq = 0;
    std::uint16_t index = 0;
    std::uint16_t count = 1;
    std::vector<std::uint8_t> bytes;
    Time sent;
    Duration rto;
    std::uint32_t transmissions = 0;
    bool acked = false;
    bool presumed_lost = false;
  };
  struct Incoming {
    std::uint16_t index = 0;
    std::uint16_t count = 1;
    std::vector<std::uint8_t> bytes;
  };

  void mark_presumed_lost();
  bool consume(Incoming fragment, std::vector<std::vector<std::uint8_t>>& completed);

  Limits limits_;
  std::uint32_t next_seq_ = 0;
  std::deque<Outgoing> outgoing_;  // by seq; the front is unacknowledged
  std::size_t backlog_messages_ = 0;
  std::size_t backlog_bytes_ = 0;

  std::uint32_t next_expected_ = 0;
  std::vector<std::optional<Incoming>> window_;  // indexed by seq % kReceiveWindow
  std::vector<std::uint8_t> assembly_;
  bool assembling_ = false;
  std::uint16_t assembly_next_ = 0;
  std::uint16_t assembly_count_ = 0;
};

}  // namespace tickwire::transport
