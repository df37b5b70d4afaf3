#pragma once
// The link conditioner panel's presets: conditions the viewer's own
// connection goes through (transport::ConditionedTransport), changed live.

#include <span>
#include <string>
#include <string_view>

#include "tickwire/transport/link_conditions.h"
#include "tickwire/transport/sim_network.h"

namespace tickwire::viewer {

struct LinkPreset {
  const char* name;
  const char* description;
  transport::LinkConditions up;
  transport::LinkConditions down;
};

std::span<const LinkPreset> link_presets();
const LinkPreset* find_link_preset(std::string_view name);
std::string link_preset_names();

// The panel: presets plus sliders for latency, jitter, loss and
// duplication (both directions alike). Returns true when the user changed
// the conditions; `up`/`down` then hold the new ones.
// `up_stats`/`down_stats`: what the conditioner did so far, shown below.
bool draw_link_panel(transport::LinkConditions& up, transport::LinkConditions& down, std::string& preset,
                     const transport::SimLinkStats& up_stats, const transport::SimLinkStats& down_stats, bool* open);

}  // namespace tickwire::viewer
