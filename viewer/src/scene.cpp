#include "scene.h"

#include <SDL.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace tickwire::viewer {
namespace {

constexpr Duration kFlashLife = Duration::millis(400);
constexpr std::size_t kMaxFlashes = 32;
// Entities without a declared size are drawn this wide; sized ones never
// smaller, so a small thing stays visible in a large world.
constexpr float kDotRadiusPx = 4.0F;
constexpr float kMinRadiusPx = 3.0F;
constexpr float kAvatarMinRadiusPx = 6.0F;
constexpr Colour kWall{200, 200, 210, 255};
constexpr Colour kLabel{170, 190, 230, 255};

Vec2 offset(Vec2 p, float dx, float dy) { return {p.x + dx, p.y + dy}; }

}  // namespace

Colour type_colour(std::size_t index) {
  static constexpr std::array<Colour, 8> kPalette{{{80, 140, 255, 255},
                                                   {255, 225, 80, 255},
                                                   {220, 150, 70, 255},
                                                   {200, 110, 230, 255},
                                                   {90, 220, 220, 255},
                                                   {240, 120, 160, 255},
                                                   {170, 200, 90, 255},
                                                   {180, 180, 180, 255}}};
  return kPalette[index % kPalette.size()];
}

void draw_floor(SDL_Renderer* renderer, const Viewport& vp) {
  // Straight to the renderer, unblended: under a software renderer the
  // floor is most of the frame's pixels, and a plain fill is the cheapest.
  const Bounds& b = vp.world;
  const auto px = [](float v) { return static_cast<int>(std::lround(v)); };
  SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_NONE);
  SDL_SetRenderDrawColor(renderer, 28, 32, 38, 255);
  const SDL_Rect floor{px(vp.x(b.min.x)), px(vp.y(b.max.y)), px(b.width() * vp.scale), px(b.height() * vp.scale)};
  SDL_RenderFillRect(renderer, &floor);
  SDL_SetRenderDrawColor(renderer, 48, 54, 62, 255);
  const float step = grid_step(b);
  // Lines on multiples of the step, so the origin lies on one.
  for (const float g : grid_lines(b.min.x, b.max.x, step)) {
    SDL_RenderDrawLine(renderer, px(vp.x(g)), px(vp.y(b.max.y)), px(vp.x(g)), px(vp.y(b.min.y)));
  }
  for (const float g : grid_lines(b.min.y, b.max.y, step)) {
    SDL_RenderDrawLine(renderer, px(vp.x(b.min.x)), px(vp.y(g)), px(vp.x(b.max.x)), px(vp.y(g)));
  }
}

Scene::Scene(const Layout& layout, const ViewerSpec& spec) : layout_(layout), spec_(spec) {
  for (const TypeLayout& t : layout_.types()) {
    if (t.entity && !t.hidden && (t.drawn() || spec_.drawers.count(t.name) != 0)) draw_order_.push_back(t.type);
  }
  // Declared sizes, largest first; unsized types (dots) last.
  const auto size = [&](snapshot::TypeId id) {
    const TypeLayout* t = layout_.type(id);
    return t->radius.value_or(t->radius_offset ? 1.0F : 0.0F);
  };
  std::stable_sort(draw_order_.begin(), draw_order_.end(),
                   [&](snapshot::TypeId a, snapshot::TypeId b) { return size(a) > size(b); });
}

void Scene::observe(const client::Client& c, Time now) {
  const std::uint64_t m = c.stats().mispredictions;
  if (m < mispredictions_seen_) mispredictions_seen_ = 0;  // a new session
  if (m > mispredictions_seen_ && c.avatar()) {
    const auto drawn = layout_.position(c.view(), *c.avatar());
    const auto server = layout_.position(c.authoritative_world(), *c.avatar());
    if (drawn && server) {
      flashes_.push_back({*drawn, *server, now});
      ++flashes_shown_;
      if (flashes_.size() > kMaxFlashes) flashes_.pop_front();
    }
  }
  mispredictions_seen_ = m;
  while (!flashes_.empty() && now - flashes_.front().at > kFlashLife) flashes_.pop_front();
}

float Scene::drawn_radius(const Canvas& canvas, const snapshot::World& world, snapshot::EntityId id) const {
  const auto r = layout_.radius(world, id);
  if (!r) return canvas.units(kDotRadiusPx);
  return std::max(*r, canvas.units(kMinRadiusPx));
}

void Scene::draw(Canvas& canvas, const client::Client& c, const SceneToggles& toggles, Time now) {
  const Bounds& b = layout_.bounds();
  canvas.rect(b.min, b.max, kWall, 3.0F);
  const snapshot::World& view = c.view();
  const auto self = c.avatar();
  const auto self_type = self ? view.type_of(*self) : std::nullopt;
  entities_drawn_ = 0;
  players_drawn_ = self_type ? view.entities(*self_type).size() : 0;
  for (const snapshot::TypeId type : draw_order_) {
    for (const snapshot::EntityId id : view.entities(type)) {
      if (self && id == *self) continue;  // drawn last, on top
      draw_entity(canvas, c, id, false, toggles);
    }
  }
  if (toggles.snapshot_markers) draw_markers(canvas, c);
  if (toggles.correction_flashes) draw_flashes(canvas, now);
  if (toggles.server_ghost) draw_ghosts(canvas, c);
  if (self && view.contains(*self)) draw_entity(canvas, c, *self, true, toggles);
}

