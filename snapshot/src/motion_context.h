#pragma once
// Finding the reference copies of a baseline entity for motion prediction.
// Encoder and decoder walk baseline and references in id order together
// and apply the same rule, so they agree on every prediction. Private.

#include <cstddef>

#include "entity_coding.h"
#include "tickwire/snapshot/snapshot_codec.h"
#include "tickwire/snapshot/world_state.h"

namespace tickwire::snapshot::detail {

class ReferenceCursor {
 public:
  ReferenceCursor(const WorldState* reference, const WorldState* reference2) : ref_(reference), ref2_(reference2) {}

  // A reference must hold the same entity (id, type and generation) with
  // values from an earlier tick.
  const MotionContext& find(const EntityState& b, Tick tick) {
    MotionContext& m = current_;
    m.ref = nullptr;
    m.ref2 = nullptr;
    const EntityState* r = advance(ref_, next_, b, b.updated);
    if (r == nullptr) return m;
    const std::int64_t den = b.updated - r->updated;
    const std::int64_t num = tick - b.updated;
    if (den > kMaxMotionSpan || num <= 0) return m;
    m.ref = ref_->code_data(*r);
    m.ref_tick = r->updated;
    m.num = num;
    m.den = den;
    std::int64_t den2 = 0;
    if (const EntityState* r2 = advance(ref2_, next2_, b, r->updated)) {
      m.ref2 = ref2_->code_data(*r2);
      m.ref2_tick = r2->updated;
      den2 = r->updated - r2->updated;
    }
    // Entities updated together share their tick distances: reuse the
    // factors (their divisions are the costly part). They stay in m from
    // the entity that computed them; only a context with a reference reads
    // them.
    if (num != last_num_ || den != last_den_ || den2 != last_den2_) {
      m.factors = motion_factors(num, den, den2);
      last_num_ = num;
      last_den_ = den;
      last_den2_ = den2;
    }
    if (!m.factors.second_order) m.ref2 = nullptr;
    return m;
  }

 private:
  static const EntityState* advance(const WorldState* state, std::size_t& next, const EntityState& b, Tick before) {
    if (state == nullptr) return nullptr;
    const auto all = state->entities();
    while (next < all.size() && all[next].id < b.id) ++next;
    if (next == all.size()) return nullptr;
    const EntityState& r = all[next];
    if (r.id != b.id || r.type != b.type || r.generation != b.generation || !(r.updated < before)) return nullptr;
    return &r;
  }

  const WorldState* ref_;
  const WorldState* ref2_;
  std::size_t next_ = 0;
  std::size_t next2_ = 0;
  MotionContext current_;
  std::int64_t last_num_ = -1;
  std::int64_t last_den_ = -1;
  std::int64_t last_den2_ = -1;
};

}  // namespace tickwire::snapshot::detail
