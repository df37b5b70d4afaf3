#pragma once
// The link-conditioning flags shared by tickwire-netsim and tickwire-bots:
// a named profile, then flags that override it for both directions
// ("--loss") or for one ("--up-loss", "--down-loss"), so a profile and an
// override mean the same in both tools.

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "tickwire/core/result.h"
#include "tickwire/transport/link_conditions.h"

namespace tickwire::tools {

// How the probability flags (loss, dup, reorder) are given on the command
// line. Both tools take probabilities in percent.
enum class ProbabilityUnit { kFraction, kPercent };

// Flags of one direction (or both); unset ones leave the profile's value.
struct DirectionFlags {
  std::optional<double> latency_ms, jitter_ms, loss, dup, reorder, bandwidth_kbps;
  std::optional<double> rise_ms, rise_period_s, flap_ms, flap_period_s;
  bool any() const {
    return latency_ms || jitter_ms || loss || dup || reorder || bandwidth_kbps || rise_ms || rise_period_s || flap_ms ||
           flap_period_s;
  }
};

struct LinkOptions {
  std::string profile;  // empty: none (a perfect link)
  DirectionFlags both, up, down;
  bool any() const { return !profile.empty() || both.any() || up.any() || down.any(); }
};

struct ResolvedLink {
  std::string description;         // "broadband, loss 2%", for reports
  transport::LinkConditions up;    // client to server
  transport::LinkConditions down;  // server to client
};

// Adds --profile, the both-direction flags and the --up-/--down- ones, in
// an option group so --help keeps them together.
void add_link_options(CLI::App& app, LinkOptions& options, ProbabilityUnit unit);

// The profile with the flags applied; fails with kInvalidArgument naming
// an unknown profile (and the known ones) or a flag that makes the
// conditions invalid.
Result<ResolvedLink> resolve_link(const LinkOptions& options, ProbabilityUnit unit);

// "perfect, lan, ...": the names of every profile.
std::string link_profile_names();

}  // namespace tickwire::tools
