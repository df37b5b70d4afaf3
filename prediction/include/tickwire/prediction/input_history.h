#pragma once
// A client's own inputs by tick: what replay feeds to simulate, and what
// each input packet carries. A packet holds the newest input and the older
// ones the server has not acknowledged yet, at most `redundancy` in all, so
// a lost packet costs nothing as long as one of the next few arrives.
// Acknowledgement rides on the packet channel: when the server acks a
// packet's sequence, every input up to that packet's newest tick arrived.

#include <cstdint>
#include <optional>

#include "tickwire/core/sequence.h"
#include "tickwire/core/sequence_buffer.h"
#include "tickwire/core/tick.h"
#include "tickwire/core/tick_buffer.h"
#include "tickwire/core/view_claim.h"
#include "tickwire/prediction/input_packet.h"
#include "tickwire/snapshot/record.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::prediction {

struct InputHistoryConfig {
  // Ticks of inputs kept; must cover the deepest replay plus the inputs
  // sampled while prediction waits for the server.
  std::uint32_t capacity = 256;
  // Inputs per packet at most (1..kMaxInputsPerPacket). Each input rides in
  // this many consecutive packets unless acknowledged sooner. Without a
  // policy (input_redundancy.h) every packet may carry this many; with one,
  // this is its ceiling. 4 survives three lost packets in a row, which at
  // 5% independent loss happens to one input in 160,000.
  std::uint32_t redundancy = 4;
};

class InputHistory {
 public:
  // Throws std::invalid_argument for an unknown input type, a capacity of 0
  // or a redundancy outside 1..kMaxInputsPerPacket.
  InputHistory(snapshot::Schema schema, snapshot::TypeId input_type, InputHistoryConfig config = {});

  // Stores the input for `tick`, snapped to what the server will decode,
  // replacing any held for it, with the view time it was sampled at (for
  // lag compensation), if the caller knows it.
  void store(Tick tick, const snapshot::Record& input, std::optional<ViewClaim> view = std::nullopt);
  const ViewClaim* find_view(Tick tick) const { return views_.find(tick); }
  const snapshot::Record* find(Tick tick) const { return inputs_.find(tick); }
  std::optional<Tick> newest() const { return inputs_.newest(); }

  // The next packet: the newest input and up to copies - 1 older ones not
  // yet acknowledged (only inputs still held), copies being `copies` if
  // given (an InputRedundancy policy's answer), never more than the
  // configured redundancy; with their view claims when every one of them
  // has one. Empty when none is held.
  std::optional<InputPacket> make_packet(std::optional<Tick> snapshot_ack,
                                         std::optional<std::uint32_t> copies = std::nullopt) const;
  // The same packet written into `out`, whose storage is reused (a client
  // sending every tick then stops allocating for it); false, with `out`
  // untouched, when none is held.
  bool make_packet(std::optional<Tick> snapshot_ack, std::optional<std::uint32_t> copies, InputPacket& out) const;

  // The packet with `sequence` carried inputs up to packet.last_tick().
  void on_sent(Sequence sequence, const InputPacket& packet);
  // The server acknowledged the packet with `sequence`.
  void on_acked(Sequence sequence);
  // Every input up to this tick reached the server.
  std::optional<Tick> acked() const { return acked_; }

  const snapshot::Schema& schema() const { return schema_; }
  snapshot::TypeId input_type() const { return input_type_; }
  const InputHistoryConfig& config() const { return config_; }

 private:
  snapshot::Schema schema_;
  snapshot::TypeId input_type_;
  InputHistoryConfig config_;
  TickBuffer<snapshot::Record> inputs_;
  TickBuffer<ViewClaim> views_;  // by the same ticks as inputs_
  SequenceBuffer<Tick> sent_;    // packet sequence -> newest input tick in it
  std::optional<Tick> acked_;
};

}  // namespace tickwire::prediction
