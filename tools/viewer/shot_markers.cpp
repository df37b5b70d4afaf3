#include "shot_markers.h"

#include <cmath>
#include <limits>

namespace tickwire::viewer {
namespace {

// Shots older than this many are never answered (the server judges a shot
// the tick its input arrives, or not at all).
constexpr std::size_t kMaxPending = 64;
constexpr std::size_t kMaxMarkers = 16;

// How far p lies from the ray; behind the origin counts as far.
float off_ray(snapshot::Vec2 origin, float aim, snapshot::Vec2 p) {
  const float dx = p.x - origin.x;
  const float dy = p.y - origin.y;
  const float along = dx * std::cos(aim) + dy * std::sin(aim);
  if (along < 0.0F) return std::numeric_limits<float>::infinity();
  return std::fabs(-dx * std::sin(aim) + dy * std::cos(aim));
}

}  // namespace

void ShotMarkers::fired(Tick tick, std::vector<SeenPlayer> seen) {
  ++counts_.fired;
  pending_.push_back({static_cast<std::int32_t>(tick.value() % 65536), std::move(seen)});
  if (pending_.size() > kMaxPending) pending_.pop_front();
}

void ShotMarkers::observe(const snapshot::World& world, std::uint32_t self_owner, Time now) {
  while (!markers_.empty() && now - markers_.front().at > kLife) markers_.pop_front();
  const arena::Schema& s = arena::schema();
  const auto shot = arena::find_shot(world, self_owner);
  if (!shot) return;
  const std::int32_t tick = world.get(*shot, s.shot_tick);
  if (last_tick_ && *last_tick_ == tick) return;
  last_tick_ = tick;
  // The shot fired with that tick's input; older ones went unanswered.
  std::optional<Fired> match;
  while (!pending_.empty()) {
    Fired f = std::move(pending_.front());
    pending_.pop_front();
    if (f.tick == tick) {
      match = std::move(f);
      break;
    }
  }
  if (!match) return;  // a result from before this viewer fired, or already dropped
  ShotMarker m;
  m.tick = tick;
  m.result = static_cast<arena::ShotResult>(world.get(*shot, s.shot_result));
  m.origin = world.get(*shot, s.shot_origin);
  m.aim = world.get(*shot, s.shot_aim);
  m.at = now;
  const std::int32_t target = world.get(*shot, s.shot_target_owner);
  if (target >= 0) {
    m.rewound = world.get(*shot, s.shot_target_position);
    m.rewound_radius = world.get(*shot, s.shot_target_radius);
  }
  float nearest = std::numeric_limits<float>::infinity();
  for (const SeenPlayer& p : match->seen) {
    if (target >= 0) {
      if (p.owner == target) m.seen = p.position;
      continue;
    }
    const float d = off_ray(m.origin, m.aim, p.position);
    if (d < nearest) {
      nearest = d;
      m.seen = p.position;
    }
  }
  ++counts_.judged;
  if (m.result == arena::ShotResult::kHit) {
    ++counts_.hits;
  } else {
    ++counts_.misses;
  }
  markers_.push_back(std::move(m));
  if (markers_.size() > kMaxMarkers) markers_.pop_front();
}

}  // namespace tickwire::viewer
