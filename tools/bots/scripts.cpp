#include "scripts.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <type_traits>

namespace tickwire::arena_bots {
namespace {

constexpr float kTau = 2.0F * std::numbers::pi_v<float>;
constexpr double kTicksPerSecond = 60.0;

float uniform(transport::SimRng& rng, float lo, float hi) { return lo + static_cast<float>(rng.uniform()) * (hi - lo); }

float length(Vec2 v) { return std::sqrt(v.x * v.x + v.y * v.y); }

// Scaled to length one, or zero; keeps every axis in [-1, 1] as the game
// requires of a move.
Vec2 normalized(Vec2 v) {
  const float l = length(v);
  if (l < 1e-4F) return {};
  return {std::clamp(v.x / l, -1.0F, 1.0F), std::clamp(v.y / l, -1.0F, 1.0F)};
}

float angle_of(Vec2 v) { return std::atan2(v.y, v.x); }

// Steering around a circle: the unit vector from its centre out to `self`,
// how far out `self` is, and the move that follows the circle while pulling
// back onto it in proportion to how far off it `self` is.
struct CircleSteer {
  Vec2 out_of_centre;
  Vec2 radial;
  float distance = 0.0F;
  Vec2 move;
};

CircleSteer steer_around(Vec2 self, Vec2 centre, float radius, bool clockwise) {
  CircleSteer c;
  c.out_of_centre = {self.x - centre.x, self.y - centre.y};
  c.distance = length(c.out_of_centre);
  c.radial = c.distance > 1e-4F ? Vec2{c.out_of_centre.x / c.distance, c.out_of_centre.y / c.distance} : Vec2{1, 0};
  const float turn = clockwise ? -1.0F : 1.0F;
  const Vec2 tangent{-c.radial.y * turn, c.radial.x * turn};
  const float pull = std::clamp((radius - c.distance) * 0.5F, -1.0F, 1.0F);
  c.move = normalized({tangent.x + c.radial.x * pull, tangent.y + c.radial.y * pull});
  return c;
}

// Stands still: a baseline for bandwidth and timing with no corrections.
class IdleScript final : public ArenaScript {
 public:
  void input(const ArenaView&, Tick, arena::Input& out) override { out = {}; }
};

class WanderScript : public ArenaScript {
 public:
  explicit WanderScript(std::uint64_t seed) : wander_(seed) {}
  void input(const ArenaView& view, Tick, arena::Input& out) override { wander_.input(view, out); }

 private:
  Wander wander_;
};

// Circles a point of its own while shooting at it, so projectiles are
// spawned ahead of the server all the time.
class StrafeScript final : public ArenaScript {
 public:
  explicit StrafeScript(std::uint64_t seed) : rng_(seed) {
    const float room = arena::kHalfSize * 0.6F;
    centre_ = {uniform(rng_, -room, room), uniform(rng_, -room, room)};
    radius_ = uniform(rng_, 4.0F, 10.0F);
    clockwise_ = rng_.chance(0.5);
  }
  void input(const ArenaView& view, Tick, arena::Input& out) override {
    const CircleSteer c = steer_around(view.self.value_or(centre_), centre_, radius_, clockwise_);
    out.move = c.move;
    out.aim = angle_of({-c.radial.x, -c.radial.y});
    out.shoot = true;
  }

 private:
  transport::SimRng rng_;
  Vec2 centre_;
  float radius_ = 6.0F;
  bool clockwise_ = false;
};

// Runs at the nearest other player and shoots it: bodies collide and push
// each other, which is what makes predictions fail and get corrected.
class ChaseScript final : public ArenaScript {
 public:
  explicit ChaseScript(std::uint64_t seed) : rng_(seed), wander_(seed ^ 0x5DEECE66DULL) {}
  void input(const ArenaView& view, Tick, arena::Input& out) override {
    if (!view.self || view.others.empty()) {
      wander_.input(view, out);
      return;
    }
    const Vec2 self = *view.self;
    Vec2 target = view.others.front();
    float best = 1e30F;
    for (const Vec2 other : view.others) {
      const float d = length({other.x - self.x, other.y - self.y});
      if (d < best) {
        best = d;
        target = other;
      }
    }
    const Vec2 towards{target.x - self.x, target.y - self.y};
    out.move = normalized(towards);
    out.aim = angle_of(towards);
    out.shoot = best < 12.0F;
    out.dash = best > 3.0F && best < 8.0F && rng_.chance(0.05);
  }

