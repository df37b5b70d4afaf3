#pragma once
// Visual smoothing of corrections. When a snapshot corrects a predicted
// entity, the simulation jumps to the corrected state at once, but the
// drawing does not: the smoother keeps the error between where the entity
// was last drawn and where the corrected trajectory puts it at that same
// moment, adds it to the corrected state, and shrinks it linearly to zero
// over `duration`. The first frame after a correction is drawn exactly
// where the last frame before it would have continued, and the error then
// moves the drawing by at most error * frame_time / duration per frame on
// top of the entity's own motion. Step fields (integers, flags, enums) are
// never smoothed. Only drawing is smoothed; the simulation never is.

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "tickwire/core/time.h"
#include "tickwire/snapshot/ids.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::prediction {

struct SmoothingConfig {
  // Time over which a correction fades out; zero draws corrections at once.
  Duration duration = Duration::millis(100);
  // A correction larger than this in any linear float component (a
  // teleport, a respawn) snaps instead of sliding across the map.
  float snap_distance = std::numeric_limits<float>::infinity();
};

class RenderSmoother {
 public:
  // Throws std::invalid_argument for a negative duration, a tick rate of 0
  // or a snap distance that is NaN or not positive.
  RenderSmoother(snapshot::Schema schema, SmoothingConfig config, std::uint32_t tick_rate);

  // Entity `id`'s trajectory changed under it (a correction).
  void corrected(snapshot::EntityId id);
  // The entity is drawn under another id from now on (a predicted spawn
  // matched with the server's entity): its drawing continues from there.
  void transfer(snapshot::EntityId from, snapshot::EntityId to);
  void forget(snapshot::EntityId id);

  // When a correction of `id` awaits its first draw and `id` was drawn
  // before: the time (in ticks) of that last draw. The caller passes the
  // corrected base state at that time to draw() as `base_then`.
  std::optional<double> rebase_time(snapshot::EntityId id) const;

  // Writes the drawn state of `id` at `time` (ticks) into `out`: `base`,
  // the unsmoothed state at `time`, plus what is left of the error.
  void draw(snapshot::EntityId id, snapshot::TypeId type, double time, std::span<const std::uint32_t> base,
            std::span<const std::uint32_t> base_then, std::span<std::uint32_t> out);

  // Entities whose drawing still carries an error.
  std::size_t smoothing() const;
  const SmoothingConfig& config() const { return config_; }

 private:
  struct Entry {
    snapshot::TypeId type;
    bool drawn = false;
    bool pending = false;  // corrected since the last draw
    bool has_error = false;
    double last_time = 0.0;  // ticks
    double error_time = 0.0;
    std::vector<std::uint32_t> last_drawn;
    std::vector<float> error;
  };

  snapshot::Schema schema_;
  SmoothingConfig config_;
  double duration_ticks_ = 0.0;
  std::unordered_map<snapshot::EntityId, Entry> entries_;
};

}  // namespace tickwire::prediction
