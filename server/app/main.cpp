// tickwire-server: the dedicated server binary, hosting the arena reference
// game. Owns the loop and the clock; everything below it takes time as an
// argument.

#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "options.h"
#include "stats_reporter.h"
#include "tickwire/arena/arena.h"
#include "tickwire/core/logging.h"
#include "tickwire/core/network_time.h"
#include "tickwire/server/server.h"
#include "tickwire/transport/enet_transport.h"

#ifndef TICKWIRE_VERSION
#define TICKWIRE_VERSION "unknown"
#endif

namespace {

using namespace tickwire;
using SteadyClock = std::chrono::steady_clock;

std::atomic<int> g_signal{0};  // the one piece of process state a signal may touch

void on_signal(int sig) { g_signal.store(sig); }

// Local time: microseconds of the steady clock since start-up. The loop,
// the server's tick timing and the stats all read this one clock.
class LocalClock {
 public:
  Time now() const { return to_time(SteadyClock::now()); }
  Time to_time(SteadyClock::time_point t) const {
    return Time::from_micros(std::chrono::duration_cast<std::chrono::microseconds>(t - epoch_).count());
  }
  SteadyClock::time_point to_steady(Time t) const { return epoch_ + std::chrono::microseconds(t.micros()); }

 private:
  SteadyClock::time_point epoch_ = SteadyClock::now();
};

// ENet waits on its socket in whole milliseconds, rounded down, and the
// kernel may wake it a little late besides, so waiting for traffic right
// up to the tick would start ticks up to a millisecond or more late. The
// loop waits for traffic only until about a millisecond before the tick
// and sleeps the rest on the steady clock, which is precise to
// microseconds. Neither spins, so an idle server uses next to no CPU.
constexpr Duration kTrafficWaitMargin = Duration::millis(1);

void wait_for_tick_or_traffic(transport::EnetTransport& enet, const LocalClock& clock, Time due) {
  const Duration left = due - clock.now();
  // Below margin + 1 ms the traffic wait would round to nothing and the
  // loop would come straight back; sleep to the tick instead.
  if (left >= kTrafficWaitMargin + Duration::millis(1)) {
    enet.wait_for_traffic(left - kTrafficWaitMargin);
  } else if (left > Duration::zero()) {
    std::this_thread::sleep_until(clock.to_steady(due));
  }
}

// The tick rates the game runs at, for a message that says what would work.
std::string supported_rates(const prediction::NetGame& game) {
  std::string rates;
  for (std::uint32_t r = 1; r <= NetworkTime::kMaxTickRate; ++r) {
    if (game.supports_tick_rate(r)) rates += (rates.empty() ? "" : ", ") + std::to_string(r);
  }
  return rates;
}

int fail(int code, const std::string& message) {
  std::cerr << "tickwire-server: " << message << "\n";
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = server_app::parse_options(argc, argv);
  if (auto* exit = std::get_if<server_app::ParseExit>(&parsed)) {
    (exit->code == 0 ? std::cout : std::cerr) << exit->message << "\n";
    return exit->code;
  }
  const auto& opt = std::get<server_app::Options>(parsed);

  Logging logging(parse_log_level(opt.log_level).value(), parse_log_format(opt.log_format).value());
  auto log = logging.get("server");
  const LocalClock clock;

  arena::GameConfig game_config;
  game_config.nearest_entities = opt.nearest;
  arena::Game game(game_config);

  server::ServerConfig config;
  config.tick_rate = opt.tick_rate;
  config.send_rate = opt.send_rate;
  config.max_clients = opt.max_clients;
  config.schema_hash = opt.schema_hash;
  config.max_snapshot_bytes = opt.snapshot_bytes;
  config.max_catch_up_ticks = opt.max_catch_up_ticks;
  config.clock = [&clock] { return clock.now(); };
  config.logger = log;
  // Checked before the socket is bound, so a bad setting never holds a port.
  if (!game.supports_tick_rate(opt.tick_rate)) {
    return fail(2, "--tick-rate " + std::to_string(opt.tick_rate) + ": the arena game runs only at " +
                       supported_rates(game) + " ticks per second");
  }
  try {
    config.validate();
  } catch (const std::invalid_argument& e) {
    return fail(2, std::string("invalid settings: ") + e.what());
  }

  server_app::StatsReporter stats(Duration::micros(static_cast<std::int64_t>(opt.stats_interval_s * 1e6)),
                                  opt.stats_json, log, clock.now());
  if (!stats.json_ok()) return fail(2, "cannot write --stats-json file " + opt.stats_json);

  transport::EnetConfig net;
  net.bind = opt.address();
  // A few slots beyond max_clients, so that a client turned away because
  // the server is full hears why instead of timing out.
  net.max_peers = opt.max_clients + 8;
  auto transport = transport::EnetTransport::create(net);
  if (!transport) {
    const std::string& why = transport.error().detail;
    const bool in_use = why.find("in use") != std::string::npos;
    return fail(1, "cannot listen on " + opt.address().to_string() + ": " + why +
                       (in_use ? " (another server on this port? choose one with --port)" : ""));
  }
  transport::EnetTransport* enet = transport->get();

  std::optional<server::Server> server_storage;
  try {
    server_storage.emplace(std::move(transport).value(), game, config, clock.now());
  } catch (const std::invalid_argument& e) {
    return fail(2, std::string("invalid settings: ") + e.what());
  }
  server::Server& server = *server_storage;

  // The kernel may defer a sleeper's wake-up by its timer slack (50 us by
  // default) to batch wake-ups; ticks should start on time instead.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  log->info("tickwire-server {}: arena, listening on {} (udp), tick {} Hz, send {} Hz, max clients {}",
            TICKWIRE_VERSION, server.local_address().value_or(opt.address()).to_string(), opt.tick_rate,
            opt.send_rate, opt.max_clients);

  const Duration run_for = Duration::micros(static_cast<std::int64_t>(opt.duration_s * 1e6));
  const Time started = clock.now();
  std::vector<server::TickTiming> timings;
  while (g_signal.load() == 0) {
    const Time now = clock.now();
    if (run_for > Duration::zero() && now - started >= run_for) break;
    server.update(now);
    server.take_tick_timings(timings);
    stats.add_timings(timings);
    if (stats.due(now)) stats.report(server.stats(), now);
    while (server.poll_event()) {
      // The server runtime logs connects, denials and disconnects itself.
    }
    wait_for_tick_or_traffic(*enet, clock, server.next_tick_time());
  }

  const int sig = g_signal.load();
  log->info("shutting down ({})", sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "duration reached");
  server.shutdown(clock.now());
  // Keep serving briefly so the disconnects reach the clients and their
  // acknowledgements come back; well inside the 2 s budget.
  const Time deadline = clock.now() + Duration::millis(300);
  for (Time now = clock.now(); deadline - now >= Duration::millis(1); now = clock.now()) {
    server.update(now);
    enet->wait_for_traffic(std::min(deadline - now, Duration::millis(5)));
  }
  const auto s = server.stats();
  log->info(
      "stopped at tick {}: {} connects, {} denials, {} disconnects, {} snapshots, inputs {} late / {} missing / {} "
      "rejected, {} ticks overrun, {} skipped, {} bad packets, {} bytes in / {} out",
      s.tick.value(), s.connects, s.denials, s.disconnects, s.snapshots, s.late_inputs, s.missing_inputs,
      s.rejected_inputs, s.ticks_overrun, s.ticks_skipped, s.bad_packets(), s.bytes_in, s.bytes_out);
  return 0;
}
