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
#include "tickwire/snapshot/body_models.h"
#include "tickwire/snapshot/ids.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::snapshot {

class World;

struct EntityState {
  EntityId id;
  TypeId type;
  // The server world's generation of the id, sent with every spawn: id and
  // generation together name one entity in every state of every client,
  // however its snapshots' baselines interleaved.
  std::uint32_t generation = 0;
  Tick updated;              // tick of the world state its codes come from
  std::uint32_t offset = 0;  // into codes()
};

class WorldState {
 public:
  Tick tick() const { return tick_; }
  void set_tick(Tick tick) { tick_ = tick; }

  std::span<const EntityState> entities() const { return entities_; }
  std::size_t size() const { return entities_.size(); }
  bool empty() const { return entities_.empty(); }
  std::span<const std::uint32_t> codes(const EntityState& e, std::uint16_t stride) const {
    return {codes_.data() + e.offset, stride};
  }
  const std::uint32_t* code_data(const EntityState& e) const { return codes_.data() + e.offset; }
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
  }
  // Appends an entity with room for `stride` codes and returns them.
  // Callers append in increasing id order or call sort_by_id() after.
  std::uint32_t* append(const EntityState& e, std::uint16_t stride) {
    EntityState copy = e;
    copy.offset = static_cast<std::uint32_t>(codes_.size());
    entities_.push_back(copy);
    codes_.resize(codes_.size() + stride);
    return codes_.data() + copy.offset;
  }
  // Appends an entity with a copy of `stride` codes from `codes`.
  void append_copy(const EntityState& e, const std::uint32_t* codes, std::uint16_t stride) {
    EntityState copy = e;
    copy.offset = static_cast<std::uint32_t>(codes_.size());
    entities_.push_back(copy);
    codes_.insert(codes_.end(), codes, codes + stride);
  }
  // The codes of the last appended entity.
  std::uint32_t* last_codes(std::uint16_t stride) { return codes_.data() + codes_.size() - stride; }
  void pop_back(std::uint16_t stride) {
    entities_.pop_back();
    codes_.resize(codes_.size() - stride);
  }
  void sort_by_id() {
    std::sort(entities_.begin(), entities_.end(),
              [](const EntityState& a, const EntityState& b) { return a.id < b.id; });
  }
  std::size_t code_count() const { return codes_.size(); }

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
};

// Quantizes every live entity of `world` into `out` (cleared first).
void capture(const World& world, Tick tick, WorldState& out);

// Makes `world` hold exactly the entities of `state` with their codes read
// back as values (ids kept). For a client that applies a snapshot directly.
void restore(const WorldState& state, World& world);

}  // namespace tickwire::snapshot
