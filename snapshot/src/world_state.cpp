#include "tickwire/snapshot/world_state.h"

#include <algorithm>
#include <vector>

#include "tickwire/snapshot/field_codec.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::snapshot {

bool WorldState::same_content(const WorldState& other, const Schema& schema) const {
  if (tick_ != other.tick_ || entities_.size() != other.entities_.size()) return false;
  for (std::size_t i = 0; i < entities_.size(); ++i) {
    const EntityState& a = entities_[i];
    const EntityState& b = other.entities_[i];
    if (a.id != b.id || a.type != b.type || a.generation != b.generation || a.updated != b.updated) return false;
    const std::uint16_t stride = schema.type(a.type).stride();
    if (!std::equal(code_data(a), code_data(a) + stride, other.code_data(b))) return false;
  }
  return true;
}

void WorldState::merge_appended(std::size_t sorted) {
  const std::size_t n = entities_.size();
  if (sorted >= n || sorted == 0) return;
  // A snapshot spawns a few entities at a time; more go the general way.
  constexpr std::size_t kInline = 16;
  const std::size_t appended = n - sorted;
  if (appended > kInline) {
    sort_by_id();
    return;
  }
  EntityState tail[kInline];
  std::copy(entities_.begin() + static_cast<std::ptrdiff_t>(sorted), entities_.end(), tail);
  std::size_t write = n;
  std::size_t kept = sorted;  // entities_[0, kept) not yet moved
  for (std::size_t j = appended; j > 0; --j) {
    const EntityState& e = tail[j - 1];
    while (kept > 0 && e.id < entities_[kept - 1].id) entities_[--write] = entities_[--kept];
    entities_[--write] = e;
  }
}

void capture(const World& world, Tick tick, WorldState& out) {
  out.clear();
  out.set_tick(tick);
  const Schema& schema = world.schema();
  world.for_each([&](EntityId id) {
    const TypeId type = *world.type_of(id);
    const TypeSpec& spec = schema.type(type);
    EntityState e{id, type, state_generation(world.generation(id)), tick, 0};
    std::uint32_t* codes = out.append(e, spec.stride());
    quantize_entity(spec, world.slots(id), {codes, spec.stride()});
  });
  out.build_id_index();
}

void WorldState::build_id_index() {
  id_index_.clear();
  if (entities_.empty()) return;
  // Only for entities in increasing id order (a capture's): the diff reads
  // the positions as increasing with the ids.
  for (std::size_t i = 1; i < entities_.size(); ++i) {
    if (!(entities_[i - 1].id < entities_[i].id)) return;
  }
  const std::uint64_t top = entities_.back().id.value;
  if (top >= 2 * std::uint64_t{entities_.size()} + 4096) return;
  id_index_.assign(static_cast<std::size_t>(top) + 1, kNoIndex);
  for (std::size_t i = 0; i < entities_.size(); ++i) id_index_[entities_[i].id.value] = static_cast<std::uint32_t>(i);
}

void restore(const WorldState& state, World& world) {
  const Schema& schema = world.schema();
  std::vector<EntityId> gone;
  world.for_each([&](EntityId id) {
    const EntityState* e = state.find(id);
    if (e == nullptr || e->type != *world.type_of(id)) gone.push_back(id);
  });
  for (EntityId id : gone) world.despawn(id);
  for (const EntityState& e : state.entities()) {
    if (!world.contains(e.id) && !world.spawn_at(e.id, e.type)) continue;  // beyond this world's bounds
    const TypeSpec& spec = schema.type(e.type);
    dequantize_entity(spec, state.codes(e, spec.stride()), world.slots(e.id));
  }
}

}  // namespace tickwire::snapshot
