#include "tickwire/snapshot/reference_probe.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "tickwire/snapshot/state_ring.h"

namespace tickwire::snapshot {

namespace {

// The spans the reference search tries; the longest is how far behind the
// baseline an automatic reference can lie, and so how many states a client
// costs. Spans of 24 and 32 were tried too: they changed no byte of the
// arena scenes and of cubes_idle, saved 1.5% on asteroids_simple and cost
// 2.8% on asteroids (the estimate picked them where they coded worse), and
// they doubled the states kept.
constexpr std::int64_t kSpanLadder[] = {1, 2, 3, 4, 6, 8, 12, 16};

}  // namespace

std::vector<std::vector<std::uint8_t>> motion_everywhere(const Schema& schema) {
  std::vector<std::vector<std::uint8_t>> motion;
  for (const TypeSpec& t : schema.types()) motion.emplace_back(t.stride(), std::uint8_t{1});
  return motion;
}

void detail::probe_reference(const SnapshotEncoder& encoder, const WorldState& current, const WorldState& baseline,
                             std::span<const DeltaItem> items, std::size_t sample, bool second_order, bool per_field,
                             const ReferenceAt& reference_at, ReferenceChoice& choice, PredictionCosts& costs) {
  const WorldState* tried[std::size(kSpanLadder)] = {};
  std::size_t tried_count = 0;
  std::int64_t best_span = 0;
  std::uint64_t best_bits = 0;
  for (const std::int64_t rung : kSpanLadder) {
    const WorldState* ref = reference_at(baseline.tick(), rung);
    if (ref == nullptr || std::find(tried, tried + tried_count, ref) != tried + tried_count) continue;
    tried[tried_count++] = ref;
    const std::int64_t span = baseline.tick() - ref->tick();
    const WorldState* ref2 = second_order ? reference_at(ref->tick(), span) : nullptr;
    EncodeInput in{&current, &baseline, ref, ref2};
    in.motion_choice = &choice.motion;
    const std::uint64_t bits = encoder.estimate_residual_bits(in, items, sample);
    if (best_span == 0 || bits < best_bits || (bits == best_bits && span > best_span)) {
      best_span = span;
      best_bits = bits;
    }
  }
  choice.span = best_span;
  if (best_span == 0 || !per_field) return;
  // Then, with that reference, motion or hold for each field.
  const WorldState* ref = reference_at(baseline.tick(), best_span);
  const WorldState* ref2 = second_order ? reference_at(ref->tick(), best_span) : nullptr;
  const EncodeInput in{&current, &baseline, ref, ref2};
  encoder.estimate_residual_bits(in, items, sample, &costs);
  for (std::size_t t = 0; t < choice.motion.size() && t < costs.motion.size(); ++t) {
    for (std::size_t i = 0; i < choice.motion[t].size() && i < costs.motion[t].size(); ++i) {
      const std::uint64_t motion = costs.motion[t][i];
      const std::uint64_t hold = costs.hold[t][i];
      // Types without a sample keep their choice; ties keep motion.
      if (motion + hold > 0) choice.motion[t][i] = motion <= hold ? 1 : 0;
    }
  }
}

SharedReferenceProbe::SharedReferenceProbe(Schema schema, std::uint32_t interval, std::size_t sample)
    : schema_(std::move(schema)), encoder_(schema_), interval_(interval), sample_(sample) {
  if (interval_ == 0) throw std::invalid_argument("SharedReferenceProbe: interval must be > 0");
  if (sample_ == 0) throw std::invalid_argument("SharedReferenceProbe: sample must be > 0");
  for (const TypeSpec& t : schema_.types()) {
    for (const ComponentSpec& c : t.components) second_order_ = second_order_ || c.second_order;
  }
  for (ReferenceChoice& c : choices_) c.motion = motion_everywhere(schema_);
}

std::int64_t SharedReferenceProbe::typical_age(std::size_t set) {
  constexpr std::int64_t kAges[kAgeSets] = {1, 2, 3, 6, 12, 24};
  return kAges[std::min(set, kAgeSets - 1)];
}

void SharedReferenceProbe::update(const WorldHistory& history, Tick tick) {
  const WorldState* current = history.find(tick);
  if (current == nullptr) return;
  // Captures are exactly the values of their tick, so the history serves
  // as the states of a client that acknowledged everything.
  const detail::ReferenceAt at = [&history](Tick from, std::int64_t span) -> const WorldState* {
    if (span < 1 || span > std::int64_t{from.value()}) return nullptr;
    return history.find(Tick(static_cast<Tick::Rep>(std::int64_t{from.value()} - span)));
  };
  for (std::size_t set = 0; set < kAgeSets; ++set) {
    const std::uint64_t phase = set * interval_ / kAgeSets;
    if (probed_[set] && (tick.value() + phase) % interval_ != 0) continue;
    const WorldState* baseline = at(tick, typical_age(set));
    if (baseline == nullptr) continue;
    diff_states(schema_, *current, baseline, Relevancy{}, items_);
    ReferenceChoice& choice = choices_[set];
    const std::int64_t before = choice.span;
    detail::probe_reference(encoder_, *current, *baseline, items_, sample_, second_order_, true, at, choice, costs_);
    if (choice.span == 0) {
      choice.span = before;  // nothing held to refer to: keep the last choice
      continue;
    }
    probed_[set] = true;
    ++probes_;
  }
  longest_span_ = 0;
  for (std::size_t set = 0; set < kAgeSets; ++set) {
    if (probed_[set]) longest_span_ = std::max(longest_span_, choices_[set].span);
  }
}

const ReferenceChoice* SharedReferenceProbe::choice(std::int64_t age) const {
  const std::size_t set = age_set(age);
  return probed_[set] ? &choices_[set] : nullptr;
}

}  // namespace tickwire::snapshot
