#pragma once
// The client's side: decodes snapshots against the states it holds, keeps
// the decoded states for a history window (the baselines of later
// snapshots and the buffer interpolation samples from), and counts every
// snapshot it had to drop by reason. Bytes come from the network and are
// treated as hostile throughout (docs/wire-format.md, "Snapshot").

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "tickwire/core/result.h"
#include "tickwire/core/tick.h"
#include "tickwire/snapshot/snapshot_codec.h"
#include "tickwire/snapshot/state_ring.h"

namespace tickwire::snapshot {

struct ReceiverConfig {
  std::uint32_t history_ticks = 64;    // states kept; must equal the server's
  std::uint32_t max_entities = 16384;  // entities (and ids) a state may hold
  std::size_t max_payload = 1200;      // longer snapshots are dropped unread
  // The sender's SenderConfig::codebook, when it codes with one.
  std::shared_ptr<const ModelState> codebook = nullptr;
};

struct ReceiverStats {
  std::uint64_t received = 0;
  std::uint64_t decoded = 0;
  std::array<std::uint64_t, kDropReasonCount> dropped{};
  std::uint64_t dropped_total() const {
    std::uint64_t n = 0;
    for (auto d : dropped) n += d;
    return n;
  }
  std::uint64_t dropped_for(DropReason reason) const { return dropped[static_cast<std::size_t>(reason)]; }
};

class SnapshotReceiver final : public BaselineStore {
 public:
  // Throws std::invalid_argument for history_ticks outside [1, 4096] or
  // max_entities outside [1, 2^24].
  SnapshotReceiver(Schema schema, ReceiverConfig config = {});

  // Decodes one snapshot payload and keeps the result. Returns its tick, or
  // the reason it was dropped (also counted in stats()); a dropped snapshot
  // changes nothing. The client acknowledges the returned tick.
  Result<Tick> receive(std::span<const std::uint8_t> bytes);
  // The reason of the last drop, for callers that count their own way.
  std::optional<DropReason> last_drop() const { return last_drop_; }

  // The newest decoded tick: the one to acknowledge.
  std::optional<Tick> newest() const { return ring_.newest(); }
  const WorldState* state(Tick tick) const;
  // Ticks held, oldest first.
  void held_ticks(std::vector<Tick>& out) const;

  // Forgets every state (after a reconnect); the server must then send a
  // full snapshot, which it does once its baselines age out.
  void reset() { ring_.clear(); }

  const ReceiverStats& stats() const { return stats_; }
  const ReceiverConfig& config() const { return config_; }
  const Schema& schema() const { return decoder_.schema(); }

  // BaselineStore
  const WorldState* find(Tick tick) const override { return state(tick); }
  const WorldState* find_by_low_bits(std::uint16_t low) const override;

 private:
  Result<Tick> drop(DropReason reason, const char* detail);

  ReceiverConfig config_;
  SnapshotDecoder decoder_;
  StateRing ring_;
  WorldState scratch_;
  ReceiverStats stats_;
  std::optional<DropReason> last_drop_;
};

}  // namespace tickwire::snapshot
