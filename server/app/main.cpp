// tickwire-server: the dedicated server binary. Owns the loop and the clock;
// everything below it takes time as an argument.

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <thread>

#include "options.h"
#include "stats_reporter.h"
#include "tickwire/server/server.h"
#include "tickwire/transport/enet_transport.h"

namespace {

std::atomic<int> g_signal{0};  // the one piece of process state a signal may touch

void on_signal(int sig) { g_signal.store(sig); }

tickwire::Time now_since(std::chrono::steady_clock::time_point epoch) {
  const auto d = std::chrono::steady_clock::now() - epoch;
  return tickwire::Time::from_micros(std::chrono::duration_cast<std::chrono::microseconds>(d).count());
}

constexpr const char* kVersion = "0.1.0";

}  // namespace

int main(int argc, char** argv) {
  using namespace tickwire;
  auto parsed = server_app::parse_options(argc, argv);
  if (auto* exit = std::get_if<server_app::ParseExit>(&parsed)) {
    (exit->code == 0 ? std::cout : std::cerr) << exit->message << "\n";
    return exit->code;
  }
  const auto& opt = std::get<server_app::Options>(parsed);

  Logging logging(parse_log_level(opt.log_level).value(), parse_log_format(opt.log_format).value());
  auto log = logging.get("server");

  transport::EnetConfig net;
  net.bind = opt.address();
  // A few slots beyond max_clients, so that a client turned away because
  // the server is full hears why instead of timing out.
  net.max_peers = opt.max_clients + 8;
  auto transport = transport::EnetTransport::create(net);
  if (!transport) {
    std::cerr << "tickwire-server: cannot listen on " << opt.address().to_string() << ": " << transport.error().detail
              << "\n";
    return 1;
  }
  transport::EnetTransport* enet = transport->get();

  const auto epoch = std::chrono::steady_clock::now();
  server::ServerConfig config;
  config.tick_rate = opt.tick_rate;
  config.send_rate = opt.send_rate;
  config.max_clients = opt.max_clients;
  config.schema_hash = opt.schema_hash;
  config.logger = log;
  server::Server server(std::move(transport).value(), config, now_since(epoch));

  server_app::StatsReporter stats(Duration::micros(static_cast<std::int64_t>(opt.stats_interval_s * 1e6)),
                                  opt.stats_json, log, now_since(epoch));
  if (!stats.json_ok()) {
    std::cerr << "tickwire-server: cannot write --stats-json file " << opt.stats_json << "\n";
    return 1;
  }

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  log->info("tickwire-server {} listening on {} (udp), tick rate {} Hz, send rate {} Hz, max clients {}", kVersion,
            server.local_address().value_or(opt.address()).to_string(), opt.tick_rate, opt.send_rate, opt.max_clients);

  const Duration tick_interval = Duration::micros(1'000'000 / opt.tick_rate);
  const Duration run_for = Duration::micros(static_cast<std::int64_t>(opt.duration_s * 1e6));
  while (g_signal.load() == 0) {
    Time now = now_since(epoch);
    if (run_for > Duration::zero() && now - Time() >= run_for) break;
    const auto ticks_before = server.stats().ticks_run;
    server.update(now);
    const Time after = now_since(epoch);
    if (server.stats().ticks_run != ticks_before) stats.record_tick(after - now, after - now > tick_interval);
    stats.maybe_report(server.stats(), after);
    while (auto event = server.poll_event()) {
      (void)event;  // the server runtime already logs lifecycle events
    }
    // Sleep until the next tick, waking early only to drain arriving
    // datagrams: no busy spinning, so an idle server costs next to nothing.
    const Duration until_tick = server.next_tick_time() - now_since(epoch);
    if (until_tick > Duration::zero()) enet->wait_for_traffic(until_tick);
  }

  const int sig = g_signal.load();
  log->info("shutting down ({})", sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "duration reached");
  server.shutdown(now_since(epoch));
  // Give the disconnects a moment on the wire, well inside the 2 s budget.
  const Time deadline = now_since(epoch) + Duration::millis(300);
  while (now_since(epoch) < deadline) {
    server.update(now_since(epoch));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const auto s = server.stats();
  log->info("stopped at tick {}: {} connects, {} denials, {} disconnects, {} bad packets", s.tick.value(), s.connects,
            s.denials, s.disconnects, s.bad_packets());
  return 0;
}
