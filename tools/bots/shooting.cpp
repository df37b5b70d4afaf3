#include "shooting.h"

#include <cmath>

namespace tickwire::arena_bots {

bool ray_hits_any(arena::Vec2 origin, float aim, std::span<const arena::Vec2> targets) {
  // In double, as the server's narrow phase: a ray tangent to a circle hits.
  const double dx = std::cos(static_cast<double>(aim));
  const double dy = std::sin(static_cast<double>(aim));
  const double r = arena::kPlayerRadius;
  for (const arena::Vec2 t : targets) {
    const double cx = static_cast<double>(t.x) - origin.x;
    const double cy = static_cast<double>(t.y) - origin.y;
    const double along = cx * dx + cy * dy;
    const double across2 = cx * cx + cy * cy - along * along;
    if (across2 > r * r) continue;
    // The nearer crossing must lie ahead of the origin and within range
    // (an origin inside the circle counts as a hit at distance 0).
    const double half = std::sqrt(r * r - across2);
    if (along + half >= 0.0 && along - half <= arena::kHitscanRange) return true;
  }
  return false;
}

void ShotLedger::fired(Tick tick, bool on_target) { pending_[static_cast<std::int64_t>(tick.value())] = on_target; }

void ShotLedger::judged(std::int32_t tick, std::int32_t result) {
  // The newest open shot whose tick matches: results come in tick order.
  auto match = pending_.end();
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->first % 65536 == tick) match = it;
  }
  if (match == pending_.end()) return;
  for (auto it = pending_.begin(); it != match;) {
    ++figures_.unresolved;
    it = pending_.erase(it);
  }
  const bool on_target = match->second;
  pending_.erase(match);
  const bool hit = result == static_cast<std::int32_t>(arena::ShotResult::kHit);
  if (result == static_cast<std::int32_t>(arena::ShotResult::kVoid) ||
      (result == static_cast<std::int32_t>(arena::ShotResult::kMissTeleported) && on_target)) {
    ++figures_.teleport_blocked;
  } else if (on_target) {
    ++figures_.on_target;
    if (hit) ++figures_.on_target_hits;
  } else {
    ++figures_.off_target;
    if (hit) ++figures_.off_target_hits;
  }
}

void ShotLedger::close() {
  figures_.unresolved += pending_.size();
  pending_.clear();
}

}  // namespace tickwire::arena_bots
