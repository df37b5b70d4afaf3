#pragma once
// The quantized state of a world at one tick: what snapshots are made of.
// Entities are sorted by id and hold integer codes (one per slot). The
// server captures one per tick for its history; each client's view (what
// that client holds after decoding a snapshot) is one too, so baselines,
// deltas and interpolation all work on codes and never on floats.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tickwire/core/tick.h"
#include "tickwire/core/tick_slots.h"
#include "tickwire/snapshot/body_models.h"
#include "tickwire/snapshot/ids.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::snapshot {

class World;
class WorldState;

// The code storage of a server's history of captured states, one slot per
// tick modulo its depth: what the views of every client point into instead
// of holding copies (WorldHistory fills it). A view entity's codes are the
// world's codes at the tick it was last refreshed (EntityState::updated),
// so its record needs only where they sit in that tick's capture.
class SharedCodes {
 public:
  const std::uint32_t* at(Tick tick, std::uint32_t offset) const { return slots_[index_(tick)] + offset; }
  std::size_t depth() const { return slots_.size(); }
  // Whether `state` is the capture of its tick held here (not a copy).
  bool holds(const WorldState& state) const;

 private:
  friend class WorldHistory;
  std::vector<const std::uint32_t*> slots_;
  std::vector<const WorldState*> states_;
  TickSlots index_;
};

struct EntityState {
  EntityId id;
  TypeId type;
  // The server world's generation of the id (World::generation), modulo
  // 65,536, sent with every spawn: id and generation together name one
  // entity in every state of every client, however its snapshots' baselines
  // interleaved. 16 bits tell apart every incarnation of an id a state can
  // meet (the states any client holds span seconds), and keep the record
  // at 16 bytes: a server holds a few dozen states of 64 or more entities
  // for every client.
  std::uint16_t generation = 0;
  Tick updated;  // tick of the world state its codes come from
  // Into this state's own codes; in a state that refers to shared codes
  // (WorldState::refer_to), into the capture of tick `updated` unless
  // kOwnCodes is set.
  std::uint32_t offset = 0;
  static constexpr std::uint32_t kOwnCodes = 0x8000'0000U;
};
static_assert(sizeof(EntityState) == 16, "an entity's record is most of what a server keeps per client");

// A world generation as entity states hold it.
constexpr std::uint16_t state_generation(std::uint32_t world_generation) {
  return static_cast<std::uint16_t>(world_generation & 0xFFFFU);
}

class WorldState {
 public:
  Tick tick() const { return tick_; }
  void set_tick(Tick tick) { tick_ = tick; }

  std::span<const EntityState> entities() const { return entities_; }
  std::size_t size() const { return entities_.size(); }
  bool empty() const { return entities_.empty(); }
  std::span<const std::uint32_t> codes(const EntityState& e, std::uint16_t stride) const {
    return {code_data(e), stride};
  }
  const std::uint32_t* code_data(const EntityState& e) const {
    if (shared_ != nullptr && (e.offset & EntityState::kOwnCodes) == 0) return shared_->at(e.updated, e.offset);
    return codes_.data() + (e.offset & ~EntityState::kOwnCodes);
  }
  // Where each id is in entities(), by id: kNoIndex for an id the state
  // does not hold. capture() builds it when the ids are dense enough (at
  // most twice the entities plus 4096) and in increasing order; empty
  // otherwise, and once the state is changed. Every client's diff against
  // a capture looks its listed ids up here instead of searching.
  static constexpr std::uint32_t kNoIndex = ~std::uint32_t{0};
  std::span<const std::uint32_t> id_index() const { return id_index_; }
  void build_id_index();
  // Drops this state's table and hands its storage to `to` (emptied), for
  // a history where only the newest capture keeps one.
  void pass_id_index_storage(WorldState& to) {
    to.id_index_.swap(id_index_);
    to.id_index_.clear();
    id_index_.clear();
  }

  // Binary search by id; nullptr when absent.
  const EntityState* find(EntityId id) const {
    auto it = std::lower_bound(entities_.begin(), entities_.end(), id,
                               [](const EntityState& e, EntityId v) { return e.id < v; });
    return it != entities_.end() && it->id == id ? &*it : nullptr;
  }

