#include "tickwire/snapshot/sender.h"

#include <algorithm>
#include <stdexcept>

#include "tickwire/snapshot/codebook.h"

namespace tickwire::snapshot {

namespace {

// Below this a packet could not carry its header and the removals.
constexpr std::size_t kMinBudget = 64;
// Re-encoding after a selection changes the adaptive models' state a
// little, so selection aims this far under the budget.
constexpr double kSelectionMargin = 0.97;
constexpr int kMaxFitPasses = 5;
// The longest span the reference search tries (reference_probe.cpp): how
// far behind the baseline an automatic reference can lie, and so how many
// states a client costs.
constexpr std::uint32_t kLongestSpan = 16;
// With a shared probe, how far beyond its longest chosen span states are
// kept: the acknowledged state nearest a span is used when the one at it
// was lost, and a longer one first (reference choice below).
constexpr std::int64_t kSharedReachSlack = 4;
// Spare storage kept beyond this is freed: a burst of releases (one ack
// after a long silence) leaves more than the next states need.
constexpr std::size_t kMaxSpare = 4;

SenderConfig checked(SenderConfig c) {
  if (c.tick_rate == 0) throw std::invalid_argument("SnapshotSender: tick_rate must be > 0");
  if (c.history_ticks == 0 || c.history_ticks > kMaxHistoryTicks) {
    throw std::invalid_argument("SnapshotSender: history_ticks must be in [1, 4096]");
  }
  if (c.max_payload < kMinBudget) throw std::invalid_argument("SnapshotSender: max_payload must be at least 64 bytes");
  if (c.max_views_in_flight == 1) {
    throw std::invalid_argument("SnapshotSender: max_views_in_flight must be 0 (no bound) or at least 2");
  }
  if (c.codebook && !c.adaptive_coding) {
    throw std::invalid_argument("SnapshotSender: a codebook codes with models, so adaptive_coding must be on");
  }
  return c;
}

}  // namespace

SnapshotSender::SnapshotSender(Schema schema, SenderConfig config)
    : schema_(std::move(schema)), config_(checked(config)), encoder_(schema_), views_(config_.history_ticks) {
  if (config_.codebook && !codebook_fits(*config_.codebook, schema_)) {
    throw std::invalid_argument("SnapshotSender: the codebook was made for another schema");
  }
  encoder_.set_codebook(config_.codebook);
  for (const TypeSpec& t : schema_.types()) {
    for (const ComponentSpec& c : t.components) second_order_fields_ = second_order_fields_ || c.second_order;
  }
  own_choice_.motion = motion_everywhere(schema_);
  reach_ = reach();
  spare_.reserve(kMaxSpare);
}

// Ticks behind the baseline that a state may still be used: as the
// reference (within the reach of the span search) or, for acceleration
// fields, as the second reference behind it. Without motion prediction
// nothing older than the baseline is used.
std::uint32_t SnapshotSender::reach() const {
  if (!config_.delta || !config_.motion_prediction) return 0;
  std::uint32_t first = config_.reference_reach;
  if (first == 0) {
    if (config_.reference_span != 0) {
      first = config_.reference_span;
    } else if (config_.adaptive_reference_span) {
      first = kLongestSpan;
      // One probe for every client chooses every span this sender will
      // target, by the age of the packet's baseline: states beyond the
      // longest span of the age sets this client's baselines fell in (and
      // its slack) would never be a reference until the probe chooses
      // longer or the round trip moves to another set, and then a nearer
      // one serves for the few ticks until states that old are held again.
      // Before this client has a baseline, the probe's longest span over
      // every set is the bound; a set not probed yet is served by this
      // sender's own probe, whose spans go to the longest.
      if (shared_probe_ != nullptr && shared_probe_->longest_span() > 0) {
        std::int64_t longest = shared_probe_->longest_span();
        if (const std::uint8_t used = age_sets_now_ | age_sets_before_; used != 0) {
          longest = 0;
          for (std::size_t set = 0; set < kAgeSets; ++set) {
            if ((used & (1U << set)) == 0) continue;
            const ReferenceChoice* c = shared_probe_->choice(SharedReferenceProbe::typical_age(set));
            longest = std::max<std::int64_t>(longest, c != nullptr ? c->span : std::int64_t{kLongestSpan});
          }
        }
        first = static_cast<std::uint32_t>(std::min<std::int64_t>(kLongestSpan, longest + kSharedReachSlack));
      }
    } else {
      first = config_.history_ticks;  // the baseline's age: any span
    }
  }
  const std::uint64_t both = std::uint64_t{first} * (second_order_fields_ ? 2 : 1);
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(both, config_.history_ticks));
}

