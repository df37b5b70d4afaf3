#pragma once
// The server's history of hit shapes: per tick, every hittable entity's
// position and shapes, kept for a configured time, and the queries a game
// asks of it at a client's view time (a tick plus a fraction): "what did
// this shot hit in the world the shooter saw?"
//
// Recording, once per server tick, after the tick is simulated:
//   history.begin_tick(tick);
//   for each hittable entity: history.record(id, position, shapes, motion);
//   history.end_tick();
//
// Memory is fixed at construction: a ring of frames, one per tick of the
// rewind window plus two, each with room for max_entities entities of
// max_shapes_per_entity shapes. Recording and querying never allocate.
//
// Between two recorded ticks every shape moves linearly (sub-tick
// accuracy, as the client's interpolation draws it), except across a
// teleport: an entity recorded with Motion::kTeleported at tick k is never
// rewound to before k; a query at an earlier time sees it where it was at
// k (the rewind is "teleport-blocked", as Source's lag compensation stops
// at a teleport). An entity that was not recorded at the view time's tick
// was not in the shooter's world and is never hit.
//
// Queries take a time that must lie in range(); RewindPolicy turns a
// client's claim into one. Errors are values: a bad ray or record, or a
// time outside the history, gives an Error, never a throw or a crash.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tickwire/core/network_time.h"
#include "tickwire/core/result.h"
#include "tickwire/core/tick.h"
#include "tickwire/core/time.h"
#include "tickwire/lagcomp/shapes.h"
#include "tickwire/lagcomp/slot_map.h"
#include "tickwire/snapshot/ids.h"

namespace tickwire::lagcomp {

using snapshot::EntityId;

// A shape count per entity above this is refused at construction: it
// bounds the scratch space a rewound entity needs on the stack.
inline constexpr std::uint32_t kMaxShapesPerEntity = 16;
// The longest rewind a history may be configured for. Source caps its
// sv_maxunlag at one second too: rewinding further lets a shooter with a
// bad link hit players who have been out of sight for a long time.
inline constexpr Duration kMaxRewindLimit = Duration::seconds(1);

struct HistoryConfig {
  std::uint32_t tick_rate = 60;             // Hz, 1..NetworkTime::kMaxTickRate
  std::uint32_t max_entities = 64;          // hittable entities in one tick, 1..65536
  std::uint32_t max_shapes_per_entity = 4;  // 1..kMaxShapesPerEntity
  // How far back a query may look (the server app's --max-rewind-ms),
  // 0..kMaxRewindLimit.
  Duration max_rewind = Duration::millis(250);
};

// How an entity moved into this tick.
enum class Motion : std::uint8_t {
  kContinuous,  // from where it was last tick: blended between the two
  kTeleported,  // jumped (respawn, portal): never blended across, never rewound to before
  kNewLife,     // a new entity that reuses the id of one recorded last tick
};

struct HistoryStats {
  std::uint64_t ticks_recorded = 0;
  std::uint64_t entity_ticks_recorded = 0;
  std::uint64_t rejected_records = 0;  // bad shapes or position, duplicates, over max_entities
  std::uint64_t gaps = 0;              // a tick skipped: the history started over
};

// The time span queries may use: [oldest, newest], the newest complete
// tick and max_rewind before it (or the oldest tick held, if later).
struct TimeRange {
  NetworkTime oldest;
  NetworkTime newest;
};

// An entity as the shooter saw it, for drawing and logging.
struct RewoundEntity {
  EntityId id;
  Vec3 position;
  // The rewind stopped at a teleport after the view time: this is the
  // entity at its teleport tick.
  bool teleport_blocked = false;
  std::uint32_t shape_count = 0;
  std::array<Shape, kMaxShapesPerEntity> shapes{};

  std::span<const Shape> shape_span() const { return {shapes.data(), shape_count}; }
};

struct RayHit {
  EntityId entity;
  float distance = 0.0F;  // along the unit direction
  Vec3 point;             // origin + distance * direction
  std::uint32_t shape_index = 0;
  Shape shape;    // the rewound shape that was hit (its tag says which part)
  Vec3 position;  // the entity's rewound position
  bool teleport_blocked = false;
};

struct RayCastResult {
  std::optional<RayHit> hit;           // the closest
  std::uint32_t candidates = 0;        // entities tested exactly (past the broad phase)
  std::uint32_t teleport_blocked = 0;  // of those, rewinds stopped at a teleport
};

struct OverlapHit {
  EntityId entity;
  float distance = 0.0F;  // from the sphere's centre to the nearest overlapping shape; 0 inside
  std::uint32_t shape_index = 0;
  Shape shape;
  Vec3 position;
  bool teleport_blocked = false;
};

struct OverlapResult {
  std::size_t total = 0;    // entities overlapping
  std::size_t written = 0;  // of those, written to the output span (the first ones found)
  std::uint32_t candidates = 0;
  std::uint32_t teleport_blocked = 0;
};

struct QueryOptions {
  std::optional<EntityId> ignore;  // the shooter
  // Off tests every entity exactly: for checking and measuring the broad
  // phase, which never changes an answer.
  bool broad_phase = true;
  // On: rewinds cross teleports, taking each entity as it was at the view
  // time even if it respawned since (still reported as teleport_blocked).
  // Never for judging a shot: for telling a miss the teleport rule caused
  // from a plain one. Needs broad_phase off (the broad phase's boxes hold
  // only what a query may hit); refused otherwise.
  bool cross_teleports = false;
};

class HitHistory {
 public:
  // Throws std::invalid_argument for a config outside the ranges above.
  explicit HitHistory(const HistoryConfig& config);

