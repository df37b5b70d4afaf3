// bench_timesync: every time provider on every network profile, on the same
// seeds, over a simulated network with stepped time. Prints a table and,
// with --json FILE, writes the figures. See docs/time.md ("Measuring").

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiles.h"
#include "scenario.h"

namespace tickwire::bench {
namespace {

constexpr const char* kUsage =
    "usage: bench_timesync [options]\n"
    "  --minutes N         simulated minutes per run (default 10; fractions allowed)\n"
    "  --profile NAME      run only this profile (repeatable, or a comma-separated list)\n"
    "  --provider NAME     run only this provider: adaptive, rfc, rtt_half_slack, oneshot (repeatable)\n"
    "  --profile-file F    add the profiles in this JSON file (see docs/time.md)\n"
    "  --clients N         clients per run (default 4)\n"
    "  --seed N            base seed (default 1); each profile's seed derives from it and its name\n"
    "  --json FILE         write the results as JSON\n"
    "  --adaptive-late-rate R  the adaptive provider's target late rate (default 1e-3)\n"
    "  --trace FILE        write client 0's timelines as CSV every 100 ms (last run wins)\n"
    "  --list              list the profiles and exit\n";

struct Options {
  double minutes = 10;
  std::vector<std::string> profiles;
  std::vector<std::string> providers;
  std::vector<std::string> profile_files;
  std::uint32_t clients = 4;
  std::uint64_t seed = 1;
  std::optional<std::string> json;
  std::string trace;
  std::optional<double> late_rate;
  bool list = false;
};

void split_into(const std::string& value, std::vector<std::string>& out) {
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t comma = value.find(',', start);
    const std::string part = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!part.empty()) out.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
}

std::optional<Options> parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) {
        std::cerr << "bench_timesync: " << arg << " needs a value\n" << kUsage;
        return std::nullopt;
      }
      return std::string(argv[++i]);
    };
    try {
      if (arg == "--help" || arg == "-h") {
        std::cout << kUsage;
        std::exit(0);
      } else if (arg == "--list") {
        o.list = true;
      } else if (arg == "--minutes") {
        const auto v = value();
        if (!v) return std::nullopt;
        o.minutes = std::stod(*v);
        if (!(o.minutes > 0 && o.minutes <= 24 * 60)) throw std::invalid_argument("--minutes");
      } else if (arg == "--profile") {
        const auto v = value();
        if (!v) return std::nullopt;
        split_into(*v, o.profiles);
      } else if (arg == "--provider") {
        const auto v = value();
        if (!v) return std::nullopt;
        split_into(*v, o.providers);
      } else if (arg == "--profile-file") {
        const auto v = value();
        if (!v) return std::nullopt;
        o.profile_files.push_back(*v);
      } else if (arg == "--clients") {
        const auto v = value();
        if (!v) return std::nullopt;
        const long n = std::stol(*v);
        if (n < 1 || n > 64) throw std::invalid_argument("--clients");
        o.clients = static_cast<std::uint32_t>(n);
      } else if (arg == "--seed") {
        const auto v = value();
        if (!v) return std::nullopt;
        o.seed = std::stoull(*v);
      } else if (arg == "--adaptive-late-rate") {
        const auto v = value();
        if (!v) return std::nullopt;
        o.late_rate = std::stod(*v);
        if (!(*o.late_rate > 0 && *o.late_rate < 0.5)) throw std::invalid_argument("--adaptive-late-rate");
      } else if (arg == "--trace") {
        const auto v = value();
        if (!v) return std::nullopt;
        o.trace = *v;
      } else if (arg == "--json") {
        const auto v = value();
        if (!v) return std::nullopt;
        o.json = *v;
      } else {
        std::cerr << "bench_timesync: unknown option " << arg << "\n" << kUsage;
        return std::nullopt;
      }
    } catch (const std::exception&) {
      std::cerr << "bench_timesync: bad value for " << arg << "\n" << kUsage;
      return std::nullopt;
    }
  }
  return o;
}

// FNV-1a of the profile's name mixed into the base seed: every provider of
// a profile runs on the same seed, and profiles do not share one.
std::uint64_t profile_seed(std::uint64_t base, const std::string& name) {
  std::uint64_t h = 0xcbf29ce484222325ULL ^ base;
  for (const char ch : name) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    if (ch == '"' || ch == '\\') out.push_back('\\');
    if (static_cast<unsigned char>(ch) < 0x20) continue;
    out.push_back(ch);
  }
  return out + "\"";
}

