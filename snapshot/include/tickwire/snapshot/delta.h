#pragma once
// What changed between the state a client holds (the baseline) and the
// world now: the per-entity decisions a snapshot encodes. The sender
// classifies, then chooses which changes fit the packet (priority.h), then
// encodes (snapshot_encoder.h).

#include <concepts>
#include <cstdint>
#include <functional>
#include <span>
#include <type_traits>
#include <utility>
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

// Which entities a client sees at all (interest management): every entity
// (empty, the default), those a predicate accepts, or those of a list. A
// list lets the delta visit only the listed entities instead of asking
// about every entity of the world, which is what counts when each of many
// clients sees a small part of a large world.
class Relevancy {
 public:
  Relevancy() = default;
  // Any callable as bool(EntityId, TypeId); an empty std::function is empty.
  template <class Fn>
  requires(!std::same_as<std::remove_cvref_t<Fn>, Relevancy> && std::is_invocable_r_v<bool, Fn&, EntityId, TypeId>)
      Relevancy(Fn&& predicate)  // NOLINT(google-explicit-constructor): a predicate is a relevancy
      : predicate_(std::forward<Fn>(predicate)) {}

  // The entities of `sorted_ids` (increasing, no repeats); the caller keeps
  // the ids alive for as long as the relevancy is used.
  static Relevancy of_ids(std::span<const EntityId> sorted_ids) {
    Relevancy r;
    r.ids_ = sorted_ids;
    r.listed_ = true;
    return r;
  }

  explicit operator bool() const { return listed_ || static_cast<bool>(predicate_); }
  bool listed() const { return listed_; }
  std::span<const EntityId> ids() const { return ids_; }
  bool operator()(EntityId id, TypeId type) const;

 private:
  std::function<bool(EntityId, TypeId)> predicate_;
  std::span<const EntityId> ids_;
  bool listed_ = false;
};

// Items in id order over the union of both states. An entity whose type or
// generation differs from the baseline's (its id was reused) appears twice:
// removed, then spawned. Irrelevant entities count as absent.
void diff_states(const Schema& schema, const WorldState& current, const WorldState* baseline, const Relevancy& relevant,
                 std::vector<DeltaItem>& items);

}  // namespace tickwire::snapshot
