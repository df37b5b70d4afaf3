#pragma once
// Hides the step an entity's drawing would take when it moves between the
// interpolated timeline (where the snapshots put it, the interpolation
// delay in the past) and the predicted one (where it will be when the
// player's inputs reach the server). At the switch the offset between the
// two is kept: the first frame draws the entity where the old timeline had
// it, moved on by its drawn velocity; the offset then fades linearly to
// zero over the blend time. The offset moves with the entity (it is not a
// fixed start point), so a fast entity is never dragged back toward where
// it stood. A teleport counter that changes ends the blend at once: a jump
// the game meant is drawn as a jump. Only the position field is blended;
// the other fields are the new timeline's.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tickwire/core/time.h"
#include "tickwire/prediction/motion.h"
#include "tickwire/snapshot/ids.h"
#include "tickwire/snapshot/schema.h"
#include "tickwire/snapshot/world.h"

namespace tickwire::client {

class TimelineBlend {
 public:
  // `duration` zero: every switch jumps (nothing is blended).
  TimelineBlend(const snapshot::Schema& schema, std::span<const prediction::MotionFields> motion, Duration duration);

  // `id` changes timeline before the next frame; `drawn` still holds the
  // last frame drawn. A switch in the middle of a blend starts a new one
  // from where the entity was drawn, so a quick switch back never jumps
  // either. Entities not drawn last frame, or without motion fields, are
  // not blended.
  void switched(snapshot::EntityId id, const snapshot::World& drawn);
  // Adds what remains of each blend's offset to the frame just drawn at
  // `now` (in place), and ends the blends that are over.
  void apply(snapshot::World& view, Time now);
  // Drops every blend (a new session).
  void clear();

  bool blending(snapshot::EntityId id) const;
  std::size_t active() const { return blends_.size(); }
  Duration duration() const { return duration_; }

 private:
  struct Blend {
    snapshot::EntityId id;
    snapshot::TypeId type;
    prediction::Point from{};              // drawn last frame, on the timeline it leaves
    prediction::Point velocity{};          // drawn last frame
    prediction::Point offset{};            // set at the first frame on the new timeline
    std::optional<Time> start;             // that frame
    std::vector<std::uint32_t> teleports;  // its teleport counters' slots when it was last drawn
  };

  const prediction::MotionFields* motion_of(snapshot::TypeId type) const;
  void teleport_slots(snapshot::TypeId type, std::span<const std::uint32_t> slots,
                      std::vector<std::uint32_t>& out) const;
  // False when the blend is over (or cannot go on) and should be dropped.
  bool step(Blend& blend, snapshot::World& view, Time now, Duration since_last_frame);

  snapshot::Schema schema_;
  std::vector<prediction::MotionFields> motion_;
  Duration duration_;
  std::vector<Blend> blends_;
  std::optional<Time> last_frame_;
  std::vector<std::uint32_t> scratch_;
};

}  // namespace tickwire::client