// With `baseline` the newest acknowledged state, the others older than it
// are never a baseline again. The unacknowledged ones are never a
// reference either, and the acknowledged ones only within reach: the
// slots of the rest are emptied (a late ack of one is then ignored) and
// their storage kept for the next states. Those that stay serve only as
// references, which need their codes alone, so their coding models go:
// without this every client would keep a model table per state of its
// history.
//
// When thinning (below) took the newest acknowledged state's models, the
// next packets start from the models of base_, older than it: base_ stays
// whole, and so do the unacknowledged states newer than it that kept their
// models, whose acks may still come (acks overtake each other): one of
// them would be a newer start.
void SnapshotSender::release_views_behind(Tick newest) {
  // Read only the ticks a state may still be held at: from the oldest the
  // last call kept (every older slot is empty) to `newest`. Within reach,
  // the ticks before settled_until_ were read by an earlier call and hold
  // nothing or an acknowledged state whose models are gone, which stays
  // as it is while within reach: they are skipped. On a steady round trip
  // that leaves the tick leaving reach and the few acknowledged since.
  const std::int64_t top = newest.value();
  std::int64_t from = std::max<std::int64_t>(0, top - config_.history_ticks + 1);
  if (oldest_held_) from = std::max<std::int64_t>(from, oldest_held_->value());
  const std::int64_t within_reach = std::max<std::int64_t>(from, top - static_cast<std::int64_t>(reach_));
  const std::int64_t settled =
      settled_until_ ? std::clamp<std::int64_t>(settled_until_->value(), within_reach, top) : within_reach;
  std::optional<Tick> oldest;
  std::optional<Tick> unsettled;
  const auto visit = [&](std::int64_t t) {
    StateRing::Slot* slot = views_.find(Tick(static_cast<Tick::Rep>(t)));
    if (slot == nullptr) return;
    StateRing::Slot& s = *slot;
    const bool keep = [&] {
      if (base_ && *s.tick == *base_) return true;
      if (!s.acked && !s.models_dropped && (!base_ || *s.tick > *base_) && s.state->models() != nullptr) return true;
      if (s.acked && newest - *s.tick <= static_cast<std::int64_t>(reach_)) {
        // The mark first: each state is a cache miss away.
        if (!s.models_dropped) {
          s.state->set_models(nullptr);
          s.models_dropped = true;
        }
        return true;
      }
      return false;
    }();
    if (keep) {
      if (!oldest) oldest = *s.tick;
      if (!unsettled && t >= within_reach && !(s.acked && s.models_dropped)) unsettled = *s.tick;
      return;
    }
    release(s);
  };
  for (std::int64_t t = from; t < within_reach; ++t) visit(t);
  for (std::int64_t t = within_reach; t < settled && !oldest; ++t) {
    if (views_.find(Tick(static_cast<Tick::Rep>(t))) != nullptr) oldest = Tick(static_cast<Tick::Rep>(t));
  }
  for (std::int64_t t = settled; t < top; ++t) visit(t);
  oldest_held_ = oldest ? *oldest : newest;
  settled_until_ = unsettled ? *unsettled : newest;
}

// Empties `slot`, keeping its storage for the next states while there is
// little spare.
void SnapshotSender::release(StateRing::Slot& slot) {
  ++stats_.views_released;
  WorldState held = views_.release(slot);
  if (spare_.size() < kMaxSpare) {
    held.clear();
    spare_.push_back(std::move(held));
  }
}

// An ack of `tick` arrived: whether it came while that state could still
// be a baseline, for acks_too_late. Ticks never sent say nothing.
void SnapshotSender::note_ack_age(Tick tick) {
  if (!last_tick_ || tick > *last_tick_) return;
  acks_now_.any = true;
  if (*last_tick_ - tick < static_cast<std::int64_t>(config_.history_ticks)) acks_now_.in_time = true;
}

