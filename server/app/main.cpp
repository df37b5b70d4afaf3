// tickwire-server: the dedicated server hosting the arena reference game.
#include <memory>

#include "tickwire/arena/arena.h"
#include "tickwire/host/server_host.h"

#ifndef TICKWIRE_VERSION
#define TICKWIRE_VERSION "unknown"
#endif

int main(int argc, char** argv) {
  using namespace tickwire;
  std::size_t nearest = 0;
  host::ServerSpec spec;
  spec.game = {"arena", TICKWIRE_VERSION, "The arena reference game: a ring with platforms and hitscan shots."};
  spec.add_options = [&nearest](host::GameOptions& options) {
    options.option("nearest", "Send each client only its nearest N entities; 0 sends all", nearest).range(0, 100000);
  };
<<<<<<< HEAD
  // The resident set is read from /proc, so not on every tick.
  Time next_rss = clock.now();
  server_app::MemoryTrimmer trimmer(Duration::seconds(10), clock.now());

  const Duration run_for = Duration::micros(static_cast<std::int64_t>(opt.duration_s * 1e6));
  const Time started = clock.now();
  std::vector<server::TickTiming> timings;
  while (g_signal.load() == 0) {
    const Time now = clock.now();
    if (run_for > Duration::zero() && now - started >= run_for) break;
    server.update(now);
    server.take_tick_timings(timings);
    stats.add_timings(timings);
    if (stats.due(now))
      stats.report(server.stats(), enet->validation_stats(), enet->wire_stats().value_or(transport::WireStats{}), now);
    if (metrics && !timings.empty()) {
      metrics->observe_ticks(timings);
      metrics->update(server.stats());
      if (now >= next_rss) {
        metrics->set_resident_bytes(server_app::resident_set_kb() * 1024);
        next_rss = now + Duration::seconds(1);
      }
    }
    while (auto event = server.poll_event()) on_event(*event);
    // Between ticks, so that a trim delays no tick's work.
    if (trimmer.due(now)) server_app::MemoryTrimmer::trim();
    server_app::wait_for_tick_or_traffic(*enet, clock, server.next_tick_time());
  }

  const int sig = g_signal.load();
  lifecycle.shutdown(sig == SIGTERM ? "sigterm" : sig == SIGINT ? "sigint" : "duration");
  // Asked first, so Agones stops routing players here while clients drain.
  if (agones) agones->request(server_app::AgonesAgent::Call::kShutdown);
  server.shutdown(clock.now());
  // Keep serving briefly so the disconnects reach the clients and their
  // acknowledgements come back; well inside the 2 s budget.
  const Time deadline = clock.now() + Duration::millis(300);
  for (Time now = clock.now(); deadline - now >= Duration::millis(1); now = clock.now()) {
    server.update(now);
    while (auto event = server.poll_event()) on_event(*event);
    enet->wait_for_traffic(std::min(deadline - now, Duration::millis(5)));
  }
  const auto s = server.stats();
  if (metrics) metrics->update(s);
  lifecycle.stopped(s);
  if (trainer) {
    if (auto ok = trainer->save(opt.train_codebook, game.schema()); !ok) {
      log->error("--train-codebook {}", ok.error().detail);
      return 1;
    }
    log->info("codebook trained on {} snapshots written to {}", trainer->packets(), opt.train_codebook);
  }
  // Bounded so SIGTERM still ends the process promptly without a sidecar.
  if (agones) agones->finish(std::chrono::milliseconds(1000));
  return 0;
=======
  spec.make_game = [&nearest](const host::ServerSettings& settings) {
    arena::GameConfig config;
    config.nearest_entities = nearest;
    config.max_rewind = settings.max_rewind;
    config.max_hittable = static_cast<std::uint32_t>(settings.max_clients);
    return std::make_unique<arena::Game>(config);
  };
  return host::run_server(argc, argv, spec);
>>>>>>> host
}
