#include "drawn_steps.h"

#include <algorithm>
#include <cmath>

namespace tickwire::bench {

void DrawnSteps::observe(const snapshot::World& view, Duration frame, bool count, const Predicts& predicts) {
  ++frame_index_;
  if (count) ++frames_;
  const double dt = static_cast<double>(frame.micros()) / 1e6;
  const pitch::Schema& s = pitch::schema();
  for (const snapshot::EntityId id : view.entities(s.player_type)) {
    const pitch::Vec2 v = view.get(id, s.player_velocity);
    step(id, Drawn{view.get(id, s.player_position), std::hypot(v.x, v.y), 0, predicts(id), frame_index_, 0}, dt, count);
  }
  for (const snapshot::EntityId id : view.entities(s.ball_type)) {
    const pitch::Vec2 v = view.get(id, s.ball_velocity);
    const bool popped = step(id,
                             Drawn{view.get(id, s.ball_position), std::hypot(v.x, v.y), view.get(id, s.ball_teleports),
                                   predicts(id), frame_index_, 0},
                             dt, count);
    if (popped) ++ball_pops_;
  }
}

// Moved further than its velocity explains, at the faster of this frame's
// and the last one's (an entity speeding up or stopping within a frame is
// no pop), unless it was put somewhere new on purpose (a teleport).
bool DrawnSteps::step(snapshot::EntityId id, Drawn now, double dt, bool count) {
  bool popped = false;
  const auto it = last_.find(id.value);
  if (it != last_.end()) now.switched = it->second.predicted != now.predicted ? now.frame : it->second.switched;
  if (it != last_.end() && it->second.frame + 1 == now.frame && it->second.teleports == now.teleports) {
    const Drawn& before = it->second;
    const double moved = std::hypot(static_cast<double>(now.position.x - before.position.x),
                                    static_cast<double>(now.position.y - before.position.y));
    const double explained = static_cast<double>(std::max(now.speed, before.speed)) * dt;
    const double excess = moved - explained;
    if (count) {
      largest_ = std::max(largest_, excess);
      popped = excess > static_cast<double>(pop_distance_);
      if (popped) classify(now);
    }
  }
  last_[id.value] = now;
  return popped;
}

void DrawnSteps::classify(const Drawn& now) {
  ++pops_;
  if (now.switched != 0 && now.frame - now.switched < kSwitchWindow) {
    ++after_switch_;
  } else if (now.predicted) {
    ++predicted_;
  } else {
    ++interpolated_;
  }
}

}  // namespace tickwire::bench