 private:
  transport::SimRng rng_;
  Wander wander_;
};

// Plays like wander, and leaves and rejoins at random: stays 3 to 8 s, is
// away 1 to 3 s. The schedule has its own generator so it does not depend
// on how many ticks were played.
class ChurnScript final : public WanderScript {
 public:
  explicit ChurnScript(std::uint64_t seed) : WanderScript(seed), schedule_(seed ^ 0xC2B2AE3D27D4EB4FULL) {}
  // Plays 3 to 8 s counted from the welcome, stays away 1 to 3 s, and
  // lets a connect run its course however long the link makes it.
  bool wants_connected(const Presence& p) override {
    if (p.joined && !p.connected) return true;
    Duration& spell = p.joined ? play_ : away_;
    if (spell == Duration::zero()) spell = draw(p.joined ? 3.0 : 1.0, p.joined ? 5.0 : 2.0);
    if (p.since_change < spell) return p.joined;
    spell = Duration::zero();
    return !p.joined;
  }

 private:
  Duration draw(double least_s, double spread_s) {
    return Duration::micros(static_cast<std::int64_t>((least_s + spread_s * schedule_.uniform()) * 1e6));
  }

  transport::SimRng schedule_;
  Duration play_ = Duration::zero();  // zero: not drawn yet
  Duration away_ = Duration::zero();
};

// Plays like wander; the runtime also replays this bot's predicted world
// through the sync test every few seconds.
class SyncTestScript final : public WanderScript {
 public:
  using WanderScript::WanderScript;
  bool runs_sync_test() const override { return true; }
};

// Circles the point where it first stood (a strafing target for the
// others) and fires the hitscan weapon at the nearest other player every
// kFireEvery ticks: `miss_by` 0 aims at the centre of the player as drawn,
// above 0 aims that far outside its edge, beside it. The circle is small
// (1.5 m) so that shooters spawned on the arena's ring (4.7 m apart) do
// not push each other: a push is the other machine's to decide, so the
// shooter's own position would be mispredicted and its shots would start
// somewhere else on the server than on its screen.
class ShooterScript : public ArenaScript {
 public:
  static constexpr std::uint32_t kFireEvery = 12;  // 5 shots a second
  static constexpr float kMaxRange = 30.0F;
  static constexpr float kRadius = 1.5F;

  ShooterScript(std::uint64_t seed, float miss_by) : rng_(seed), miss_by_(miss_by) {
    clockwise_ = rng_.chance(0.5);
    phase_ = static_cast<std::uint32_t>(rng_.uniform() * kFireEvery);
  }
  bool aims() const override { return true; }
  void input(const ArenaView& view, Tick tick, arena::Input& out) override {
    if (!centre_ && view.self) centre_ = *view.self;
    const Vec2 centre = centre_.value_or(Vec2{});
    const Vec2 self = view.self.value_or(centre);
    const CircleSteer c = steer_around(self, centre, kRadius, clockwise_);
    const float distance = c.distance;
    // Back onto the circle; far from it (after a respawn at the arena's
    // centre), straight home.
    out.move = distance > 2.0F * kRadius ? normalized({-c.out_of_centre.x, -c.out_of_centre.y}) : c.move;
    // Fires only on its circle: on the way home from a respawn it would
    // push and be pushed, and its own position would be mispredicted.
    if (!view.self || distance > 2.0F * kRadius || (tick.value() + phase_) % kFireEvery != 0) return;
    const Vec2* target = nullptr;
    float best = kMaxRange;
    for (const Vec2& other : view.others) {
      const float d = length({other.x - self.x, other.y - self.y});
      if (d < best && d > 2.0F * arena::kPlayerRadius) {
        best = d;
        target = &other;
      }
    }
    if (target == nullptr) return;
    const Vec2 towards{target->x - self.x, target->y - self.y};
    // Beside the target, perpendicular to the line of sight.
    const Vec2 side{-towards.y / best, towards.x / best};
    const float offset = miss_by_ > 0.0F ? arena::kPlayerRadius + miss_by_ : 0.0F;
    out.aim = angle_of({towards.x + side.x * offset, towards.y + side.y * offset});
    out.fire = true;
  }