// Acks came over the last one to two windows, and every one too late. No
// acks at all say nothing about the round trip (a client that has not
// answered yet, or a silent spell), so states stay kept then.
bool SnapshotSender::acks_too_late() const {
  return (acks_now_.any || acks_before_.any) && !acks_now_.in_time && !acks_before_.in_time;
}

// Gives up every state held, with the acks that named them: none can be a
// baseline or a reference any more (the states in flight will be acked too
// late, and the acknowledged ones are older still).
void SnapshotSender::drop_views() {
  if (views_dropped_) return;
  for (StateRing::Slot& s : views_.slots()) {
    if (s.tick) release(s);
  }
  newest_acked_.reset();
  base_.reset();
  oldest_held_.reset();
  settled_until_.reset();
  views_dropped_ = true;
}

std::size_t SnapshotSender::views_held() const { return views_.held(); }

// scratch_ holds what the last claimed slot held before: when that was a
// released (empty) state, the next view is built in spare storage instead.
void SnapshotSender::take_spare_for_scratch() {
  if (scratch_.capacity() > 0 || spare_.empty()) return;
  scratch_ = std::move(spare_.back());
  spare_.pop_back();
}

// Of the states in in_flight_ (oldest first) that `droppable` allows, the
// one whose loss leaves the shortest gap between those that stay, the
// newest never; none (in_flight_.size()) when no other is allowed.
// `before_oldest` is what an ack of the oldest would fall back to.
std::size_t SnapshotSender::thinnest(std::int64_t before_oldest, bool (*droppable)(const StateRing::Slot&)) const {
  const auto tick_of = [this](std::size_t i) { return std::int64_t{in_flight_[i]->tick->value()}; };
  std::size_t drop = in_flight_.size();
  std::int64_t shortest = 0;
  for (std::size_t i = 0; i + 1 < in_flight_.size(); ++i) {
    if (!droppable(*in_flight_[i])) continue;
    const std::int64_t before = i > 0 ? tick_of(i - 1) : before_oldest;
    const std::int64_t gap = tick_of(i + 1) - before;
    if (drop == in_flight_.size() || gap < shortest) {
      drop = i;
      shortest = gap;
    }
  }
  return drop;
}

// Keeps models on at most max_models_in_flight of the states newer than
// base_: those in flight, and those whose late ack may still come. Each
// time there are more, the state whose loss leaves the shortest gap
// between the states that keep theirs gives them up (the newest never
// does): the kept states stay spread evenly over the flight, so whichever
// the client acknowledges, a state that kept its models is near. On a
// short round trip the bound is never reached and nothing changes.
void SnapshotSender::thin_models_in_flight(Tick now) {
  const std::uint32_t bound = config_.max_models_in_flight;
  if (bound == 0 || !models_carry()) return;
  const auto history = static_cast<std::int64_t>(config_.history_ticks);
  std::int64_t span = std::min<std::int64_t>(base_ ? now - *base_ : history, history);
  span = std::min<std::int64_t>(span, std::int64_t{now.value()} + 1);  // ticks start at 0
  in_flight_.clear();
  for (std::int64_t back = span - 1; back >= 0; --back) {
    StateRing::Slot* s = views_.find(now - back);
    if (s != nullptr && !s->models_dropped && s->state->models() != nullptr) in_flight_.push_back(s);
  }
  while (in_flight_.size() > bound) {
    // Before the oldest: the baseline an ack of it would fall back to, or,
    // with none, a whole history (an ack would bring no baseline).
    const std::size_t drop =
        thinnest(base_ ? std::int64_t{base_->value()} : std::int64_t{in_flight_[0]->tick->value()} - history,
                 [](const StateRing::Slot&) { return true; });
    StateRing::Slot& s = *in_flight_[drop];
    s.state->set_models(nullptr);
    s.models_dropped = true;
    ++stats_.models_thinned;
    in_flight_.erase(in_flight_.begin() + static_cast<std::ptrdiff_t>(drop));
  }
}

