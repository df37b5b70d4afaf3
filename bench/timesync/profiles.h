#pragma once
// Network profiles for the time benchmark: the shared named links
// (transport/link_profiles.h) plus the two that only make sense over time
// (a route change, clock drift), and profiles loaded from a JSON file in
// the same terms.

#include <string>
#include <vector>

#include "tickwire/core/result.h"
#include "tickwire/core/time.h"
#include "tickwire/transport/link_conditions.h"

namespace tickwire::bench {

// From `at` on, the links are these (a route change).
struct LinkStep {
  Duration at;
  transport::LinkConditions up;
  transport::LinkConditions down;
};

struct BenchProfile {
  std::string name;
  std::string description;
  transport::LinkConditions up;    // client to server
  transport::LinkConditions down;  // server to client
  // Client clocks run this much fast (positive) or slow, in parts per
  // million of the true time the network runs on.
  double drift_ppm = 0;
  std::vector<LinkStep> steps;
};

// lan, broadband, wifi, mobile, asymmetric, route_change, drift.
std::vector<BenchProfile> builtin_profiles();

// Reads {"profiles": [ ... ]}; see docs/time.md for the terms. Each profile
// may start from a built-in ("base": "broadband"), set both directions
// ("link": {...}) or each ("up", "down"), a clock drift ("drift_ppm") and
// route changes ("steps": [{"at_s": 180, "link": {...}}]), where a step's
// fields override the profile's own.
Result<std::vector<BenchProfile>> load_profiles(const std::string& path);

}  // namespace tickwire::bench
