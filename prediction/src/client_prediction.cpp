#include "tickwire/prediction/client_prediction.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tickwire/snapshot/field_codec.h"

namespace tickwire::prediction {

namespace {

// Masks are indexed by entity id, so the id space bounds their size.
constexpr std::uint32_t kMaxIdSpace = 1U << 24;
constexpr std::uint32_t kMaxReplayTicks = 1024;

const PredictionConfig& validated(const PredictionConfig& c, const snapshot::Schema& schema) {
  const auto fail = [](const std::string& why) { throw std::invalid_argument("PredictionConfig: " + why); };
  if (!schema.has_type(c.input_type) || schema.type(c.input_type).role != snapshot::TypeRole::kRecord) {
    fail("input_type must be a record type of the schema");
  }
  if (c.tick_rate == 0 || c.tick_rate > NetworkTime::kMaxTickRate) fail("tick_rate must be in 1..1000");
  if (c.max_replay_ticks == 0 || c.max_replay_ticks > kMaxReplayTicks) fail("max_replay_ticks must be in 1..1024");
  if (c.inputs.capacity < c.max_replay_ticks + 2) fail("inputs.capacity must exceed max_replay_ticks + 1");
  if (c.spawn_confirm_ticks == 0) fail("spawn_confirm_ticks must be at least 1");
  if (c.server_max_entities == 0 || c.max_local_spawns > kMaxIdSpace ||
      c.server_max_entities > kMaxIdSpace - c.max_local_spawns) {
    fail("server_max_entities + max_local_spawns must be in 1..2^24");
  }
  return c;
}

// Clears a pointer on every exit, exceptions from simulate included.
template <class T>
struct ResetOnExit {
  explicit ResetOnExit(T*& s) : slot(s) {}
  ResetOnExit(const ResetOnExit&) = delete;
  ResetOnExit& operator=(const ResetOnExit&) = delete;
  ~ResetOnExit() { slot = nullptr; }
  T*& slot;
};

// Runs `fn` on every exit of a scope.
template <class Fn>
struct OnExit {
  explicit OnExit(Fn f) : fn(std::move(f)) {}
  OnExit(const OnExit&) = delete;
  OnExit& operator=(const OnExit&) = delete;
  ~OnExit() { fn(); }
  Fn fn;
};

}  // namespace

ClientPrediction::ClientPrediction(snapshot::Schema schema, Game& game, InputSampler sampler, PredictionConfig config)
    : schema_(std::move(schema)),
      game_(game),
      sampler_(std::move(sampler)),
      config_(validated(config, schema_)),
      world_(schema_, snapshot::WorldConfig{config_.server_max_entities + config_.max_local_spawns}),
      inputs_(schema_, config_.input_type, config_.inputs),
      history_(config_.max_replay_ticks + 2),
      smoother_(schema_, config_.smoothing, config_.tick_rate, config_.motion),
      spawns_(config_.server_max_entities, config_.max_local_spawns),
      neutral_(schema_, config_.input_type),
      sample_(neutral_) {
  if (!sampler_) throw std::invalid_argument("ClientPrediction: an input sampler is required");
  const std::size_t ids = world_.config().max_entities;
  full_mask_.assign(ids, 0);
  roles_.assign(ids, 0);
  causes_.set_motion_fields(config_.motion);
  replay_mask_.assign(ids, 0);
  tolerance_.resize(schema_.type_count());
  const std::size_t stride = schema_.max_stride();
  codes_a_.resize(stride);
  codes_b_.resize(stride);
  base_.resize(stride);
  base_then_.resize(stride);
  drawn_.resize(stride);
}

void ClientPrediction::predict(EntityId id, PredictedRole role) {
  if (id.value >= config_.server_max_entities) {
    throw std::invalid_argument("ClientPrediction::predict: id " + std::to_string(id.value) + " is not a server id");
  }
  add_predicted(id, role);
}

void ClientPrediction::stop_predicting(EntityId id) {
  if (spawns_.is_local(id)) return;  // predicted spawns end by confirmation or rejection
  remove_predicted(id);
  smoother_.forget(id);
}

void ClientPrediction::add_predicted(EntityId id, PredictedRole role) {
  roles_[id.value] = static_cast<std::uint8_t>(role);
  if (role != PredictedRole::kRemotePlayer) forget_guess(id);
  if (predicts(id)) return;
  predicted_.insert(std::lower_bound(predicted_.begin(), predicted_.end(), id), id);
  full_mask_[id.value] = 1;
}

void ClientPrediction::remove_predicted(EntityId id) {
  if (!predicts(id)) return;
  predicted_.erase(std::lower_bound(predicted_.begin(), predicted_.end(), id));
  full_mask_[id.value] = 0;
  roles_[id.value] = 0;
  forget_guess(id);
}

void PredictionChecks::validate(const snapshot::Schema& schema) const {
  for (std::size_t i = 0; i < tolerances.size(); ++i) {
    const FieldTolerance& t = tolerances[i];
    const bool fits =
        schema.has_type(t.type) && t.slots > 0 && std::size_t{t.offset} + t.slots <= schema.type(t.type).stride();
    if (!fits) {
      throw std::invalid_argument("prediction checks: tolerances[" + std::to_string(i) + "] (type " +
                                  std::to_string(t.type.value) + ", slots " + std::to_string(t.offset) + ".." +
                                  std::to_string(t.offset + t.slots) + ") is not a field of the schema");
    }
  }
}

void ClientPrediction::set_tolerance(const FieldTolerance& tolerance) {
  PredictionChecks one;
  one.tolerances.push_back(tolerance);
  one.validate(schema_);
  auto& tol = tolerance_[tolerance.type.value];
  if (tol.empty()) tol.assign(schema_.type(tolerance.type).stride(), 0);
  for (std::size_t i = tolerance.offset; i < std::size_t{tolerance.offset} + tolerance.slots; ++i) {
    tol[i] = tolerance.steps;
  }
}

void ClientPrediction::set_checks(const PredictionChecks& checks) {
  checks.validate(schema_);
  config_.skip_matching_replays = checks.skip_matching_replays;
  config_.audit_skipped_replays = checks.audit_skipped_replays;
  for (auto& tol : tolerance_) tol.clear();
  for (const FieldTolerance& t : checks.tolerances) set_tolerance(t);
}

TickOutcome ClientPrediction::sample_and_simulate(Tick tick, std::optional<NetworkTime> view) {
  // Sample every tick after the newest one sampled (the time system fires
  // once per tick, but a frame may span several), skipping ticks the
  // server's state already covers. The first call samples only `tick`:
  // ticks before it were never this client's to play, their inputs could
  // not reach the server in time, and the server fills them the way
  // run_tick does (the last input, else neutral).
  const auto newest = inputs_.newest();
  if (!newest || tick > *newest) {
    Tick from = tick;
    if (newest) {
      from = *newest + 1;
      if (predicted_tick_ && *predicted_tick_ >= from) from = *predicted_tick_ + 1;
    }
    // A jump longer than the history only needs the ticks it can hold.
    const std::int64_t capacity = inputs_.config().capacity;
    if (tick - from >= capacity) from = tick - (capacity - 1);
    for (std::int64_t i = 0; i <= tick - from; ++i) {
      sample_ = neutral_;
      sampler_(from + i, sample_);
      const Tick sampled = from + i;
      inputs_.store(sampled, sample_, view ? std::optional<ViewClaim>(make_view_claim(sampled, *view)) : std::nullopt);
    }
  }
  if (!predicted_tick_) return TickOutcome::kWaiting;
  while (*predicted_tick_ < tick) {
    const Tick next = *predicted_tick_ + 1;
    if (next - *authoritative_tick_ > static_cast<std::int64_t>(config_.max_replay_ticks)) {
      ++stats_.stalled_ticks;
      return TickOutcome::kStalled;
    }
    run_tick(next, full_mask_, false);
    predicted_tick_ = next;
    if (!simulated_through_ || next > *simulated_through_) {
      simulated_through_ = next;
      ++stats_.predicted_ticks;
    }
  }
  return TickOutcome::kPredicted;
}

void ClientPrediction::run_tick(Tick tick, std::vector<std::uint8_t>& mask, bool selective) {
  const snapshot::Record* input = inputs_.find(tick);
  const bool fallback = input == nullptr;
  if (fallback) {
    // As the server does for a missing input: the last one, else neutral.
    ++stats_.missing_inputs;
    const std::int64_t back = std::min<std::int64_t>(tick.value(), inputs_.config().capacity);
    for (std::int64_t i = 1; i <= back && input == nullptr; ++i) input = inputs_.find(tick - i);
    if (input == nullptr) input = &neutral_;
  }
  const PlayerInput player_input{config_.player, input, fallback, std::nullopt, std::nullopt};
  const bool resimulating = simulated_through_ && tick <= *simulated_through_;
  SimContext ctx(tick, resimulating, mask, *this);
  {
    run_mask_ = &mask;  // spawns mark the entities they create in it
    const ResetOnExit<std::vector<std::uint8_t>> reset{run_mask_};
    game_.simulate(world_, tick, Inputs(tick_inputs(player_input)), ctx);
  }
  // Snap what was simulated to its quantized value, as the server does
  // after every tick, so both sides continue from identical numbers; and
  // record the tick in the same pass. Entities this step left alone keep
  // the state the tick's block already held for them.
  StateBlock& block = history_.begin(tick);
  const StateBlock* before = selective ? history_.previous() : nullptr;
  for (const EntityId id : predicted_) {
    if (mask[id.value] == 0) {
      if (before == nullptr) continue;
      if (const HistoryRow* row = before->find(id)) StateHistory::append(block, id, row->type, before->slots(*row));
      continue;
    }
    const auto type = world_.type_of(id);
    if (!type) continue;
    const auto slots = world_.slots(id);
    const snapshot::TypeSpec& spec = schema_.type(*type);
    const auto codes = std::span(codes_a_).first(slots.size());
    snapshot::quantize_entity(spec, slots, codes);
    snapshot::dequantize_entity(spec, codes, slots);
    StateHistory::append(block, id, *type, slots);
  }
  history_.commit();
}

SnapshotOutcome ClientPrediction::on_authoritative(Tick tick, const snapshot::World& authoritative,
                                                   std::span<const EntityId> carried) {
  if (authoritative_tick_ && tick <= *authoritative_tick_) {
    ++stats_.stale_snapshots;
    return SnapshotOutcome::kStale;
  }
  ++stats_.snapshots;
  const bool can_compare = predicted_tick_ && tick <= *predicted_tick_;
  const StateBlock* block = can_compare ? history_.find(tick) : nullptr;
  restore_.clear();
  bool differs = false;
  // A snapshot counts once however many entities it corrects, predicted
  // spawns it ends included.
  const std::uint64_t corrected_before = stats_.mispredicted_entities;
  correcting_at_ = tick;
  const OnExit count_snapshot{[&] {
    correcting_at_.reset();
    if (stats_.mispredicted_entities != corrected_before) ++stats_.mispredictions;
  }};
  for (const EntityId id : carried) {
    // Ids at or above the server's range would land on predicted spawns.
    if (id.value >= config_.server_max_entities) continue;
    if (!predicts(id)) {
      if (spawns_.pending().empty() || !adopt_spawn(authoritative, id)) {
        world_.copy_entity(authoritative, id);  // another player's entity: read-only context
        continue;
      }
      differs = true;  // adopted: its history is under the local id
      if (block != nullptr) count_adopted(id, events_.back().local, authoritative, block, tick);
    } else if (can_compare) {
      // No block: the tick fell out of the history. Either way unknown.
      const Comparison c = block != nullptr ? compare(authoritative, id, *block) : Comparison::kUnknown;
      if (c == Comparison::kDiffers) count_differing(id, authoritative, block, tick);
      if (c == Comparison::kUnknown) ++stats_.unverified_entities;
      differs = differs || c != Comparison::kSame;
    }
    restore_.push_back(id);
  }
  std::sort(restore_.begin(), restore_.end());
  restore_.erase(std::unique(restore_.begin(), restore_.end()), restore_.end());

  if (!can_compare) {
    // Nothing predicted past this tick: take the server's state as it is.
    for (const EntityId id : restore_) {
      world_.copy_entity(authoritative, id);
      smoother_.corrected(id);
    }
    predicted_tick_ = tick;
    authoritative_tick_ = tick;
    history_.capture(tick, world_, predicted_);
    ++stats_.resets;
    expire_spawns(tick);
    return SnapshotOutcome::kReset;
  }
  if (!differs && config_.skip_matching_replays) {
    ++stats_.skipped_replays;
    if (config_.audit_skipped_replays) {
      audit_skip(tick, authoritative);
    } else {
      authoritative_tick_ = tick;
      expire_spawns(tick);
    }
    return SnapshotOutcome::kMatched;
  }

  rollback(tick, Source{&authoritative, nullptr}, true);
  return SnapshotOutcome::kReplayed;
}

bool ClientPrediction::resimulate_from(Tick tick) {
  const StateBlock* block = history_.find(tick);
  if (block == nullptr || !predicted_tick_ || tick >= *predicted_tick_) return false;
  restore_.assign(predicted_.begin(), predicted_.end());
  for (const PendingSpawn& p : spawns_.pending()) {
    if (p.tick <= tick) continue;
    // Respawned by the replay, not restored.
    restore_.erase(std::remove(restore_.begin(), restore_.end(), p.local), restore_.end());
  }
  rollback(tick, Source{nullptr, block}, true);
  return true;
}

void ClientPrediction::restore(EntityId id, const Source& source) {
  if (source.world != nullptr) {
    world_.copy_entity(*source.world, id);
    return;
  }
  const HistoryRow* row = source.block->find(id);
  if (row == nullptr) {
    world_.despawn(id);  // it did not exist at that tick
    return;
  }
  if (world_.type_of(id) != row->type) {
    world_.despawn(id);
    world_.spawn_at(id, row->type);
  }
  const auto src = source.block->slots(*row);
  std::copy(src.begin(), src.end(), world_.slots(id).begin());
}

void ClientPrediction::rollback(Tick tick, const Source& source, bool count) {
  for (const EntityId id : restore_) restore(id, source);
  // Predicted spawns after the restored tick did not exist at it; the
  // replay spawns them again (under the same ids) if the game still does.
  for (PendingSpawn& p : spawns_.pending()) {
    if (p.tick <= tick) continue;
    world_.despawn(p.local);
    p.respawned = false;
  }
  // Selective when a live predicted entity keeps its present state: it was
  // not in the snapshot and must not be simulated again.
  bool selective = false;
  for (const EntityId id : predicted_) {
    if (world_.contains(id) && !std::binary_search(restore_.begin(), restore_.end(), id)) {
      selective = true;
      break;
    }
  }
  std::vector<std::uint8_t>& mask = selective ? replay_mask_ : full_mask_;
  if (selective) {
    for (const EntityId id : restore_) mask[id.value] = 1;
    for (const PendingSpawn& p : spawns_.pending()) {
      if (p.tick > tick) mask[p.local.value] = 1;
    }
  }
  history_.capture(tick, world_, predicted_,
                   selective ? std::span<const std::uint8_t>(mask) : std::span<const std::uint8_t>());
  const std::int64_t depth = *predicted_tick_ - tick;
  for (std::int64_t i = 1; i <= depth; ++i) run_tick(tick + i, mask, selective);
  if (selective) {
    for (const EntityId id : predicted_) replay_mask_[id.value] = 0;
  }
  if (count) {
    ++stats_.replays;
    stats_.replayed_ticks += static_cast<std::uint64_t>(depth);
    stats_.max_replay_depth = std::max(stats_.max_replay_depth, static_cast<std::uint32_t>(depth));
  }
  // Spawns after the restored tick that the replay did not make again were
  // undone by the correction.
  std::vector<PendingSpawn> undone;
  for (const PendingSpawn& p : spawns_.pending()) {
    if (p.tick > tick && !p.respawned) undone.push_back(p);
  }
  for (const PendingSpawn& p : undone) reject_spawn(p);
  for (const EntityId id : restore_) smoother_.corrected(id);
  for (const PendingSpawn& p : spawns_.pending()) {
    if (p.tick > tick) smoother_.corrected(p.local);
  }
  authoritative_tick_ = tick;
  expire_spawns(tick);
}

ClientPrediction::Comparison ClientPrediction::compare(const snapshot::World& authoritative, EntityId id,
                                                       const StateBlock& block) {
  const HistoryRow* row = block.find(id);
  const auto type = authoritative.type_of(id);
  // Not predicted at that tick (it became ours since): nothing to compare.
  if (row == nullptr) return type ? Comparison::kUnknown : Comparison::kSame;
  if (!type || row->type != *type) return Comparison::kDiffers;
  return compare_slots(*type, authoritative.slots(id), block.slots(*row));
}

ClientPrediction::Comparison ClientPrediction::compare_slots(TypeId type, std::span<const std::uint32_t> a,
                                                             std::span<const std::uint32_t> b) {
  const auto& tol = tolerance_[type.value];
  // Both sides hold quantized values, so equal codes mean equal slots.
  if (tol.empty()) return std::equal(a.begin(), a.end(), b.begin(), b.end()) ? Comparison::kSame : Comparison::kDiffers;
  const snapshot::TypeSpec& spec = schema_.type(type);
  const auto ca = std::span(codes_a_).first(a.size());
  const auto cb = std::span(codes_b_).first(b.size());
  snapshot::quantize_entity(spec, a, ca);
  snapshot::quantize_entity(spec, b, cb);
  for (std::size_t i = 0; i < ca.size(); ++i) {
    const snapshot::ComponentSpec& c = spec.components[i];
    std::uint32_t d = ca[i] > cb[i] ? ca[i] - cb[i] : cb[i] - ca[i];
    if (c.wraps) d = std::min(d, c.max_code + 1 - d);
    if ((c.kind == snapshot::CodeKind::kQuatIndex && d != 0) || d > tol[i]) return Comparison::kDiffers;
  }
  return Comparison::kSame;
}

void ClientPrediction::audit_skip(Tick tick, const snapshot::World& authoritative) {
  // Skipping keeps the present state; replaying gives what skipping
  // assumed it would. Replay for real and compare the two.
  ++stats_.audited_skips;
  audit_before_.capture(tick, world_, predicted_);
  rollback(tick, Source{&authoritative, nullptr}, false);
  audit_after_.capture(tick, world_, predicted_);
  if (audit_before_ == audit_after_) return;
  for (const HistoryRow& row : audit_after_.rows()) {
    const HistoryRow* old = audit_before_.find(row.id);
    const auto a = audit_after_.slots(row);
    if (old == nullptr || old->type != row.type || !std::equal(a.begin(), a.end(), audit_before_.slots(*old).begin())) {
      ++stats_.audit_divergences;
    }
  }
  for (const HistoryRow& row : audit_before_.rows()) {
    if (audit_after_.find(row.id) == nullptr) ++stats_.audit_divergences;
  }
}

}  // namespace tickwire::prediction