// Keeps at most max_views_in_flight of the states newer than the newest
// acknowledged one (all of them sent and not yet acknowledged), spread
// evenly over the flight as the models are: whichever the client
// acknowledges, a state kept is near it. The newest is always kept, and so
// is every state that kept its coding models (thin_models_in_flight bounds
// those): a baseline without them starts its packets' models from an
// older state, or fresh, which costs far more than an older baseline.
void SnapshotSender::thin_views_in_flight(Tick now) {
  const std::uint32_t bound = config_.max_views_in_flight;
  if (bound == 0) return;
  const auto history = static_cast<std::int64_t>(config_.history_ticks);
  std::int64_t span = std::min<std::int64_t>(newest_acked_ ? now - *newest_acked_ : history, history);
  span = std::min<std::int64_t>(span, std::int64_t{now.value()} + 1);  // ticks start at 0
  if (span <= static_cast<std::int64_t>(bound)) return;                // one state a tick at most
  in_flight_.clear();
  for (std::int64_t back = span - 1; back >= 0; --back) {
    if (StateRing::Slot* s = views_.find(now - back)) in_flight_.push_back(s);
  }
  while (in_flight_.size() > bound) {
    // Before the oldest: the baseline an ack of it would fall back to, or,
    // with none, a whole history.
    const std::size_t drop = thinnest(
        newest_acked_ ? std::int64_t{newest_acked_->value()} : std::int64_t{in_flight_[0]->tick->value()} - history,
        [](const StateRing::Slot& s) { return s.models_dropped || s.state->models() == nullptr; });
    if (drop == in_flight_.size()) break;
    ++stats_.views_thinned;
    release(*in_flight_[drop]);
    in_flight_.erase(in_flight_.begin() + static_cast<std::ptrdiff_t>(drop));
  }
}

std::size_t SnapshotSender::states_with_models() const {
  std::size_t n = 0;
  for (const StateRing::Slot& s : views_.slots()) n += s.tick && s.state->models() != nullptr ? 1U : 0U;
  return n;
}

void SnapshotSender::reset() {
  views_.clear();
  oldest_held_.reset();
  settled_until_.reset();
  newest_acked_.reset();
  base_.reset();
  last_tick_.reset();
  own_choice_.span = 0;
  probe_countdown_ = 0;
  for (auto& choice : own_choice_.motion) std::fill(choice.begin(), choice.end(), std::uint8_t{1});
  tokens_ = 0.0;
  waiting_.clear();
  waiting_purge_countdown_ = 0;
  acks_now_ = {};
  acks_before_ = {};
  age_sets_now_ = 0;
  age_sets_before_ = 0;
  ack_window_countdown_ = 0;
  views_dropped_ = false;
}

void SnapshotSender::acknowledge(Tick tick) {
  note_ack_age(tick);
  StateRing::Slot* slot = views_.find(tick);
  if (slot == nullptr) {
    ++stats_.acks_ignored;
    return;
  }
  ++stats_.acks;
  slot->acked = true;
  const bool new_base = !slot->models_dropped && (!base_ || tick > *base_);
  if (new_base) base_ = tick;
  if (newest_acked_ && tick <= *newest_acked_) {
    // A late ack of a state that kept its models: the states it passed
    // are no use now.
    if (new_base) release_views_behind(*newest_acked_);
    return;
  }
  newest_acked_ = tick;
  release_views_behind(tick);
}

const WorldState* SnapshotSender::view(Tick tick) const {
  // Older states may point into captures a shared history has reused.
  if (last_tick_ && *last_tick_ - tick >= config_.history_ticks) return nullptr;
  const auto* slot = views_.find(tick);
  return slot != nullptr ? slot->state.get() : nullptr;
}

float SnapshotSender::priority_of(EntityId id, TypeId type) const {
  return priority_ ? priority_(id, type) : schema_.type(type).priority;
}