std::string number(double v, int digits) {
  char buffer[64];
  (void)std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

void print_header() {
  std::printf("%-12s %-13s %9s %9s %9s %9s %8s %9s %6s %8s %9s %9s\n", "provider", "profile", "on_time%", "reach%",
              "exc_mean", "exc_p99", "interp50", "starved%", "resets", "signs/m", "offs_p99", "wall_s");
}

void print_row(const RunResult& r) {
  std::printf("%-12s %-13s %9.3f %9.3f %9.2f %9.2f %8.2f %9.3f %6llu %8.2f %9.2f %9.1f\n", r.provider.c_str(),
              r.profile.c_str(), 100.0 * r.on_time_rate, 100.0 * r.reachable_rate, r.mean_excess_lead_ms,
              r.p99_excess_lead_ms, r.interp_delay_ms_p50, 100.0 * r.starved_frame_rate,
              static_cast<unsigned long long>(r.hard_resets), r.scale_sign_changes_per_min, r.offset_error_ms_p99,
              r.wall_seconds);
  (void)std::fflush(stdout);
}

bool write_json(const std::string& path, const std::vector<RunResult>& results, const Options& o) {
  std::ofstream out(path);
  if (!out) return false;
  out << "{\"minutes\":" << number(o.minutes, 3) << ",\"clients\":" << o.clients << ",\"seed\":" << o.seed
      << ",\"results\":[";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const RunResult& r = results[i];
    out << (i == 0 ? "\n" : ",\n") << "{\"provider\":" << json_string(r.provider)
        << ",\"profile\":" << json_string(r.profile) << ",\"on_time_rate\":" << number(r.on_time_rate, 6)
        << ",\"mean_excess_lead_ms\":" << number(r.mean_excess_lead_ms, 3)
        << ",\"p99_excess_lead_ms\":" << number(r.p99_excess_lead_ms, 3)
        << ",\"interp_delay_ms_p50\":" << number(r.interp_delay_ms_p50, 3)
        << ",\"starved_frame_rate\":" << number(r.starved_frame_rate, 6) << ",\"hard_resets\":" << r.hard_resets
        << ",\"scale_sign_changes_per_min\":" << number(r.scale_sign_changes_per_min, 3)
        << ",\"offset_error_ms_p99\":" << number(r.offset_error_ms_p99, 3)
        << ",\"reachable_rate\":" << number(r.reachable_rate, 6) << ",\"inputs\":" << r.inputs
        << ",\"on_time_inputs\":" << r.on_time << ",\"hard_resets_total\":" << r.hard_resets_total
        << ",\"predicted_sign_changes_per_min\":" << number(r.predicted_sign_changes_per_min, 3)
        << ",\"interpolation_sign_changes_per_min\":" << number(r.interpolation_sign_changes_per_min, 3)
        << ",\"offset_error_ms_mean\":" << number(r.offset_error_ms_mean, 3) << "}";
  }
  out << "\n]}\n";
  return static_cast<bool>(out);
}

bool wanted(const std::vector<std::string>& filter, const std::string& name) {
  if (filter.empty()) return true;
  for (const auto& f : filter) {
    if (f == name) return true;
  }
  return false;
}

int run(int argc, char** argv) {
  const auto options = parse(argc, argv);
  if (!options) return 2;
  const Options& o = *options;

  std::vector<BenchProfile> profiles = builtin_profiles();
  for (const auto& file : o.profile_files) {
    auto extra = load_profiles(file);
    if (!extra) {
      std::cerr << "bench_timesync: " << extra.error().detail << "\n";
      return 2;
    }
    for (auto& p : *extra) profiles.push_back(std::move(p));
  }
  if (o.list) {
    for (const auto& p : profiles) std::printf("%-14s %s\n", p.name.c_str(), p.description.c_str());
    return 0;
  }
  for (const auto& name : o.profiles) {
    bool known = false;
    for (const auto& p : profiles) known = known || p.name == name;
    if (!known) {
      std::cerr << "bench_timesync: unknown profile " << name << " (try --list)\n";
      return 2;
    }
  }
  const ProviderKind kinds[] = {ProviderKind::kAdaptive, ProviderKind::kRfc, ProviderKind::kRttHalfSlack,
                                ProviderKind::kOneShot};
  for (const auto& name : o.providers) {
    bool known = false;
    for (const auto k : kinds) known = known || name == to_string(k);
    if (!known) {
      std::cerr << "bench_timesync: unknown provider " << name << "\n";
      return 2;
    }
  }

  std::printf(
      "bench_timesync: %.3g simulated minutes per run, %u clients, 60 Hz ticks and snapshots, "
      "144 Hz frames, 3-input redundancy, base seed %llu\n",
      o.minutes, o.clients, static_cast<unsigned long long>(o.seed));
  print_header();
  std::vector<RunResult> results;
  for (const auto& profile : profiles) {
    if (!wanted(o.profiles, profile.name)) continue;
    RunConfig config;
    config.length = Duration::micros(static_cast<std::int64_t>(o.minutes * 60e6));
    config.clients = o.clients;
    config.seed = profile_seed(o.seed, profile.name);
    config.trace_path = o.trace;
    config.adaptive_late_rate = o.late_rate;
    for (const auto kind : kinds) {
      if (!wanted(o.providers, to_string(kind))) continue;
      results.push_back(run_scenario(profile, kind, config));
      print_row(results.back());
    }
    std::printf("  (%s: seed %llu; %s)\n", profile.name.c_str(), static_cast<unsigned long long>(config.seed),
                profile.description.c_str());
  }
  if (o.json && !write_json(*o.json, results, o)) {
    std::cerr << "bench_timesync: cannot write " << *o.json << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace tickwire::bench

int main(int argc, char** argv) { return tickwire::bench::run(argc, argv); }
