#pragma once
// What changed between the state a client holds (the baseline) and the
// world now: the per-entity decisions a snapshot encodes. The sender
// classifies, then chooses which changes fit the packet (priority.h), then
// encodes (snapshot_encoder.h).

#include <cstdint>
#include <functional>
#include <vector>

#include "tickwire/snapshot/ids.h"
#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/world_state.h"

namespace tickwire::snapshot {

enum class EntityOp : std::uint8_t {
  kUnchanged,  // the client's copy is current
  kChanged,    // new values follow (as residuals against a prediction)
  kSkipped,    // changed, but not refreshed in this packet: stays stale
  kRemoved,    // despawned, or no longer relevant to this client
  kSpawned,    // new to this client: every field follows
};

struct DeltaItem {
  static constexpr std::uint32_t kNone = 0xFFFF'FFFFU;
  std::uint32_t base = kNone;     // index in the baseline's entities
  std::uint32_t current = kNone;  // index in the current state's entities
  EntityOp op = EntityOp::kUnchanged;
  // For kChanged and kSpawned: sent in this packet. A changed entity not
  // sent is coded as kSkipped; a spawn not sent is left for a later packet.
  bool send = true;
};

// Which entities a client sees at all (interest management). Empty means
// every entity.
using Relevancy = std::function<bool(EntityId, TypeId)>;

// Items in id order over the union of both states. An entity whose type or
// generation differs from the baseline's (its id was reused) appears twice:
// removed, then spawned. Irrelevant entities count as absent.
void diff_states(const Schema& schema, const WorldState& current, const WorldState* baseline, const Relevancy& relevant,
                 std::vector<DeltaItem>& items);

}  // namespace tickwire::snapshot
