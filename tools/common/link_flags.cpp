#include "link_flags.h"

#include <cstdint>
#include <sstream>

#include "tickwire/transport/link_profiles.h"

namespace tickwire::tools {
namespace {

using transport::LinkConditions;

void add_direction(CLI::App& app, const std::string& prefix, const std::string& which, DirectionFlags& f,
                   ProbabilityUnit unit, const std::string& group) {
  const bool percent = unit == ProbabilityUnit::kPercent;
  const double top = percent ? 100.0 : 1.0;
  const std::string range = percent ? " in percent 0..100" : " probability 0..1";
  const auto add = [&](const std::string& name, std::optional<double>& value, const std::string& what, double hi) {
    app.add_option("--" + prefix + name, value, what + which)->check(CLI::Range(0.0, hi))->group(group);
  };
  add("latency", f.latency_ms, "One-way delay in ms", 10000.0);
  add("jitter", f.jitter_ms, "Delay variation in ms (+-)", 10000.0);
  add("loss", f.loss, "Loss" + range, top);
  add("dup", f.dup, "Duplication" + range, top);
  add("reorder", f.reorder, "Reordering" + range, top);
  add("bandwidth", f.bandwidth_kbps, "Bandwidth cap in kbit/s, 0 for none", 1e7);
  add("rise", f.rise_ms, "Delay in ms building up over each --rise-period, then draining at once", 10000.0);
  add("rise-period", f.rise_period_s, "Seconds over which --rise builds up", 3600.0);
  add("flap", f.flap_ms, "Delay in ms added every other --flap-period (a route that flaps)", 10000.0);
  add("flap-period", f.flap_period_s, "Seconds between route switches", 3600.0);
}

void apply(const DirectionFlags& f, ProbabilityUnit unit, LinkConditions& c) {
  const double scale = unit == ProbabilityUnit::kPercent ? 0.01 : 1.0;
  const auto ms = [](double v) { return Duration::micros(static_cast<std::int64_t>(v * 1000.0)); };
  if (f.latency_ms) c.latency = ms(*f.latency_ms);
  if (f.jitter_ms) c.jitter = ms(*f.jitter_ms);
  if (f.loss) c.loss = *f.loss * scale;
  if (f.dup) c.duplicate = *f.dup * scale;
  if (f.reorder) c.reorder = *f.reorder * scale;
  if (f.bandwidth_kbps) c.bandwidth_bytes_per_second = static_cast<std::uint64_t>(*f.bandwidth_kbps * 1000.0 / 8.0);
  if (f.rise_ms) c.rise_delay = ms(*f.rise_ms);
  if (f.rise_period_s) c.rise_period = ms(*f.rise_period_s * 1000.0);
  if (f.flap_ms) c.flap_delay = ms(*f.flap_ms);
  if (f.flap_period_s) c.flap_period = ms(*f.flap_period_s * 1000.0);
}

void describe(const DirectionFlags& f, const char* prefix, ProbabilityUnit unit, std::ostringstream& out) {
  const char* p = unit == ProbabilityUnit::kPercent ? "%" : "";
  const auto item = [&](const std::optional<double>& v, const char* name, const char* suffix) {
    if (!v) return;
    if (out.tellp() > 0) out << ", ";
    out << prefix << name << ' ' << *v << suffix;
  };
  item(f.latency_ms, "latency", " ms");
  item(f.jitter_ms, "jitter", " ms");
  item(f.loss, "loss", p);
  item(f.dup, "dup", p);
  item(f.reorder, "reorder", p);
  item(f.bandwidth_kbps, "bandwidth", " kbps");
  item(f.rise_ms, "rise", " ms");
  item(f.rise_period_s, "rise-period", " s");
  item(f.flap_ms, "flap", " ms");
  item(f.flap_period_s, "flap-period", " s");
}

}  // namespace

void add_link_options(CLI::App& app, LinkOptions& options, ProbabilityUnit unit) {
  const std::string group = "Network conditions";
  app.add_option("--profile", options.profile, "Named link profile: " + link_profile_names())
      ->group(group)
      ->capture_default_str();
  add_direction(app, "", " (both directions)", options.both, unit, group);
  add_direction(app, "up-", " (client to server)", options.up, unit, group);
  add_direction(app, "down-", " (server to client)", options.down, unit, group);
}

Result<ResolvedLink> resolve_link(const LinkOptions& options, ProbabilityUnit unit) {
  ResolvedLink link;
  std::ostringstream text;
  if (!options.profile.empty()) {
    auto found = transport::find_link_profile(options.profile);
    if (!found) {
      return make_error(ErrorCode::kInvalidArgument,
                        "unknown --profile '" + options.profile + "' (" + link_profile_names() + ")");
    }
    link.up = found->up;
    link.down = found->down;
    text << options.profile;
  }
  apply(options.both, unit, link.up);
  apply(options.both, unit, link.down);
  apply(options.up, unit, link.up);
  apply(options.down, unit, link.down);
  describe(options.both, "", unit, text);
  describe(options.up, "up-", unit, text);
  describe(options.down, "down-", unit, text);
  if (auto ok = link.up.validate(); !ok) return make_error(ErrorCode::kInvalidArgument, "uplink " + ok.error().detail);
  if (auto ok = link.down.validate(); !ok) {
    return make_error(ErrorCode::kInvalidArgument, "downlink " + ok.error().detail);
  }
  link.description = text.str().empty() ? "perfect" : text.str();
  return link;
}

std::string link_profile_names() {
  std::string names;
  for (const auto& p : transport::link_profiles()) names += (names.empty() ? "" : ", ") + p.name;
  return names;
}

}  // namespace tickwire::tools
