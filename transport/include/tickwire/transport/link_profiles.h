#pragma once
// Named network profiles, one LinkConditions per direction ("up" is client
// to server), shared by the relay, the bots and the benchmarks so that
// "broadband" means the same everywhere.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tickwire/transport/link_conditions.h"

namespace tickwire::transport {

struct LinkProfile {
  std::string name;
  std::string description;
  LinkConditions up;
  LinkConditions down;
};

std::optional<LinkProfile> find_link_profile(std::string_view name);
const std::vector<LinkProfile>& link_profiles();

}  // namespace tickwire::transport