 private:
  transport::SimRng rng_;
  float miss_by_ = 0.0F;
  std::optional<Vec2> centre_;  // where it first stood
  bool clockwise_ = false;
  std::uint32_t phase_ = 0;
};

class OnTargetScript final : public ShooterScript {
 public:
  explicit OnTargetScript(std::uint64_t seed) : ShooterScript(seed, 0.0F) {}
};

// A quarter of the radius outside the edge: clear of the shape by far more
// than the aim's quantization (1.5 mrad, 5 cm at 30 m).
class OffTargetScript final : public ShooterScript {
 public:
  explicit OffTargetScript(std::uint64_t seed) : ShooterScript(seed, 0.25F * arena::kPlayerRadius + 0.05F) {}
};

template <class Script>
std::unique_ptr<ArenaScript> make(std::uint64_t seed) {
  if constexpr (std::is_constructible_v<Script, std::uint64_t>) {
    return std::make_unique<Script>(seed);
  } else {
    return std::make_unique<Script>();
  }
}

}  // namespace

void Wander::input(const ArenaView& view, arena::Input& out) {
  if (--ticks_to_turn_ <= 0) {
    heading_ = uniform(rng_, 0.0F, kTau);
    ticks_to_turn_ = static_cast<int>(kTicksPerSecond * (1.0 + 2.0 * rng_.uniform()));
  }
  heading_ += uniform(rng_, -0.05F, 0.05F);
  if (view.self) {
    // Near a wall, head back towards the middle.
    const float margin = arena::kHalfSize - 4.0F;
    if (std::abs(view.self->x) > margin || std::abs(view.self->y) > margin) {
      heading_ = angle_of({-view.self->x, -view.self->y}) + uniform(rng_, -0.5F, 0.5F);
    }
  }
  out.move = normalized({std::cos(heading_), std::sin(heading_)});
  out.aim = std::remainder(heading_, kTau);
  out.dash = rng_.chance(1.0 / 240.0);
  out.shoot = rng_.chance(1.0 / 90.0);
}

const std::vector<ScriptInfo>& scripts() {
  static const std::vector<ScriptInfo> all = {
      {"idle", "stands still", make<IdleScript>},
      {"wander", "random walk with the odd dash and shot", make<WanderScript>},
      {"strafe", "circles a point while shooting", make<StrafeScript>},
      {"chase", "runs at the nearest other player and shoots (pushes, mispredictions)", make<ChaseScript>},
      {"churn", "plays like wander, leaves and rejoins every few seconds", make<ChurnScript>},
      {"sync-test", "plays like wander; checks its prediction with the sync test", make<SyncTestScript>},
      {"shooter", "circles and fires the hitscan weapon at the nearest player as drawn (hit registration)",
       make<OnTargetScript>},
      {"shooter_miss", "as shooter, aiming just outside the target's shape (false hits)", make<OffTargetScript>},
  };
  return all;
}

std::unique_ptr<ArenaScript> make_script(std::string_view name, std::uint64_t seed) {
  for (const ScriptInfo& info : scripts()) {
    if (info.name == name) return info.make(seed);
  }
  return nullptr;
}

std::string script_names() {
  std::string names;
  for (const ScriptInfo& info : scripts()) names += (names.empty() ? "" : ", ") + info.name;
  return names;
}

}  // namespace tickwire::arena_bots
