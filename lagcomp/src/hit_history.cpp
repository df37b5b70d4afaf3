// Recording: the ring of frames, slots that stay with an entity for its
// life, and the bounds the broad phase uses. Queries: hit_queries.cpp.

#include "tickwire/lagcomp/hit_history.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "tickwire/lagcomp/geometry.h"

namespace tickwire::lagcomp {

namespace {

// Slots: an entity keeps its slot for its whole life. In one tick the
// slots of last tick's entities are still held while new ones are handed
// out (they are freed when the tick closes), hence twice max_entities.
std::uint32_t slot_count(const HistoryConfig& c) { return c.max_entities * 2; }

// Bounds are widened by a few float steps, so that a shape blended in
// float, or a ray tested in float, never falls outside the box that is
// meant to hold it: the broad phase may pass extra entities, never drop one.
float widen_down(float v) { return v - (std::fabs(v) * 1e-6F + 1e-5F); }
float widen_up(float v) { return v + (std::fabs(v) * 1e-6F + 1e-5F); }

void check_config(const HistoryConfig& c) {
  if (c.tick_rate == 0 || c.tick_rate > NetworkTime::kMaxTickRate) {
    throw std::invalid_argument("HistoryConfig: tick_rate must be in 1.." + std::to_string(NetworkTime::kMaxTickRate));
  }
  if (c.max_entities == 0 || c.max_entities > 65536) {
    throw std::invalid_argument("HistoryConfig: max_entities must be in 1..65536");
  }
  if (c.max_shapes_per_entity == 0 || c.max_shapes_per_entity > kMaxShapesPerEntity) {
    throw std::invalid_argument("HistoryConfig: max_shapes_per_entity must be in 1.." +
                                std::to_string(kMaxShapesPerEntity));
  }
  if (c.max_rewind < Duration::zero() || c.max_rewind > kMaxRewindLimit) {
    throw std::invalid_argument("HistoryConfig: max_rewind must be in 0..1000 ms");
  }
}

}  // namespace

HitHistory::HitHistory(const HistoryConfig& config) : config_(config) {
  check_config(config_);
  // Ticks of the window, rounded up: a query at (newest - max_rewind)
  // needs the frame at its floor, newest - ceil(window) at the oldest; and
  // one frame more for the tick being recorded, which reuses the oldest.
  const std::int64_t window_ticks =
      (config_.max_rewind.micros() * static_cast<std::int64_t>(config_.tick_rate) + 999'999) / 1'000'000;
  frame_capacity_ = static_cast<std::uint32_t>(window_ticks) + 2;
  const std::size_t n = config_.max_entities;
  frames_.resize(frame_capacity_);
  for (Frame& f : frames_) {
    f.records.resize(slot_count(config_));
    f.shapes.resize(n * config_.max_shapes_per_entity);
    f.positions.resize(n);
    f.slots.resize(n);
    for (auto* v : {&f.min_x, &f.min_y, &f.min_z, &f.max_x, &f.max_y, &f.max_z}) v->resize(n);
  }
  free_slots_.reserve(slot_count(config_));
  slots_of_ = detail::SlotMap(config_.max_entities * 2);
  clear();
}

void HitHistory::clear() {
  for (Frame& f : frames_) {
    for (std::uint32_t i = 0; i < f.count; ++i) f.records[f.slots[i]].present = false;
    f.count = 0;
    f.complete = false;
  }
  free_slots_.clear();
  // Popped from the back: slot 0 first.
  for (std::uint32_t s = slot_count(config_); s > 0; --s) free_slots_.push_back(s - 1);
  slots_of_.clear();
  open_.reset();
  newest_.reset();
  first_.reset();
}

std::size_t HitHistory::bytes() const {
  std::size_t total = sizeof(*this) + frames_.capacity() * sizeof(Frame);
  for (const Frame& f : frames_) {
    total += f.records.capacity() * sizeof(Record) + f.shapes.capacity() * sizeof(Shape) +
             f.positions.capacity() * sizeof(Vec3) + f.slots.capacity() * sizeof(std::uint32_t);
    for (const auto* v : {&f.min_x, &f.min_y, &f.min_z, &f.max_x, &f.max_y, &f.max_z}) {
      total += v->capacity() * sizeof(float);
    }
  }
  return total + free_slots_.capacity() * sizeof(std::uint32_t) + slots_of_.bytes();
}

Result<void> HitHistory::reject(ErrorCode code, const char* detail) {
  ++stats_.rejected_records;
  return make_error(code, detail);
}

Aabb HitHistory::shape_bounds(const Frame& f, std::uint32_t dense) const {
  const Shape* s = f.shapes.data() + std::size_t{dense} * config_.max_shapes_per_entity;
  const Record& r = f.records[f.slots[dense]];
  Aabb box = bounds(s[0]);
  for (std::uint32_t j = 1; j < r.shape_count; ++j) box = merge(box, bounds(s[j]));
  return box;
}

void HitHistory::set_bound(Frame& f, std::uint32_t dense, const Aabb& box) {
  f.min_x[dense] = widen_down(box.min.x);
  f.min_y[dense] = widen_down(box.min.y);
  f.min_z[dense] = widen_down(box.min.z);
  f.max_x[dense] = widen_up(box.max.x);
  f.max_y[dense] = widen_up(box.max.y);
  f.max_z[dense] = widen_up(box.max.z);
}

Result<void> HitHistory::begin_tick(Tick tick) {
  if (open_) return make_error(ErrorCode::kInvalidArgument, "begin_tick: the previous tick was not ended");
  if (newest_ && tick <= *newest_) return make_error(ErrorCode::kInvalidArgument, "begin_tick: ticks must increase");
  if (newest_ && tick.value() > newest_->value() + 1) {
    clear();
    ++stats_.gaps;
  }
  Frame& f = frame_at(tick);
  for (std::uint32_t i = 0; i < f.count; ++i) f.records[f.slots[i]].present = false;
  f.count = 0;
  f.tick = tick;
  f.complete = false;
  open_ = tick;
  return {};
}

Result<void> HitHistory::record(EntityId id, const Vec3& position, std::span<const Shape> shapes, Motion motion) {
  if (!open_) return reject(ErrorCode::kInvalidArgument, "record: no tick is open (begin_tick first)");
  if (shapes.empty() || shapes.size() > config_.max_shapes_per_entity) {
    return reject(ErrorCode::kInvalidArgument, "record: an entity needs 1 to max_shapes_per_entity shapes");
  }
  if (!valid(position)) return reject(ErrorCode::kInvalidArgument, "record: position not finite or out of range");
  for (const Shape& s : shapes) {
    if (!valid(s)) {
      return reject(ErrorCode::kInvalidArgument,
                    "record: a shape is not finite, out of range, has no radius or a box's min above its max");
    }
  }
  Frame& f = frame_at(*open_);
  if (f.count == config_.max_entities) return reject(ErrorCode::kTooLarge, "record: more entities than max_entities");

  std::uint32_t slot = 0;
  std::uint32_t life = open_->value();
  bool continuing = false;
  if (const auto found = slots_of_.find(id.value)) {
    if (f.records[*found].present) return reject(ErrorCode::kInvalidArgument, "record: entity recorded twice");
    // In the map and not recorded yet: it was recorded last tick.
    if (motion == Motion::kNewLife) {
      slot = free_slots_.back();
      free_slots_.pop_back();
      slots_of_.erase(id.value);  // the old life's slot is freed when the tick closes
      slots_of_.insert(id.value, slot);
    } else {
      slot = *found;
      life = frame_at(*open_ - 1).records[slot].life;
      continuing = true;
    }
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    slots_of_.insert(id.value, slot);
  }

  const std::uint32_t dense = f.count++;
  Record& r = f.records[slot];
  r.id = id;
  r.life = life;
  f.positions[dense] = position;
  r.dense = static_cast<std::uint16_t>(dense);
  r.shape_count = static_cast<std::uint8_t>(shapes.size());
  r.present = true;
  r.teleported = continuing && motion == Motion::kTeleported;
  r.blocked = false;
  Aabb box = bounds(shapes[0]);
  for (const Shape& s : shapes.subspan(1)) box = merge(box, bounds(s));
  std::copy(shapes.begin(), shapes.end(), f.shapes.begin() + std::ptrdiff_t{dense} * config_.max_shapes_per_entity);
  f.slots[dense] = slot;
  set_bound(f, dense, box);  // until the next tick widens it
  ++stats_.entity_ticks_recorded;
  return {};
}

// Last tick's entities: those that go on widen their boxes over the step
// to this tick, those that teleported block every earlier record of their
// life, and those that are gone give their slots back.
void HitHistory::close_lives(Frame& prev, Frame& cur) {
  for (std::uint32_t i = 0; i < prev.count; ++i) {
    const std::uint32_t slot = prev.slots[i];
    const Record& p = prev.records[slot];
    const Record& c = cur.records[slot];
    if (!(c.present && c.id == p.id && c.life == p.life)) {
      if (slots_of_.find(p.id.value) == slot) slots_of_.erase(p.id.value);
      free_slots_.push_back(slot);
      continue;
    }
    const Aabb landed = shape_bounds(cur, c.dense);
    if (!c.teleported) {
      set_bound(prev, i, merge(shape_bounds(prev, i), landed));
      continue;
    }
    // Every earlier record of this life now rewinds to this tick at the
    // latest. A walk back over at most the frames held, and only when an
    // entity teleports.
    for (std::uint32_t k = prev.tick.value();; --k) {
      Frame& fk = frame_at(Tick(k));
      if (!fk.complete || fk.tick != Tick(k)) break;
      Record& rk = fk.records[slot];
      if (!rk.present || rk.id != p.id || rk.life != p.life) break;
      rk.blocked = true;
      rk.blocked_at = cur.tick.value();
      set_bound(fk, rk.dense, landed);
      if (k == 0) break;
    }
  }
}

Result<void> HitHistory::end_tick() {
  if (!open_) return make_error(ErrorCode::kInvalidArgument, "end_tick: no tick is open");
  Frame& cur = frame_at(*open_);
  if (newest_ && newest_->value() + 1 == open_->value()) close_lives(frame_at(*newest_), cur);
  cur.complete = true;
  newest_ = open_;
  if (!first_) first_ = open_;
  open_.reset();
  ++stats_.ticks_recorded;
  return {};
}

std::optional<TimeRange> HitHistory::range() const {
  if (!newest_) return std::nullopt;
  // Frames held: the newest and frame_capacity_ - 2 before it.
  const std::uint32_t held = frame_capacity_ - 2;
  Tick oldest_tick = *first_;
  if (newest_->value() >= held && *newest_ - static_cast<std::int64_t>(held) > oldest_tick) {
    oldest_tick = *newest_ - static_cast<std::int64_t>(held);
  }
  const NetworkTime newest = NetworkTime::from_tick(config_.tick_rate, *newest_);
  NetworkTime oldest = NetworkTime::from_tick(config_.tick_rate, oldest_tick);
  const NetworkTime window = newest - config_.max_rewind;
  if (window > oldest) oldest = window;
  return TimeRange{oldest, newest};
}

}  // namespace tickwire::lagcomp
