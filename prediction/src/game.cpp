#include "tickwire/prediction/game.h"

#include <stdexcept>
#include <string>

namespace tickwire::prediction {

SpawnKey add_spawn_key(snapshot::TypeBuilder& type, std::int32_t max_player_id) {
  if (max_player_id < 0) throw std::invalid_argument("add_spawn_key: max_player_id must be >= 0");
  SpawnKey key;
  key.owner = type.add_int("spawn_owner", 0, max_player_id);
  key.tick = type.add_int("spawn_tick", 0, kSpawnTickModulus - 1);
  key.index = type.add_int("spawn_index", 0, kMaxSpawnsPerTick - 1);
  return key;
}

void write_spawn_key(snapshot::World& world, EntityId id, const SpawnKey& key, PlayerId owner, Tick tick,
                     std::uint32_t index) {
  world.set(id, key.owner, static_cast<std::int32_t>(owner.value));
  world.set(id, key.tick, static_cast<std::int32_t>(tick.value() % static_cast<std::uint32_t>(kSpawnTickModulus)));
  world.set(id, key.index, static_cast<std::int32_t>(index));
}

EntityId SimContext::spawn(snapshot::World& world, TypeId type, const SpawnKey& key, PlayerId owner) {
  if (!key.owner.valid() || key.owner.type() != type) {
    throw std::invalid_argument("SimContext::spawn: the spawn key belongs to another type");
  }
  const snapshot::TypeSpec& spec = world.schema().type(type);
  const snapshot::ComponentSpec& owner_field = spec.components[key.owner.offset()];
  if (owner.value > owner_field.max_code) {
    throw std::invalid_argument("SimContext::spawn: player id " + std::to_string(owner.value) +
                                " is above the spawn key's max_player_id");
  }
  std::uint32_t* count = nullptr;
  for (auto& [player, n] : spawn_counts_) {
    if (player == owner) count = &n;
  }
  if (count == nullptr) count = &spawn_counts_.emplace_back(owner, 0U).second;
  if (*count >= static_cast<std::uint32_t>(kMaxSpawnsPerTick)) {
    throw std::length_error("SimContext::spawn: more than kMaxSpawnsPerTick spawns by one player in one tick");
  }
  const std::uint32_t index = (*count)++;
  if (hook_ != nullptr) return hook_->spawn(world, type, key, owner, tick_, index);
  const EntityId id = world.spawn(type);
  write_spawn_key(world, id, key, owner, tick_, index);
  return id;
}

void step_authoritative(Game& game, snapshot::World& world, Tick tick, const Inputs& inputs) {
  SimContext ctx(tick);
  game.simulate(world, tick, inputs, ctx);
  world.quantize();
}

}  // namespace tickwire::prediction
