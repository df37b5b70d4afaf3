// The viewer's own panels: the controls (state, toggles, legend, the
// game's status line) and the message shown when the session ends.

#include <imgui.h>

#include <string>

#include "app.h"
#include "scene.h"

namespace tickwire::viewer {

void App::draw_controls() {
  ImGui::SetNextWindowBgAlpha(1.0F);
  if (!ImGui::Begin(window_title_.c_str(), &show_controls_)) {
    ImGui::End();
    return;
  }
  const client::Client& c = *client_;
  ImGui::Text("%s (server %s, client %u)", client::to_string(c.state()), options_.connect.c_str(),
              c.client_id().value_or(0U));
  ImGui::Text("%zu players, %zu entities, tick %u, server tick %u, link %s", scene_.players_drawn(),
              scene_.entities_drawn(), c.predicted_tick() ? c.predicted_tick()->value() : 0U,
              c.authoritative_tick() ? c.authoritative_tick()->value() : 0U, link_preset_.c_str());
  client::DrawOptions d = c.draw_options();
  bool changed = ImGui::Checkbox("prediction (P)", &d.prediction);
  ImGui::SameLine();
  changed |= ImGui::Checkbox("interpolation (I)", &d.interpolation);
  ImGui::SameLine();
  changed |= ImGui::Checkbox("smoothing (M)", &d.smoothing);
  if (changed) client_->set_draw_options(d);
  ImGui::Checkbox("server ghost (H)", &toggles_.server_ghost);
  ImGui::SameLine();
  ImGui::Checkbox("snapshot markers (N)", &toggles_.snapshot_markers);
  ImGui::SameLine();
  ImGui::Checkbox("labels (T)", &toggles_.labels);
  ImGui::Checkbox("net graph (G)", &show_graph_);
  ImGui::SameLine();
  ImGui::Checkbox("link conditioner (L)", &show_link_);
  draw_legend();
  if (spec_.status_text) ImGui::TextWrapped("%s", spec_.status_text().c_str());
  if (script_) {
    ImGui::Text("playing: script %s", options_.script.c_str());
  } else if (!spec_.controls_help.empty()) {
    ImGui::TextWrapped("%s", spec_.controls_help.c_str());
  } else if (!spec_.input) {
    ImGui::TextUnformatted("watching: this game's viewer sends no input");
  }
  ImGui::End();
}

void App::draw_message() {
  if (message_.empty() && client_->state() == client::ClientState::kConnected) return;
  const std::string text = message_.empty() ? std::string("connecting to ") + options_.connect + "..." : message_;
  ImDrawList* list = ImGui::GetForegroundDrawList();
  const ImVec2 size = ImGui::CalcTextSize(text.c_str());
  const Bounds& b = viewport_.world;
  const float cx = viewport_.x((b.min.x + b.max.x) / 2.0F);
  const float cy = viewport_.y((b.min.y + b.max.y) / 2.0F);
  list->AddRectFilled({cx - size.x / 2 - 12, cy - size.y / 2 - 8}, {cx + size.x / 2 + 12, cy + size.y / 2 + 8},
                      IM_COL32(0, 0, 0, 210), 4.0F);
  list->AddText({cx - size.x / 2, cy - size.y / 2}, IM_COL32(255, 210, 120, 255), text.c_str());
}

void App::draw_legend() {
  const auto colour = [](Colour c) {
    return ImVec4(static_cast<float>(c.r) / 255.0F, static_cast<float>(c.g) / 255.0F, static_cast<float>(c.b) / 255.0F,
                  1.0F);
  };
  ImGui::TextColored(colour(kSelfColour), "you");
  ImGui::SameLine();
  ImGui::TextColored(colour(kGhostColour), "o server ghost");
  ImGui::SameLine();
  ImGui::TextColored(colour(kMarkerColour), "x newest snapshot");
  ImGui::SameLine();
  ImGui::TextColored(colour(kFlashColour), "correction");
  // The types drawn with the generic circles, in their colours.
  bool first = true;
  for (const TypeLayout& t : layout_.types()) {
    if (!t.drawn() || spec_.drawers.count(t.name) != 0) continue;
    if (!first) ImGui::SameLine();
    first = false;
    ImGui::TextColored(colour(type_colour(t.type.value)), "%s", t.name.c_str());
  }
}

}  // namespace tickwire::viewer
