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
//
// Some corrections must not slide. A teleport counter (kTeleportCounter)
// that changed since the last draw snaps the drawing to the new state with
// no error left, whether the correction or the entity's own trajectory
// changed it. A correction larger than a field's snap threshold snaps too;
// thresholds are per field (SnapThreshold), by default the position field
// of each type the game gives MotionFields for, never a velocity: a kick
// changes a velocity at once, and that is no teleport.

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "tickwire/core/time.h"
#include "tickwire/prediction/correction_sizes.h"
#include "tickwire/prediction/motion.h"
#include "tickwire/snapshot/ids.h"
#include "tickwire/snapshot/schema.h"

namespace tickwire::prediction {

// A correction whose error over one field is longer than `distance` (the
// length of the field's error vector, in its units) snaps instead of
// sliding.
struct SnapThreshold {
  snapshot::TypeId type{};
  std::uint16_t offset = 0;  // the field's first slot in its type
  std::uint16_t slots = 0;   // the slots it spans
  float distance = std::numeric_limits<float>::infinity();

  template <class T>
  static SnapThreshold of(snapshot::Field<T> field, float distance) {
    return {field.type(), field.offset(), static_cast<std::uint16_t>(snapshot::FieldValue<T>::kSlots), distance};
  }
  bool operator==(const SnapThreshold&) const = default;
};

struct SmoothingConfig {
  // Time over which a correction fades out; zero draws corrections at once.
  Duration duration = Duration::millis(100);
  // The fastest a correction may move the drawing of a type with
  // MotionFields, in position units per second, on top of the entity's own
  // motion: a larger error fades over longer than `duration`, so it slides
  // instead of popping. Infinity: every error fades over `duration`.
  float max_correction_speed = std::numeric_limits<float>::infinity();
  // The snap threshold of the position field of every type with
  // MotionFields (a teleport, a respawn snaps instead of sliding across the
  // map). Types without MotionFields are compared by `thresholds` only.
  float snap_distance = std::numeric_limits<float>::infinity();
  // Thresholds stated per field; one naming a field snap_distance already
  // covers replaces it. To snap on a velocity as well, name it here.
  std::vector<SnapThreshold> thresholds{};

  // Throws std::invalid_argument for a negative duration, a NaN or
  // non-positive distance, or a threshold that is not within a type of
  // `schema`.
  void validate(const snapshot::Schema& schema) const;
};

// Throws std::invalid_argument for motion fields that are not fields of
// `schema` (unknown type, slots past the type's stride, 0 or >3 dimensions).
void validate_motion_fields(const snapshot::Schema& schema, std::span<const MotionFields> motion);

class RenderSmoother {
 public:
  // Throws std::invalid_argument for a bad config (SmoothingConfig::validate),
  // a tick rate of 0 or bad motion fields. `motion`: where each type keeps
  // its position (NetGame::motion_fields), for the default snap threshold
  // and the correction sizes.
  RenderSmoother(snapshot::Schema schema, SmoothingConfig config, std::uint32_t tick_rate,
                 std::span<const MotionFields> motion = {});

  // Entity `id`'s trajectory changed under it (a correction).
  void corrected(snapshot::EntityId id);
  // The entity is drawn under another id from now on (a predicted spawn
  // matched with the server's entity): its drawing continues from there.
  void transfer(snapshot::EntityId from, snapshot::EntityId to);
  void forget(snapshot::EntityId id);

  // Off: draw() writes the unsmoothed state and drops any error left, but
  // still measures corrections (correction_sizes).
  void set_enabled(bool on) { enabled_ = on; }

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
  // At the first draw after each correction of an entity with motion
  // fields that changed its trajectory (teleports excepted): how far the
  // correction moved its drawing, the distance between its position on the
  // trajectory it was drawn from and on the corrected one at the time of
  // the last draw. The same whether smoothing is on or off.
  const CorrectionSizes& correction_sizes() const { return sizes_; }
  // Corrections drawn as a snap (over a threshold, or a teleport).
  std::uint64_t snaps() const { return snaps_; }

 private:
  struct Entry {
    snapshot::TypeId type;
    bool drawn = false;
    bool pending = false;  // corrected since the last draw
    bool has_error = false;
    double last_time = 0.0;  // ticks
    double error_time = 0.0;
    double fade_ticks = 0.0;  // how long this error takes to fade
    std::vector<std::uint32_t> last_drawn;
    std::vector<std::uint32_t> last_base;  // the unsmoothed state at the last draw
    std::vector<float> error;
  };
  struct Rule {
    std::uint16_t offset = 0;
    std::uint16_t slots = 0;
    float distance = 0.0F;
  };

  void build_rules(std::span<const MotionFields> motion);
  bool beyond_threshold(snapshot::TypeId type, std::span<const float> error) const;
  // Measures the error of a pending correction and decides whether it slides.
  void take_correction(Entry& e, const snapshot::TypeSpec& spec, std::span<const std::uint32_t> base_then);

  snapshot::Schema schema_;
  SmoothingConfig config_;
  double duration_ticks_ = 0.0;
  double max_correction_per_tick_ = 0.0;  // max_correction_speed in units per tick
  bool enabled_ = true;
  std::vector<std::vector<Rule>> rules_;             // by type: snap thresholds
  std::vector<std::optional<MotionFields>> motion_;  // by type
  std::unordered_map<snapshot::EntityId, Entry> entries_;
  CorrectionSizes sizes_;
  std::uint64_t snaps_ = 0;
};

}  // namespace tickwire::prediction
