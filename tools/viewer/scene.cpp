#include "scene.h"

#include <SDL.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tickwire::viewer {
namespace {

constexpr Duration kFlashLife = Duration::millis(400);
constexpr std::size_t kMaxFlashes = 32;

constexpr ImU32 kWall = IM_COL32(200, 200, 210, 255);
constexpr ImU32 kPlatform = IM_COL32(150, 110, 60, 255);
constexpr ImU32 kPlatformEdge = IM_COL32(220, 170, 90, 255);
constexpr ImU32 kProjectile = IM_COL32(255, 225, 80, 255);
constexpr ImU32 kSelf = IM_COL32(80, 220, 120, 255);
constexpr ImU32 kGhost = IM_COL32(255, 255, 255, 220);
constexpr ImU32 kOther = IM_COL32(80, 140, 255, 255);
constexpr ImU32 kMarker = IM_COL32(255, 80, 80, 255);
constexpr ImU32 kHealthBack = IM_COL32(80, 20, 20, 255);
constexpr ImU32 kHealth = IM_COL32(90, 230, 90, 255);

ImU32 with_alpha(ImU32 colour, float alpha) {
  const auto a = static_cast<ImU32>(std::clamp(alpha, 0.0F, 1.0F) * 255.0F);
  return (colour & ~IM_COL32_A_MASK) | (a << IM_COL32_A_SHIFT);
}

ImVec2 at(const Viewport& vp, snapshot::Vec2 p) { return {vp.x(p.x), vp.y(p.y)}; }

void health_bar(ImDrawList* list, ImVec2 centre, float radius, int health) {
  const float w = std::max(radius * 2.4F, 14.0F);
  const ImVec2 a{centre.x - w / 2, centre.y - radius - 7.0F};
  const float frac = std::clamp(static_cast<float>(health) / static_cast<float>(arena::kMaxHealth), 0.0F, 1.0F);
  list->AddRectFilled(a, {a.x + w, a.y + 3.0F}, kHealthBack);
  list->AddRectFilled(a, {a.x + w * frac, a.y + 3.0F}, kHealth);
}

}  // namespace

void Scene::observe(const client::Client& c, Time now) {
  const std::uint64_t m = c.stats().mispredictions;
  if (m < mispredictions_seen_) mispredictions_seen_ = 0;  // a new session
  const arena::Schema& s = arena::schema();
  if (m > mispredictions_seen_ && c.avatar() && c.view().contains(*c.avatar()) &&
      c.authoritative_world().contains(*c.avatar())) {
    flashes_.push_back({c.view().get(*c.avatar(), s.player_position),
                        c.authoritative_world().get(*c.avatar(), s.player_position), now});
    ++flashes_shown_;
    if (flashes_.size() > kMaxFlashes) flashes_.pop_front();
  }
  mispredictions_seen_ = m;
  while (!flashes_.empty() && now - flashes_.front().at > kFlashLife) flashes_.pop_front();
}

void draw_shot_markers(ImDrawList* list, const Viewport& vp, const std::deque<ShotMarker>& markers, Time now) {
  constexpr ImU32 kHit = IM_COL32(60, 255, 90, 255);
  constexpr ImU32 kMiss = IM_COL32(255, 60, 60, 255);
  constexpr ImU32 kSeen = IM_COL32(255, 230, 60, 255);
  for (const ShotMarker& m : markers) {
    const float life = 1.0F - static_cast<float>((now - m.at).seconds_f() / ShotMarkers::kLife.seconds_f());
    const bool hit = m.result == arena::ShotResult::kHit;
    const ImU32 colour = with_alpha(hit ? kHit : kMiss, 0.35F + 0.65F * life);
    // The ray ends where it struck the rewound shape, else at the wall.
    float length = arena::kHitscanRange;
    if (m.rewound) {
      const float dx = m.rewound->x - m.origin.x;
      const float dy = m.rewound->y - m.origin.y;
      length = std::max(dx * std::cos(m.aim) + dy * std::sin(m.aim), 0.0F);
    }
    const float cx = std::cos(m.aim);
    const float cy = std::sin(m.aim);
    const float to_wall_x = cx > 0   ? (arena::kHalfSize - m.origin.x) / cx
                            : cx < 0 ? (-arena::kHalfSize - m.origin.x) / cx
                                     : length;
    const float to_wall_y = cy > 0   ? (arena::kHalfSize - m.origin.y) / cy
                            : cy < 0 ? (-arena::kHalfSize - m.origin.y) / cy
                                     : length;
    length = std::min({length, to_wall_x, to_wall_y});
    const snapshot::Vec2 end{m.origin.x + cx * length, m.origin.y + cy * length};
    list->AddLine(at(vp, m.origin), at(vp, end), colour, 2.0F);
    if (m.seen) {
      // Dashed: the player as it was drawn on this screen when the shot left.
      const ImVec2 c = at(vp, *m.seen);
      const float r = std::max(arena::kPlayerRadius * vp.scale, 6.0F) + 2.0F;
      constexpr int kDashes = 12;
      for (int i = 0; i < kDashes; i += 1) {
        const float a0 = 6.2831853F * static_cast<float>(i) / kDashes;
        list->PathArcTo(c, r, a0, a0 + 3.14159265F / kDashes, 4);
        list->PathStroke(with_alpha(kSeen, 0.35F + 0.65F * life), 0, 2.0F);
      }
    }
    if (m.rewound) {
      const ImVec2 c = at(vp, *m.rewound);
      const float r = std::max(m.rewound_radius * vp.scale, 6.0F);
      list->AddCircleFilled(c, r, with_alpha(kHit, 0.35F * life + 0.1F), 20);
      list->AddCircle(c, r, colour, 20, 2.5F);
    }
    list->AddText({vp.x(end.x) + 4.0F, vp.y(end.y) - 14.0F}, colour, hit ? "hit" : "miss");
  }
}