// The acknowledged state whose span back from `newer` is nearest
// `target`, ties to the longer span (its velocity estimate is less
// noisy). Searched outward from the target span, the longer one first at
// each distance: the first found is the one a scan of every slot would
// pick, in a few lookups instead of a read of every slot of the ring.
const WorldState* SnapshotSender::choose_reference(Tick newer, std::int64_t target, Tick now) const {
  // Within the history and after tick 0.
  const std::int64_t longest = std::min<std::int64_t>(
      std::int64_t{newer.value()}, (newer - now) + static_cast<std::int64_t>(config_.history_ticks) - 1);
  if (longest < 1) return nullptr;
  // Spans lie in [1, longest]: a target outside ranks them as its nearest
  // end does (and the search stays as short as the history).
  target = std::clamp<std::int64_t>(target, 1, longest);
  const auto acked_at = [&](std::int64_t span) -> const WorldState* {
    if (span < 1 || span > longest) return nullptr;
    const StateRing::Slot* s = views_.find(Tick(static_cast<Tick::Rep>(std::int64_t{newer.value()} - span)));
    return s != nullptr && s->acked ? s->state.get() : nullptr;
  };
  for (std::int64_t d = 0; target + d <= longest || target - d >= 1; ++d) {
    if (const WorldState* longer = acked_at(target + d)) return longer;
    if (d > 0) {
      if (const WorldState* shorter = acked_at(target - d)) return shorter;
    }
  }
  return nullptr;
}

// Tries the acknowledged states at spans along a ladder and keeps the span
// whose estimated residuals are smallest (0 when there is none), then the
// motion choices at that span.
void SnapshotSender::probe_reference_span(const WorldState& current, const WorldState& baseline, Tick now) {
  constexpr std::size_t kProbeEntities = 32;
  detail::probe_reference(
      encoder_, current, baseline, items_, kProbeEntities, second_order_fields_, config_.choose_motion_per_field,
      [this, now](Tick from, std::int64_t span) { return choose_reference(from, span, now); }, own_choice_, costs_);
}

std::size_t SnapshotSender::budget(Tick now) {
  if (config_.bytes_per_second == 0) return config_.max_payload;
  const std::int64_t elapsed = last_tick_ ? now - *last_tick_ : 1;
  const double rate = static_cast<double>(config_.bytes_per_second);
  tokens_ += rate * static_cast<double>(elapsed) / static_cast<double>(config_.tick_rate);
  // Unused allowance carries over for at most a tenth of a second, so a
  // quiet spell cannot be spent as one long burst.
  const double cap = static_cast<double>(config_.max_payload) + rate / 10.0;
  if (tokens_ > cap) tokens_ = cap;
  const double allowed = tokens_ < static_cast<double>(kMinBudget) ? static_cast<double>(kMinBudget) : tokens_;
  return std::min(config_.max_payload, static_cast<std::size_t>(allowed));
}

void SnapshotSender::encode(const WorldHistory& history, Tick tick, std::vector<std::uint8_t>& out,
                            EntityBitsCache* cache) {
  const WorldState* current = history.find(tick);
  if (current == nullptr) throw std::invalid_argument("SnapshotSender: the history holds no capture of that tick");
  encode(*current, &history, out, cache);
}

