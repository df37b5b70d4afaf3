// tickwire-spoof: floods a server on this machine with connect attempts
// from forged loopback sources, to show that its address validation makes
// it send those sources (nearly) nothing. Owns the signals and the output.

#include <atomic>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <variant>

#include "attack.h"
#include "options.h"
#include "session_attack.h"
#include "summary.h"

namespace {

std::atomic<int> g_signal{0};
void on_signal(int sig) { g_signal.store(sig); }

// --attack: one connected session attacked; exits 3 when harm was seen.
int run_session(const tickwire::spoof::Options& options) {
  using namespace tickwire::spoof;
  SessionAttackConfig config;
  config.attack = *options.attack;
  config.server = options.target;
  config.victim = options.victim;
  config.toward_client = options.toward_client;
  config.budget = options.budget;
  config.rate = options.rate;
  config.watch_s = options.watch_s;
  config.seed = options.seed;
  config.stop = &g_signal;
  if (!options.quiet) std::printf("seed %llu\n", static_cast<unsigned long long>(options.seed));
  auto result = run_session_attack(config);
  if (!result) {
    std::cerr << "tickwire-spoof: " << result.error().detail << "\n";
    return 1;
  }
  if (!options.quiet) std::printf("%s", session_attack_text(config, *result).c_str());
  if (!options.json_path.empty()) {
    std::ofstream json(options.json_path);
    json << session_attack_json(config, *result);
    if (!json) {
      std::cerr << "tickwire-spoof: cannot write " << options.json_path << "\n";
      return 1;
    }
  }
  return result->harm ? 3 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tickwire::spoof;
  auto parsed = parse_options(argc, argv);
  if (const int* status = std::get_if<int>(&parsed)) return *status;
  const Options& options = std::get<Options>(parsed);

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  if (options.attack) return run_session(options);

  AttackConfig config;
  config.target = options.target;
  config.rate = options.rate;
  config.sources = static_cast<std::size_t>(options.sources);
  config.duration_s = options.duration_s;
  config.mix = options.mix;
  config.seed = options.seed;
  config.stop = &g_signal;

  if (!options.quiet) {
    std::fputs(start_text(config).c_str(), stdout);
    std::fflush(stdout);
  }
  auto result = run_attack(config);
  if (!result) {
    std::cerr << "tickwire-spoof: " << result.error().detail << "\n";
    return 1;
  }
  const Summary summary = summarize(*result);
  if (!options.quiet) std::fputs(summary_text(config, *result, summary).c_str(), stdout);
  if (!options.json_path.empty()) {
    std::ofstream json(options.json_path);
    json << summary_json(config, *result, summary);
    if (!json) {
      std::cerr << "tickwire-spoof: cannot write " << options.json_path << "\n";
      return 1;
    }
  }
  return 0;
}
