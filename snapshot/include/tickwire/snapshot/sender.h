#pragma once
// The server's side of one client: which states that client holds, which
// it has acknowledged, what each entity has waited, and how many bytes it
// may be sent. Each call to encode() turns the world at a tick into one
// snapshot packet for this client:
//
// - Baseline: the newest snapshot the client acknowledged, if it is still
//   in the history; otherwise a full snapshot. The client holds exactly
//   the state this sender recorded for that tick, so the delta is exact.
// - Reference: an older acknowledged state, so changes are coded against
//   where each entity's recent motion says it would be.
// - Budget: at most max_payload bytes, and bytes_per_second on average.
//   When the changes do not fit, a priority accumulator picks what goes
//   (Glenn Fiedler, "State Synchronization"): an entity's claim is its
//   priority times how long the client's copy has waited, the highest go
//   first, and a refreshed entity starts again from zero, so every entity
//   is refreshed eventually. The wait is read from the baseline itself
//   (the tick its values came from; for a spawn, since this client first
//   saw the entity), not kept in a counter: with a round trip of several packets,
//   consecutive snapshots build on different baselines, and an entity
//   refreshed in one line of states may still be stale in another.
// - Spawns and despawns are reliable without a separate channel: a delta
//   against a state that still holds a despawned entity removes it again,
//   until the client acknowledges a snapshot that did.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "tickwire/core/tick.h"
#include "tickwire/snapshot/delta.h"
#include "tickwire/snapshot/reference_probe.h"
#include "tickwire/snapshot/snapshot_codec.h"
#include "tickwire/snapshot/state_ring.h"

namespace tickwire::snapshot {

struct SenderConfig {
  std::uint32_t tick_rate = 60;        // ticks per second (for bytes_per_second)
  std::size_t max_payload = 1100;      // bytes per snapshot: the MTU less the packet header
  std::uint32_t bytes_per_second = 0;  // average cap; 0 means none
  std::uint32_t history_ticks = 64;    // states kept; must equal the client's
  // Ticks between reference and baseline. 0 lets the sender find out:
  // every reference_probe_interval snapshots it estimates, on a sample of
  // entities, what the residuals would cost against each acknowledged
  // state and keeps the cheapest span. Long spans average out
  // quantization noise in the velocity estimate (steady motion); short
  // ones follow changes of velocity sooner (players that turn).
  std::uint32_t reference_span = 0;
  std::uint32_t reference_probe_interval = 64;
  // How far behind the baseline a reference may lie, in ticks (twice that
  // for the second reference of acceleration fields). The sender keeps the
  // acknowledged states within reach and gives the storage of the others
  // back: most of what a client costs the server in memory. 0 means the
  // furthest the span search tries (16; with a shared probe, its longest
  // chosen span and 4 more, up to 16), or reference_span when that is
  // set; at most history_ticks.
  std::uint32_t reference_reach = 0;
  // With the same probe, per field: predict from motion or hold the last
  // value, whichever its recent traffic says is cheaper (a facing that
  // snaps is cheaper held; one that sweeps, extrapolated).
  // Steps of the compression, switchable to measure what each buys.
  bool delta = true;  // false: every snapshot is a full one
  bool motion_prediction = true;
  bool adaptive_reference_span = true;  // false (with reference_span 0): the baseline's age
  bool choose_motion_per_field = true;  // false: motion wherever the schema declares it
  bool adaptive_coding = true;
  bool inherit_models = true;  // adaptive models carry over through the baseline
  // A state the client has not acknowledged yet keeps the coding models
  // its packet ended with, in case it becomes the baseline: on a long or
  // lossy round trip, most of what a client costs the server. Beyond this
  // many states in flight the sender thins them, keeping models on states
  // spread evenly over the flight. When the client acknowledges a state
  // that gave its models up, it is still the baseline, and the next
  // packets' models start from the newest acknowledged state that kept
  // them (a few ticks older; the header names it). 0: no bound.
  std::uint32_t max_models_in_flight = 4;
  // The states in flight themselves (sent, not yet acknowledged) are kept
  // for the same reason: on a round trip of 25 ticks, 25 of them, most of
  // what such a client costs the server. Beyond this many the sender thins
  // them the same way, spread evenly over the flight (keeping those with
  // models); an ack of a state it gave up is ignored, so the baseline stays
  // the last one kept, a tick or two older. Older baselines cost bytes and
  // share fewer coded changes between clients: the default, 16, leaves
  // round trips up to 16 ticks (267 ms at 60 Hz) untouched and bounds the
  // rest. 0: no bound; else at least 2.
  std::uint32_t max_views_in_flight = 16;
  // With adaptive_coding: code every body with these fixed models (a
  // codebook: codebook.h) instead of models carried per client. The
  // client's receiver must hold the same (ReceiverConfig::codebook).
  std::shared_ptr<const ModelState> codebook = nullptr;
};

struct SenderStats {
  std::uint64_t snapshots = 0;
  std::uint64_t full_snapshots = 0;  // sent without a baseline
  std::uint64_t bytes = 0;
  std::uint64_t changed_sent = 0;      // entity updates sent
  std::uint64_t changed_deferred = 0;  // entity updates left for a later packet
  std::uint64_t spawns_sent = 0;
  std::uint64_t removals_sent = 0;
  std::uint64_t extra_passes = 0;  // re-encodings to fit the budget
  std::uint64_t acks = 0;
  std::uint64_t acks_ignored = 0;       // ticks never sent, or too old
  std::uint64_t views_released = 0;     // states given up: beyond reach, thinned, or no ack in time
  std::uint64_t models_thinned = 0;     // states in flight that gave up their models to the bound
  std::uint64_t views_thinned = 0;      // states in flight given up to max_views_in_flight
  std::uint64_t models_from_older = 0;  // snapshots whose models start from a state older than the baseline
  std::uint64_t fresh_models = 0;       // snapshots whose models start fresh: no acknowledged state kept any
  // Snapshots whose state was not kept: every recent ack came too late to
  // make any state a baseline (a round trip longer than the history).
  std::uint64_t views_not_kept = 0;
};

class SnapshotSender {
 public:
  // Throws std::invalid_argument for an unusable config (zero rates or
  // history, history beyond kMaxHistoryTicks, a payload under 64 bytes).
  SnapshotSender(Schema schema, SenderConfig config = {});

