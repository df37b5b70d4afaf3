#include "imgui_canvas.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace tickwire::viewer {
namespace {

ImU32 packed(Colour c) { return IM_COL32(c.r, c.g, c.b, c.a); }

// Enough segments for a smooth circle, few for a dot.
int segments(float radius_px) { return std::clamp(static_cast<int>(radius_px * 0.8F), 10, 48); }

}  // namespace

bool Controls::key(std::string_view name) const {
  return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return k == name; });
}

Colour Colour::with_alpha(float alpha) const {
  Colour c = *this;
  c.a = static_cast<std::uint8_t>(std::lround(std::clamp(alpha, 0.0F, 1.0F) * 255.0F));
  return c;
}

void ImGuiCanvas::circle(Vec2 centre, float radius, Colour colour, float width_px) {
  const float r = radius * vp_.scale;
  list_->AddCircle({vp_.x(centre.x), vp_.y(centre.y)}, r, packed(colour), segments(r), width_px);
}

void ImGuiCanvas::filled_circle(Vec2 centre, float radius, Colour colour) {
  const float r = radius * vp_.scale;
  list_->AddCircleFilled({vp_.x(centre.x), vp_.y(centre.y)}, r, packed(colour), segments(r));
}

void ImGuiCanvas::line(Vec2 a, Vec2 b, Colour colour, float width_px) {
  list_->AddLine({vp_.x(a.x), vp_.y(a.y)}, {vp_.x(b.x), vp_.y(b.y)}, packed(colour), width_px);
}

void ImGuiCanvas::rect(Vec2 a, Vec2 b, Colour colour, float width_px) {
  list_->AddRect({vp_.x(std::min(a.x, b.x)), vp_.y(std::max(a.y, b.y))},
                 {vp_.x(std::max(a.x, b.x)), vp_.y(std::min(a.y, b.y))}, packed(colour), 0.0F, 0, width_px);
}

void ImGuiCanvas::filled_rect(Vec2 a, Vec2 b, Colour colour) {
  list_->AddRectFilled({vp_.x(std::min(a.x, b.x)), vp_.y(std::max(a.y, b.y))},
                       {vp_.x(std::max(a.x, b.x)), vp_.y(std::min(a.y, b.y))}, packed(colour));
}

void ImGuiCanvas::polygon(const std::vector<Vec2>& points, Colour colour, float width_px) {
  if (points.size() < 2) return;
  std::vector<ImVec2> px;
  px.reserve(points.size());
  for (const Vec2& p : points) px.push_back({vp_.x(p.x), vp_.y(p.y)});
  list_->AddPolyline(px.data(), static_cast<int>(px.size()), packed(colour), ImDrawFlags_Closed, width_px);
}

void ImGuiCanvas::filled_polygon(const std::vector<Vec2>& points, Colour colour) {
  if (points.size() < 3) return;
  std::vector<ImVec2> px;
  px.reserve(points.size());
  for (const Vec2& p : points) px.push_back({vp_.x(p.x), vp_.y(p.y)});
  list_->AddConvexPolyFilled(px.data(), static_cast<int>(px.size()), packed(colour));
}

void ImGuiCanvas::text(Vec2 at, std::string_view text, Colour colour, Vec2 offset_px) {
  list_->AddText({vp_.x(at.x) + offset_px.x, vp_.y(at.y) + offset_px.y}, packed(colour), text.data(),
                 text.data() + text.size());
}

}  // namespace tickwire::viewer
