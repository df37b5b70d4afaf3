#include "tickwire/prediction/spawn_registry.h"

#include <algorithm>

namespace tickwire::prediction {

SpawnRegistry::SpawnRegistry(std::uint32_t first_id, std::uint32_t count) : first_id_(first_id), count_(count) {
  for (std::uint32_t i = 0; i < count; ++i) free_.push_back(first_id + i);
}

PendingSpawn* SpawnRegistry::find(PlayerId owner, Tick tick, std::uint32_t index) {
  for (PendingSpawn& p : pending_) {
    if (p.owner == owner && p.tick == tick && p.index == index) return &p;
  }
  return nullptr;
}

PendingSpawn* SpawnRegistry::match(PlayerId owner, std::int32_t tick_mod, std::int32_t index, TypeId type) {
  for (PendingSpawn& p : pending_) {
    if (p.owner == owner && p.type == type && static_cast<std::int64_t>(p.index) == index &&
        static_cast<std::int64_t>(p.tick.value() % static_cast<std::uint32_t>(kSpawnTickModulus)) == tick_mod) {
      return &p;
    }
  }
  return nullptr;
}

PendingSpawn* SpawnRegistry::add(TypeId type, const SpawnKey& key, PlayerId owner, Tick tick, std::uint32_t index) {
  if (free_.empty()) return nullptr;
  const EntityId id{free_.front()};
  free_.pop_front();
  pending_.push_back({id, type, key, owner, tick, index, true});
  return &pending_.back();
}

void SpawnRegistry::remove(EntityId local) {
  auto it = std::find_if(pending_.begin(), pending_.end(), [local](const PendingSpawn& p) { return p.local == local; });
  if (it == pending_.end()) return;
  pending_.erase(it);
  // Back of the queue: an id is not handed out again while the renderer
  // may still be drawing the entity it named.
  free_.push_back(local.value);
}

}  // namespace tickwire::prediction
