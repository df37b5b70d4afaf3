#include "shutdown.h"

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <system_error>

#include "serve_loop.h"

namespace tickwire::host {
namespace {

// Keeps serving briefly so the disconnects reach the clients and their
// acknowledgements come back; well inside the 2 s budget.
void drain(Session& s) {
  server::Server& server = *s.server;
  server.shutdown(s.clock.now());
  const Time deadline = s.clock.now() + Duration::millis(300);
  for (Time now = s.clock.now(); deadline - now >= Duration::millis(1); now = s.clock.now()) {
    server.update(now);
    while (auto event = server.poll_event()) on_server_event(s, *event);
    s.enet->wait_for_traffic(std::min(deadline - now, Duration::millis(5)));
  }
}

bool write_trained_codebook(Session& s) {
  if (!s.trainer) return true;
  if (auto ok = s.trainer->save(s.opt.train_codebook, s.game.schema()); !ok) {
    s.log->error("--train-codebook {}", ok.error().detail);
    // The start-up check may have created the file empty; an empty file
    // left behind would look like a codebook to the next step of a pipeline.
    std::error_code ignored;
    if (s.codebook_probe_created && std::filesystem::file_size(s.opt.train_codebook, ignored) == 0) {
      std::filesystem::remove(s.opt.train_codebook, ignored);
    }
    return false;
  }
  s.log->info("codebook trained on {} snapshots written to {}", s.trainer->packets(), s.opt.train_codebook);
  return true;
}

}  // namespace

int stop_session(Session& s, int sig) {
  s.lifecycle->shutdown(sig == SIGTERM ? "sigterm" : sig == SIGINT ? "sigint" : "duration");
  // Asked first, so Agones stops routing players here while clients drain.
  if (s.agones) s.agones->request(AgonesAgent::Call::kShutdown);
  drain(s);
  const auto stats = s.server->stats();
  if (s.metrics) s.metrics->update(stats);
  note_agones(s);
  s.lifecycle->stopped(stats);
  const bool written = write_trained_codebook(s);
  // Bounded so SIGTERM still ends the process promptly without a sidecar;
  // the queued Shutdown is waited for even when the codebook failed.
  if (s.agones) s.agones->finish(std::chrono::milliseconds(1000));
  return written ? 0 : 1;
}

}  // namespace tickwire::host
