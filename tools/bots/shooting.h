#pragma once
// Scoring hitscan shots for the shooter scripts: whether a shot was on
// target in the bot's own view (the ray it sent against the other players
// as it drew them at the view time its input claims), and what the server
// said of it (the bot's shot entity, arena/hitscan.h). Registration is the
// share of shots on target that the server counted as hits; false hits the
// share of shots off target that it counted as hits.

#include <cstdint>
#include <map>
#include <span>

#include "tickwire/arena/arena.h"
#include "tickwire/bots/bots.h"
#include "tickwire/core/tick.h"

namespace tickwire::arena_bots {

using bots::ShotFigures;

// Whether a ray from `origin` at angle `aim` (radians) enters any circle of
// radius arena::kPlayerRadius around `targets` within the weapon's range.
bool ray_hits_any(arena::Vec2 origin, float aim, std::span<const arena::Vec2> targets);

class ShotLedger {
 public:
  // The bot sent a shot in its input for `tick`.
  void fired(Tick tick, bool on_target);
  // The server's latest result, from the bot's shot entity: `tick` is the
  // shot's tick modulo 65536, `result` an arena::ShotResult. Shots fired
  // before it that are still open never got theirs.
  void judged(std::int32_t tick, std::int32_t result);
  // Shots still open; counted as unresolved by close().
  std::size_t open() const { return pending_.size(); }
  void close();
  const ShotFigures& figures() const { return figures_; }

 private:
  std::map<std::int64_t, bool> pending_;  // tick -> on target
  ShotFigures figures_;
};

}  // namespace tickwire::arena_bots