  // Which entities this client sees; unset means all.
  void set_relevancy(Relevancy relevant) { relevancy_ = std::move(relevant); }
  // Priority per entity; unset means the type's registered priority.
  void set_priority(std::function<float(EntityId, TypeId)> priority) { priority_ = std::move(priority); }
  // With an automatic reference span (reference_span 0 and
  // adaptive_reference_span), take the span and the motion choices from
  // `probe` (probed once for every client of the world) instead of probing
  // this client's own entities, whenever it has a choice for the packet's
  // baseline age. With reference_reach 0 the sender then keeps only the
  // acknowledged states within the probe's longest span (and a slack of 4)
  // behind the baseline, not 16. The probe must outlive the sender; null:
  // probe alone.
  void set_shared_probe(const SharedReferenceProbe* probe) { shared_probe_ = probe; }

  // The client decoded snapshot `tick` (it says so in its input packets).
  // A tick this sender never sent, or no longer holds, is ignored.
  void acknowledge(Tick tick);

  // Encodes `current`, the world captured at its tick, into `out`.
  // Snapshot ticks must increase (std::invalid_argument otherwise).
  void encode(const WorldState& current, std::vector<std::uint8_t>& out) { encode(current, nullptr, out); }
  // The same for the capture of `tick` in `history` (std::invalid_argument
  // when it holds none), the way a server with many clients should call
  // it: the states this sender keeps of what its client holds then point
  // into the history's captures instead of copying them, so they cost
  // about a fifth of the memory and no copying. The history must be
  // deeper than history_ticks for that (twice as deep shares nearly
  // everything: an entity whose values are older than the history's
  // reach, which only a long-starved one has, is copied); the history
  // must outlive this sender's states. The bytes are the same either way.
  //
  // With a codebook, `cache` (may be null) shares coded entity changes
  // between the senders of one world's clients: every sender given a
  // cache must encode from the same history, and a cache serves one
  // thread at a time. The bytes are the same with or without it.
  void encode(const WorldHistory& history, Tick tick, std::vector<std::uint8_t>& out, EntityBitsCache* cache = nullptr);
  std::vector<std::uint8_t> encode(const WorldState& current) {
    std::vector<std::uint8_t> out;
    encode(current, out);
    return out;
  }

  // Forgets every state and ack: the next snapshot is a full one (for a
  // client that reconnected or lost its states).
  void reset();

  std::optional<Tick> newest_acked() const { return newest_acked_; }
  // States held that keep their coding models (for tests and memory
  // accounting).
  std::size_t states_with_models() const;
  // The state the client holds once it decodes snapshot `tick`, while
  // within history_ticks of the newest snapshot and kept (see
  // SenderStats::views_not_kept).
  const WorldState* view(Tick tick) const;
  // States held, of every kind (for tests and memory accounting).
  std::size_t views_held() const;
  const SenderStats& stats() const { return stats_; }
  // The baseline age in ticks of the last snapshot encoded (0: a full one),
  // for a codebook trainer (CodebookTrainer::add).
  std::uint32_t last_baseline_age() const { return last_baseline_age_; }
  const SenderConfig& config() const { return config_; }
  // What this sender's own probe chose last (for tests and diagnostics).
  const ReferenceChoice& own_reference_choice() const { return own_choice_; }

