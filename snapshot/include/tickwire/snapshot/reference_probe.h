#pragma once
// Which reference a snapshot's changes are predicted from, and which
// fields are predicted from motion: chosen by a probe that estimates, on a
// sample of changed entities, what the residuals would cost against each
// candidate reference (SenderConfig::reference_span explains the trade).
//
// A sender probes for its own client. A server with many clients probes
// once for all of them instead (SharedReferenceProbe): the choice follows
// how the world's entities move, which is the same for every client, and
// how old the packet's baseline is, which the probe takes into account by
// probing each codebook age set apart. Besides sparing each client its own
// probe, one choice for everyone is what lets the shared path share: an
// entity's coded bits depend on its reference and the motion choice, so
// clients that chose differently could not use each other's
// (EntityBitsCache).

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "tickwire/core/tick.h"
#include "tickwire/snapshot/body_models.h"
#include "tickwire/snapshot/delta.h"
#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/snapshot_codec.h"

namespace tickwire::snapshot {

class WorldHistory;
class WorldState;

struct ReferenceChoice {
  // Ticks between the reference and the baseline; 0: no reference to try.
  std::int64_t span = 0;
  // Per type and component: predict from motion (1) or hold the last
  // value (0). Sized by the schema's strides; a type without a changed
  // entity in the sample keeps what it had.
  std::vector<std::vector<std::uint8_t>> motion;
};

// Every component of every type predicted from motion (the schema's
// declarations decide where motion applies).
std::vector<std::vector<std::uint8_t>> motion_everywhere(const Schema& schema);

namespace detail {

// The state `span` ticks before `from` that may serve as a reference, or
// null.
using ReferenceAt = std::function<const WorldState*(Tick from, std::int64_t span)>;

// Estimates `items` (current against baseline) against each reference
// reference_at() finds along the span ladder, on at most `sample` changed
// entities, and sets choice.span to the cheapest (0 when none is found);
// then, with `per_field`, choice.motion per field at that span. The
// estimate starts from choice.motion as it is; `costs` is scratch.
void probe_reference(const SnapshotEncoder& encoder, const WorldState& current, const WorldState& baseline,
                     std::span<const DeltaItem> items, std::size_t sample, bool second_order, bool per_field,
                     const ReferenceAt& reference_at, ReferenceChoice& choice, PredictionCosts& costs);

}  // namespace detail

// One probe for every client of a world, per codebook age set (a packet
// whose baseline is 1 tick old, 2, 3-4, 5-8, 9-16, 17 and more). Each set
// is probed every `interval` ticks, the sets spread over the interval so
// that no tick carries them all, on captures of the history: the current
// tick's, the baseline at the set's typical age, references behind it.
// update() and choice() must not run at the same time; a server calls
// update() before its encoding threads start and choice() from them.
class SharedReferenceProbe {
 public:
  // Throws std::invalid_argument for an interval of 0 or a sample of 0.
  explicit SharedReferenceProbe(Schema schema, std::uint32_t interval = 64, std::size_t sample = 64);

  // Probes the sets due at `tick`, and the sets not probed yet, from the
  // history's captures. A set whose captures the history does not hold
  // (the first ticks of a server) stays unprobed and is tried again.
  void update(const WorldHistory& history, Tick tick);
  // The choice for a packet whose baseline is `age` ticks old; null while
  // that age's set is unprobed.
  const ReferenceChoice* choice(std::int64_t age) const;
  std::uint64_t probes() const { return probes_; }
  // The longest span any age set's choice holds now (0 before any probe):
  // how far behind a baseline a reference can lie, so how many states a
  // sender given this probe need keep.
  std::int64_t longest_span() const { return longest_span_; }

  // The baseline age each set is probed at.
  static std::int64_t typical_age(std::size_t set);

 private:
  Schema schema_;
  SnapshotEncoder encoder_;
  std::uint32_t interval_;
  std::size_t sample_;
  bool second_order_ = false;
  std::array<ReferenceChoice, kAgeSets> choices_;
  std::array<bool, kAgeSets> probed_{};
  std::vector<DeltaItem> items_;
  PredictionCosts costs_;
  std::uint64_t probes_ = 0;
  std::int64_t longest_span_ = 0;
};

}  // namespace tickwire::snapshot
