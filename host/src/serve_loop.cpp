#include "serve_loop.h"

#include <vector>

#include "memory.h"
#include "signals.h"

namespace tickwire::host {
namespace {

// A client's value in the Agones List: the id its connect token carried
// (the backend's own player id) when tokens are required, else the
// server's client id.
std::string agones_player_id(const server::ServerEvent& e) {
  return std::to_string(e.token_client_id ? *e.token_client_id : std::uint64_t{e.client});
}

void tell_agones(Session& s, const server::ServerEvent& e) {
  using Type = server::ServerEvent::Type;
  if (!s.agones) return;
  if (e.type == Type::kClientConnected) {
    const std::string id = agones_player_id(e);
    s.agones_players[e.client] = id;
    s.agones->player_joined(id);
    if (s.opt.agones_allocate_on_join && !s.allocated_on_join) {
      s.agones->request(AgonesAgent::Call::kAllocate);
      s.allocated_on_join = true;
    }
  } else if (e.type == Type::kClientDisconnected) {
    const auto it = s.agones_players.find(e.client);
    if (it == s.agones_players.end()) return;
    s.agones->player_left(it->second);
    s.agones_players.erase(it);
  }
}

}  // namespace

void on_server_event(Session& s, const server::ServerEvent& e) {
  s.lifecycle->client_event(e);
  if (s.metrics) s.metrics->count_event(e);
  tell_agones(s, e);
}

void note_agones(Session& s) {
  if (!s.agones) return;
  for (const auto seen = s.agones->allocations(); s.allocations_logged < seen; ++s.allocations_logged) {
    s.lifecycle->allocated();
  }
  if (s.metrics) s.metrics->update_agones(*s.agones);
}

int serve(Session& s) {
  server::Server& server = *s.server;
  // The resident set is read from /proc, so not on every tick.
  Time next_rss = s.clock.now();
  Time next_agones = s.clock.now();
  MemoryTrimmer trimmer(Duration::seconds(10), s.clock.now());
  const Duration run_for = Duration::micros(static_cast<std::int64_t>(s.opt.duration_s * 1e6));
  const Time started = s.clock.now();
  std::vector<server::TickTiming> timings;
  while (signal_received() == 0) {
    const Time now = s.clock.now();
    if (run_for > Duration::zero() && now - started >= run_for) break;
    server.update(now);
    server.take_tick_timings(timings);
    s.stats->add_timings(timings);
    if (s.stats->due(now)) {
      s.stats->report(server.stats(), s.enet->validation_stats(), s.enet->wire_stats().value_or(transport::WireStats{}),
                      now);
    }
    if (s.metrics && !timings.empty()) {
      s.metrics->observe_ticks(timings);
      s.metrics->update(server.stats());
      if (now >= next_rss) {
        s.metrics->set_resident_bytes(resident_set_kb() * 1024);
        next_rss = now + Duration::seconds(1);
      }
    }
    while (auto event = server.poll_event()) on_server_event(s, *event);
    if (now >= next_agones) {
      note_agones(s);
      next_agones = now + Duration::millis(100);
    }
    // Between ticks, so that a trim delays no tick's work.
    if (trimmer.due(now)) MemoryTrimmer::trim();
    wait_for_tick_or_traffic(*s.enet, s.clock, server.next_tick_time());
  }
  return signal_received();
}

}  // namespace tickwire::host
