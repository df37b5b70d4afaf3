// bench_prediction: prediction of what the player touches, judged by what
// the player sees. A pitch match (two teams, one ball nobody owns) on the
// real server and client runtimes over the simulated network, every
// client's computer player chasing the ball so that players push one
// another and fight for it, on the shared broadband, wifi and mobile link
// profiles, with each prediction option on and off (the switching blend,
// remote players predicted, smoothing). Per profile and option: corrections
// per client-minute by cause, correction size as drawn, visual pops per
// minute and the client's CPU per frame. Prints a table and, with
// --json FILE, writes the figures. Everything but the CPU time is
// deterministic for a seed. Exits 1 when a run lost a client (its
// figures would be short).
//
//   bench_prediction [--profile broadband,wifi,mobile] [--variant NAME] [--clients 8] [--seconds 60]
//                    [--seed N] [--json FILE]

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "match.h"
#include "report.h"
#include "tickwire/transport/link_profiles.h"

namespace {

using namespace tickwire;
using namespace tickwire::bench;

// FNV-1a of the profile's name mixed into the base seed: every variant of
// a profile runs on the same seed (a paired comparison), and profiles do
// not share one.
std::uint64_t profile_seed(std::uint64_t base, const std::string& name) {
  std::uint64_t h = 0xcbf29ce484222325ULL ^ base;
  for (const char ch : name) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// TICKWIRE_SEED when set (a whole number), else 1; --seed overrides both.
bool seed_from_environment(std::uint64_t& seed) {
  const char* env = std::getenv("TICKWIRE_SEED");
  if (env == nullptr) return true;
  try {
    std::size_t used = 0;
    seed = std::stoull(env, &used);
    if (env[used] == '\0') return true;
  } catch (const std::exception&) {
  }
  std::cerr << "bench_prediction: TICKWIRE_SEED=" << env << " is not a whole number\n";
  return false;
}

struct Options {
  std::vector<std::string> profiles = {"broadband", "wifi", "mobile"};
  std::vector<std::string> variants;  // empty: all
  std::uint32_t clients = 8;
  double seconds = 60;
  double warmup = 3;
  std::uint64_t seed = 1;
  std::string json;
};

std::vector<Variant> chosen_variants(const std::vector<std::string>& names) {
  std::vector<Variant> out;
  for (const Variant& v : builtin_variants()) {
    bool wanted = names.empty();
    for (const auto& n : names) wanted = wanted || n == v.name;
    if (wanted) out.push_back(v);
  }
  return out;
}

int run(const Options& o) {
  RunSettings settings;
  settings.seed = o.seed;
  settings.clients = o.clients;
  settings.seconds = o.seconds;
  settings.warmup_seconds = o.warmup;
  settings.cpu = describe_host_cpu();
  settings.variants = chosen_variants(o.variants);
  print_preamble(settings);
  print_header();
  std::vector<MatchFigures> runs;
  int unmeasured = 0;
  for (const std::string& name : o.profiles) {
    const auto profile = transport::find_link_profile(name);
    MatchConfig config;
    config.profile = *profile;  // checked by the flag's validator
    config.clients = o.clients;
    config.length = Duration::micros(static_cast<std::int64_t>(o.seconds * 1e6));
    config.warmup = Duration::micros(static_cast<std::int64_t>(o.warmup * 1e6));
    config.seed = profile_seed(o.seed, name);
    for (const Variant& v : settings.variants) {
      config.variant = v;
      runs.push_back(run_match(config));
      print_row(runs.back());
      if (runs.back().connected < runs.back().clients) ++unmeasured;
    }
    std::printf("  (%s: seed %llu; %s)\n", name.c_str(), static_cast<unsigned long long>(config.seed),
                profile->description.c_str());
  }
  print_legend();
  if (!o.json.empty() && !write_json(o.json, settings, runs)) {
    std::cerr << "bench_prediction: cannot write " << o.json << "\n";
    return 1;
  }
  if (unmeasured > 0) {
    std::cerr << "bench_prediction: " << unmeasured << " run(s) lost clients before the end; their figures are short\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!seed_from_environment(o.seed)) return 2;
  CLI::App app{
      "bench_prediction: contact-heavy pitch play over the simulated network, each prediction option on and off: "
      "corrections by cause, correction size as drawn, visual pops, client CPU per frame.",
      "bench_prediction"};
  app.get_formatter()->column_width(30);
  std::vector<std::string> profile_names;
  for (const auto& p : transport::link_profiles()) profile_names.push_back(p.name);
  app.add_option("--profile", o.profiles, "Shared link profiles to run, comma-separated")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::IsMember(profile_names));
  std::vector<std::string> variant_names;
  for (const Variant& v : builtin_variants()) variant_names.push_back(v.name);
  app.add_option("--variant", o.variants, "Option sets to run, comma-separated (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember(variant_names));
  app.add_option("--clients", o.clients, "Clients per run")->capture_default_str()->check(CLI::Range(1, 32));
  app.add_option("--seconds", o.seconds, "Simulated seconds measured per run")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 3600.0));
  app.add_option("--warmup", o.warmup, "Simulated seconds before measuring (connecting, clocks settling)")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 60.0));
  app.add_option("--seed", o.seed, "Base seed (default TICKWIRE_SEED, else 1); each profile's derives from it");
  app.add_option("--json", o.json, "Write the settings and every run as JSON to FILE")->type_name("FILE");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "bench_prediction: " << e.what() << "\n";
    return 1;
  }
}