void draw_floor(SDL_Renderer* renderer, const Viewport& vp) {
  // Straight to the renderer, unblended: under a software renderer the
  // floor is most of the frame's pixels, and a plain fill is the cheapest.
  const float h = arena::kHalfSize;
  const auto px = [](float v) { return static_cast<int>(std::lround(v)); };
  SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_NONE);
  SDL_SetRenderDrawColor(renderer, 28, 32, 38, 255);
  const SDL_Rect floor{px(vp.x(-h)), px(vp.y(h)), px(2.0F * h * vp.scale), px(2.0F * h * vp.scale)};
  SDL_RenderFillRect(renderer, &floor);
  SDL_SetRenderDrawColor(renderer, 48, 54, 62, 255);
  for (int line = 1; line < 8; ++line) {
    const float g = -h + 10.0F * static_cast<float>(line);
    SDL_RenderDrawLine(renderer, px(vp.x(g)), px(vp.y(h)), px(vp.x(g)), px(vp.y(-h)));
    SDL_RenderDrawLine(renderer, px(vp.x(-h)), px(vp.y(g)), px(vp.x(h)), px(vp.y(g)));
  }
}

void Scene::draw(ImDrawList* list, const Viewport& vp, const client::Client& c, const SceneToggles& toggles, float aim,
                 Time now) const {
  const arena::Schema& s = arena::schema();
  const float h = arena::kHalfSize;
  list->AddRect({vp.x(-h), vp.y(h)}, {vp.x(h), vp.y(-h)}, kWall, 0.0F, 0, 3.0F);

  const snapshot::World& view = c.view();
  const snapshot::World& newest = c.authoritative_world();
  const float pw = arena::kPlatformHalfWidth;
  for (snapshot::EntityId id : view.entities(s.platform_type)) {
    const snapshot::Vec2 p = view.get(id, s.platform_position);
    list->AddRectFilled({vp.x(p.x - pw), vp.y(p.y + pw)}, {vp.x(p.x + pw), vp.y(p.y - pw)}, kPlatform);
    list->AddRect({vp.x(p.x - pw), vp.y(p.y + pw)}, {vp.x(p.x + pw), vp.y(p.y - pw)}, kPlatformEdge, 0.0F, 0, 2.0F);
  }
  const float projectile_r = std::max(0.2F * vp.scale, 2.5F);
  for (snapshot::EntityId id : view.entities(s.projectile_type)) {
    list->AddCircleFilled(at(vp, view.get(id, s.projectile_position)), projectile_r, kProjectile, 10);
  }

  const float r = std::max(arena::kPlayerRadius * vp.scale, 6.0F);
  const auto self = c.avatar();
  char label[16];
  for (snapshot::EntityId id : view.entities(s.player_type)) {
    const bool mine = self && id == *self;
    const ImVec2 p = at(vp, view.get(id, s.player_position));
    if (mine) continue;  // drawn last, on top
    list->AddCircleFilled(p, r, kOther, 20);
    health_bar(list, p, r, view.get(id, s.player_health));
    (void)std::snprintf(label, sizeof label, "%d", view.get(id, s.player_owner));
    list->AddText({p.x + r + 2, p.y - 6}, IM_COL32(170, 190, 230, 255), label);
  }
  // Over the players: the newest snapshot is usually within a few pixels
  // of the interpolated drawing.
  if (toggles.snapshot_markers) {
    for (snapshot::EntityId id : newest.entities(s.player_type)) {
      if (self && id == *self) continue;
      const ImVec2 m = at(vp, newest.get(id, s.player_position));
      list->AddLine({m.x - 5, m.y - 5}, {m.x + 5, m.y + 5}, kMarker, 2.0F);
      list->AddLine({m.x - 5, m.y + 5}, {m.x + 5, m.y - 5}, kMarker, 2.0F);
    }
  }

  for (const Flash& f : flashes_) {
    const float age = static_cast<float>((now - f.at).seconds_f() / kFlashLife.seconds_f());
    const ImU32 colour = with_alpha(IM_COL32(255, 140, 40, 255), 1.0F - age);
    list->AddCircle(at(vp, f.drawn), r * (1.2F + 1.5F * age), colour, 20, 1.5F);
    list->AddLine(at(vp, f.drawn), at(vp, f.server), colour, 1.5F);
  }

  if (self && view.contains(*self)) {
    const ImVec2 p = at(vp, view.get(*self, s.player_position));
    if (toggles.server_ghost && newest.contains(*self)) {
      list->AddCircle(at(vp, newest.get(*self, s.player_position)), r, kGhost, 20, 2.0F);
    }
    list->AddCircleFilled(p, r, kSelf, 20);
    list->AddLine(p, {p.x + std::cos(aim) * r * 2.2F, p.y - std::sin(aim) * r * 2.2F}, kSelf, 3.0F);
    health_bar(list, p, r, view.get(*self, s.player_health));
  }
}

}  // namespace tickwire::viewer
