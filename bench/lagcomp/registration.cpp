// Hit registration through the whole runtime, deterministic over the
// simulated network: a server hosting the arena and shooter clients (the
// bots' shooter and shooter_miss scripts, each a full client runtime) on
// links of the named profiles, for `--seconds` of simulated time each.
// Every shot is scored as the bots score it (tools/bots/shooting.h): on
// target or not in the shooter's own view at the view time its input
// claims, against what the server said. Each profile runs with lag
// compensation (the rewind window of the row) and without it (a window of
// 0: every shot judged against the server's newest tick), side by side.
//
//   bench_hit_registration [--json FILE] [--seconds S] [--shooters N] [--seed N]

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "registration_match.h"
#include "tickwire/transport/link_profiles.h"

namespace {

using namespace tickwire;
using bench::ShootingOutcome;

double rate(std::uint64_t part, std::uint64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string json_path;
  double seconds = 60.0;
  std::size_t shooters = 8;
  std::uint64_t seed = 1;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--json") == 0 && has_value) {
      json_path = argv[++i];
    } else if (std::strcmp(argv[i], "--seconds") == 0 && has_value) {
      seconds = std::atof(argv[++i]);
      if (!(seconds >= 5.0 && seconds <= 3600.0)) {
        (void)std::fprintf(stderr, "--seconds must be in 5..3600\n");
        return 2;
      }
    } else if (std::strcmp(argv[i], "--shooters") == 0 && has_value) {
      const long n = std::atol(argv[++i]);
      if (n < 2 || n > 64) {
        (void)std::fprintf(stderr, "--shooters must be in 2..64\n");
        return 2;
      }
      shooters = static_cast<std::size_t>(n);
    } else if (std::strcmp(argv[i], "--seed") == 0 && has_value) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else {
      (void)std::fprintf(stderr, "usage: %s [--json FILE] [--seconds S] [--shooters N] [--seed N]\n", argv[0]);
      return 2;
    }
  }

  // 300 ms of round trip: broadband's jitter and loss at 150 ms each way,
  // with a window that holds that view (RTT plus interpolation delay).
  transport::LinkProfile rtt300 = *transport::find_link_profile("broadband");
  rtt300.name = "rtt300";
  rtt300.up.latency = Duration::millis(150);
  rtt300.down.latency = Duration::millis(150);
  const std::vector<std::pair<transport::LinkProfile, Duration>> rows = {
      {*transport::find_link_profile("broadband"), Duration::millis(250)},
      {*transport::find_link_profile("wifi"), Duration::millis(250)},
      {*transport::find_link_profile("wifi"), Duration::millis(400)},
      {*transport::find_link_profile("mobile"), Duration::millis(250)},
      {*transport::find_link_profile("mobile"), Duration::millis(400)},
      {rtt300, Duration::millis(500)},
  };

  std::printf("seed %llu, %zu shooters (half on target, half just outside), %.0f s simulated per run\n",
              static_cast<unsigned long long>(seed), shooters, seconds);
  std::printf("%-10s %7s %7s %7s | %8s %7s %7s %9s %9s | %8s %7s %7s\n", "profile", "window", "rtt", "view", "shots",
              "reg %", "false %", "replaced", "clamped", "shots", "reg %", "false %");
  std::printf("%-10s %7s %7s %7s | %-44s | %-24s\n", "", "ms", "ms", "ms", "with compensation", "without (window 0)");
  std::string json = "{\"seed\":" + std::to_string(seed) + ",\"shooters\":" + std::to_string(shooters) +
                     ",\"seconds\":" + std::to_string(seconds) + ",\"rows\":[";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto& [link, window] = rows[r];
    const ShootingOutcome with = bench::run_shooting_match(link, window, seconds, shooters, seed);
    const ShootingOutcome without = bench::run_shooting_match(link, Duration::zero(), seconds, shooters, seed);
    const auto reg = [](const ShootingOutcome& o) { return rate(o.on.on_target_hits, o.on.on_target); };
    const auto fh = [](const ShootingOutcome& o) { return rate(o.off.off_target_hits, o.off.off_target); };
    std::printf("%-10s %7lld %7.1f %7.1f | %8llu %7.2f %7.2f %8.2f%% %8.2f%% | %8llu %7.2f %7.2f\n", link.name.c_str(),
                static_cast<long long>(window.micros() / 1000), with.rtt_ms, with.view_behind_ms,
                static_cast<unsigned long long>(with.on.on_target) + with.off.off_target, reg(with), fh(with),
                rate(with.replaced, with.decisions), rate(with.clamped, with.decisions),
                static_cast<unsigned long long>(without.on.on_target) + without.off.off_target, reg(without),
                fh(without));
    char line[1024];
    const auto part = [&](const ShootingOutcome& o) {
      char b[512];
      (void)std::snprintf(
          b, sizeof b,
          "{\"on_target\":%llu,\"on_target_hits\":%llu,\"off_target\":%llu,\"off_target_hits\":%llu,"
          "\"refused\":%llu,\"unresolved\":%llu,\"hit_registration\":%.6f,\"false_hits\":%.6f,"
          "\"rewind_decisions\":%llu,\"replaced\":%llu,\"clamped\":%llu,\"rtt_ms\":%.2f,"
          "\"view_behind_ms\":%.2f}",
          static_cast<unsigned long long>(o.on.on_target), static_cast<unsigned long long>(o.on.on_target_hits),
          static_cast<unsigned long long>(o.off.off_target), static_cast<unsigned long long>(o.off.off_target_hits),
          static_cast<unsigned long long>(o.on.teleport_blocked) + o.off.teleport_blocked,
          static_cast<unsigned long long>(o.on.unresolved) + o.off.unresolved, reg(o) / 100.0, fh(o) / 100.0,
          static_cast<unsigned long long>(o.decisions), static_cast<unsigned long long>(o.replaced),
          static_cast<unsigned long long>(o.clamped), o.rtt_ms, o.view_behind_ms);
      return std::string(b);
    };
    (void)std::snprintf(line, sizeof line, "%s{\"profile\":\"%s\",\"window_ms\":%lld,\"with\":", r == 0 ? "" : ",",
                        link.name.c_str(), static_cast<long long>(window.micros() / 1000));
    json += line + part(with) + ",\"without\":" + part(without) + "}";
  }
  json += "]}\n";
  std::printf(
      "reg %%: shots on target in the shooter's view that the server counted as hits; false %%: shots off target\n"
      "counted as hits; view: how far behind its input's tick a shooter's view lies (lead + interpolation delay);\n"
      "replaced / clamped: of the inputs' view times, those the server replaced by its estimate / clamped into\n"
      "the window (a view further back than the window is judged at its edge)\n");
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << json;
    if (!out) {
      (void)std::fprintf(stderr, "could not write %s\n", json_path.c_str());
      return 1;
    }
  }
  return 0;
}
