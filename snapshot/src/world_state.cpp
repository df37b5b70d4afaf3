#include "tickwire/snapshot/world_state.h"

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

void capture(const World& world, Tick tick, WorldState& out) {
  out.clear();
  out.set_tick(tick);
  const Schema& schema = world.schema();
  world.for_each([&](EntityId id) {
    const TypeId type = *world.type_of(id);
    const TypeSpec& spec = schema.type(type);
    EntityState e{id, type, world.generation(id), tick, 0};
    std::uint32_t* codes = out.append(e, spec.stride());
    quantize_entity(spec, world.slots(id), {codes, spec.stride()});
  });
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
