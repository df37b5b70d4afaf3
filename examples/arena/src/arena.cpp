#include "tickwire/arena/arena.h"

#include <algorithm>
#include <cmath>

namespace tickwire::arena {
namespace {

constexpr float kDt = 1.0F / 60.0F;
constexpr int kPlatforms = 3;
constexpr float kPi = 3.14159265358979F;

// Back to the centre; the teleport counter tells clients not to blend the jump.
void respawn(snapshot::World& world, EntityId id, const Schema& s) {
  world.set(id, s.player_position, Vec2{});
  world.set(id, s.player_teleports, (world.get(id, s.player_teleports) + 1) % 4);
}

Schema make_schema() {
  Schema s;
  snapshot::SchemaBuilder b;
  const Vec2 lo{-kHalfSize, -kHalfSize};
  const Vec2 hi{kHalfSize, kHalfSize};
  const Vec2 vlo{-kDashSpeed - 2.0F, -kDashSpeed - 2.0F};
  const Vec2 vhi{kDashSpeed + 2.0F, kDashSpeed + 2.0F};
  {
    auto t = b.entity_type("player");
    t.priority(4.0F);
    s.player_type = t.id();
    s.player_position = t.add_vec2("position", lo, hi, 0.01F);
    s.player_velocity = t.add_vec2("velocity", vlo, vhi, 0.01F);
    s.player_owner = t.add_int("owner", 0, 65535);
    s.player_dash_ticks = t.add_int("dash_ticks", 0, kDashTicks);
    s.player_dash_cooldown = t.add_int("dash_cooldown", 0, kDashCooldownTicks);
    s.player_shoot_cooldown = t.add_int("shoot_cooldown", 0, kShootCooldownTicks);
    s.player_health = t.add_int("health", 0, kMaxHealth);
    s.player_teleports = t.add_int("teleports", 0, 3, snapshot::Interpolation::kTeleportCounter);
  }
  {
    auto t = b.entity_type("projectile");
    t.priority(2.0F);
    s.projectile_type = t.id();
    const Vec2 plo{-kProjectileSpeed, -kProjectileSpeed};
    const Vec2 phi{kProjectileSpeed, kProjectileSpeed};
    s.projectile_position = t.add_vec2("position", lo, hi, 0.01F);
    s.projectile_velocity = t.add_vec2("velocity", plo, phi, 0.01F);
    s.projectile_key = prediction::add_spawn_key(t, 65535);
  }
  {
    auto t = b.entity_type("platform");
    s.platform_type = t.id();
    s.platform_position = t.add_vec2("position", lo, hi, 0.01F);
    s.platform_path = t.add_int("path", 0, kPlatforms - 1);
  }
  {
    auto t = b.entity_type("shot");
    t.priority(1.0F);
    s.shot_type = t.id();
    s.shot_owner = t.add_int("owner", 0, 65535);
    s.shot_tick = t.add_int("tick", 0, 65535);
    s.shot_result = t.add_int("result", 0, 4);
    // Steps, never blended: each shot is its own, not a motion to smooth.
    s.shot_origin = t.add_vec2("origin", lo, hi, 0.01F, snapshot::Interpolation::kStep);
    s.shot_aim = t.add_angle("aim", 12, snapshot::Interpolation::kStep);
    s.shot_target_owner = t.add_int("target_owner", -1, 65535);
    s.shot_target_position = t.add_vec2("target_position", lo, hi, 0.01F, snapshot::Interpolation::kStep);
    s.shot_target_radius = t.add_float("target_radius", 0.0F, 4.0F, 0.01F, snapshot::Interpolation::kStep);
  }
  {
    auto t = b.record_type("input");
    s.input_type = t.id();
    s.input_move = t.add_vec2("move", {-1.0F, -1.0F}, {1.0F, 1.0F}, 1.0F / 127.0F);
    s.input_aim = t.add_angle("aim", 12);
    s.input_dash = t.add_bool("dash");
    s.input_shoot = t.add_bool("shoot");
    s.input_fire = t.add_bool("fire");
  }
  s.schema = b.build();
  return s;
}

Vec2 add(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
Vec2 sub(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
Vec2 scale(Vec2 a, float k) { return {a.x * k, a.y * k}; }
float length(Vec2 a) { return std::sqrt(a.x * a.x + a.y * a.y); }
Vec2 clamp_to_arena(Vec2 p, float margin) {
  const float lim = kHalfSize - margin;
  return {std::clamp(p.x, -lim, lim), std::clamp(p.y, -lim, lim)};
}

const Input* input_of(std::span<const PlayerInput> inputs, std::uint32_t owner) {
  for (const auto& pi : inputs) {
    if (pi.owner == owner) return &pi.input;
  }
  return nullptr;
}

using PlatformMove = StepScratch::PlatformMove;
using Shot = StepScratch::Shot;

void move_platforms(snapshot::World& world, Tick tick, const Schema& s, const prediction::SimContext& ctx,
                    std::vector<PlatformMove>& moves) {
  moves.clear();
  for (EntityId id : world.entities(s.platform_type)) {
    if (!ctx.simulates(id)) continue;
    const Vec2 before = world.get(id, s.platform_position);
    const Vec2 after = platform_position_at(world.get(id, s.platform_path), tick);
    world.set(id, s.platform_position, after);
    moves.push_back({before, sub(after, before)});
  }
}

bool on_platform(Vec2 p, Vec2 platform) {
  return std::fabs(p.x - platform.x) <= kPlatformHalfWidth && std::fabs(p.y - platform.y) <= kPlatformHalfWidth;
}

void step_player(snapshot::World& world, EntityId id, const Input* in, const std::vector<PlatformMove>& platforms,
                 std::vector<Shot>& shots, const Schema& s) {
  auto dash = world.get(id, s.player_dash_ticks);
  auto dash_cd = world.get(id, s.player_dash_cooldown);
  auto shoot_cd = world.get(id, s.player_shoot_cooldown);
  dash = std::max(dash - 1, 0);
  dash_cd = std::max(dash_cd - 1, 0);
  shoot_cd = std::max(shoot_cd - 1, 0);

  Vec2 move = in != nullptr ? in->move : Vec2{};
  const float len = length(move);
  if (len > 1.0F) move = scale(move, 1.0F / len);
  if (in != nullptr && in->dash && dash_cd == 0 && len > 0.0F) {
    dash = kDashTicks;
    dash_cd = kDashCooldownTicks;
  }
  const Vec2 velocity = scale(move, dash > 0 ? kDashSpeed : kPlayerSpeed);

  Vec2 p = world.get(id, s.player_position);
  for (const auto& m : platforms) {
    if (on_platform(p, m.before)) {
      p = add(p, m.delta);  // carried along
      break;
    }
  }
  p = clamp_to_arena(add(p, scale(velocity, kDt)), kPlayerRadius);

  if (in != nullptr && in->shoot && shoot_cd == 0) {
    const Vec2 dir{std::cos(in->aim), std::sin(in->aim)};
    shots.push_back({add(p, scale(dir, kPlayerRadius + 0.25F)), scale(dir, kProjectileSpeed),
                     static_cast<std::uint32_t>(world.get(id, s.player_owner))});
    shoot_cd = kShootCooldownTicks;
  }
  world.set(id, s.player_position, p);
  world.set(id, s.player_velocity, velocity);
  world.set(id, s.player_dash_ticks, dash);
  world.set(id, s.player_dash_cooldown, dash_cd);
  world.set(id, s.player_shoot_cooldown, shoot_cd);
}

// Overlapping players push each other apart, half each, in id order so
// every machine resolves the same pairs the same way. `players` is sorted
// by id; positions are read once and kept in step with the world.
void resolve_pushes(snapshot::World& world, const Schema& s, const prediction::SimContext& ctx,
                    std::span<const EntityId> players, std::vector<Vec2>& positions,
                    std::vector<std::uint32_t>& simulated) {
  positions.clear();
  simulated.clear();
  for (std::uint32_t i = 0; i < players.size(); ++i) {
    positions.push_back(world.get(players[i], s.player_position));
    if (ctx.simulates(players[i])) simulated.push_back(i);
  }
  constexpr float kDiameter = 2.0F * kPlayerRadius;
  const auto push = [&](std::size_t i, std::size_t j) {
    Vec2 a = positions[i];
    Vec2 b = positions[j];
    const Vec2 d = sub(b, a);
    // A diameter apart on either axis, the length below is at least one
    // too: skip the square root for the pairs that are far apart.
    if (std::fabs(d.x) >= kDiameter || std::fabs(d.y) >= kDiameter) return;
    const float dist = length(d);
    const float overlap = kDiameter - dist;
    if (overlap <= 0.0F) return;
    const Vec2 n = dist > 1e-4F ? scale(d, 1.0F / dist) : Vec2{1.0F, 0.0F};
    a = clamp_to_arena(sub(a, scale(n, overlap * 0.5F)), kPlayerRadius);
    b = clamp_to_arena(add(b, scale(n, overlap * 0.5F)), kPlayerRadius);
    // A client moves only what it predicts; the other half of the push is
    // the server's to decide.
    if (ctx.simulates(players[i])) {
      world.set(players[i], s.player_position, a);
      positions[i] = a;
    }
    if (ctx.simulates(players[j])) {
      world.set(players[j], s.player_position, b);
      positions[j] = b;
    }
  };
  // The pairs in order, (i, j) with i < j; a pair of which this machine
  // simulates neither changes nothing here and is passed over, so a client
  // predicting one player looks at n pairs, not n^2 / 2.
  for (std::size_t i = 0, next = 0; i < players.size(); ++i) {
    const bool mine = next < simulated.size() && simulated[next] == i;
    if (mine) ++next;
    if (mine || simulated.size() == players.size()) {
      for (std::size_t j = i + 1; j < players.size(); ++j) push(i, j);
    } else {
      for (std::size_t k = next; k < simulated.size(); ++k) push(i, simulated[k]);
    }
  }
}

// Projectiles fly, expire, and hit every player of another owner within
// reach, players in id order. The players stand still meanwhile except
// those a hit sends back to the centre, so a grid of where they stood finds
// the candidates and the few that moved are looked at apart.
void step_projectiles(snapshot::World& world, Tick tick, const Schema& s, const prediction::SimContext& ctx,
                      std::span<const EntityId> players, std::span<const Vec2> positions, StepScratch& scratch) {
  std::vector<EntityId>& gone = scratch.gone;
  gone.clear();
  std::vector<EntityId>& projectiles = scratch.projectiles;
  projectiles.assign(world.entities(s.projectile_type).begin(), world.entities(s.projectile_type).end());
  std::sort(projectiles.begin(), projectiles.end());
  // Built on first need: a client simulates only its own projectiles.
  bool grid_built = false;
  // Beyond the radius: a length computed in floats may round down to it.
  constexpr float kReach = kPlayerRadius + 1e-3F;
  for (EntityId id : projectiles) {
    if (!ctx.simulates(id)) continue;
    const Vec2 p = add(world.get(id, s.projectile_position), scale(world.get(id, s.projectile_velocity), kDt));
    // The key holds the spawn tick modulo 65536; lifetimes are far shorter.
    const auto age = (static_cast<std::int64_t>(tick.value()) - world.get(id, s.projectile_key.tick)) %
                     prediction::kSpawnTickModulus;
    if (age > kProjectileLifeTicks || std::fabs(p.x) >= kHalfSize || std::fabs(p.y) >= kHalfSize) {
      gone.push_back(id);
      continue;
    }
    world.set(id, s.projectile_position, p);
    const auto owner = world.get(id, s.projectile_key.owner);
    if (!grid_built) {
      scratch.player_grid.build(positions);
      scratch.moved.assign(players.size(), 0);
      scratch.moved_list.clear();
      grid_built = true;
    }
    std::vector<std::uint32_t>& candidates = scratch.candidates;
    candidates.clear();
    scratch.player_grid.near(p, kReach, [&](std::uint32_t i) {
      if (scratch.moved[i] == 0) candidates.push_back(i);
    });
    candidates.insert(candidates.end(), scratch.moved_list.begin(), scratch.moved_list.end());
    std::sort(candidates.begin(), candidates.end());  // players' order is id order
    for (const std::uint32_t i : candidates) {
      const EntityId target = players[i];
      if (world.get(target, s.player_owner) == owner) continue;
      if (length(sub(world.get(target, s.player_position), p)) > kPlayerRadius) continue;
      if (std::find(gone.begin(), gone.end(), id) == gone.end()) gone.push_back(id);
      if (!ctx.simulates(target)) continue;  // another machine's player: the server decides the damage
      const auto health = world.get(target, s.player_health) - kProjectileDamage;
      world.set(target, s.player_health, health > 0 ? health : kMaxHealth);  // respawn at full health
      if (health <= 0) {
        respawn(world, target, s);
        if (scratch.moved[i] == 0) scratch.moved_list.push_back(i);
        scratch.moved[i] = 1;
      }
    }
  }
  for (EntityId id : gone) world.despawn(id);
}

}  // namespace

const Schema& schema() {
  // Built on first use and never changed afterwards: a constant, not state.
  static const Schema kSchema = make_schema();
  return kSchema;
}

Vec2 platform_position_at(std::int32_t path, Tick tick) {
  // Each platform slides back and forth along its own segment, as a cosine
  // of the tick so that it eases at the ends.
  const auto phase = static_cast<float>(tick.value() % kPlatformPeriodTicks) / static_cast<float>(kPlatformPeriodTicks);
  const float t = 0.5F - 0.5F * std::cos(2.0F * kPi * phase);
  const float row = -20.0F + 20.0F * static_cast<float>(path);
  return {-15.0F + 30.0F * t, row};
}

void populate(snapshot::World& world) {
  const Schema& s = schema();
  for (std::int32_t path = 0; path < kPlatforms; ++path) {
    const EntityId id = world.spawn(s.platform_type);
    world.set(id, s.platform_path, path);
    world.set(id, s.platform_position, platform_position_at(path, Tick(0)));
  }
  world.quantize();
}

EntityId spawn_player(snapshot::World& world, std::uint32_t owner) {
  const Schema& s = schema();
  const EntityId id = world.spawn(s.player_type);
  // Spread spawn points on a ring so new players do not overlap.
  const float angle = static_cast<float>(owner % 16) * (2.0F * kPi / 16.0F);
  world.set(id, s.player_position, Vec2{12.0F * std::cos(angle), 12.0F * std::sin(angle)});
  world.set(id, s.player_owner, static_cast<std::int32_t>(owner % 65536));
  world.set(id, s.player_health, kMaxHealth);
  world.quantize(id);
  return id;
}

std::optional<EntityId> find_player(const snapshot::World& world, std::uint32_t owner) {
  const Schema& s = schema();
  for (EntityId id : world.entities(s.player_type)) {
    if (world.get(id, s.player_owner) == static_cast<std::int32_t>(owner % 65536)) return id;
  }
  return std::nullopt;
}

void Game::simulate(snapshot::World& world, Tick tick, const prediction::Inputs& inputs, prediction::SimContext& ctx) {
  const Schema& s = arena::schema();
  StepScratch& scratch = step_;
  scratch.decoded.clear();
  for (const prediction::PlayerInput& in : inputs.all()) {
    scratch.decoded.push_back({in.player.value, from_record(*in.input)});
  }

  scratch.teleported.clear();
  scratch.moved_list.clear();
  // Shots first, from where the shooters stood when they aimed (the last
  // tick, as their clients predicted it), at the world they saw.
  if (ctx.authority()) fire_hitscan(world, tick, inputs);
  move_platforms(world, tick, s, ctx, scratch.platforms);
  std::vector<EntityId>& players = scratch.players;
  players.assign(world.entities(s.player_type).begin(), world.entities(s.player_type).end());
  std::sort(players.begin(), players.end());
  scratch.shots.clear();
  for (EntityId id : players) {
    if (!ctx.simulates(id)) continue;
    const auto owner = static_cast<std::uint32_t>(world.get(id, s.player_owner));
    step_player(world, id, input_of(scratch.decoded, owner), scratch.platforms, scratch.shots, s);
  }
  resolve_pushes(world, s, ctx, players, scratch.positions, scratch.simulated);
  step_projectiles(world, tick, s, ctx, players, scratch.positions, scratch);
  for (const Shot& shot : scratch.shots) {
    const EntityId p = ctx.spawn(world, s.projectile_type, s.projectile_key, prediction::PlayerId{shot.owner});
    world.set(p, s.projectile_position, clamp_to_arena(shot.position, 0.01F));
    world.set(p, s.projectile_velocity, shot.velocity);
  }
  if (ctx.authority()) {
    for (const std::uint32_t i : scratch.moved_list) scratch.teleported.push_back(players[i]);
    scratch.teleported.insert(scratch.teleported.end(), joined_.begin(), joined_.end());
    joined_.clear();
    hitscan_->record(world, tick, scratch.teleported);
  }
}

void Game::fire_hitscan(snapshot::World& world, Tick tick, const prediction::Inputs& inputs) {
  const Schema& s = arena::schema();
  if (!hitscan_)
    hitscan_ = std::make_unique<Hitscan>(HitscanConfig{config_.max_hittable, config_.max_rewind, tick_rate_});
  // Every shot of the tick is judged before any lands: all are cast from
  // where their shooters stood when the tick began, so two players who
  // shoot each other in the same tick both hit (a trade), whatever order
  // their inputs come in.
  std::vector<StepScratch::Verdict>& verdicts = step_.verdicts;
  verdicts.clear();
  for (const prediction::PlayerInput& in : inputs.all()) {
    // A stand-in input fires nothing: a shot is the player's act, and the
    // server has no view time for an input it never got.
    if (in.fallback || !in.rewind || !in.input->get(s.input_fire)) continue;
    const auto shooter = find_player(world, in.player.value);
    if (!shooter) continue;
    const HitscanShot shot{*shooter, world.get(*shooter, s.player_position), in.input->get(s.input_aim), *in.rewind};
    verdicts.push_back({in.player.value, shot.origin, shot.aim, hitscan_->judge(shot)});
  }
  for (const StepScratch::Verdict& v : verdicts) {
    const auto target = v.verdict.target;
    // Read before the damage below may send the target back to the centre.
    const std::int32_t target_owner = target && world.contains(*target) ? world.get(*target, s.player_owner) : -1;
    if (target && world.contains(*target)) {
      const auto health = world.get(*target, s.player_health) - kHitscanDamage;
      world.set(*target, s.player_health, health > 0 ? health : kMaxHealth);
      if (health <= 0) {
        respawn(world, *target, s);
        step_.teleported.push_back(*target);
      }
    }
    auto shot = find_shot(world, v.owner);
    if (!shot) {
      shot = world.spawn(s.shot_type);
      world.set(*shot, s.shot_owner, static_cast<std::int32_t>(v.owner % 65536));
    }
    world.set(*shot, s.shot_tick, static_cast<std::int32_t>(tick.value() % 65536));
    world.set(*shot, s.shot_result, static_cast<std::int32_t>(v.verdict.result));
    world.set(*shot, s.shot_origin, v.origin);
    world.set(*shot, s.shot_aim, v.aim);
    const auto& pose = v.verdict.pose;
    world.set(*shot, s.shot_target_owner, pose ? target_owner : -1);
    world.set(*shot, s.shot_target_position, pose ? clamp_to_arena(pose->centre, 0.0F) : Vec2{});
    world.set(*shot, s.shot_target_radius, pose ? std::min(pose->radius, 4.0F) : 0.0F);
  }
}

std::optional<EntityId> find_shot(const snapshot::World& world, std::uint32_t owner) {
  const Schema& s = schema();
  for (EntityId id : world.entities(s.shot_type)) {
    if (world.get(id, s.shot_owner) == static_cast<std::int32_t>(owner % 65536)) return id;
  }
  return std::nullopt;
}

snapshot::Record to_record(const Input& input) {
  snapshot::Record r(schema().schema, schema().input_type);
  to_record(input, r);
  return r;
}

void to_record(const Input& input, snapshot::Record& out) {
  const Schema& s = schema();
  if (out.type() != s.input_type) out = snapshot::Record(s.schema, s.input_type);
  out.set(s.input_move, input.move);
  out.set(s.input_aim, input.aim);
  out.set(s.input_dash, input.dash);
  out.set(s.input_shoot, input.shoot);
  out.set(s.input_fire, input.fire);
  out.quantize();
}

Input from_record(const snapshot::Record& r) {
  const Schema& s = schema();
  return Input{r.get(s.input_move), r.get(s.input_aim), r.get(s.input_dash), r.get(s.input_shoot), r.get(s.input_fire)};
}

bool valid_input(const Input& in) {
  auto finite_unit = [](float v) { return std::isfinite(v) && v >= -1.0F && v <= 1.0F; };
  return finite_unit(in.move.x) && finite_unit(in.move.y) && std::isfinite(in.aim);
}

}  // namespace tickwire::arena