void SnapshotSender::encode(const WorldState& current, const WorldHistory* history, std::vector<std::uint8_t>& out,
                            EntityBitsCache* cache) {
  const Tick now = current.tick();
  if (last_tick_ && now <= *last_tick_) throw std::invalid_argument("SnapshotSender: snapshot ticks must increase");
  // The shared probe's choices change between packets, and the reach with
  // them; release_views_behind applies it at the next ack.
  if (shared_probe_ != nullptr) reach_ = reach();

  const WorldState* baseline = nullptr;
  const WorldState* models_from = nullptr;
  bool fresh_models = false;
  if (config_.delta && newest_acked_ && now - *newest_acked_ < config_.history_ticks) {
    if (const auto* slot = views_.find(*newest_acked_)) {
      baseline = slot->state.get();
      // Thinning took the baseline's models: start from the newest
      // acknowledged state that kept them, or fresh without one.
      if (slot->models_dropped && models_carry()) {
        const auto* source = base_ && now - *base_ < config_.history_ticks ? views_.find(*base_) : nullptr;
        if (source != nullptr) {
          models_from = source->state.get();
          ++stats_.models_from_older;
        } else {
          fresh_models = true;
          ++stats_.fresh_models;
        }
      }
    }
  }
  diff_states(schema_, current, baseline, relevancy_, items_);

  const WorldState* reference = nullptr;
  const WorldState* reference2 = nullptr;
  const std::vector<std::vector<std::uint8_t>>* motion = &own_choice_.motion;
  if (baseline != nullptr && config_.motion_prediction) {
    std::int64_t target = config_.reference_span;
    if (target == 0 && !config_.adaptive_reference_span) target = std::max<std::int64_t>(1, now - baseline->tick());
    const ReferenceChoice* shared =
        target == 0 && shared_probe_ != nullptr ? shared_probe_->choice(now - baseline->tick()) : nullptr;
    if (shared != nullptr) {
      target = shared->span;
      if (config_.choose_motion_per_field) motion = &shared->motion;
    } else if (target == 0) {
      if (own_choice_.span == 0 || probe_countdown_ == 0) {
        probe_reference_span(current, *baseline, now);
        probe_countdown_ = config_.reference_probe_interval;
      }
      --probe_countdown_;
      target = own_choice_.span;
    }
    reference = choose_reference(baseline->tick(), target, now);
    if (reference != nullptr && second_order_fields_) {
      reference2 = choose_reference(reference->tick(), baseline->tick() - reference->tick(), now);
    }
  }
  update_waiting(current, now);

  EncodeInput in{
      &current, baseline, reference, reference2, config_.adaptive_coding, config_.inherit_models && !fresh_models};
  in.models_from = models_from;
  in.codebook = config_.codebook.get();
  in.bits_cache = cache;
  in.motion_choice = motion;
  if (history != nullptr && history->depth() > config_.history_ticks && history->shared().holds(current)) {
    // The view is read while within history_ticks of its tick; values
    // from a capture the history overwrites before then are copied.
    in.shared = &history->shared();
    const std::int64_t from =
        now.value() + std::int64_t{config_.history_ticks} - static_cast<std::int64_t>(history->depth());
    in.shared_from = Tick(static_cast<Tick::Rep>(std::max<std::int64_t>(0, from)));
  }
  fit(in, budget(now), out);
  last_baseline_age_ = baseline != nullptr ? static_cast<std::uint32_t>(now - baseline->tick()) : 0;

  for (const DeltaItem& item : items_) {
    switch (item.op) {
      case EntityOp::kChanged: ++(item.send ? stats_.changed_sent : stats_.changed_deferred); break;
      case EntityOp::kSpawned: ++(item.send ? stats_.spawns_sent : stats_.changed_deferred); break;
      case EntityOp::kRemoved: ++stats_.removals_sent; break;
      default: break;
    }
  }
  if (baseline != nullptr)
    age_sets_now_ = static_cast<std::uint8_t>(age_sets_now_ | (1U << age_set(now - baseline->tick())));
  if (ack_window_countdown_ == 0) {
    acks_before_ = acks_now_;
    acks_now_ = {};
    age_sets_before_ = age_sets_now_;
    age_sets_now_ = 0;
    ack_window_countdown_ = config_.history_ticks;
  }
  --ack_window_countdown_;
  if (acks_too_late()) {
    // The view just built stays in scratch_, to be built over next time.
    ++stats_.views_not_kept;
    drop_views();
  } else {
    // The view just built becomes the state recorded for this tick.
    StateRing::Slot& slot = views_.claim(now);
    std::swap(*slot.state, scratch_);
    take_spare_for_scratch();
    views_dropped_ = false;
    // A packet without a body leaves the client with its baseline's
    // models, which this sender no longer has if thinning took them: such
    // a state can give no models either.
    if (baseline != nullptr && models_carry() && slot.state->models() == nullptr && baseline->models() == nullptr) {
      slot.models_dropped = true;
    }
    thin_views_in_flight(now);
    thin_models_in_flight(now);
  }
  ++stats_.snapshots;
  if (baseline == nullptr) ++stats_.full_snapshots;
  stats_.bytes += out.size();
  tokens_ -= static_cast<double>(out.size());
  last_tick_ = now;
}

