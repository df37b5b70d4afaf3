#pragma once
// What the player sees of motion, measured frame by frame on the drawn
// world (Client::view): visual pops, frames in which a drawn entity moved
// further than its own motion explains. For each entity with motion fields
// drawn in this frame and the last: it moved d = |p_now - p_prev|; its
// velocity explains e = |v| * frame_dt, v the larger of its drawn velocity
// field in the two frames (without one, its move in the previous frame
// over that frame's time); a pop is d - e > pop_distance, unless a
// teleport counter changed between the two frames. Predicted and
// interpolated entities alike: whatever is drawn.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tickwire/core/time.h"
#include "tickwire/prediction/motion.h"
#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::client {

class DrawMetrics {
 public:
  DrawMetrics() = default;
  // Throws std::invalid_argument for motion fields that are not fields of
  // `schema` or a pop distance that is not a positive number.
  DrawMetrics(const snapshot::Schema& schema, std::span<const prediction::MotionFields> motion, float pop_distance);

  // One frame drawn at `now`. Keeps the previous frame's positions in
  // buffers reused from frame to frame.
  void frame(const snapshot::World& view, Time now);

  std::uint64_t frames() const { return frames_; }
  std::uint64_t pops() const { return pops_; }
  // The largest unexplained move seen so far (d - e), for tuning.
  float worst_unexplained() const { return worst_; }

 private:
  struct Track {
    snapshot::EntityId id;
    snapshot::TypeId type;
    prediction::Point position{};
    float speed = 0.0F;           // drawn velocity field, or the last move's speed
    bool has_speed = false;       // false: nothing yet explains a move
    std::uint64_t teleports = 0;  // the teleport counters, combined
  };
  struct TypeInfo {
    std::optional<prediction::MotionFields> motion;
    std::vector<std::uint16_t> teleport_slots;
  };

  std::uint64_t teleport_key(const TypeInfo& info, std::span<const std::uint32_t> slots) const;
  // Whether the move from `prev` to `now` over `dt` seconds is a pop.
  bool pops(const Track& prev, const Track& now, double dt);

  std::vector<TypeInfo> types_;  // by type id
  float pop_distance_ = 0.25F;
  std::vector<Track> last_;  // the previous frame, in id order
  std::vector<Track> now_;
  std::optional<Time> last_time_;
  std::uint64_t frames_ = 0;
  std::uint64_t pops_ = 0;
  float worst_ = 0.0F;
};

}  // namespace tickwire::client
