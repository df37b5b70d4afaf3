#pragma once
// The Canvas a game draws on, put onto a Dear ImGui draw list through the
// viewport: world units in, pixels out.

#include "tickwire/viewer/layout.h"
#include "tickwire/viewer/viewer.h"

struct ImDrawList;

namespace tickwire::viewer {

class ImGuiCanvas final : public Canvas {
 public:
  ImGuiCanvas(ImDrawList* list, const Viewport& viewport) : list_(list), vp_(viewport) {}

  void circle(Vec2 centre, float radius, Colour colour, float width_px) override;
  void filled_circle(Vec2 centre, float radius, Colour colour) override;
  void line(Vec2 a, Vec2 b, Colour colour, float width_px) override;
  void rect(Vec2 a, Vec2 b, Colour colour, float width_px) override;
  void filled_rect(Vec2 a, Vec2 b, Colour colour) override;
  void polygon(const std::vector<Vec2>& points, Colour colour, float width_px) override;
  void filled_polygon(const std::vector<Vec2>& points, Colour colour) override;
  void text(Vec2 at, std::string_view text, Colour colour, Vec2 offset_px) override;
  float pixels_per_unit() const override { return vp_.scale; }

 private:
  ImDrawList* list_;
  Viewport vp_;
};

}  // namespace tickwire::viewer
