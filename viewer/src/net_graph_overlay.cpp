// The net graph drawn with Dear ImGui; kept apart from net_graph.cpp so
// the graph's arithmetic builds and tests without a user interface.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "net_graph.h"

namespace tickwire::viewer {

void NetGraph::draw_overlay(bool* open) const {
  ImGui::SetNextWindowBgAlpha(1.0F);
  if (!ImGui::Begin("Net graph (last 10 s)", open)) {
    ImGui::End();
    return;
  }
  const float width = ImGui::GetContentRegionAvail().x;
  // Plots read a ring; ImGui's values_offset starts at the oldest sample.
  for (std::size_t i = 0; i < kSeriesCount; ++i) {
    const auto s = static_cast<Series>(i);
    char overlay[64];
    (void)std::snprintf(overlay, sizeof overlay, "%s %.2f %s", series_name(s), static_cast<double>(latest(s)),
                        series_unit(s));
    const float* data = values(s);
    float hi = 0.0F;
    for (std::size_t k = 0; k < count_; ++k) hi = std::max(hi, data[k]);
    ImGui::PushID(static_cast<int>(i));
    ImGui::PlotLines("", data, static_cast<int>(count_), static_cast<int>(offset()), overlay,
                     s == Series::kTimeScale ? 0.9F : 0.0F, s == Series::kTimeScale ? 1.1F : std::max(hi * 1.2F, 1.0F),
                     ImVec2(width, 24.0F));
    ImGui::PopID();
  }
  ImGui::TextWrapped(
      "totals: %llu mispredictions, %llu rollbacks, %llu late, %llu missing, %llu hard resets",
      static_cast<unsigned long long>(totals_.mispredictions), static_cast<unsigned long long>(totals_.rollbacks),
      static_cast<unsigned long long>(totals_.late_inputs), static_cast<unsigned long long>(totals_.missing_inputs),
      static_cast<unsigned long long>(totals_.hard_resets));
  ImGui::End();
}

}  // namespace tickwire::viewer