// Records the spawns of this snapshot (items_ lists them in id order) in
// the waiting list: a spawn still waiting keeps its start, a new one (or a
// new generation, or one gone) starts now. Only the spawns are looked up:
// a packet without any reads nothing of the list.
void SnapshotSender::update_waiting(const WorldState& current, Tick now) {
  const auto history = static_cast<std::int64_t>(config_.history_ticks);
  const auto gone = [&](const Waiting& w) { return now - Tick(w.last) >= history; };
  auto from = waiting_.begin();
  for (const DeltaItem& item : items_) {
    if (item.op != EntityOp::kSpawned) continue;
    const EntityState& e = current.entities()[item.current];
    from =
        std::lower_bound(from, waiting_.end(), e.id.value, [](const Waiting& w, std::uint32_t v) { return w.id < v; });
    if (from != waiting_.end() && from->id == e.id.value) {
      if (from->generation != e.generation || gone(*from)) *from = Waiting{e.id.value, e.generation, now.value(), 0};
      from->last = now.value();
    } else {
      from = waiting_.insert(from, Waiting{e.id.value, e.generation, now.value(), now.value()});
    }
  }
  if (waiting_purge_countdown_ == 0) {
    std::erase_if(waiting_, gone);
    waiting_purge_countdown_ = config_.history_ticks;
  }
  --waiting_purge_countdown_;
}

Tick SnapshotSender::waiting_since(EntityId id) const {
  const auto it = std::lower_bound(waiting_.begin(), waiting_.end(), id.value,
                                   [](const Waiting& w, std::uint32_t v) { return w.id < v; });
  return Tick(it != waiting_.end() && it->id == id.value ? it->since : 0);
}

// Encodes everything; when that is over budget, keeps the entities that
// waited longest (weighted by priority) whose measured cost fits, and
// encodes again, tightening until the packet fits. Removals always go:
// they are a few bits each and make despawns reliable.
void SnapshotSender::fit(const EncodeInput& in, std::size_t budget, std::vector<std::uint8_t>& out) {
  for (DeltaItem& item : items_) item.send = true;
  encoder_.encode(in, items_, out, scratch_, nullptr);
  if (out.size() <= budget) return;
  // Over budget: encode again measuring what each entity costs, and rank
  // the candidates by their claims: priority times how long this client's
  // copy has waited.
  ++stats_.extra_passes;
  encoder_.encode(in, items_, out, scratch_, &item_bits_);
  const Tick now = in.current->tick();
  claim_.assign(items_.size(), 0.0F);
  for (std::size_t i = 0; i < items_.size(); ++i) {
    const DeltaItem& item = items_[i];
    if (item.op != EntityOp::kChanged && item.op != EntityOp::kSpawned) continue;
    const EntityState& e = in.current->entities()[item.current];
    const std::int64_t waited =
        item.op == EntityOp::kSpawned ? now - waiting_since(e.id) : now - in.baseline->entities()[item.base].updated;
    claim_[i] = priority_of(e.id, e.type) * static_cast<float>(waited + 1);
  }

  order_.clear();
  std::uint64_t candidate_bits = 0;
  for (std::uint32_t i = 0; i < items_.size(); ++i) {
    const EntityOp op = items_[i].op;
    if (op == EntityOp::kChanged || op == EntityOp::kSpawned) {
      order_.push_back(i);
      candidate_bits += item_bits_[i];
    }
  }
  // Highest claim first, ties in entity order: the order a stable sort
  // gives, without the temporary buffer std::stable_sort allocates.
  std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
    return claim_[a] > claim_[b] || (claim_[a] == claim_[b] && a < b);
  });
  const std::uint64_t total_bits = out.size() * 8;
  const std::uint64_t fixed_bits = total_bits > candidate_bits ? total_bits - candidate_bits : 0;
  double target = static_cast<double>(budget * 8) * kSelectionMargin;
  for (int pass = 0; pass < kMaxFitPasses; ++pass) {
    ++stats_.extra_passes;
    double used = static_cast<double>(fixed_bits);
    for (std::uint32_t i : order_) {
      // A skipped entity still costs its op, about a bit.
      const double cost = static_cast<double>(item_bits_[i]);
      const bool take = used + cost <= target;
      items_[i].send = take;
      if (take) used += cost;
    }
    encoder_.encode(in, items_, out, scratch_, nullptr);
    if (out.size() <= budget) return;
    target *= 0.9;
  }
  // Still over: send no updates at all, only ops and removals.
  for (std::uint32_t i : order_) items_[i].send = false;
  ++stats_.extra_passes;
  encoder_.encode(in, items_, out, scratch_, nullptr);
}

}  // namespace tickwire::snapshot
