#include "tickwire/client/timeline_blend.h"

#include <algorithm>

#include "tickwire/snapshot/field_value.h"

namespace tickwire::client {

TimelineBlend::TimelineBlend(const snapshot::Schema& schema, std::span<const prediction::MotionFields> motion,
                             Duration duration)
    : schema_(schema), motion_(motion.begin(), motion.end()), duration_(duration) {}

const prediction::MotionFields* TimelineBlend::motion_of(snapshot::TypeId type) const {
  for (const prediction::MotionFields& m : motion_) {
    if (m.type == type) return &m;
  }
  return nullptr;
}

void TimelineBlend::teleport_slots(snapshot::TypeId type, std::span<const std::uint32_t> slots,
                                   std::vector<std::uint32_t>& out) const {
  out.clear();
  for (const snapshot::FieldSpec& f : schema_.type(type).fields) {
    if (f.interpolation != snapshot::Interpolation::kTeleportCounter) continue;
    for (std::size_t i = f.offset; i < std::size_t{f.offset} + f.count && i < slots.size(); ++i)
      out.push_back(slots[i]);
  }
}

void TimelineBlend::switched(snapshot::EntityId id, const snapshot::World& drawn) {
  auto existing = std::find_if(blends_.begin(), blends_.end(), [id](const Blend& b) { return b.id == id; });
  if (existing != blends_.end()) blends_.erase(existing);
  if (duration_ <= Duration::zero()) return;
  const auto type = drawn.type_of(id);
  if (!type) return;
  const prediction::MotionFields* motion = motion_of(*type);
  if (motion == nullptr) return;
  const auto slots = drawn.slots(id);
  Blend b{id, *type, motion->position(slots), motion->velocity(slots).value_or(prediction::Point{}), {}, {}, {}};
  teleport_slots(*type, slots, b.teleports);
  blends_.push_back(std::move(b));
}

bool TimelineBlend::step(Blend& b, snapshot::World& view, Time now, Duration since_last_frame) {
  if (view.type_of(b.id) != b.type) return false;  // gone, or another entity under its id
  const auto slots = view.slots(b.id);
  teleport_slots(b.type, slots, scratch_);
  if (scratch_ != b.teleports) return false;  // a jump the game meant: shown as one
  const prediction::MotionFields& motion = *motion_of(b.type);
  const prediction::Point joined = motion.position(slots);
  if (!b.start) {
    // Where the timeline it leaves would draw it now: last frame's drawn
    // position moved on by its drawn velocity.
    const auto dt = static_cast<float>(since_last_frame.seconds_f());
    for (std::size_t i = 0; i < motion.dimensions; ++i) b.offset[i] = b.from[i] + b.velocity[i] * dt - joined[i];
    b.start = now;
  }
  const double left = 1.0 - (now - *b.start).seconds_f() / duration_.seconds_f();
  if (left <= 0.0) return false;
  const auto k = static_cast<float>(left);
  for (std::size_t i = 0; i < motion.dimensions; ++i) {
    slots[motion.position_offset + i] = snapshot::float_slot(joined[i] + b.offset[i] * k);
  }
  return true;
}

void TimelineBlend::apply(snapshot::World& view, Time now) {
  const Duration since_last_frame = last_frame_ ? std::max(now - *last_frame_, Duration::zero()) : Duration::zero();
  last_frame_ = now;
  std::erase_if(blends_, [&](Blend& b) { return !step(b, view, now, since_last_frame); });
}

void TimelineBlend::clear() {
  blends_.clear();
  last_frame_.reset();
}

bool TimelineBlend::blending(snapshot::EntityId id) const {
  return std::any_of(blends_.begin(), blends_.end(), [id](const Blend& b) { return b.id == id; });
}

}  // namespace tickwire::client