  // Building: keeps allocated capacity, so a state reused every tick stops
  // allocating once warm.
  void clear() {
    entities_.clear();
    codes_.clear();
    models_.reset();
    id_index_.clear();
  }
  // From here on (until the next call), entities appended with
  // append_shared keep their codes in `shared` rather than here; nullptr
  // ends it. The caller guarantees every such entity's tick stays in
  // `shared` for as long as this state is read. Call on an empty state.
  void refer_to(const SharedCodes* shared) { shared_ = shared; }
  // Room for `entities` entities, rounded up to a multiple of
  // kReserveStep. Not doubling: a sender keeps dozens of states per client,
  // and doubling would leave most of them half empty. Not exact either: a
  // state's size follows its packet's items, which vary from one packet to
  // the next, and storage of every size freed after a long round trip
  // leaves holes in the heap that no later state fits (on a link whose
  // delay rose and fell, the resident set kept a third more than the heap
  // used). In steps, a freed state's storage fits the next state of its step.
  static constexpr std::size_t kReserveStep = 16;
  void reserve(std::size_t entities) {
    if (entities > entities_.capacity()) {
      entities_.reserve((entities + kReserveStep - 1) / kReserveStep * kReserveStep);
    }
  }
  const SharedCodes* shared() const { return shared_; }
  // Entities it has room for without allocating.
  std::size_t capacity() const { return entities_.capacity(); }
  // Appends an entity whose codes are those at `e.offset` in the shared
  // capture of tick `e.updated`.
  void append_shared(const EntityState& e) {
    id_index_.clear();
    entities_.push_back(e);
  }
  // Appends an entity with room for `stride` codes and returns them.
  // Callers append in increasing id order or call sort_by_id() after.
  std::uint32_t* append(const EntityState& e, std::uint16_t stride) {
    EntityState copy = e;
    const std::size_t at = codes_.size();
    copy.offset = static_cast<std::uint32_t>(at) | (shared_ != nullptr ? EntityState::kOwnCodes : 0U);
    id_index_.clear();
    entities_.push_back(copy);
    codes_.resize(at + stride);
    return codes_.data() + at;
  }
  // Appends an entity with a copy of `stride` codes from `codes`.
  void append_copy(const EntityState& e, const std::uint32_t* codes, std::uint16_t stride) {
    EntityState copy = e;
    copy.offset = static_cast<std::uint32_t>(codes_.size()) | (shared_ != nullptr ? EntityState::kOwnCodes : 0U);
    id_index_.clear();
    entities_.push_back(copy);
    codes_.insert(codes_.end(), codes, codes + stride);
  }
  // The codes of the last appended entity.
  std::uint32_t* last_codes(std::uint16_t stride) { return codes_.data() + codes_.size() - stride; }
  void pop_back(std::uint16_t stride) {
    const bool own = shared_ == nullptr || (entities_.back().offset & EntityState::kOwnCodes) != 0;
    id_index_.clear();
    entities_.pop_back();
    if (own) codes_.resize(codes_.size() - stride);
  }
  void sort_by_id() {
    id_index_.clear();
    std::sort(entities_.begin(), entities_.end(),
              [](const EntityState& a, const EntityState& b) { return a.id < b.id; });
  }
  // The same when the first `sorted` entities are in id order and the rest
  // were appended in id order after them (a snapshot's kept entities, then
  // its spawns): a merge from the back, where a sort would start over.
  void merge_appended(std::size_t sorted);
  std::size_t code_count() const { return codes_.size(); }
  // The start of this state's own codes (moves when they grow).
  const std::uint32_t* own_codes() const { return codes_.data(); }

  // The coding models the packet that produced this state ended with
  // (null for captured states and fixed-code packets).
  const ModelState* models() const { return models_.get(); }
  const std::shared_ptr<const ModelState>& shared_models() const { return models_; }
  void set_models(std::shared_ptr<const ModelState> models) { models_ = std::move(models); }

  // Same tick, entities (id, type, generation, update tick) and codes.
  bool same_content(const WorldState& other, const Schema& schema) const;

 private:
  Tick tick_;
  std::vector<EntityState> entities_;
  std::vector<std::uint32_t> codes_;
  std::shared_ptr<const ModelState> models_;
  const SharedCodes* shared_ = nullptr;
  std::vector<std::uint32_t> id_index_;
};

inline bool SharedCodes::holds(const WorldState& state) const {
  return !states_.empty() && states_[index_(state.tick())] == &state;
}

// Quantizes every live entity of `world` into `out` (cleared first).
void capture(const World& world, Tick tick, WorldState& out);

// Makes `world` hold exactly the entities of `state` with their codes read
// back as values (ids kept). For a client that applies a snapshot directly.
void restore(const WorldState& state, World& world);

}  // namespace tickwire::snapshot
