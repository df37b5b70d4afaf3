#include "link_presets.h"

#include <imgui.h>

#include <array>

namespace tickwire::viewer {
namespace {

using transport::LinkConditions;

LinkConditions link(int latency_ms, int jitter_ms, double loss, double duplicate = 0.0) {
  LinkConditions c;
  c.latency = Duration::millis(latency_ms);
  c.jitter = Duration::millis(jitter_ms);
  c.loss = loss;
  c.duplicate = duplicate;
  return c;
}

// A wifi stall: a datagram now and then waits 150 to 600 ms, and those
// behind it with it.
LinkConditions stalling() {
  LinkConditions c = link(20, 5, 0.01);
  c.delay_spike_rate = 0.01;
  c.delay_spike_min = Duration::millis(150);
  c.delay_spike_max = Duration::millis(600);
  return c;
}

const std::array<LinkPreset, 6>& presets() {
  static const std::array<LinkPreset, 6> all = {{
      {"off", "nothing added: the real loopback link", {}, {}},
      {"broadband", "30 ms each way, 3 ms jitter", link(30, 3, 0.0), link(30, 3, 0.0)},
      {"mobile", "60 ms each way, 15 ms jitter, 2% loss", link(60, 15, 0.02), link(60, 15, 0.02)},
      {"lossy", "40 ms each way, 10% loss, 5% duplicated", link(40, 5, 0.10, 0.05), link(40, 5, 0.10, 0.05)},
      {"far", "120 ms each way, 10 ms jitter", link(120, 10, 0.0), link(120, 10, 0.0)},
      {"stalls", "20 ms each way with rare 150-600 ms stalls", stalling(), stalling()},
  }};
  return all;
}

}  // namespace

std::span<const LinkPreset> link_presets() { return presets(); }

const LinkPreset* find_link_preset(std::string_view name) {
  for (const LinkPreset& p : presets()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

std::string link_preset_names() {
  std::string names;
  for (const LinkPreset& p : presets()) names += (names.empty() ? "" : ", ") + std::string(p.name);
  return names;
}

bool draw_link_panel(LinkConditions& up, LinkConditions& down, std::string& preset,
                     const transport::SimLinkStats& up_stats, const transport::SimLinkStats& down_stats, bool* open) {
  bool changed = false;
  ImGui::SetNextWindowBgAlpha(1.0F);
  if (!ImGui::Begin("Link conditioner", open)) {
    ImGui::End();
    return false;
  }
  ImGui::TextUnformatted("This client's own link (both directions):");
  for (const LinkPreset& p : presets()) {
    if (ImGui::RadioButton(p.name, preset == p.name)) {
      preset = p.name;
      up = p.up;
      down = p.down;
      changed = true;
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.description);
    ImGui::SameLine();
  }
  ImGui::NewLine();
  // The sliders set both directions to the uplink's values.
  int latency = static_cast<int>(up.latency.micros() / 1000);
  int jitter = static_cast<int>(up.jitter.micros() / 1000);
  float loss = static_cast<float>(up.loss * 100.0);
  float duplicate = static_cast<float>(up.duplicate * 100.0);
  bool edited = ImGui::SliderInt("latency ms", &latency, 0, 300);
  edited |= ImGui::SliderInt("jitter ms", &jitter, 0, 100);
  edited |= ImGui::SliderFloat("loss %", &loss, 0.0F, 50.0F, "%.1f");
  edited |= ImGui::SliderFloat("duplicate %", &duplicate, 0.0F, 50.0F, "%.1f");
  if (edited) {
    for (LinkConditions* c : {&up, &down}) {
      c->latency = Duration::millis(latency);
      c->jitter = Duration::millis(jitter);
      c->loss = static_cast<double>(loss) / 100.0;
      c->duplicate = static_cast<double>(duplicate) / 100.0;
    }
    preset = "custom";
    changed = true;
  }
  for (const auto& [name, st] : {std::pair{"up", &up_stats}, std::pair{"down", &down_stats}}) {
    ImGui::Text("%-4s %llu sent, %llu lost, %llu duplicated, mean delay %.1f ms", name,
                static_cast<unsigned long long>(st->sent), static_cast<unsigned long long>(st->dropped_loss),
                static_cast<unsigned long long>(st->duplicated),
                st->delivered > 0 ? st->total_delay.millis_f() / static_cast<double>(st->delivered) : 0.0);
  }
  ImGui::End();
  return changed;
}

}  // namespace tickwire::viewer
