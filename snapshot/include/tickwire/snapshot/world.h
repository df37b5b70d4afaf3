#pragma once
// The runtime's copy of networked entity state: stable ids, a type per
// entity, and its fields in compact per-type storage (one run of 32-bit
// slots per entity). Game code reads and writes fields through the typed
// handles the schema handed out; the runtime snapshots, compares, copies
// and restores whole entities without knowing what they mean.
//
// A World is a value: copying it copies every entity (what a rollback
// needs), and two worlds of one schema can exchange single entities.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tickwire/snapshot/field_value.h"
#include "tickwire/snapshot/ids.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::snapshot {

struct WorldConfig {
  // Ids lie in [0, max_entities); spawning more than that many live
  // entities fails. Also bounds what a client accepts from the network.
  std::uint32_t max_entities = 65536;
};

class World {
 public:
  explicit World(Schema schema = Schema(), WorldConfig config = {});

  const Schema& schema() const { return schema_; }
  const WorldConfig& config() const { return config_; }

  // A new entity of an entity type with every field at its default (zero
  // clamped into range, the identity rotation). Throws std::invalid_argument
  // for an unknown or record type and std::length_error when full.
  EntityId spawn(TypeId type);
  // Spawns with a chosen id, as a client mirroring the server's ids does.
  // False when the id is taken or not below max_entities; throws like spawn
  // for a bad type.
  bool spawn_at(EntityId id, TypeId type);
  bool despawn(EntityId id);
  void clear();

  bool contains(EntityId id) const { return id.value < entries_.size() && entries_[id.value].alive; }
  // Inline: simulations and snapshot code ask it for every entity they touch.
  std::optional<TypeId> type_of(EntityId id) const {
    if (!contains(id)) return std::nullopt;
    return TypeId{entries_[id.value].type};
  }
  // Bumped at every spawn of the id; 0 for an id never used.
  std::uint32_t generation(EntityId id) const { return id.value < entries_.size() ? entries_[id.value].generation : 0; }
  std::size_t size() const { return live_.size(); }
  // Ids waiting to be handed out again; never more than id_limit().
  std::size_t free_id_count() const { return free_ids_.size(); }
  // One past the highest id ever used: the bound of an id-ordered walk.
  std::uint32_t id_limit() const { return static_cast<std::uint32_t>(entries_.size()); }
  // Live entities of one type, densely, in no particular order.
  std::span<const EntityId> entities(TypeId type) const;
  // Every live entity in id order. Kept as a list rather than found by
  // walking every id ever used: a client's world holds a few entities but
  // ids far apart (its own predicted spawns live above the server's range).
  std::span<const EntityId> ids() const { return live_; }
  // Calls fn(EntityId) for every live entity in id order; fn must not spawn
  // or despawn.
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const EntityId id : live_) fn(id);
  }

  // Throw std::out_of_range for an absent entity and std::invalid_argument
  // for a handle of another type: both are programming errors. Use
  // try_get where an entity may have gone.
  template <class T>
  T get(EntityId id, Field<T> field) const {
    return FieldValue<T>::load(checked(id, field, FieldValue<T>::kSlots));
  }
  template <class T>
  std::optional<T> try_get(EntityId id, Field<T> field) const {
    if (!contains(id) || !field.valid() || entries_[id.value].type != field.type().value) return std::nullopt;
    return get(id, field);
  }
  template <class T>
  void set(EntityId id, Field<T> field, const T& value) {
    const std::uint32_t* p = checked(id, field, FieldValue<T>::kSlots);
    FieldValue<T>::store(const_cast<std::uint32_t*>(p), value);  // NOLINT: our own storage, found through a const path
  }

  // Raw slots of an entity; empty when absent.
  std::span<const std::uint32_t> slots(EntityId id) const;
  std::span<std::uint32_t> slots(EntityId id);

  // Snaps every field to the value its code reads back as, so the server
  // holds exactly what clients will see (and predict from). The server
  // calls it after each tick.
  void quantize();
  void quantize(EntityId id);

  // Makes entity `id` here a copy of the one in `from` (same schema):
  // spawns it if absent, respawns it if its type differs, despawns it if
  // `from` has none. For restoring selected entities in a rollback.
  void copy_entity(const World& from, EntityId id);

  // The largest difference, in quantization steps, between any field of
  // the entity here and in `other` (angles the short way round; a
  // quaternion whose largest component differs counts as its full range).
  // nullopt when either lacks the entity or the types differ.
  std::optional<std::uint32_t> step_difference(const World& other, EntityId id) const;

 private:
  struct Entry {
    std::uint16_t type = 0;
    bool alive = false;
    std::uint32_t index = 0;  // position in the type's store
    std::uint32_t generation = 0;
    // In free_ids_ already. A client mirrors the server's ids with
    // spawn_at, which never takes ids off the free list; without this mark
    // every despawn would queue the id again and the list would grow for
    // as long as entities come and go.
    bool queued_free = false;
  };
  struct Store {
    std::vector<std::uint32_t> slots;  // stride slots per entity
    std::vector<EntityId> ids;
  };

  // The slots of a field, after the checks get and set promise. Inline,
  // as games read and write fields for every entity of every tick; the
  // throwing path is not.
  template <class T>
  const std::uint32_t* checked(EntityId id, Field<T> field, std::size_t count) const {
    if (field.valid() && contains(id)) {
      const Entry& e = entries_[id.value];
      const std::size_t stride = strides_[e.type];
      if (e.type == field.type().value && field.offset() + count <= stride) {
        return stores_[e.type].slots.data() + e.index * stride + field.offset();
      }
    }
    throw_bad_access(id, field.type(), field.valid());
  }
  [[noreturn]] void throw_bad_access(EntityId id, TypeId type, bool valid) const;
  void check_type(TypeId type) const;
  void place(EntityId id, TypeId type);
  void queue_free(std::uint32_t id);

  Schema schema_;
  WorldConfig config_;
  std::vector<Entry> entries_;
  std::vector<Store> stores_;
  std::vector<std::uint16_t> strides_;  // by type id, copied from the schema
  std::vector<EntityId> live_;          // sorted
  std::deque<std::uint32_t> free_ids_;
  std::uint32_t next_id_ = 0;
};

}  // namespace tickwire::snapshot