void Scene::draw_entity(Canvas& canvas, const client::Client& c, snapshot::EntityId id, bool own,
                        const SceneToggles& toggles) {
  const snapshot::World& view = c.view();
  const TypeLayout* t = layout_.type(*view.type_of(id));
  if (t == nullptr || t->hidden) return;
  EntityContext ctx;
  ctx.own = own;
  const auto* prediction = c.prediction();
  ctx.predicted = c.draw_options().prediction && prediction != nullptr && prediction->predicts(id);
  ctx.position = layout_.position(view, id);
  ctx.radius =
      own ? std::max(drawn_radius(canvas, view, id), canvas.units(kAvatarMinRadiusPx)) : drawn_radius(canvas, view, id);
  ctx.colour = own ? kSelfColour : type_colour(t->type.value);
  ++entities_drawn_;
  if (const auto it = spec_.drawers.find(t->name); it != spec_.drawers.end()) {
    it->second(canvas, view, id, ctx);
  } else if (ctx.position) {
    canvas.filled_circle(*ctx.position, ctx.radius, ctx.colour);
    // A predicted entity other than the avatar (a predicted spawn, a
    // platform the player stands on) gets a ring of the avatar's colour.
    if (ctx.predicted && !own) canvas.circle(*ctx.position, ctx.radius + canvas.units(2.0F), kSelfColour, 1.5F);
    if (toggles.labels) {
      const auto owner = layout_.owner(view, id);
      const std::string label = owner ? std::to_string(*owner) : t->name;
      canvas.text(*ctx.position, label, kLabel, {ctx.radius * canvas.pixels_per_unit() + 2.0F, -6.0F});
    }
  }
  if (toggles.hit_shapes && spec_.hit_shapes) draw_hit_shapes(canvas, view, id);
}

void Scene::draw_hit_shapes(Canvas& canvas, const snapshot::World& world, snapshot::EntityId id) {
  constexpr Colour kShape{255, 255, 255, 110};
  shapes_.clear();
  spec_.hit_shapes(world, id, shapes_);
  for (const lagcomp::Shape& s : shapes_) {
    const Vec2 a = layout_.project(s.a);
    const Vec2 b = layout_.project(s.b);
    switch (s.kind) {
      case lagcomp::ShapeKind::kSphere: canvas.circle(a, s.radius, kShape, 1.0F); break;
      case lagcomp::ShapeKind::kCapsule: {
        canvas.circle(a, s.radius, kShape, 1.0F);
        canvas.circle(b, s.radius, kShape, 1.0F);
        const float dx = b.x - a.x;
        const float dy = b.y - a.y;
        const float len = std::sqrt(dx * dx + dy * dy);
        if (len > 0.0F) {
          const Vec2 side{-dy / len * s.radius, dx / len * s.radius};
          canvas.line(offset(a, side.x, side.y), offset(b, side.x, side.y), kShape, 1.0F);
          canvas.line(offset(a, -side.x, -side.y), offset(b, -side.x, -side.y), kShape, 1.0F);
        }
        break;
      }
      case lagcomp::ShapeKind::kBox: canvas.rect(a, b, kShape, 1.0F); break;
    }
  }
}

void Scene::draw_markers(Canvas& canvas, const client::Client& c) {
  // The other players (entities of the avatar's type) at the newest
  // snapshot: usually within a few pixels of the interpolated drawing.
  const snapshot::World& newest = c.authoritative_world();
  const auto self = c.avatar();
  const auto self_type = self ? newest.type_of(*self) : std::nullopt;
  if (!self_type) return;
  const float arm = canvas.units(5.0F);
  for (const snapshot::EntityId id : newest.entities(*self_type)) {
    if (id == *self) continue;
    const auto m = layout_.position(newest, id);
    if (!m) continue;
    canvas.line(offset(*m, -arm, arm), offset(*m, arm, -arm), kMarkerColour, 2.0F);
    canvas.line(offset(*m, -arm, -arm), offset(*m, arm, arm), kMarkerColour, 2.0F);
  }
}

void Scene::draw_ghosts(Canvas& canvas, const client::Client& c) {
  // Every entity this client predicts, where the newest snapshot put it.
  const auto* prediction = c.prediction();
  if (prediction == nullptr) return;
  const snapshot::World& newest = c.authoritative_world();
  for (const snapshot::EntityId id : prediction->predicted_entities()) {
    const auto p = layout_.position(newest, id);
    const TypeLayout* t = newest.type_of(id) ? layout_.type(*newest.type_of(id)) : nullptr;
    if (!p || t == nullptr || t->hidden) continue;
    float r = drawn_radius(canvas, newest, id);
    if (c.avatar() && id == *c.avatar()) r = std::max(r, canvas.units(kAvatarMinRadiusPx));
    canvas.circle(*p, r, kGhostColour, 2.0F);
  }
}

void Scene::draw_flashes(Canvas& canvas, Time now) {
  const float r = canvas.units(kAvatarMinRadiusPx);
  for (const Flash& f : flashes_) {
    const float age = static_cast<float>((now - f.at).seconds_f() / kFlashLife.seconds_f());
    const Colour colour = kFlashColour.with_alpha(1.0F - age);
    canvas.circle(f.drawn, r * (1.2F + 1.5F * age), colour, 1.5F);
    canvas.line(f.drawn, f.server, colour, 1.5F);
  }
}

}  // namespace tickwire::viewer
