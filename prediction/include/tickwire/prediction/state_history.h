#pragma once
// The predicted entities' state after each predicted tick, kept for the
// last `capacity` ticks: what a snapshot is compared with to find
// mispredictions, what rendering blends between, and what the sync test
// rolls back to. One block per tick: rows sorted by id and their slots in
// one array, reused from tick to tick so a warm history never allocates.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tickwire/core/tick.h"
#include "tickwire/snapshot/ids.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::prediction {

struct HistoryRow {
  snapshot::EntityId id;
  snapshot::TypeId type;
  std::uint16_t count = 0;   // slots
  std::uint32_t offset = 0;  // into the block's slots
  bool operator==(const HistoryRow&) const = default;
};

class StateBlock {
 public:
  Tick tick() const { return tick_; }
  std::span<const HistoryRow> rows() const { return rows_; }
  // Binary search; nullptr when the entity had no predicted state at this tick.
  const HistoryRow* find(snapshot::EntityId id) const;
  std::span<const std::uint32_t> slots(const HistoryRow& row) const { return {slots_.data() + row.offset, row.count}; }
  // Makes this block hold the state of the entities `ids` (sorted) at `tick`.
  void capture(Tick tick, const snapshot::World& world, std::span<const snapshot::EntityId> ids);
  // Same entities with the same slots.
  bool operator==(const StateBlock& other) const { return rows_ == other.rows_ && slots_ == other.slots_; }
  // FNV-1a over every row's id, type and slots, in id order.
  std::uint64_t checksum() const;
  // Bytes held, capacity included (for measuring what history costs).
  std::size_t bytes() const;

 private:
  friend class StateHistory;
  void reset(Tick tick) {
    tick_ = tick;
    rows_.clear();
    slots_.clear();
  }
  void append(snapshot::EntityId id, snapshot::TypeId type, std::span<const std::uint32_t> slots);

  Tick tick_;
  std::vector<HistoryRow> rows_;
  std::vector<std::uint32_t> slots_;
};

class StateHistory {
 public:
  // Throws std::invalid_argument for capacity 0.
  explicit StateHistory(std::size_t capacity);

  // Records the state at `tick` of the entities `ids` (sorted by id). An
  // entity whose `simulated` flag (indexed by id) is 0 keeps the state this
  // tick's block already held for it: a selective rollback replays only
  // some entities, and the others' past is still right. An empty
  // `simulated` takes every entity from the world. Entities absent from the
  // world are left out.
  void capture(Tick tick, const snapshot::World& world, std::span<const snapshot::EntityId> ids,
               std::span<const std::uint8_t> simulated = {});

  // Building a tick's block row by row (what replay does while it snaps
  // each entity, to touch each one once): begin() hands out an empty
  // block, previous() the block this tick held before (nullptr if none),
  // commit() makes the new block the tick's.
  StateBlock& begin(Tick tick);
  const StateBlock* previous() const { return pending_previous_; }
  void commit();
  // Appends a row to a block being built; rows must come in id order.
  static void append(StateBlock& block, snapshot::EntityId id, snapshot::TypeId type,
                     std::span<const std::uint32_t> slots) {
    block.append(id, type, slots);
  }

  const StateBlock* find(Tick tick) const;
  void clear();
  std::size_t capacity() const { return blocks_.size(); }
  std::size_t bytes() const;

 private:
  struct Slot {
    bool used = false;
    StateBlock block;
  };
  Slot& slot_of(Tick tick) { return blocks_[static_cast<std::size_t>(tick.value()) % blocks_.size()]; }

  std::vector<Slot> blocks_;
  StateBlock scratch_;
  Slot* pending_slot_ = nullptr;
  const StateBlock* pending_previous_ = nullptr;
};

// A readable dump of a block (one entity per line, each field by name) for
// failure reports; `schema` names the fields.
std::string describe(const StateBlock& block, const snapshot::Schema& schema);
// What differs between two blocks of the same tick, one line per entity:
// its fields that differ, or that it is missing on one side.
std::string describe_differences(const StateBlock& first, const StateBlock& second, const snapshot::Schema& schema);
// One entity's slots as "name=value" pairs.
std::string describe_entity(const snapshot::TypeSpec& type, std::span<const std::uint32_t> slots);

}  // namespace tickwire::prediction
