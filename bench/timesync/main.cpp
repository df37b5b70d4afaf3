// bench_timesync: every time provider on every network profile, on the same
// seeds, over a simulated network with stepped time. Prints a table and,
// with --json FILE, writes the figures. See docs/time-measurements.md.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "family_run.h"
#include "profiles.h"
#include "providers.h"
#include "report.h"
#include "scenario.h"

namespace tickwire::bench {
namespace {

constexpr const char* kUsage =
    "usage: bench_timesync [options]\n"
    "  --minutes N         simulated minutes per run (default 10; fractions allowed)\n"
    "  --profile NAME      run only this profile (repeatable, or a comma-separated list)\n"
    "  --provider NAME     run only this provider: adaptive, n4e, rfc, rfc_2tick, rtt_half_slack, oneshot\n"
    "                      (repeatable, or a comma-separated list)\n"
    "  --send-rate HZ      snapshots per second; must divide the 60 Hz tick rate (repeatable, or a\n"
    "                      comma-separated list; default 60,30: every profile at both)\n"
    "  --profile-file F    add the profiles in this JSON file (see docs/time-measurements.md)\n"
    "  --clients N         clients per run (default 4)\n"
    "  --seed N            base seed (default 1); each profile's seed derives from it and its name\n"
    "  --json FILE         write the results as JSON\n"
    "  --adaptive-late-rate R  the adaptive provider's target late rate (default 1e-3)\n"
    "  --adaptive-late-event-cost MS  the adaptive provider's lead worth sparing a late event a second (100)\n"
    "  --adaptive-no-hold  the adaptive provider without its hold for rises that keep coming back\n"
    "  --redundancy N      N inputs per packet, sent once (1..16), instead of the runtime's policy\n"
    "  --trace FILE        write client 0's timelines as CSV every 100 ms (last run wins)\n"
    "  --list              list the profiles and exit\n"
    "random links (instead of the profiles; docs/time-measurements.md, \"Random links\"):\n"
    "  --random-links N    links 0..N-1 of the family of --seed (1..100000)\n"
    "  --random-link S:I   link I of family S alone (repeatable, or a comma-separated list)\n"
    "  --link-seconds X    simulated seconds per random link (default 120)\n"
    "  --threads N         links run on N threads (default: the cores, at most 2); the figures do not depend on it\n"
    "  --cost-late-ms MS   the cost's price of a late input (default 100)\n"
    "  --cost-burst-ms MS  the cost's price of a late-burst second, on each of its inputs (default 100)\n";

constexpr std::uint32_t kTickRate = 60;
constexpr double kFrameRate = 144;

struct Options {
  double minutes = 10;
  std::vector<std::string> profiles;
  std::vector<std::string> providers;
  std::vector<std::string> profile_files;
  std::vector<std::uint32_t> send_rates;
  std::uint32_t clients = 4;
  std::uint64_t seed = 1;
  std::optional<std::string> json;
  std::string trace;
  std::optional<double> late_rate;
  std::optional<double> late_event_cost_ms;
  bool no_hold = false;
  std::uint32_t fixed_redundancy = 0;  // 0: the runtime's policy
  bool list = false;
  std::optional<std::uint32_t> random_links;
  std::vector<RandomLinkId> random_link_ids;
  double link_seconds = 120;
  unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1U, 2U);
  CostPrices prices;
};

double number_in(const std::string& v, double lo, double hi, const char* flag) {
  std::size_t used = 0;
  const double x = std::stod(v, &used);
  if (used != v.size() || !(x >= lo && x <= hi)) throw std::invalid_argument(flag);
  return x;
}

std::uint32_t whole_number_in(const std::string& v, std::uint32_t lo, std::uint32_t hi, const char* flag) {
  const double x = number_in(v, lo, hi, flag);
  if (x != std::floor(x)) throw std::invalid_argument(flag);
  return static_cast<std::uint32_t>(x);
}

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
      } else if (arg == "--send-rate") {
        const auto v = value();
        if (!v) return std::nullopt;
        std::vector<std::string> parts;
        split_into(*v, parts);
        for (const auto& part : parts) {
          std::size_t used = 0;
          const long hz = std::stol(part, &used);
          if (used != part.size() || hz < 1 || hz > static_cast<long>(kTickRate) || kTickRate % hz != 0) {
            std::cerr << "bench_timesync: --send-rate " << part << " must divide the " << kTickRate
                      << " Hz tick rate\n";
            return std::nullopt;
          }
          o.send_rates.push_back(static_cast<std::uint32_t>(hz));
        }
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
      } else if (arg == "--redundancy") {
        const auto v = value();
        if (!v) return std::nullopt;
        const long n = std::stol(*v);
        if (n < 1 || n > static_cast<long>(kMaxInputsPerPacket)) throw std::invalid_argument("--redundancy");
        o.fixed_redundancy = static_cast<std::uint32_t>(n);
      } else if (arg == "--adaptive-late-event-cost") {
        const auto v = value();
        if (!v) return std::nullopt;
        o.late_event_cost_ms = std::stod(*v);
        if (!(*o.late_event_cost_ms >= 0 && *o.late_event_cost_ms <= 100000)) {
          throw std::invalid_argument("--adaptive-late-event-cost");
        }
      } else if (arg == "--adaptive-no-hold") {
        o.no_hold = true;
      } else if (arg == "--adaptive-late-rate") {
        const auto v = value();
        if (!v) return std::nullopt;
        o.late_rate = std::stod(*v);
        if (!(*o.late_rate > 0 && *o.late_rate < 0.5)) throw std::invalid_argument("--adaptive-late-rate");
      } else if (arg == "--trace") {
        const auto v = value();
        if (!v) return std::nullopt;
        o.trace = *v;
      } else if (arg == "--random-links") {
        const auto v = value();
        if (!v) return std::nullopt;
        o.random_links = whole_number_in(*v, 1, 100000, "--random-links");
      } else if (arg == "--random-link") {
        const auto v = value();
        if (!v) return std::nullopt;
        std::vector<std::string> parts;
        split_into(*v, parts);
        for (const auto& part : parts) {
          const auto id = parse_random_link(part);
          if (!id) {
            std::cerr << "bench_timesync: --random-link " << part << " must be SEED:INDEX, e.g. 1:17\n";
            return std::nullopt;
          }
          o.random_link_ids.push_back(*id);
        }
      } else if (arg == "--link-seconds") {
        const auto v = value();
        if (!v) return std::nullopt;
        o.link_seconds = number_in(*v, 1, 24 * 3600, "--link-seconds");
      } else if (arg == "--threads") {
        const auto v = value();
        if (!v) return std::nullopt;
        o.threads = whole_number_in(*v, 1, 64, "--threads");
      } else if (arg == "--cost-late-ms") {
        const auto v = value();
        if (!v) return std::nullopt;
        o.prices.late_input_ms = number_in(*v, 0, 1e6, "--cost-late-ms");
      } else if (arg == "--cost-burst-ms") {
        const auto v = value();
        if (!v) return std::nullopt;
        o.prices.late_burst_second_ms = number_in(*v, 0, 1e6, "--cost-burst-ms");
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
  if (o.send_rates.empty()) o.send_rates = {60, 30};
  const bool random = o.random_links || !o.random_link_ids.empty();
  if (random && (!o.profiles.empty() || !o.profile_files.empty() || !o.trace.empty() || o.list)) {
    std::cerr << "bench_timesync: random links run without --profile, --profile-file, --trace or --list\n";
    return std::nullopt;
  }
  if (o.random_links && !o.random_link_ids.empty()) {
    std::cerr << "bench_timesync: --random-links N or --random-link S:I, not both\n";
    return std::nullopt;
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

bool wanted(const std::vector<std::string>& filter, const std::string& name) {
  if (filter.empty()) return true;
  for (const auto& f : filter) {
    if (f == name) return true;
  }
  return false;
}

std::vector<ProviderKind> chosen_providers(const Options& o) {
  std::vector<ProviderKind> out;
  for (const ProviderKind kind : kAllProviders) {
    if (wanted(o.providers, to_string(kind))) out.push_back(kind);
  }
  return out;
}

int run_random(const Options& o) {
  FamilyRunSettings s;
  if (o.random_links) {
    for (std::uint32_t i = 0; i < *o.random_links; ++i) s.links.push_back(RandomLinkId{o.seed, i});
    s.which = s.links.front().name() + ".." + s.links.back().name();
  } else {
    s.links = o.random_link_ids;
    for (const RandomLinkId& id : s.links) s.which += (s.which.empty() ? "" : ",") + id.name();
  }
  s.run.tick_rate = kTickRate;
  s.run.frame_rate = kFrameRate;
  s.run.clients = o.clients;
  s.run.redundancy = RedundancySetting{o.fixed_redundancy};
  s.run.adaptive_late_rate = o.late_rate;
  s.run.adaptive_late_event_cost_ms = o.late_event_cost_ms;
  s.run.adaptive_hold = !o.no_hold;
  s.seconds_per_link = o.link_seconds;
  s.send_rates = o.send_rates;
  s.providers = chosen_providers(o);
  s.prices = o.prices;
  s.threads = o.threads;
  s.json = o.json;
  return run_family(s);
}

int run(int argc, char** argv) {
  const auto options = parse(argc, argv);
  if (!options) return 2;
  const Options& o = *options;
  for (const auto& name : o.providers) {
    if (!provider_from_string(name)) {
      std::cerr << "bench_timesync: unknown provider " << name << "\n";
      return 2;
    }
  }
  if (o.random_links || !o.random_link_ids.empty()) return run_random(o);

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

  const RedundancySetting redundancy{o.fixed_redundancy};
  const RunConditions conditions{
      o.minutes, o.clients, o.seed, kTickRate, o.send_rates, kFrameRate, redundancy.describe()};
  std::printf("bench_timesync: %s\n", describe(conditions).c_str());
  std::printf(
      "dominated_by (adaptive rows): baselines with >= %.2f points more inputs on time and >= %.1f ms less "
      "mean excess lead\n",
      kDominanceOnTimePoints, kDominanceExcessLeadMs);
  print_table_header();
  std::vector<RunResult> results;
  for (const auto& profile : profiles) {
    if (!wanted(o.profiles, profile.name)) continue;
    RunConfig config;
    config.length = Duration::micros(static_cast<std::int64_t>(o.minutes * 60e6));
    config.tick_rate = kTickRate;
    config.frame_rate = kFrameRate;
    config.clients = o.clients;
    config.redundancy = redundancy;
    config.seed = profile_seed(o.seed, profile.name);
    config.trace_path = o.trace;
    config.adaptive_late_rate = o.late_rate;
    config.adaptive_late_event_cost_ms = o.late_event_cost_ms;
    config.adaptive_hold = !o.no_hold;
    for (const std::uint32_t hz : o.send_rates) {
      config.send_rate = hz;
      std::vector<RunResult> group;
      for (const ProviderKind kind : kAllProviders) {
        if (!wanted(o.providers, to_string(kind))) continue;
        group.push_back(run_scenario(profile, kind, config));
      }
      judge(group);
      for (const RunResult& r : group) {
        print_row(r);
        results.push_back(r);
      }
    }
    std::printf("  (%s: seed %llu; %s)\n", profile.name.c_str(), static_cast<unsigned long long>(config.seed),
                profile.description.c_str());
  }
  if (o.json && !write_json(*o.json, results, conditions)) {
    std::cerr << "bench_timesync: cannot write " << *o.json << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace tickwire::bench

int main(int argc, char** argv) { return tickwire::bench::run(argc, argv); }
