// ClientPrediction's predicted spawns: local entities placed by
// SimContext::spawn, matched with the server's entity by their key when a
// snapshot carries it, and removed when the server never confirms them.
#include <stdexcept>

#include "tickwire/prediction/client_prediction.h"

namespace tickwire::prediction {

EntityId ClientPrediction::spawn(snapshot::World& world, TypeId type, const SpawnKey& key, PlayerId owner, Tick tick,
                                 std::uint32_t index) {
  PendingSpawn* pending = spawns_.find(owner, tick, index);
  if (pending == nullptr) {
    pending = spawns_.add(type, key, owner, tick, index);
    if (pending == nullptr) throw std::length_error("ClientPrediction: max_local_spawns predicted spawns are pending");
    ++stats_.spawns_predicted;
  }
  // A replay spawning the same key again gets the same id back, so the
  // drawing and the game's handles to it carry on.
  pending->respawned = true;
  pending->type = type;
  const EntityId id = pending->local;
  if (world.contains(id)) world.despawn(id);
  world.spawn_at(id, type);
  write_spawn_key(world, id, key, owner, tick, index);
  add_predicted(id);
  (*run_mask_)[id.value] = 1;
  return id;
}

bool ClientPrediction::adopt_spawn(const snapshot::World& authoritative, EntityId id) {
  const auto type = authoritative.type_of(id);
  if (!type) return false;
  const PendingSpawn* same_type = nullptr;
  for (const PendingSpawn& p : spawns_.pending()) {
    if (p.type == *type) same_type = &p;
  }
  if (same_type == nullptr) return false;
  const SpawnKey key = same_type->key;
  const std::int32_t owner = authoritative.get(id, key.owner);
  if (owner < 0 || static_cast<std::uint32_t>(owner) != config_.player.value) return false;
  const PendingSpawn* match =
      spawns_.match(config_.player, authoritative.get(id, key.tick), authoritative.get(id, key.index), *type);
  if (match == nullptr) return false;
  const EntityId local = match->local;
  const Tick spawn_tick = match->tick;
  world_.despawn(local);
  remove_predicted(local);
  smoother_.transfer(local, id);
  spawns_.remove(local);
  add_predicted(id);
  events_.push_back({SpawnOutcome::kConfirmed, local, id, spawn_tick});
  ++stats_.spawns_confirmed;
  return true;
}

void ClientPrediction::expire_spawns(Tick authoritative_tick) {
  std::vector<PendingSpawn> expired;
  for (const PendingSpawn& p : spawns_.pending()) {
    if (authoritative_tick - p.tick >= static_cast<std::int64_t>(config_.spawn_confirm_ticks)) expired.push_back(p);
  }
  for (const PendingSpawn& p : expired) reject_spawn(p);
}

void ClientPrediction::reject_spawn(const PendingSpawn& spawn) {
  world_.despawn(spawn.local);
  remove_predicted(spawn.local);
  events_.push_back({SpawnOutcome::kRejected, spawn.local, std::nullopt, spawn.tick});
  ++stats_.spawns_rejected;
  // Ended while a snapshot applies: one of its corrections.
  if (correcting_at_) count_correction(spawn.local, spawn.type, true, world_, nullptr, *correcting_at_);
  spawns_.remove(spawn.local);
}

std::vector<SpawnEvent> ClientPrediction::take_spawn_events() {
  std::vector<SpawnEvent> out;
  out.swap(events_);
  return out;
}

}  // namespace tickwire::prediction