 private:
  const WorldState* choose_reference(Tick newer, std::int64_t target, Tick now) const;
  void probe_reference_span(const WorldState& current, const WorldState& baseline, Tick now);
  std::size_t budget(Tick now);
  float priority_of(EntityId id, TypeId type) const;
  void encode(const WorldState& current, const WorldHistory* history, std::vector<std::uint8_t>& out,
              EntityBitsCache* cache = nullptr);
  void fit(const EncodeInput& in, std::size_t budget, std::vector<std::uint8_t>& out);
  std::uint32_t reach() const;
  void release_views_behind(Tick newest);
  void release(StateRing::Slot& slot);
  void note_ack_age(Tick tick);
  bool acks_too_late() const;
  void drop_views();
  void thin_models_in_flight(Tick now);
  void thin_views_in_flight(Tick now);
  std::size_t thinnest(std::int64_t before_oldest, bool (*droppable)(const StateRing::Slot&)) const;
  bool models_carry() const { return config_.adaptive_coding && config_.inherit_models && !config_.codebook; }
  void take_spare_for_scratch();

  Schema schema_;
  SenderConfig config_;
  SnapshotEncoder encoder_;
  StateRing views_;
  Relevancy relevancy_;
  std::function<float(EntityId, TypeId)> priority_;
  std::optional<Tick> newest_acked_;
  // The newest acknowledged state that kept its models, where a packet's
  // models start when thinning took the baseline's; kept whole.
  std::optional<Tick> base_;
  std::vector<StateRing::Slot*> in_flight_;  // the thinning's list, kept for its storage
  std::optional<Tick> last_tick_;
  // The oldest tick below the newest acknowledged one whose state
  // release_views_behind kept: below it every slot is empty.
  std::optional<Tick> oldest_held_;
  // Within reach, the ticks below it hold nothing or an acknowledged state
  // that gave its models up (release_views_behind skips them).
  std::optional<Tick> settled_until_;
  // What the acks of two consecutive windows of history_ticks snapshots
  // said about the round trip: whether any came, and whether any came
  // while its state could still be a baseline. When acks come and none in
  // time, no state is kept: on a round trip longer than the history, the
  // states in flight would cost a whole history of memory a client and
  // never serve. An ack in time (the link got shorter) keeps them again.
  struct AckWindow {
    bool any = false;
    bool in_time = false;
  };
  AckWindow acks_now_;
  AckWindow acks_before_;
  // The codebook age sets (age_set()) of this client's baselines over the
  // same two windows, a bit a set: with the shared probe, the spans of
  // those sets' choices are all this client's references need.
  std::uint8_t age_sets_now_ = 0;
  std::uint8_t age_sets_before_ = 0;
  std::uint32_t ack_window_countdown_ = 0;
  bool views_dropped_ = false;  // drop_views() ran and nothing was kept since
  std::uint32_t last_baseline_age_ = 0;
  double tokens_ = 0.0;
  bool second_order_fields_ = false;  // the schema has Prediction::kAcceleration fields
  ReferenceChoice own_choice_;        // of this sender's probe; motion per type and component, as EncodeInput
  const SharedReferenceProbe* shared_probe_ = nullptr;
  PredictionCosts costs_;
  std::uint32_t probe_countdown_ = 0;
  // The spawns this client waits for, in id order, each with the tick it
  // first had the entity (of this generation) to see: how long the spawn
  // has waited. Consecutive snapshots build on different baselines, so a
  // spawn one of them no longer needs may still wait in the next; an
  // entry counts as gone once no snapshot has needed it for history_ticks,
  // and gone entries are dropped every history_ticks packets. The list
  // follows what the client sees, not the largest entity id the world
  // ever used.
  struct Waiting {
    std::uint32_t id = 0;
    std::uint32_t generation = 0;
    std::uint32_t since = 0;
    std::uint32_t last = 0;  // the newest snapshot it waited in
  };
  void update_waiting(const WorldState& current, Tick now);
  Tick waiting_since(EntityId id) const;
  std::vector<Waiting> waiting_;
  std::uint32_t waiting_purge_countdown_ = 0;
  std::vector<float> claim_;  // per item, for the selection
  std::vector<DeltaItem> items_;
  std::vector<std::uint32_t> item_bits_;
  std::vector<std::uint32_t> order_;
  WorldState scratch_;
  // Storage of released states, for the next states built: released
  // states come free at the rate new ones are built, so this stays small
  // and a warm sender allocates nothing.
  std::vector<WorldState> spare_;
  std::uint32_t reach_ = 0;  // reference_reach as applied, doubled for second order
  SenderStats stats_;
};

}  // namespace tickwire::snapshot
