#pragma once
// A client's predicted spawns awaiting the server's word. A local entity
// gets an id from a range the server never uses, and is matched with the
// server's entity by (owner, spawn tick, index in that tick) when a
// snapshot carries it; one the server never confirms is removed.

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "tickwire/core/tick.h"
#include "tickwire/prediction/game.h"

namespace tickwire::prediction {

struct PendingSpawn {
  EntityId local;
  TypeId type;
  SpawnKey key;
  PlayerId owner;
  Tick tick;
  std::uint32_t index = 0;
  bool respawned = false;  // spawned again by the replay in progress
};

enum class SpawnOutcome : std::uint8_t {
  kConfirmed,  // the server's entity arrived; `server` replaces `local`
  kRejected,   // the server never spawned it (or a correction undid it); `local` is gone
};

struct SpawnEvent {
  SpawnOutcome outcome = SpawnOutcome::kConfirmed;
  EntityId local;
  std::optional<EntityId> server;  // kConfirmed only
  Tick spawn_tick;
};

class SpawnRegistry {
 public:
  // Local ids are first_id .. first_id + count - 1.
  SpawnRegistry(std::uint32_t first_id, std::uint32_t count);

  PendingSpawn* find(PlayerId owner, Tick tick, std::uint32_t index);
  // The pending spawn whose key the fields of a server entity hold.
  PendingSpawn* match(PlayerId owner, std::int32_t tick_mod, std::int32_t index, TypeId type);
  // Registers a new spawn with a free local id; nullptr when all are taken.
  PendingSpawn* add(TypeId type, const SpawnKey& key, PlayerId owner, Tick tick, std::uint32_t index);
  // Forgets the spawn of `local` and frees its id.
  void remove(EntityId local);

  bool is_local(EntityId id) const { return id.value >= first_id_ && id.value - first_id_ < count_; }
  std::vector<PendingSpawn>& pending() { return pending_; }
  const std::vector<PendingSpawn>& pending() const { return pending_; }

 private:
  std::uint32_t first_id_;
  std::uint32_t count_;
  std::deque<std::uint32_t> free_;
  std::vector<PendingSpawn> pending_;
};

}  // namespace tickwire::prediction
