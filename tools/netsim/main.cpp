// tickwire-netsim: a UDP relay that puts a bad network between real
// clients and a real server. Owns the loop and the clock.

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "link_flags.h"
#include "relay.h"

namespace {

std::atomic<int> g_signal{0};
void on_signal(int sig) { g_signal.store(sig); }

void print_direction(const char* name, const tickwire::netsim::RelayCounters& k) {
  std::printf(
      "  %-5s received %-9llu relayed %-9llu dropped %-8llu duplicated %-8llu reordered %-8llu mean delay %.1f ms\n",
      name, static_cast<unsigned long long>(k.received), static_cast<unsigned long long>(k.relayed),
      static_cast<unsigned long long>(k.dropped), static_cast<unsigned long long>(k.duplicated),
      static_cast<unsigned long long>(k.reordered),
      k.received > k.dropped
          ? static_cast<double>(k.delay_us_total) / 1000.0 / static_cast<double>(k.received - k.dropped)
          : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tickwire;
  std::string listen_host = "127.0.0.1";
  std::uint16_t listen_port = 0;
  std::string forward = "127.0.0.1:7777";
  tools::LinkOptions link;
  link.profile = "perfect";
  std::uint64_t seed = 1;
  double duration_s = 0.0;
  double stats_interval_s = 5.0;

  CLI::App app{
      "tickwire-netsim: a UDP relay that applies latency, jitter, loss, duplication, reordering and a "
      "bandwidth cap between clients and a server.",
      "tickwire-netsim"};
  app.add_option("--listen", listen_port, "UDP port clients connect to")->required()->check(CLI::Range(1, 65535));
  app.add_option("--listen-host", listen_host, "Address to listen on")->capture_default_str();
  app.add_option("--forward", forward, "Server address HOST:PORT")->capture_default_str();
  tools::add_link_options(app, link, tools::ProbabilityUnit::kPercent);
  app.add_option("--seed", seed, "Random seed")->capture_default_str();
  app.add_option("--duration", duration_s, "Stop after this many seconds; 0 runs until SIGINT/SIGTERM")
      ->check(CLI::Range(0.0, 1e7));
  app.add_option("--stats-interval", stats_interval_s, "Seconds between progress lines; 0 for none")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  auto conditions = tools::resolve_link(link, tools::ProbabilityUnit::kPercent);
  if (!conditions) {
    std::cerr << "tickwire-netsim: " << conditions.error().detail << "\n";
    return 2;
  }
  auto target = transport::Address::parse(forward);
  if (!target) {
    std::cerr << "tickwire-netsim: --forward: " << target.error().detail << "\n";
    return 2;
  }
  netsim::RelayConfig config;
  config.listen = {listen_host, listen_port};
  config.forward = *target;
  config.up = conditions->up;
  config.down = conditions->down;
  config.seed = seed;
  auto relay = netsim::Relay::create(config);
  if (!relay) {
    std::cerr << "tickwire-netsim: " << relay.error().detail << "\n";
    return relay.error().code == ErrorCode::kInvalidArgument ? 2 : 1;
  }

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const auto epoch = std::chrono::steady_clock::now();
  auto clock = [epoch] {
    return Time::from_micros(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - epoch).count());
  };
  std::printf("tickwire-netsim relaying %s -> %s, profile %s, seed %llu\n", config.listen.to_string().c_str(),
              config.forward.to_string().c_str(), conditions->description.c_str(),
              static_cast<unsigned long long>(seed));
  std::fflush(stdout);

  const Duration run_for = Duration::micros(static_cast<std::int64_t>(duration_s * 1e6));
  const Duration stats_every = Duration::micros(static_cast<std::int64_t>(stats_interval_s * 1e6));
  Time last_stats = clock();
  while (g_signal.load() == 0 && (run_for == Duration::zero() || clock() - Time() < run_for)) {
    (*relay)->run_once(clock, Duration::millis(50));
    if (stats_every > Duration::zero() && clock() - last_stats >= stats_every) {
      last_stats = clock();
      std::printf("netsim: %zu clients\n", (*relay)->sessions());
      print_direction("up", (*relay)->up_counters());
      print_direction("down", (*relay)->down_counters());
      std::fflush(stdout);
    }
  }
  std::printf("tickwire-netsim summary (%zu clients now)\n", (*relay)->sessions());
  print_direction("up", (*relay)->up_counters());
  print_direction("down", (*relay)->down_counters());
  return 0;
}
