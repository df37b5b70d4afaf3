#include "arena_view.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "scripts.h"
#include "shot_markers.h"
#include "tickwire/arena/arena.h"

namespace tickwire::viewer {

struct ArenaView {
  // What the scripts and the aim see: the players as drawn this frame.
  std::optional<Vec2> self;
  std::vector<Vec2> others;
  std::vector<SeenPlayer> seen;  // others with their owners, for the shot markers
  ShotMarkers shots;
  float aim = 0.0F;  // the last input's, drawn on the own player

  void observe(const FrameContext& frame);
  void send(const arena::Input& input, Tick tick, snapshot::Record& record);
};

namespace {

constexpr Colour kPlatform{150, 110, 60, 255};
constexpr Colour kPlatformEdge{220, 170, 90, 255};
constexpr Colour kProjectile{255, 225, 80, 255};
constexpr Colour kLabel{170, 190, 230, 255};
constexpr Colour kHealthBack{80, 20, 20, 255};
constexpr Colour kHealth{90, 230, 90, 255};
constexpr Colour kHit{60, 255, 90, 255};
constexpr Colour kMiss{255, 60, 60, 255};
constexpr Colour kSeen{255, 230, 60, 255};
constexpr float kProjectileRadius = 0.2F;

Vec2 along(Vec2 from, float angle, float length) {
  return {from.x + std::cos(angle) * length, from.y + std::sin(angle) * length};
}

void health_bar(Canvas& canvas, Vec2 centre, float radius, int health) {
  const float w = std::max(radius * 2.4F, canvas.units(14.0F));
  const float top = centre.y + radius + canvas.units(7.0F);
  const float frac = std::clamp(static_cast<float>(health) / static_cast<float>(arena::kMaxHealth), 0.0F, 1.0F);
  const Vec2 a{centre.x - w / 2, top};
  canvas.filled_rect(a, {a.x + w, top - canvas.units(3.0F)}, kHealthBack);
  canvas.filled_rect(a, {a.x + w * frac, top - canvas.units(3.0F)}, kHealth);
}

void draw_player(const ArenaView& state, Canvas& canvas, const snapshot::World& world, snapshot::EntityId id,
                 const EntityContext& ctx) {
  if (!ctx.position) return;
  const arena::Schema& s = arena::schema();
  const Vec2 p = *ctx.position;
  const float r = std::max(ctx.radius, canvas.units(6.0F));
  canvas.filled_circle(p, r, ctx.colour);
  health_bar(canvas, p, r, world.get(id, s.player_health));
  if (ctx.own) {
    canvas.line(p, along(p, state.aim, r * 2.2F), ctx.colour, 3.0F);
  } else {
    canvas.text(p, std::to_string(world.get(id, s.player_owner)), kLabel, {r * canvas.pixels_per_unit() + 2.0F, -6.0F});
  }
}

void draw_platform(Canvas& canvas, const EntityContext& ctx) {
  if (!ctx.position) return;
  const float w = arena::kPlatformHalfWidth;
  const Vec2 a{ctx.position->x - w, ctx.position->y - w};
  const Vec2 b{ctx.position->x + w, ctx.position->y + w};
  canvas.filled_rect(a, b, kPlatform);
  canvas.rect(a, b, kPlatformEdge, 2.0F);
}

// The ray ends where it struck the rewound shape, else at the wall.
Vec2 ray_end(const ShotMarker& m) {
  float length = arena::kHitscanRange;
  if (m.rewound) {
    const float dx = m.rewound->x - m.origin.x;
    const float dy = m.rewound->y - m.origin.y;
    length = std::max(dx * std::cos(m.aim) + dy * std::sin(m.aim), 0.0F);
  }
  const float cx = std::cos(m.aim);
  const float cy = std::sin(m.aim);
  const float h = arena::kHalfSize;
  const float to_wall_x = cx > 0 ? (h - m.origin.x) / cx : cx < 0 ? (-h - m.origin.x) / cx : length;
  const float to_wall_y = cy > 0 ? (h - m.origin.y) / cy : cy < 0 ? (-h - m.origin.y) / cy : length;
  return along(m.origin, m.aim, std::min({length, to_wall_x, to_wall_y}));
}

// Each judged shot, fading over its life: the ray the server cast, the
// struck shape where it judged it (green for a hit; on a miss, red), and
// the aimed-at player as drawn at fire time (dashed).
void draw_shot_markers(Canvas& canvas, const std::deque<ShotMarker>& markers, Time now) {
  for (const ShotMarker& m : markers) {
    const float life = 1.0F - static_cast<float>((now - m.at).seconds_f() / ShotMarkers::kLife.seconds_f());
    const bool hit = m.result == arena::ShotResult::kHit;
    const Colour colour = (hit ? kHit : kMiss).with_alpha(0.35F + 0.65F * life);
    const Vec2 end = ray_end(m);
    canvas.line(m.origin, end, colour, 2.0F);
    if (m.seen) {
      const float r = std::max(arena::kPlayerRadius, canvas.units(6.0F)) + canvas.units(2.0F);
      constexpr int kDashes = 12;
      constexpr float kTurn = 6.2831853F;
      for (int i = 0; i < kDashes; ++i) {
        const float a0 = kTurn * static_cast<float>(i) / kDashes;
        canvas.line(along(*m.seen, a0, r), along(*m.seen, a0 + kTurn / (2 * kDashes), r),
                    kSeen.with_alpha(0.35F + 0.65F * life), 2.0F);
      }
    }
    if (m.rewound) {
      const float r = std::max(m.rewound_radius, canvas.units(6.0F));
      canvas.filled_circle(*m.rewound, r, kHit.with_alpha(0.35F * life + 0.1F));
      canvas.circle(*m.rewound, r, colour, 2.5F);
    }
    canvas.text(end, hit ? "hit" : "miss", colour, {4.0F, -14.0F});
  }
}

std::string hitscan_json(const ShotCounts& c) {
  return "{\"fired\": " + std::to_string(c.fired) + ", \"judged\": " + std::to_string(c.judged) +
         ", \"hits\": " + std::to_string(c.hits) + ", \"misses\": " + std::to_string(c.misses) + "}";
}

}  // namespace

void ArenaView::observe(const FrameContext& frame) {
  const arena::Schema& s = arena::schema();
  self.reset();
  others.clear();
  seen.clear();
  for (const snapshot::EntityId id : frame.view->entities(s.player_type)) {
    const Vec2 p = frame.view->get(id, s.player_position);
    if (frame.avatar && id == *frame.avatar) {
      self = p;
    } else {
      others.push_back(p);
      seen.push_back({frame.view->get(id, s.player_owner), p});
    }
  }
  // The newest state decoded: the shot entity is never predicted, and the
  // interpolated view would show the result an interpolation delay late.
  if (frame.client_id) shots.observe(*frame.newest, *frame.client_id, frame.now);
}

void ArenaView::send(const arena::Input& input, Tick tick, snapshot::Record& record) {
  aim = input.aim;
  arena::to_record(input, record);
  if (input.fire) shots.fired(tick, seen);
}

std::shared_ptr<ArenaView> make_arena_view(ViewerSpec& spec) {
  auto state = std::make_shared<ArenaView>();
  ArenaView* st = state.get();
  spec.game_name = "arena";
  spec.make_game = [] { return std::make_unique<arena::Game>(); };
  spec.controls_help = "WASD move, Shift dash, mouse aim, click/Space shoot, right click/F hitscan";
  spec.input = [st](const Controls& c, Tick tick, snapshot::Record& record) {
    arena::Input in;
    in.move = c.move;
    in.aim = st->aim;
    if (st->self && (c.mouse.x != st->self->x || c.mouse.y != st->self->y)) {
      in.aim = std::atan2(c.mouse.y - st->self->y, c.mouse.x - st->self->x);
    }
    in.shoot = c.left || c.space;
    in.fire = c.right || c.key("F");
    in.dash = c.shift;
    st->send(in, tick, record);
  };
  for (const arena_bots::ScriptInfo& info : arena_bots::scripts()) {
    spec.scripts.push_back({info.name, info.description, [st, make = info.make](std::uint64_t seed) -> InputFn {
                              std::shared_ptr<arena_bots::ArenaScript> script = make(seed);
                              return [st, script](const Controls&, Tick tick, snapshot::Record& record) {
                                arena::Input in;
                                script->input(arena_bots::ArenaView{st->self, st->others}, tick, in);
                                st->send(in, tick, record);
                              };
                            }});
  }
  spec.layout.radii = {
      {"player", arena::kPlayerRadius}, {"projectile", kProjectileRadius}, {"platform", arena::kPlatformHalfWidth}};
  // The hitscan results are drawn by the overlay, not as entities.
  spec.layout.hidden_types = {"shot"};
  spec.drawers["player"] = [st](Canvas& canvas, const snapshot::World& world, snapshot::EntityId id,
                                const EntityContext& ctx) { draw_player(*st, canvas, world, id, ctx); };
  spec.drawers["platform"] = [](Canvas& canvas, const snapshot::World&, snapshot::EntityId, const EntityContext& ctx) {
    draw_platform(canvas, ctx);
  };
  spec.drawers["projectile"] = [](Canvas& canvas, const snapshot::World&, snapshot::EntityId,
                                  const EntityContext& ctx) {
    if (ctx.position) canvas.filled_circle(*ctx.position, std::max(ctx.radius, canvas.units(2.5F)), kProjectile);
  };
  // The sphere the server's hit history records for each player (hitscan.h).
  spec.hit_shapes = [](const snapshot::World& world, snapshot::EntityId id, std::vector<lagcomp::Shape>& out) {
    const arena::Schema& s = arena::schema();
    if (world.type_of(id) != s.player_type) return;
    const Vec2 p = world.get(id, s.player_position);
    out.push_back(lagcomp::Shape::sphere({p.x, 0.0F, p.y}, arena::kPlayerRadius));
  };
  spec.on_frame = [st](const FrameContext& frame) { st->observe(frame); };
  spec.overlay = [st](Canvas& canvas, const FrameContext& frame) {
    draw_shot_markers(canvas, st->shots.markers(), frame.now);
  };
  spec.status_text = [st] {
    const ShotCounts& c = st->shots.counts();
    return "hitscan: " + std::to_string(c.fired) + " fired, " + std::to_string(c.judged) +
           " judged: " + std::to_string(c.hits) + " hits, " + std::to_string(c.misses) + " misses";
  };
  spec.extra_stats = [st] {
    return std::vector<std::pair<std::string, std::string>>{{"hitscan", hitscan_json(st->shots.counts())}};
  };
  return state;
}

}  // namespace tickwire::viewer