  const HistoryConfig& config() const { return config_; }

  // Opens tick `tick` for recording. Ticks must increase; a tick more than
  // one after the last one leaves a hole nothing can be blended across, so
  // the history starts over (counted as a gap). Errors: a tick not after
  // the last one, or a tick already open.
  Result<void> begin_tick(Tick tick);
  // Records one entity of the open tick. Errors (the entity is left out of
  // the tick and counted as rejected): no open tick, no shapes or more than
  // max_shapes_per_entity, an invalid shape or position, the entity
  // recorded twice, or max_entities already recorded.
  Result<void> record(EntityId id, const Vec3& position, std::span<const Shape> shapes,
                      Motion motion = Motion::kContinuous);
  // Closes the open tick, which queries may then use. Errors: no open tick.
  Result<void> end_tick();

  // nullopt until a tick has been closed.
  std::optional<TimeRange> range() const;

  // The entity as it was at `at`: nullopt when it was not recorded at that
  // time (or `at` is outside range()).
  std::optional<RewoundEntity> rewind(EntityId id, const NetworkTime& at) const;

  // The closest hit of the ray against every entity's shapes at `at`.
  // Errors: an invalid ray, `at` outside range() or of another tick rate.
  Result<RayCastResult> ray_cast(const Ray& ray, const NetworkTime& at, const QueryOptions& options = {}) const;
  // Every entity with a shape within `radius` of `centre` at `at`, one
  // entry each (its nearest shape). Writes at most out.size() entries.
  Result<OverlapResult> overlap_sphere(const Vec3& centre, float radius, const NetworkTime& at,
                                       std::span<OverlapHit> out, const QueryOptions& options = {}) const;

  const HistoryStats& stats() const { return stats_; }
  // Frames held: ticks of the rewind window, rounded up, plus one for the
  // blend partner and one being recorded.
  std::uint32_t frame_capacity() const { return frame_capacity_; }
  // Bytes of every buffer the history holds; fixed at construction.
  std::size_t bytes() const;

 private:
  // 16 bytes, and two per entity-tick (slots are twice max_entities): the
  // position and the bounds live in the frame's dense arrays instead, the
  // bounds recomputed from the shapes when a life is closed.
  struct Record {
    EntityId id;
    std::uint32_t life = 0;        // first tick of this life: the continuity key
    std::uint32_t blocked_at = 0;  // when blocked: the latest teleport after this tick
    std::uint16_t dense = 0;       // index in the frame's dense arrays (< max_entities <= 65536)
    std::uint8_t shape_count = 0;
    bool present : 1 = false;
    bool teleported : 1 = false;  // recorded as kTeleported, continuing a life
    bool blocked : 1 = false;
  };
  // One tick. Records are indexed by slot (stable for a life, so a
  // record and its next tick's are found at once), shapes and the broad
  // phase by a dense index over the tick's recorded entities.
  struct Frame {
    Tick tick;
    bool complete = false;
    std::vector<Record> records;
    std::vector<Shape> shapes;    // max_shapes_per_entity per dense index
    std::vector<Vec3> positions;  // per dense index
    std::uint32_t count = 0;
    std::vector<std::uint32_t> slots;  // dense index -> slot
    // Per dense index, a box holding the entity at every time from this
    // tick to the next (or at its teleport tick, when blocked).
    std::vector<float> min_x, min_y, min_z, max_x, max_y, max_z;
  };
  Frame& frame_at(Tick tick) { return frames_[tick.value() % frame_capacity_]; }
  const Frame& frame_at(Tick tick) const { return frames_[tick.value() % frame_capacity_]; }
  const Frame* complete_frame(Tick tick) const;
  Result<void> reject(ErrorCode code, const char* detail);
  void set_bound(Frame& frame, std::uint32_t dense, const Aabb& box);
  // The box of the shapes recorded at `dense` in `frame`.
  Aabb shape_bounds(const Frame& frame, std::uint32_t dense) const;
  void close_lives(Frame& prev, Frame& cur);
  void clear();
  std::optional<Error> check_time(const NetworkTime& at) const;
  // The rewound entity in `slot` of the frame at `at`'s tick.
  // `cross_teleports`: as QueryOptions::cross_teleports.
  void sample(const Frame& f0, std::uint32_t slot, const NetworkTime& at, RewoundEntity& out,
              bool cross_teleports = false) const;

  HistoryConfig config_;
  std::uint32_t frame_capacity_ = 0;
  std::vector<Frame> frames_;
  std::vector<std::uint32_t> free_slots_;  // a stack
  detail::SlotMap slots_of_;               // entities of the newest tick -> their slots
  std::optional<Tick> open_;
  std::optional<Tick> newest_;  // newest complete tick
  std::optional<Tick> first_;   // oldest tick since the last start-over
  HistoryStats stats_;
};

}  // namespace tickwire::lagcomp
