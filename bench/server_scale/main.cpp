// bench_server_scale: how many bots one server core holds at 60 Hz.
//
// Starts tickwire-server pinned to one core and two tickwire-bots processes
// (half the bots wander, half chase, so that players meet and push) pinned
// to another, at a rising bot count, and measures the server over a window
// after the bots have connected and settled: tick time, overruns, its CPU
// per client tick, the inputs it did not have in time, the wire rate per
// client and disconnects. Prints a table, the verdict on the targets, and
// with --json FILE writes the figures.
//
// The bots are thin (tickwire-bots --thin) unless --full-bots: the server,
// not the load generator, is what is measured.
//
//   bench_server_scale [--steps 64,128,256,512] [--beyond] [--seconds 30] [--full-bots] [--json FILE]

#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "report.h"
#include "step.h"
#include "tickwire/transport/link_profiles.h"

#ifndef TICKWIRE_SERVER_BIN
#define TICKWIRE_SERVER_BIN "tickwire-server"
#endif
#ifndef TICKWIRE_BOTS_BIN
#define TICKWIRE_BOTS_BIN "tickwire-bots"
#endif

namespace {

using namespace tickwire::bench;

std::atomic<int> g_stop{0};
void on_signal(int sig) { g_stop.store(sig); }

// The CPUs this process may run on, in order.
std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int i = 0; i < CPU_SETSIZE; ++i) {
    if (CPU_ISSET(static_cast<std::size_t>(i), &set)) cpus.push_back(i);
  }
  return cpus;
}

struct Options {
  StepConfig step;
  std::vector<int> steps = {64, 128, 256, 512};
  bool beyond = false;
  int max_bots = 2048;
  bool pin = true;
  bool keep_logs = false;
  std::string json;
};

int run(const Options& o, StepConfig config) {
  char dir[] = "/tmp/bench_server_scale.XXXXXX";
  if (::mkdtemp(dir) == nullptr) {
    std::cerr << "bench_server_scale: cannot make a directory in /tmp\n";
    return 1;
  }
  config.work_dir = dir;
  if (o.pin) {
    const auto cpus = allowed_cpus();
    if (cpus.size() >= 2) {
      config.server_cpu = cpus[0];
      config.bots_cpu = cpus[1];
    } else {
      std::printf("bench_server_scale: fewer than two CPUs available; nothing is pinned\n");
    }
  }

  Machine machine = read_machine();
  const Targets targets;
  print_preamble(machine, config);
  print_header();
  std::vector<StepFigures> results;
  int errors = 0;
  const auto run_one = [&](int bots) {
    results.push_back(run_step(bots, config, targets, g_stop));
    print_row(results.back());
    errors += results.back().error.empty() ? 0 : 1;
  };
  for (const int bots : o.steps) {
    if (g_stop.load() != 0) break;
    run_one(bots);
  }
  // Beyond the listed steps: keep doubling while the server holds.
  if (o.beyond) {
    while (g_stop.load() == 0 && !results.empty() && results.back().holds && results.back().bots * 2 <= o.max_bots) {
      run_one(results.back().bots * 2);
    }
  }
  machine.loadavg_end = read_loadavg();
  std::printf("load average at the end: %s\n", machine.loadavg_end.c_str());
  print_notes(results);
  print_split(results);
  (void)print_verdict(results, targets);

  bool written = true;
  if (!o.json.empty() && !write_json(o.json, machine, config, targets, results)) {
    std::cerr << "bench_server_scale: cannot write " << o.json << "\n";
    written = false;
  }
  if (o.keep_logs || errors > 0) {
    std::printf("logs, stats and bots reports: %s\n", dir);
  } else {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  if (g_stop.load() != 0) return 130;
  return errors == 0 && written ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  StepConfig& s = o.step;
  bool full_bots = false;
  s.server_bin = TICKWIRE_SERVER_BIN;
  s.bots_bin = TICKWIRE_BOTS_BIN;
  CLI::App app{
      "bench_server_scale: how many bots one server core holds at 60 Hz ticks and snapshots (--send-rate 30: the "
      "shipped default). Exits 1 when a step "
      "could not be measured; the targets are reported, not enforced.",
      "bench_server_scale"};
  app.get_formatter()->column_width(30);
  app.add_option("--server", s.server_bin, "The tickwire-server binary")->capture_default_str();
  app.add_option("--bots-bin", s.bots_bin, "The tickwire-bots binary")->capture_default_str();
  app.add_option("--steps", o.steps, "Bot counts to run, comma-separated")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::Range(2, 4000));
  app.add_flag("--beyond", o.beyond, "After the steps, keep doubling the bots while the server holds");
  app.add_option("--max-bots", o.max_bots, "Most bots --beyond goes to")
      ->capture_default_str()
      ->check(CLI::Range(2, 4000));
  app.add_option("--seconds", s.seconds, "Seconds measured per step, after the warm-up")
      ->capture_default_str()
      ->check(CLI::Range(2.0, 3600.0));
  app.add_option("--ramp", s.ramp, "Seconds over which the bots connect")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 600.0));
  app.add_option("--settle", s.settle, "Seconds of play after the ramp before measuring")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 600.0));
  app.add_option("--port", s.port, "UDP port of the server on 127.0.0.1")
      ->capture_default_str()
      ->check(CLI::Range(1, 65535));
  app.add_option("--seed", s.seed, "Seed of the bots' scripts")->capture_default_str();
  app.add_flag("--pin,!--no-pin", o.pin, "Pin the server to the first CPU and the bots to the second")
      ->capture_default_str();
  app.add_option("--send-rate", s.send_rate,
                 "Snapshots per second to each client (a divisor of the 60 Hz tick; the server ships 30)")
      ->capture_default_str()
      ->check(CLI::IsMember({1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60}));
  app.add_option("--input-interval", s.input_interval,
                 "Ticks of input per bot input packet (tickwire-bots --input-interval); 1 sends every tick")
      ->capture_default_str()
      ->check(CLI::Range(1, 8));
  app.add_flag("--full-bots", full_bots, "Full bots (prediction and interpolation) instead of thin ones");
  auto* codebook = app.add_option("--codebook", s.codebook,
                                  "Run the server and the bots with this snapshot codebook instead of the arena's "
                                  "(tickwire-server --train-codebook makes one)")
                       ->type_name("FILE")
                       ->check(CLI::ExistingFile);
  app.add_flag("--adaptive-models", s.adaptive_models,
               "Run the server and the bots with adaptive models per client instead of the arena's codebook")
      ->excludes(codebook);
  std::vector<std::string> profiles;
  for (const auto& p : tickwire::transport::link_profiles()) profiles.push_back(p.name);
  app.add_option("--link-profile", s.link_profile,
                 "Shape every bot's traffic with this named link profile (in the bots process); default: loopback "
                 "as it is")
      ->check(CLI::IsMember(profiles));
  app.add_flag("--keep-logs", o.keep_logs, "Keep the servers' and bots' logs, stats and reports");
  app.add_option("--json", o.json, "Write the machine, settings and steps as JSON to FILE")->type_name("FILE");
  CLI11_PARSE(app, argc, argv);
  s.thin_bots = !full_bots;
  for (const std::string* bin : {&s.server_bin, &s.bots_bin}) {
    if (::access(bin->c_str(), X_OK) != 0) {
      std::cerr << "bench_server_scale: " << *bin << " is not an executable (see --server and --bots-bin)\n";
      return 2;
    }
  }

  (void)std::signal(SIGINT, on_signal);
  (void)std::signal(SIGTERM, on_signal);
  return run(o, o.step);
}
