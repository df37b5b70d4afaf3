#pragma once
// The hitscan shots the viewer fired and how the server judged them. Each
// shot is remembered as fired (the tick, where the own player and every
// other player were drawn on screen, the aim); when the shot entity
// reports a result for that tick, a marker holds both pictures for a
// second: the ray as the server cast it, the struck shape where the server
// rewound it (lag compensation), and the players as the shooter saw them.

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "tickwire/arena/arena.h"
#include "tickwire/core/time.h"

namespace tickwire::viewer {

struct SeenPlayer {
  std::int32_t owner = 0;
  snapshot::Vec2 position;
};

struct ShotMarker {
  std::int32_t tick = 0;  // modulo 65536, as the shot entity says it
  arena::ShotResult result = arena::ShotResult::kMiss;
  snapshot::Vec2 origin;  // the server's ray
  float aim = 0.0F;
  std::optional<snapshot::Vec2> rewound;  // the struck shape, as the server judged it
  float rewound_radius = 0.0F;
  // The player the shooter aimed at as it was drawn at fire time: the one
  // struck, or on a miss the one nearest the ray.
  std::optional<snapshot::Vec2> seen;
  Time at;  // when the result arrived
};

struct ShotCounts {
  std::uint64_t fired = 0;
  std::uint64_t judged = 0;  // results that arrived for a shot this viewer fired
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;  // every other result (miss, teleport-blocked, void)
};

class ShotMarkers {
 public:
  static constexpr Duration kLife = Duration::seconds(1);

  // A shot sent with the input of `tick`, and what was on screen then.
  void fired(Tick tick, std::vector<SeenPlayer> seen);
  // The shot entity as newly decoded; a result for a tick not seen before
  // that matches a shot fired makes a marker. Call once per frame.
  void observe(const snapshot::World& world, std::uint32_t self_owner, Time now);

  const std::deque<ShotMarker>& markers() const { return markers_; }
  const ShotCounts& counts() const { return counts_; }

 private:
  struct Fired {
    std::int32_t tick;
    std::vector<SeenPlayer> seen;
  };
  std::deque<Fired> pending_;
  std::deque<ShotMarker> markers_;
  std::optional<std::int32_t> last_tick_;
  ShotCounts counts_;
};

}  // namespace tickwire::viewer
