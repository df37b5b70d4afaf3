// Queries against the history at a view time: rewinding an entity, ray
// casts and sphere overlaps. Recording: hit_history.cpp.

#include <algorithm>
#include <cmath>
#include <limits>

#include "tickwire/lagcomp/geometry.h"
#include "tickwire/lagcomp/hit_history.h"

namespace tickwire::lagcomp {

namespace {

// The broad phase tests boxes in blocks of this many entities: one pass
// over the block's boxes (straight-line code the compiler vectorises)
// fills a stack array, a second pass tests the survivors exactly.
constexpr std::uint32_t kBlock = 64;

// 1 / d, or a huge number of d's sign for d (nearly) zero, so that a box
// test never computes 0 * inf. Coordinates are at most 1e6, so the
// products stay below 1e37, inside float's range.
float safe_inverse(double d) {
  if (std::fabs(d) < 1e-30) return std::copysign(1e30F, static_cast<float>(d) == 0.0F ? 1.0F : static_cast<float>(d));
  return static_cast<float>(1.0 / d);
}

// A box entry distance passes if it is not beyond `limit`, with room for
// float rounding in the slab test: extra candidates, never a lost one.
bool within(float near, double limit) { return static_cast<double>(near) <= limit * (1.0 + 1e-5) + 1e-5; }

}  // namespace

std::optional<Error> HitHistory::check_time(const NetworkTime& at) const {
  if (at.tick_rate() != config_.tick_rate) {
    return make_error(ErrorCode::kInvalidArgument, "view time at another tick rate than the history's");
  }
  const auto r = range();
  if (!r) return make_error(ErrorCode::kOutOfRange, "no tick recorded yet");
  if (at < r->oldest || at > r->newest) return make_error(ErrorCode::kOutOfRange, "view time outside the history");
  return std::nullopt;
}

void HitHistory::sample(const Frame& f0, std::uint32_t slot, const NetworkTime& at, RewoundEntity& out,
                        bool cross_teleports) const {
  const Record& r0 = f0.records[slot];
  const std::uint32_t stride = config_.max_shapes_per_entity;
  const auto copy_from = [&out, stride](const Frame& f, const Record& r) {
    out.position = f.positions[r.dense];
    out.shape_count = r.shape_count;
    const Shape* s = f.shapes.data() + std::size_t{r.dense} * stride;
    std::copy(s, s + r.shape_count, out.shapes.begin());
  };
  out.id = r0.id;
  out.teleport_blocked = r0.blocked;
  if (r0.blocked && !cross_teleports) {
    // The teleport lies after the view time: the entity as it landed.
    const Frame& fb = frame_at(Tick(r0.blocked_at));
    copy_from(fb, fb.records[slot]);
    return;
  }
  const std::int64_t fraction = at.fraction_units();
  if (fraction > 0) {
    const Frame& f1 = frame_at(f0.tick + 1);
    const Record& r1 = f1.records[slot];
    // Never blended into a teleport (only cross_teleports gets this far
    // with one): the entity is taken as it was before it.
    if (f1.complete && f1.tick == f0.tick + 1 && r1.present && r1.id == r0.id && r1.life == r0.life && !r1.teleported) {
      const float t = static_cast<float>(fraction) / static_cast<float>(NetworkTime::kUnitsPerTick);
      out.position = lerp(f0.positions[r0.dense], f1.positions[r1.dense], t);
      const Shape* s0 = f0.shapes.data() + std::size_t{r0.dense} * stride;
      const Shape* s1 = f1.shapes.data() + std::size_t{r1.dense} * stride;
      bool same_layout = r0.shape_count == r1.shape_count;
      for (std::uint32_t j = 0; same_layout && j < r0.shape_count; ++j) same_layout = s0[j].kind == s1[j].kind;
      if (same_layout) {
        out.shape_count = r0.shape_count;
        for (std::uint32_t j = 0; j < r0.shape_count; ++j) out.shapes[j] = lerp(s0[j], s1[j], t);
      } else {
        // The game changed the entity's shapes between the ticks (a
        // crouch that swaps a capsule for a box): no blend, the nearer
        // tick's shapes.
        const bool second = t >= 0.5F;
        const Record& r = second ? r1 : r0;
        const Shape* s = second ? s1 : s0;
        out.shape_count = r.shape_count;
        std::copy(s, s + r.shape_count, out.shapes.begin());
      }
      return;
    }
  }
  // On a tick, or the entity's last tick (it was gone by the next).
  copy_from(f0, r0);
}

std::optional<RewoundEntity> HitHistory::rewind(EntityId id, const NetworkTime& at) const {
  if (check_time(at)) return std::nullopt;
  const Frame& f0 = frame_at(at.tick());
  std::optional<std::uint32_t> slot;
  if (const auto s = slots_of_.find(id.value); s && f0.records[*s].present && f0.records[*s].id == id) {
    slot = s;
  } else {
    for (std::uint32_t i = 0; i < f0.count && !slot; ++i) {
      if (f0.records[f0.slots[i]].id == id) slot = f0.slots[i];
    }
  }
  if (!slot) return std::nullopt;
  RewoundEntity out;
  sample(f0, *slot, at, out);
  return out;
}

Result<RayCastResult> HitHistory::ray_cast(const Ray& ray, const NetworkTime& at, const QueryOptions& options) const {
  if (auto error = check_time(at)) return *error;
  const auto unit = detail::unit_ray(ray);
  if (!unit) {
    return make_error(ErrorCode::kInvalidArgument,
                      "ray: origin not finite or out of range, zero or non-finite direction, or negative length");
  }
  if (options.cross_teleports && options.broad_phase) {
    return make_error(ErrorCode::kInvalidArgument, "ray: cross_teleports needs the broad phase off");
  }
  const Frame& f0 = frame_at(at.tick());
  RayCastResult result;
  RewoundEntity e;

  const auto exact = [&](std::uint32_t slot) {
    if (options.ignore && f0.records[slot].id == *options.ignore) return;
    ++result.candidates;
    sample(f0, slot, at, e, options.cross_teleports);
    if (e.teleport_blocked) ++result.teleport_blocked;
    for (std::uint32_t j = 0; j < e.shape_count; ++j) {
      const auto d = detail::ray_distance(e.shapes[j], *unit);
      // Strictly closer: of two shapes at one distance, the first found.
      if (!d || (result.hit && *d >= static_cast<double>(result.hit->distance))) continue;
      const auto df = static_cast<float>(*d);
      result.hit = RayHit{e.id,
                          df,
                          {static_cast<float>(unit->ox + unit->dx * *d), static_cast<float>(unit->oy + unit->dy * *d),
                           static_cast<float>(unit->oz + unit->dz * *d)},
                          j,
                          e.shapes[j],
                          e.position,
                          e.teleport_blocked};
    }
  };

  if (!options.broad_phase) {
    for (std::uint32_t i = 0; i < f0.count; ++i) exact(f0.slots[i]);
    return result;
  }

  const auto ox = static_cast<float>(unit->ox);
  const auto oy = static_cast<float>(unit->oy);
  const auto oz = static_cast<float>(unit->oz);
  const float ix = safe_inverse(unit->dx);
  const float iy = safe_inverse(unit->dy);
  const float iz = safe_inverse(unit->dz);
  const float far_limit = static_cast<float>(std::min(unit->max_distance, 1e30));
  float entry[kBlock];
  for (std::uint32_t base = 0; base < f0.count; base += kBlock) {
    const std::uint32_t n = std::min(kBlock, f0.count - base);
    const float* mnx = f0.min_x.data() + base;
    const float* mny = f0.min_y.data() + base;
    const float* mnz = f0.min_z.data() + base;
    const float* mxx = f0.max_x.data() + base;
    const float* mxy = f0.max_y.data() + base;
    const float* mxz = f0.max_z.data() + base;
    for (std::uint32_t i = 0; i < n; ++i) {
      const float ax = (mnx[i] - ox) * ix;
      const float bx = (mxx[i] - ox) * ix;
      const float ay = (mny[i] - oy) * iy;
      const float by = (mxy[i] - oy) * iy;
      const float az = (mnz[i] - oz) * iz;
      const float bz = (mxz[i] - oz) * iz;
      const float t_near = std::max(std::max(std::min(ax, bx), std::min(ay, by)), std::max(std::min(az, bz), 0.0F));
      const float t_far = std::min(std::min(std::max(ax, bx), std::max(ay, by)), std::min(std::max(az, bz), far_limit));
      // A miss becomes +inf: t_near past t_far, with the same slack as within().
      entry[i] = t_near <= t_far * (1.0F + 1e-5F) + 1e-5F ? t_near : std::numeric_limits<float>::infinity();
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      if (entry[i] == std::numeric_limits<float>::infinity()) continue;
      const double limit = result.hit ? static_cast<double>(result.hit->distance) : unit->max_distance;
      if (within(entry[i], limit)) exact(f0.slots[base + i]);
    }
  }
  return result;
}

Result<OverlapResult> HitHistory::overlap_sphere(const Vec3& centre, float radius, const NetworkTime& at,
                                                 std::span<OverlapHit> out, const QueryOptions& options) const {
  if (auto error = check_time(at)) return *error;
  if (!valid(centre) || !std::isfinite(radius) || radius < 0.0F || radius > kMaxCoordinate) {
    return make_error(ErrorCode::kInvalidArgument, "overlap: centre not finite or out of range, or a bad radius");
  }
  const Frame& f0 = frame_at(at.tick());
  OverlapResult result;
  RewoundEntity e;
  // The sphere's box, widened like the entities' boxes.
  const float pad = radius * 1e-6F + 1e-5F;
  const float lo_x = centre.x - radius - pad;
  const float lo_y = centre.y - radius - pad;
  const float lo_z = centre.z - radius - pad;
  const float hi_x = centre.x + radius + pad;
  const float hi_y = centre.y + radius + pad;
  const float hi_z = centre.z + radius + pad;
  for (std::uint32_t i = 0; i < f0.count; ++i) {
    if (options.broad_phase && (f0.max_x[i] < lo_x || f0.min_x[i] > hi_x || f0.max_y[i] < lo_y || f0.min_y[i] > hi_y ||
                                f0.max_z[i] < lo_z || f0.min_z[i] > hi_z)) {
      continue;
    }
    const std::uint32_t slot = f0.slots[i];
    if (options.ignore && f0.records[slot].id == *options.ignore) continue;
    ++result.candidates;
    sample(f0, slot, at, e);
    if (e.teleport_blocked) ++result.teleport_blocked;
    std::optional<std::uint32_t> nearest;
    double nearest_d = 0.0;
    for (std::uint32_t j = 0; j < e.shape_count; ++j) {
      const double d = distance_to(e.shapes[j], centre);
      if (d <= radius && (!nearest || d < nearest_d)) {
        nearest = j;
        nearest_d = d;
      }
    }
    if (!nearest) continue;
    if (result.written < out.size()) {
      out[result.written++] =
          OverlapHit{e.id, static_cast<float>(nearest_d), *nearest, e.shapes[*nearest], e.position, e.teleport_blocked};
    }
    ++result.total;
  }
  return result;
}

}  // namespace tickwire::lagcomp
